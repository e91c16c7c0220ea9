"""Bootstrap intervals: the seeded bootstrap-t behind the skew-robust hull, and the secondary percentile one.

Why: on skewed differences Student t under-covers (0.82-0.87 on lognormal
differences at n = 5-20); the studentized bootstrap corrects much of that.
The percentile bootstrap is secondary only (it under-covers at small n) and
always says so. Every resample is seeded: the same inputs give the same
interval.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..compare.pair_result import PairResult

BOOTSTRAP_T_DRAWS = 2000  # seeded bootstrap-t resamples for the skew-robust interval


def sample_skewness(d) -> float:
    """The moment skewness of `d` (0 for fewer than 3 values or no spread)."""
    d = np.asarray(d, dtype=float)
    if d.size < 3:
        return 0.0
    c = d - d.mean()
    m2 = float(np.mean(c * c))
    return float(np.mean(c ** 3) / m2 ** 1.5) if m2 > 0 else 0.0


def bootstrap_t_interval(d, level: float = 0.95, seed: int = 0,
                         draws: int = BOOTSTRAP_T_DRAWS) -> tuple[float, float]:
    """Equal-tailed studentized (bootstrap-t) interval, seeded; resamples with no spread count as infinite t.

    On lognormal differences the hull of this and the t interval covered
    0.90-0.93 at n = 5-20 where t alone covered 0.82-0.87 (docs/calibration.md).
    """
    lo, hi = bootstrap_t_many(np.asarray(d, dtype=float)[None, :], level, seed, draws)
    return float(lo[0]), float(hi[0])


def bootstrap_t_many(d: np.ndarray, level: float = 0.95, seed: int = 0,
                     draws: int = BOOTSTRAP_T_DRAWS) -> tuple[np.ndarray, np.ndarray]:
    """`bootstrap_t_interval` for every row of `d`, with one shared set of seeded resample indices.

    At small n the draws repeat a few resamples (n = 5 has 126 distinct ones
    among 2,000 draws), so each distinct resample's t is computed once and the
    order statistics are read off the weighted sort: the same draws and the
    same interval ends, without sorting 2,000 values per row.
    """
    rows, n = d.shape
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1) if n >= 2 else np.zeros(rows)
    lo, hi = mean.copy(), mean.copy()
    if n < 2:
        return lo, hi
    counts, weights = _resample_patterns(n, seed, draws)              # (patterns, n), shared by every row
    k_lo = int(math.floor((1 - level) / 2 * (draws - 1)))
    k_hi = int(math.ceil((1 + level) / 2 * (draws - 1)))
    se = sd / math.sqrt(n)
    step = max(1, 2_000_000 // len(counts))                           # rows per chunk: bounded memory
    for s0 in range(0, rows, step):
        block = slice(s0, s0 + step)
        centred = d[block] - mean[block, None]                         # sums of squares without cancellation
        mb = centred @ counts.T / n                                    # resample mean minus the mean
        var = np.maximum(((centred * centred) @ counts.T - n * mb * mb) / (n - 1), 0.0)
        sb = np.sqrt(var)
        tiny = 1e-7 * np.abs(centred).max(axis=1, keepdims=True)      # a resample of one repeated value
        with np.errstate(divide="ignore", invalid="ignore"):
            t = mb / (sb / math.sqrt(n))
        t = np.where(sb > tiny, t, np.where(mb >= 0, np.inf, -np.inf))
        t_lo, t_hi = _order_statistics(t, weights, (k_lo, k_hi))
        ok = sd[block] > 0
        with np.errstate(invalid="ignore"):   # inf * 0 where sd = 0: replaced by the mean below
            lo[block] = np.where(ok, mean[block] - t_hi * se[block], mean[block])
            hi[block] = np.where(ok, mean[block] - t_lo * se[block], mean[block])
    return lo, hi


def _order_statistics(t: np.ndarray, weights: np.ndarray | None, ks: tuple[int, ...]) -> list[np.ndarray]:
    """The k-th smallest of each row of `t` when column j stands for `weights[j]` equal draws (None: one each)."""
    if weights is None:
        t = np.sort(t, axis=1)
        return [t[:, k] for k in ks]
    order = np.argsort(t, axis=1)
    ranked = np.take_along_axis(t, order, axis=1)
    below = np.cumsum(weights[order], axis=1)                          # draws at or below each sorted value
    rows = np.arange(t.shape[0])
    return [ranked[rows, np.argmax(below > k, axis=1)] for k in ks]


@lru_cache(maxsize=64)
def _resample_patterns(n: int, seed: int, draws: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The distinct rows of `_resample_counts` and how many draws each stands for (None: all rows, one each)."""
    counts = _resample_counts(n, seed, draws)
    patterns, weights = np.unique(counts, axis=0, return_counts=True)
    if 2 * len(patterns) > draws:
        return counts, None
    return patterns, weights


@lru_cache(maxsize=64)
def _resample_counts(n: int, seed: int, draws: int) -> np.ndarray:
    """How often each of n values appears in each seeded bootstrap resample (draws x n)."""
    idx = np.random.default_rng(seed).integers(0, n, size=(draws, n))
    flat = (np.arange(draws)[:, None] * n + idx).ravel()
    return np.bincount(flat, minlength=draws * n).reshape(draws, n).astype(float)


def add_bootstrap(pairs: list[PairResult], arms: list[str], matrix, level: float = 0.95, seed: int = 0,
                  draws: int = 10000) -> None:
    """Attach a paired percentile bootstrap interval to each paired result (after `decide`).

    Seeded per pair, so the same inputs give the same intervals; the small-n
    warning is added to the pair's notes, where every output shows it.
    """
    x = np.asarray(matrix, dtype=float)
    index = {a: i for i, a in enumerate(arms)}
    for k, pair in enumerate(pairs):
        if not pair.paired:
            continue
        a, b = x[index[pair.a]], x[index[pair.b]]
        both = ~np.isnan(a) & ~np.isnan(b)
        lo, hi, warning = paired_bootstrap_ci(a[both] - b[both], level, draws, seed * 1000003 + k)
        pair.bootstrap_ci = (lo, hi)
        if warning:
            pair.notes.append(warning)


def paired_bootstrap_ci(diffs, level: float = 0.95, draws: int = 10000, seed: int = 0) -> tuple[float, float, str | None]:
    """Percentile bootstrap of the mean paired difference, reproducible from `seed`.

    Secondary only: at small n it under-covers (about 0.71-0.81 at n = 3-5),
    so a warning string is returned whenever n < 10.
    """
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if n < 2:
        return (math.nan, math.nan, "bootstrap needs at least 2 seeds")
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, n, size=(draws, n))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    warning = (f"bootstrap intervals under-cover at n={n} (about 71-90% for nominal 95% at n=3-10); "
               "use the t interval") if n < 10 else None
    return (float(lo), float(hi), warning)
