"""The interval printed for a paired difference, and how it was computed.

Bounded rewards get the distribution-free betting interval (t covered 82% on
binary rewards at n = 3); unbounded differences at 4 <= n <= 50 get the hull
of the t and a seeded bootstrap-t interval (t alone covered 82-87% on
lognormal differences), beyond that the hull only when the sample is skewed,
and Student t beyond n = 500. docs/calibration.md has the simulation behind
each choice.
"""
from __future__ import annotations

import math

import numpy as np

from .betting import diff_bounds, diff_bounds_many
from .bootstrap import bootstrap_t_interval, bootstrap_t_many, sample_skewness
from .student_t import t_interval, t_quantile

SKEW_MIN_N, SKEW_MAX_N = 4, 500  # bootstrap-t only where it helps (n >= 4) and t's skew error matters
HULL_ALWAYS_MAX_N = 50    # up to here every unbounded pair interval is the t + bootstrap-t hull: choosing
                          # by sample skewness missed skewed samples that looked symmetric (lognormal
                          # coverage .87 at n = 5 instead of .90); price on normal data: 1.67x the t
                          # width at n = 5, 1.12x at n = 10, 1.05x at n = 20 (docs/calibration.md)
SKEW_THRESHOLD = 0.5      # beyond HULL_ALWAYS_MAX_N: |sample skewness| above which the hull is used
HULL = "t + bootstrap-t hull (skew-robust)"


def pair_interval(d, level: float = 0.95, reward_range: tuple[float, float] | None = None,
                  seed: int = 0) -> tuple[float, float, str]:
    """Interval for the mean paired difference and its method name (see the module docstring).

    Never a zero-width interval presented as a confidence statement: bounded
    rewards get the betting interval (wide when n is small, as it must be);
    unbounded differences that are all equal get a note from the caller.
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    alpha = 1 - level
    if reward_range is not None:
        lo, hi = diff_bounds(d, alpha / 2, reward_range)
        return lo, hi, f"betting (distribution-free, rewards in [{reward_range[0]:g}, {reward_range[1]:g}])"
    mean, lo, hi = t_interval(d, level)
    if _use_hull(n, sample_skewness(d)):
        blo, bhi = bootstrap_t_interval(d, level, seed)
        return min(lo, blo), max(hi, bhi), HULL
    return lo, hi, "t"


def _use_hull(n: int, skew: float) -> bool:
    return SKEW_MIN_N <= n <= HULL_ALWAYS_MAX_N or (
        HULL_ALWAYS_MAX_N < n <= SKEW_MAX_N and abs(skew) > SKEW_THRESHOLD)


def block_intervals(d: np.ndarray, mean: np.ndarray, sd: np.ndarray, level: float,
                     reward_range, seed: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`pair_interval` for every row of a block of differences, as array work where it can be."""
    rows, n = d.shape
    if n < 2:
        return np.full(rows, np.nan), np.full(rows, np.nan), ["t"] * rows
    if reward_range is not None:
        lo, hi = diff_bounds_many(d, (1 - level) / 2, reward_range[1] - reward_range[0])
        how = f"betting (distribution-free, rewards in [{reward_range[0]:g}, {reward_range[1]:g}])"
        return lo, hi, [how] * rows
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    lo, hi = mean - half, mean + half
    hows = ["t"] * rows
    if SKEW_MIN_N <= n <= SKEW_MAX_N:
        c = d - mean[:, None]
        m2 = np.mean(c * c, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            skew = np.where(m2 > 0, np.mean(c ** 3, axis=1) / m2 ** 1.5, 0.0)
        skewed = np.nonzero([_use_hull(n, g) for g in skew])[0]
        if skewed.size:
            blo, bhi = bootstrap_t_many(d[skewed], level, seed)
            lo[skewed], hi[skewed] = np.minimum(lo[skewed], blo), np.maximum(hi[skewed], bhi)
            for r in skewed:
                hows[r] = HULL
    return lo, hi, hows
