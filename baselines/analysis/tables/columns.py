"""Array kernels over columns sorted by (group, arm, seed): medians, counts and codes.

Why sorted columns: a million runs become a few numpy calls per arm instead
of a Python object per run, and a results file with ten thousand groups is
sorted once and sliced, not masked once per group.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd


def small_int(top: int) -> type:
    """The narrowest signed integer type holding 0..top (codes kept per row: a million rows of int64 are 8 MB)."""
    for dtype in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def sorted_codes(column: pd.Series) -> tuple[list[str], np.ndarray]:
    """Category names in sorted order and each row's index into them (no strings per row), in the narrowest
    integer type that holds them (issue 38: per-row codes of a million runs).

    The categories in use are counted (a bincount), not found by np.unique's
    hash of every row; when every category is in use and already in name
    order (the reader's usual frame), each code is its rank and is returned
    as it is, without a gather over the rows.
    """
    codes = column.cat.codes.to_numpy()
    categories = len(column.cat.categories)
    used = np.flatnonzero(np.bincount(codes, minlength=categories)) if codes.size and codes.min() >= 0 \
        else np.unique(codes)
    names = np.asarray(column.cat.categories.astype(str))[used]
    order = np.argsort(names, kind="stable")
    dtype = small_int(len(used))
    if len(used) == categories and codes.dtype == dtype and np.array_equal(order, np.arange(len(used))):
        return [str(n) for n in names], codes
    rank = np.empty(int(codes.max()) + 1 if codes.size else 0, dtype=dtype)
    rank[used[order]] = np.arange(len(used))
    return [str(n) for n in names[order]], np.take(rank, codes)


def run_bounds(sorted_keys: np.ndarray) -> np.ndarray:
    """Start positions of each run of equal keys, plus the end: [0, ..., len]."""
    if sorted_keys.size == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.diff(sorted_keys)) + 1
    return np.concatenate(([0], starts, [sorted_keys.size])).astype(np.int64)


def arm_medians(values: np.ndarray, bounds: np.ndarray, complete: bool = False) -> np.ndarray:
    """Median per arm of a column sorted by arm (NaN = unreported, skipped).

    When every arm has as many runs the column is one (arms x runs) block and
    a single partition computes every median. `complete`: the caller knows
    the column has no NaN, so it is not looked for again.
    """
    sizes = np.diff(bounds)
    if len(sizes) and sizes.min() == sizes.max() and sizes[0] > 0:
        block = values.reshape(len(sizes), int(sizes[0]))
        return block_medians(block) if complete else nanmedian(block, axis=1)
    return np.array([nanmedian(values[a:b][None, :], axis=1)[0] if b > a else np.nan
                     for a, b in zip(bounds[:-1], bounds[1:])])


def medians_of(columns: list[np.ndarray], bounds: np.ndarray, complete: list[bool] | None = None
               ) -> list[np.ndarray]:
    """`arm_medians` of several columns, one after the other (`complete[k]`: column k has no NaN).

    No thread pool: the target is CPU, not wall time, and two threads cost
    more CPU in total than one (a million-run compare's five medians: 0.059 s
    with two threads, 0.056 s serial, before the pool's start-up; issue 38).
    """
    complete = complete or [False] * len(columns)
    return [arm_medians(values, bounds, whole) for values, whole in zip(columns, complete)]


def arm_sums(mask: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Count of True in each segment [bounds[i], bounds[i + 1]) of a boolean column sorted by arm.

    Few long segments (a million runs of a hundred arms) are summed by
    `np.add.reduceat`, without the cumulative sum's two int64 copies of the
    column (16 MB per million rows, ten times the time: issue 38); many short
    segments keep the cumulative sum, which is faster there.
    """
    starts = bounds[:-1]
    if mask.size == 0 or starts.size == 0 or starts.size * 16 > mask.size:
        counts = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
        return counts[bounds[1:]] - counts[bounds[:-1]]
    sizes = np.diff(bounds)
    column = mask[:int(bounds[-1])]
    if (sizes > 0).all():
        return np.add.reduceat(column, starts, dtype=np.int64)
    out = np.zeros(starts.size, dtype=np.int64)
    nonempty = sizes > 0
    if nonempty.any():   # an empty segment would be summed as its start's element: only non-empty ones go in
        out[nonempty] = np.add.reduceat(column, starts[nonempty], dtype=np.int64)
    return out


def nanmedian(block: np.ndarray, axis: int) -> np.ndarray:
    nan = np.isnan(block)
    if not nan.any():
        return block_medians(block) if axis == 1 else np.median(block, axis=axis)
    if nan.all():
        return np.full(block.shape[0], np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN arm: unreported, handled by the caller
        return np.nanmedian(block, axis=axis)


def block_medians(block: np.ndarray) -> np.ndarray:
    """`np.median(block, axis=1)` of a float block without NaN: the same numbers.

    Why not always np.median: a column of whole numbers (tokens, calls) or
    of few decimals (rewards to 4 places, seconds to 3) is, exactly, int32
    numbers q over a scale s (`_whole_numbers`, `_decimal_ints`), selected as
    int32 (half the bytes, about 0.6x the time) or, when they take few
    distinct values (calls, rollouts, seconds), counted (a quarter of the
    time): a million-run compare's medians (issue 38). q orders the block as
    its values do and each value is q / s, so the two middle values are
    values of the block and (lower + upper) / 2 is np.median's mean of them;
    -0.0 is the one value int32 cannot keep (np.median's mean turns a pair of
    them into +0.0), so a block holding it goes to np.median.
    """
    n = block.shape[1] if block.ndim == 2 else 0
    part, scale = (_whole_numbers(block), 1.0) if n and block.size and block.dtype == np.float64 else (None, 1.0)
    if part is None and n and block.size and block.dtype == np.float64:
        part, scale = _decimal_ints(block)
    if part is None or _negative_zero(block):
        return np.median(block, axis=1)
    half = n // 2
    middle = _counted_ranks(part, half) if n % 2 else _counted_ranks(part, half - 1, half)
    if middle is None:
        part.partition(half if n % 2 else [half - 1, half], axis=1)
        middle = (part[:, half],) if n % 2 else (part[:, half - 1], part[:, half])
    values = [m.astype(np.float64) / scale for m in middle]    # each the block's own value (scale 1: as is)
    return values[0] if n % 2 else (values[0] + values[1]) / 2


def _decimal_ints(block: np.ndarray) -> tuple[np.ndarray | None, float]:
    """(q, s): int32 q with q / s equal to every value of `block`, s = 10**d for the fewest decimals d (1 to
    6) a sample of it needs; (None, 1.0) when none does.

    Why q orders the block as its values do: q / s == v for every value, and
    dividing by s > 0 never reverses an order, so v1 < v2 forces q1 < q2.
    Checked on every value, so a value with more decimals, an infinity or
    one beyond int32 sends the block to np.median.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        sample = block.ravel()[:256]
        for decimals in range(1, 7):
            scale = float(10 ** decimals)
            if (np.rint(sample * scale).astype(np.int32) / scale == sample).all():
                break
        else:
            return None, 1.0
        q = block * scale
        np.rint(q, out=q)
        ints = q.astype(np.int32)
        del q
        return (ints, scale) if (ints / scale == block).all() else (None, 1.0)


def _counted_ranks(ints: np.ndarray, *ranks: int) -> tuple[np.ndarray, ...] | None:
    """Each row's value at each 0-based rank, from counts of its values; None when the values span more
    bins (rows x (max - min + 1)) than a quarter of the block's entries, where selecting is cheaper.
    Overwrites `ints` (the caller's private copy) with the bin numbers, unless it returns None."""
    lo, hi = int(ints.min()), int(ints.max())
    span = hi - lo + 1
    rows = ints.shape[0]
    if span * rows > ints.size // 4 or span * rows >= 2**31:   # the bins' numbers stay in int32
        return None
    keys = ints
    keys -= np.int32(lo)                            # 0 .. span - 1, then one range of bins per row
    keys += (np.arange(rows, dtype=np.int32) * np.int32(span))[:, None]
    below = np.bincount(keys.ravel(), minlength=rows * span).reshape(rows, span).cumsum(axis=1)
    return tuple(lo + (below > rank).argmax(axis=1) for rank in ranks)   # first value with more than rank below


def _negative_zero(block: np.ndarray) -> bool:
    zeros = block == 0
    return bool(zeros.any() and np.signbit(block[zeros]).any())


def _whole_numbers(block: np.ndarray) -> np.ndarray | None:
    """An int32 copy of `block` when every value is a whole number that int32 holds exactly, else None.

    No range check first: a value int32 cannot hold casts to some int32,
    which cannot equal it, so the comparison refuses it. A sample is tried
    first, so a column of fractions (rewards, seconds) costs no full cast.
    """
    with np.errstate(invalid="ignore"):
        sample = block.ravel()[:256]
        if not (sample.astype(np.int32) == sample).all():
            return None
        ints = block.astype(np.int32)
    return ints if (ints == block).all() else None


def distinct_part(values: np.ndarray) -> np.ndarray:
    """`values` with each broadcast (stride-0) axis cut to one entry: all that `any()` or `all()` of it reads.

    Why: a column no run sets (failed, partial flags, dev_reward, declared
    ranges) is one value broadcast to a million rows, and a whole-column
    isnan or any() of it walked them all (issue 38).
    """
    return values[tuple(slice(0, 1) if step == 0 else slice(None) for step in values.strides)]


def all_none(values: np.ndarray) -> bool:
    """Whether every entry of an object column is None, read from the stored pointers: no Python call per row.

    Why: pandas' isna looks at a million objects one by one (8 ms a column
    on 2026-12-06; a compare asks of the code and nouns columns, nearly
    always all None: issue 38). A column no run sets is one broadcast value
    (`distinct_part`: one entry read); any other is read as the pointers it
    holds (0.2 ms a million, 3.3 ms where it must be copied to be
    contiguous), as in CPython id(None) is None's address. Other
    interpreters compare entry by entry.
    """
    if values.dtype != object:
        return False
    values = distinct_part(values)
    if sys.implementation.name != "cpython":
        return all(v is None for v in values.ravel().tolist())
    pointers = np.frombuffer(memoryview(np.ascontiguousarray(values).reshape(-1)), dtype=np.uintp)
    return bool((pointers == id(None)).all())


def relative(values: np.ndarray, reference: float) -> np.ndarray:
    """(value - reference) / |reference|; a zero reference makes any positive value infinitely over."""
    if reference == 0:
        return np.where(values > 0, np.inf, 0.0)
    return (values - reference) / abs(reference)
