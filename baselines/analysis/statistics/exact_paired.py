"""An exact unconditional non-inferiority test for paired 0/1 outcomes, and its dual bounds.

Why: with pass/fail rewards per seed, each seed is one of four outcomes
(candidate, baseline) in {0,1}^2, and the difference of success rates is
delta = p10 - p01 (p10: the candidate passed where the baseline failed).
The distribution-free betting bound is valid for any distribution in [-1, 1]
and far wider than needed for this one family; a t bound is not valid at
all (all five differences 0 is a zero-width interval). This test is exact
for the family: for H0 delta <= delta0 it orders the outcomes by the
restricted-score statistic of Tango (1998) / Nam (1997) and takes the
*worst case* of the tail probability over the nuisance parameter p01
(Chan-Zhang style), so its size is at most alpha at every p01.

The bounds are the duals of the test: the lower bound is the largest
delta0 whose H0 "delta <= delta0" is rejected (bisection), the upper bound
the mirror image. A gate that PASSes on `lower > -margin` and prints
[lower, upper] therefore prints the interval of the test that decided.
Exact enumeration is O(n^2) outcomes; beyond `EXACT_MAX_N` seeds callers
use the betting bounds.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import special

EXACT_MAX_N = 60         # enumeration: 1,891 outcomes x the nuisance grid; about a second for both bounds at 60
NUISANCE_GRID = 160      # points over the nuisance range (then a refinement around the worst)
BISECTION_STEPS = 16     # bound resolution 2 / 2**16 (printed to 4 significant digits)
# Outcomes whose statistic equals the observed one are at least as extreme, but equal statistics computed
# along different float paths differ by a few ulp. Checked in 60 digits at every delta0 the bisection can
# visit and every 0.001 margin, n <= 60 (benchmarks/mutation_equivalent/exact_paired_edges.py): 5,775 ties
# with float gaps up to 9.9e-14 (relative), none left out; 5 distinct statistics (gaps from 2.1e-13)
# counted as ties, each p-value unchanged to the last bit. The window errs towards a tie: one left out
# makes p too small (an invalid test), one let in too large. 1e-9 was too wide: it let in outcomes less
# extreme than the observed one, most of all at the bisection's old points, 1e-9 from the round values
# where ties happen (p 0.344 for 0.237 at five wins and three losses in eight seeds, delta0 = -0.125 +
# 5.6e-10); the bisection now runs on dyadic points.
TIE_RTOL = 1e-12


@lru_cache(maxsize=64)
def _outcomes(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (x10, x01, xc) with sum n and its log multinomial coefficient."""
    x10, x01 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = x10 + x01 <= n
    x10, x01 = x10[keep].astype(float), x01[keep].astype(float)
    xc = n - x10 - x01
    logc = special.gammaln(n + 1) - special.gammaln(x10 + 1) - special.gammaln(x01 + 1) - special.gammaln(xc + 1)
    return x10, x01, xc, logc


def score_statistic(x10, x01, n: int, delta0: float) -> np.ndarray:
    """Tango's restricted-score Z for H0 delta = delta0 (large Z: evidence that delta > delta0).

    The restricted MLE of p01 under p10 = p01 + delta0 solves
    2n p^2 - B p - C = 0 (B, C below); Var(x10 - x01) = n (2 p01 + delta0 - delta0^2).
    """
    x10, x01 = np.asarray(x10, dtype=float), np.asarray(x01, dtype=float)
    xc = n - x10 - x01
    d = delta0
    b = x10 * (1 - d) + x01 * (1 - 3 * d) - 2 * xc * d
    c = x01 * d * (1 - d)
    p01 = (b + np.sqrt(np.maximum(b * b + 8 * n * c, 0.0))) / (4 * n)
    p01 = np.clip(p01, max(0.0, -d), (1 - d) / 2)
    var = n * (2 * p01 + d - d * d)
    num = x10 - x01 - n * d
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 1e-15, num / np.sqrt(np.maximum(var, 1e-300)),
                     np.where(num > 0, np.inf, np.where(num < 0, -np.inf, 0.0)))
    return z


def _tail_sup(n: int, delta0: float, reject: np.ndarray) -> float:
    """max over the nuisance p01 of P(outcome in `reject`) when p10 = p01 + delta0."""
    x10, x01, xc, logc = _outcomes(n)
    x10, x01, xc, logc = x10[reject], x01[reject], xc[reject], logc[reject]
    if x10.size == 0:
        return 0.0
    lo, hi = max(0.0, -delta0), (1 - delta0) / 2
    if hi <= lo:
        grid = np.array([lo])
    else:
        grid = np.linspace(lo, hi, NUISANCE_GRID)
    best = _tail(x10, x01, xc, logc, grid, delta0)
    k = int(np.argmax(best))
    if grid.size > 1:   # refine between the neighbours of the worst grid point
        step = grid[1] - grid[0]
        fine = np.linspace(max(lo, grid[k] - step), min(hi, grid[k] + step), 41)
        return float(max(best[k], _tail(x10, x01, xc, logc, fine, delta0).max()))
    return float(best[k])


def _tail(x10, x01, xc, logc, grid: np.ndarray, delta0: float) -> np.ndarray:
    p01 = grid[None, :]
    p10 = np.maximum(p01 + delta0, 0.0)
    pc = np.maximum(1 - p01 - p10, 0.0)
    logp = (logc[:, None] + special.xlogy(x10[:, None], p10) + special.xlogy(x01[:, None], p01)
            + special.xlogy(xc[:, None], pc))
    return np.minimum(np.exp(logp).sum(axis=0), 1.0)


def at_least_as_extreme(z_all: np.ndarray, z_obs: float) -> np.ndarray:
    """The outcomes whose statistic is at least the observed one, ties to TIE_RTOL (an infinite z_obs exactly)."""
    if not math.isfinite(z_obs):
        return z_all >= z_obs
    return z_all >= z_obs - TIE_RTOL * max(1.0, abs(z_obs))


@lru_cache(maxsize=8192)
def ni_pvalue(x10: int, x01: int, n: int, delta0: float) -> float:
    """Exact unconditional p-value of H0: delta <= delta0 against delta > delta0 (worst case over p01)."""
    if n <= 0:
        return 1.0
    if delta0 <= -1:
        return 0.0
    if delta0 >= 1:
        return 1.0
    x10s, x01s, _, _ = _outcomes(n)
    z_all = score_statistic(x10s, x01s, n, delta0)
    z_obs = float(score_statistic(np.array([x10]), np.array([x01]), n, delta0)[0])
    return _tail_sup(n, delta0, at_least_as_extreme(z_all, z_obs))


@lru_cache(maxsize=4096)
def lower_bound(x10: int, x01: int, n: int, alpha: float) -> float:
    """The largest delta0 whose H0 "delta <= delta0" the exact test rejects at alpha (-1 when none is)."""
    floor = -1.0 + 1e-9   # the least delta0 the test is asked about (-1 itself rejects nothing: no delta is below)
    if ni_pvalue(x10, x01, n, floor) > alpha:
        return -1.0
    lo, hi = -1.0, 1.0   # midpoints k / 2**j exactly: round values, where ties are ties (TIE_RTOL)
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        if ni_pvalue(x10, x01, n, mid) <= alpha:
            lo = mid
        else:
            hi = mid
    return max(lo, floor)


def paired_binary_counts(diffs) -> tuple[int, int, int]:
    """(x10, x01, n) of paired 0/1 differences: +1 candidate only, -1 baseline only, 0 concordant."""
    d = np.asarray(diffs, dtype=float)
    return int(np.sum(d > 0.5)), int(np.sum(d < -0.5)), int(d.size)


def exact_bounds(diffs, alpha: float) -> tuple[float, float]:
    """One-sided bounds (alpha each) on delta = mean of paired 0/1 differences, duals of the exact test."""
    x10, x01, n = paired_binary_counts(diffs)
    lower = lower_bound(x10, x01, n, alpha)
    upper = -lower_bound(x01, x10, n, alpha)
    return lower, upper


def exact_decision(diffs, margin: float, alpha: float) -> tuple[bool, bool, float, float]:
    """(reject "delta <= -margin", reject "delta >= -margin", lower, upper) for paired 0/1 differences.

    The rejections are the tests at -margin themselves; the bounds are their
    duals, clamped so that a rejection always shows as a bound beyond -margin
    (bisection cannot invert a test that is not monotone in delta0 exactly).
    """
    x10, x01, n = paired_binary_counts(diffs)
    passes = ni_pvalue(x10, x01, n, -margin) <= alpha
    fails = ni_pvalue(x01, x10, n, margin) <= alpha
    lower, upper = exact_bounds(diffs, alpha)
    eps = 1e-9
    if passes and lower <= -margin:
        lower = -margin + eps
    if not passes and lower > -margin:
        lower = -margin
    if fails and upper >= -margin:
        upper = -margin - eps
    if not fails and upper < -margin:
        upper = -margin
    return passes, fails, lower, upper
