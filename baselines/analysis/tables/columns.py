"""Array kernels over columns sorted by (group, arm, seed): medians, counts and codes.

Why sorted columns: a million runs become a few numpy calls per arm instead
of a Python object per run, and a results file with ten thousand groups is
sorted once and sliced, not masked once per group.
"""
from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

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
    integer type that holds them (issue 38: per-row codes of a million runs)."""
    codes = column.cat.codes.to_numpy()
    used = np.unique(codes)
    names = np.asarray(column.cat.categories.astype(str))[used]
    order = np.argsort(names, kind="stable")
    rank = np.empty(int(codes.max()) + 1 if codes.size else 0, dtype=small_int(len(used)))
    rank[used[order]] = np.arange(len(used))
    return [str(n) for n in names[order]], rank[codes]


def run_bounds(sorted_keys: np.ndarray) -> np.ndarray:
    """Start positions of each run of equal keys, plus the end: [0, ..., len]."""
    if sorted_keys.size == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.diff(sorted_keys)) + 1
    return np.concatenate(([0], starts, [sorted_keys.size])).astype(np.int64)


def arm_medians(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Median per arm of a column sorted by arm (NaN = unreported, skipped).

    When every arm has as many runs the column is one (arms x runs) block and
    a single partition computes every median.
    """
    sizes = np.diff(bounds)
    if len(sizes) and sizes.min() == sizes.max() and sizes[0] > 0:
        return nanmedian(values.reshape(len(sizes), int(sizes[0])), axis=1)
    return np.array([nanmedian(values[a:b][None, :], axis=1)[0] if b > a else np.nan
                     for a, b in zip(bounds[:-1], bounds[1:])])


def medians_of(columns: list[np.ndarray], bounds: np.ndarray) -> list[np.ndarray]:
    """`arm_medians` of several columns; on large groups two threads share the work.

    Selection (numpy's partition) releases the GIL, and per-arm medians of a
    million-row group are most of a comparison's time, so both cores help.
    """
    if len(columns) > 1 and bounds[-1] >= 200_000:
        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(lambda values: arm_medians(values, bounds), columns))
    return [arm_medians(values, bounds) for values in columns]


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
        return np.median(block, axis=axis)  # one partition for the whole block
    if nan.all():
        return np.full(block.shape[0], np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN arm: unreported, handled by the caller
        return np.nanmedian(block, axis=axis)


def relative(values: np.ndarray, reference: float) -> np.ndarray:
    """(value - reference) / |reference|; a zero reference makes any positive value infinitely over."""
    if reference == 0:
        return np.where(values > 0, np.inf, 0.0)
    return (values - reference) / abs(reference)
