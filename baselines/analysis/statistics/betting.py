"""Distribution-free bounds for the mean of bounded values: confidence sequences by betting.

Why: on pass/fail rewards or accuracy over a few questions a Student-t
interval can have zero width (all differences equal) or cover far less than
its nominal level, and a gate built on it PASSes a regression at the margin
far more often than alpha. If every value lies in a known range [lo, hi],
the betting confidence sequence of Waudby-Smith and Ramdas (JRSS-B 2024,
"hedged capital") covers the mean with probability at least 1 - alpha for
*any* distribution in the range, and at every sample size at once, so a
sequential gate may look after every new seed without spending alpha.

Mechanics: for each candidate mean m a gambler bets on x_i - m with a
predictable stake lambda_i (it uses only x_1..x_{i-1}); the capital
prod(1 + lambda_i (x_i - m)) is a nonnegative supermartingale when the true
mean is m, so by Ville's inequality it exceeds 1/alpha with probability at
most alpha. The confidence set is the set of m whose capital stayed below
1/alpha; bounds are read on a grid and rounded outwards (never narrower).
Pure numpy, no I/O.
"""
from __future__ import annotations

import math

import numpy as np

STAKE_CAP = 0.9  # c in Waudby-Smith & Ramdas: lambda <= c/m (resp. c/(1-m)) keeps capital positive;
                 # any c < 1 is valid, 0.9 gave the gate the most power in docs/calibration.md (0.5: none at n = 40)


def _stakes(x: np.ndarray, alpha: float, planned_n: int) -> np.ndarray:
    """Predictable stakes lambda_i (before the m-dependent cap), from the running variance.

    `x` is (..., n) in [0, 1]. lambda_i = sqrt(2 log(1/alpha) / (planned_n * var_{i-1})):
    the fixed-sample tuning of WSR section 3; any predictable choice keeps
    validity, this one only decides the width.
    """
    n = x.shape[-1]
    t = np.arange(1, n + 1)
    csum = np.cumsum(x, axis=-1)
    mu = (0.5 + csum) / (t + 1)                                  # mu_hat_t
    prev_mu = np.concatenate((np.full(x.shape[:-1] + (1,), 0.5), mu[..., :-1]), axis=-1)
    var = (0.25 + np.cumsum((x - prev_mu) ** 2, axis=-1)) / (t + 1)   # sigma_hat^2_t
    prev_var = np.concatenate((np.full(x.shape[:-1] + (1,), 0.25), var[..., :-1]), axis=-1)
    return np.sqrt(2 * math.log(1 / alpha) / (max(planned_n, 1) * prev_var))


def _log_capital(x: np.ndarray, grid: np.ndarray, lam: np.ndarray, side: int) -> np.ndarray:
    """Running log capital, shape (rows, n, G), of the bet on x > m (side=+1) or x < m (side=-1).

    `x` and `lam` are (rows, n); `grid` is (rows, G) candidate means, one set per row.
    """
    g = grid[:, None, :]
    cap = STAKE_CAP / (g if side > 0 else 1 - g)
    stake = np.minimum(lam[..., None], cap)
    return np.cumsum(np.log1p(side * stake * (x[..., None] - g)), axis=-2)


def mean_bounds(x, alpha: float, lo: float = 0.0, hi: float = 1.0, planned_n: int | None = None,
                side: str = "both") -> tuple[float, float]:
    """One-sided bounds at level 1 - alpha each for the mean of values in [lo, hi].

    side="both" returns (lower, upper), each holding with probability 1 - alpha
    (so together a 1 - 2 alpha interval); valid at every prefix of `x` too
    (running intersection), whatever the distribution inside [lo, hi].
    """
    v = np.asarray(x, dtype=float)
    if hi <= lo or not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"reward range must be finite with lo < hi, got [{lo}, {hi}]")
    if v.size == 0:
        return lo, hi
    if v.min() < lo - 1e-12 * (hi - lo) or v.max() > hi + 1e-12 * (hi - lo):
        raise ValueError(f"values outside the declared range [{lo:g}, {hi:g}] "
                         f"(min {v.min():g}, max {v.max():g})")
    u = np.clip((v - lo) / (hi - lo), 0.0, 1.0)
    low, up = _bounds01(u[None, :], alpha, planned_n or u.size)
    lower = lo + float(low[0]) * (hi - lo)
    upper = lo + float(up[0]) * (hi - lo)
    return (lower if side in ("both", "lower") else lo, upper if side in ("both", "upper") else hi)


def _bounds01(u: np.ndarray, alpha: float, planned_n: int, levels: tuple[int, int] = (64, 64)) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper one-sided bounds (alpha each) for rows of `u` in [0, 1] (vectorised over rows).

    The capital betting on "mean above m" only falls as m grows, so the m
    rejected at some prefix (running intersection) form an interval [0, L):
    a coarse grid brackets L and a fine grid inside the bracket locates it;
    the bound is the last rejected grid point (rounded outwards, never
    narrower). Resolution 1/4096 of the range.
    """
    rows, n = u.shape
    lam = _stakes(u, alpha, planned_n)
    threshold = math.log(1 / alpha)
    coarse, fine = levels
    out = []
    for side in (+1, -1):
        lo = np.zeros(rows)
        hi = np.ones(rows)
        for size in (coarse, fine):
            # interior points of [lo, hi] per row
            grid = lo[:, None] + (hi - lo)[:, None] * (np.arange(1, size + 1) / (size + 1))[None, :]
            grid = np.clip(grid, 1e-9, 1 - 1e-9)
            rejected = _rejected(u, grid, lam, side, threshold)             # (rows, size)
            if side > 0:    # rejected = below the mean: a prefix of the grid
                k = np.sum(np.cumprod(rejected, axis=1), axis=1)            # rejected points before the first kept
                new_lo = np.where(k > 0, grid[np.arange(rows), np.maximum(k - 1, 0)], lo)
                new_hi = np.where(k < size, grid[np.arange(rows), np.minimum(k, size - 1)], hi)
            else:           # rejected = above the mean: a suffix of the grid
                k = np.sum(np.cumprod(rejected[:, ::-1], axis=1), axis=1)
                new_hi = np.where(k > 0, grid[np.arange(rows), np.minimum(size - k, size - 1)], hi)
                new_lo = np.where(k < size, grid[np.arange(rows), np.maximum(size - 1 - k, 0)], lo)
            lo, hi = new_lo, new_hi
        # lower bound: the last m known rejected (lo); upper bound: the first m known rejected (hi)
        out.append(lo if side > 0 else hi)
    low, up = out
    return np.clip(low, 0.0, 1.0), np.clip(up, 0.0, 1.0)


def _rejected(u: np.ndarray, grid: np.ndarray, lam: np.ndarray, side: int, threshold: float) -> np.ndarray:
    """(rows, G): capital reached 1/alpha at some prefix, in row chunks of bounded memory."""
    rows, n = u.shape
    step = max(1, 4_000_000 // (n * grid.shape[1]))
    return np.concatenate([(_log_capital(u[s:s + step], grid[s:s + step], lam[s:s + step], side)
                            >= threshold).any(axis=-2) for s in range(0, rows, step)], axis=0)


def diff_bounds(diffs, alpha: float, reward_range: tuple[float, float], planned_n: int | None = None) -> tuple[float, float]:
    """One-sided bounds (alpha each) for the mean paired difference of rewards in `reward_range`.

    A difference of two rewards in [lo, hi] lies in [-(hi - lo), hi - lo].
    """
    lo, hi = reward_range
    w = hi - lo
    return mean_bounds(diffs, alpha, -w, w, planned_n)


def diff_bounds_many(diffs: np.ndarray, alpha: float, width: float, planned_n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`diff_bounds` for many rows of differences at once (simulation and many pairs)."""
    d = np.asarray(diffs, dtype=float)
    return mean_bounds_many(d, alpha, np.full(d.shape[0], -width), np.full(d.shape[0], width), planned_n)


def mean_bounds_many(x: np.ndarray, alpha: float, lo: np.ndarray, hi: np.ndarray,
                     planned_n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`mean_bounds` for many rows of equal length at once, row i's values in [lo[i], hi[i]] (no range check)."""
    x = np.asarray(x, dtype=float)
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    width = hi - lo
    u = np.clip((x - lo[:, None]) / width[:, None], 0.0, 1.0)
    low, up = _bounds01(u, alpha, planned_n or x.shape[1])
    return lo + low * width, lo + up * width
