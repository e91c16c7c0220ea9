"""Sign-flip and permutation tests: exact for any distribution under "the arms are exchangeable".

Why: the t test alone decides from a zero-width interval on 0/1 rewards
(p = 0 for [1,1,1] vs [0,0,0]) and gave 21% family-wise false alarms on
binary rewards at n = 3. Pure numpy; seeded Monte Carlo where enumeration is
too big, so the same inputs and seed give the same p, byte for byte.
"""
from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations

import numpy as np
from scipy import special as _special

EXACT_MAX_N = 14          # full enumeration: 2**14 sign patterns (fewer than the Monte Carlo draws)

MONTE_CARLO_MAX_N = 1000  # seeded Monte Carlo sign flips up to here (and beyond for heavy tails)

MONTE_CARLO_DRAWS = 20000 # Monte Carlo error on p is at most ~0.0035

HEAVY_TAIL_RATIO = 3.0    # mean|d|^3 / mean(d^2)^1.5 above this: no normal limit (normal data: 1.6)

MONTE_CARLO_WORK = 2e8    # draws x n cap for the heavy-tailed Monte Carlo beyond MONTE_CARLO_MAX_N

TIE_RTOL = 1e-9           # sign-flip sums within this fraction of sum|d| count as ties
# Beyond MONTE_CARLO_MAX_N the sign-flip distribution (variance sum d^2) is
# used through its normal limit when the differences are not heavy-tailed
# (Berry-Esseen: the error scales with mean|d|^3 / mean(d^2)^1.5 / sqrt(n));
# heavy-tailed differences stay on seeded Monte Carlo, where the normal
# limit was off by a factor of 6.


def min_exact_p(n: int) -> float:
    """Smallest two-sided p an exact sign-flip test can give with n pairs."""
    return 1.0 if n < 1 else min(1.0, math.ldexp(1.0, 1 - n))  # 2 / 2**n, underflows to 0


def sign_flip_p(diffs, seed: int = 0) -> tuple[float, str]:
    """Two-sided sign-flip p-value of paired differences, and how it was computed.

    Differences taking only the values {-c, 0, c} (0/1 rewards) get the exact
    McNemar test on the discordant pairs (the same distribution, in closed
    form, at any n); otherwise exact enumeration of all 2**n sign patterns up
    to n = 14, a seeded Monte Carlo (with the +1 correction, so p is never 0)
    up to n = 1000 and beyond for heavy-tailed differences, and the normal
    limit beyond for the rest. Ties are judged with a tolerance *relative* to
    the data (an absolute 1e-9 made sign_flip_p([1e-10] * 10) equal 1).
    """
    d = np.asarray(diffs, dtype=float)
    p, methods = sign_flip_rows(d[None, :], seed)
    return float(p[0]), methods[0]


def _heavy_tailed(d: np.ndarray) -> np.ndarray:
    """Rows whose mean|d|^3 / mean(d^2)^1.5 exceeds HEAVY_TAIL_RATIO (normal limit unreliable).

    |d|^3 is d * d * |d|, not np.abs(d) ** 3: numpy's power costs 50-130 ms
    per million values against a few ms for products, and the ratio is only
    compared with HEAVY_TAIL_RATIO (issue 38).
    """
    power = d * d
    m2 = np.mean(power, axis=1)
    power *= np.abs(d)
    m3 = np.mean(power, axis=1)
    del power
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m2 > 0, m3 / m2 ** 1.5, 0.0) > HEAVY_TAIL_RATIO


def _mcnemar(d: np.ndarray) -> np.ndarray:
    """Exact two-sided p for rows taking values in {-c, 0, c}: binomial on the discordant pairs."""
    pos = np.sum(d > 0, axis=1)
    neg = np.sum(d < 0, axis=1)
    k = pos + neg
    top = np.maximum(pos, neg)
    # P(Bin(k, 1/2) >= top) = bdtrc(top - 1, k, 0.5); two-sided, capped at 1
    tail = np.where(top > 0, _special.bdtrc(top - 1, k, 0.5), 1.0)
    return np.where(k == 0, 1.0, np.minimum(1.0, np.where(pos == neg, 1.0, 2 * tail)))


def _three_valued(d: np.ndarray, magnitudes: np.ndarray | None = None) -> np.ndarray:
    """Rows whose nonzero values all share one magnitude (0/1 rewards: differences -1, 0, 1).

    `magnitudes` is np.abs(d) when the caller has it; it is overwritten
    (one temporary the size of d, not three: issue 38, peak memory).
    """
    a = np.abs(d) if magnitudes is None else magnitudes
    top = a.max(axis=1)
    limit = TIE_RTOL * top[:, None]
    nonzero = a > limit
    a -= top[:, None]
    close = np.abs(a, out=a) <= limit
    close |= ~nonzero
    return np.all(close, axis=1)


@lru_cache(maxsize=32)
def _all_signs(n: int) -> np.ndarray:
    """All 2**n sign patterns as a (2**n, n) float matrix (shared by every pair of one n)."""
    bits = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    return (1 - 2 * bits).astype(float)


def _draw_signs(n: int, seed: int, draws: int) -> np.ndarray:
    """`draws` seeded rows of n random signs (+1/-1)."""
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 2, size=(draws, n), dtype=np.int8) * 2 - 1).astype(float)


_cached_signs = lru_cache(maxsize=16)(_draw_signs)


def _random_signs(n: int, seed: int, draws: int) -> np.ndarray:
    """Seeded sign draws, cached when small enough to keep (the same n recurs across a group's pairs)."""
    return _cached_signs(n, seed, draws) if n * draws <= 4_000_000 else _draw_signs(n, seed, draws)


def sign_flip_rows(d: np.ndarray, seed: int = 0, x: np.ndarray | None = None,
                   first: np.ndarray | None = None, second: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
    """`sign_flip_p` for every row of a (pairs x n) matrix, sharing one sign matrix.

    One sign matrix per n (all patterns, or seeded draws from `seed`) is used
    for every row, so the cost is one matrix product instead of a loop per
    pair; each row's p is still a valid p-value (Holm needs nothing more).
    When the rows are differences of arms (`d[r] = x[first[r]] - x[second[r]]`)
    the signs are applied once per *arm* (signs @ x.T) and each pair's sums are
    a subtraction: k arms cost k products, not k^2 / 2.
    """
    d = np.atleast_2d(np.asarray(d, dtype=float))
    rows, n = d.shape
    if n == 0:
        return np.ones(rows), ["none"] * rows
    p = np.empty(rows)
    methods = [""] * rows
    observed = np.abs(d.sum(axis=1))
    magnitudes = np.abs(d)
    tol = TIE_RTOL * magnitudes.sum(axis=1)
    binary = _three_valued(d, magnitudes)
    del magnitudes
    if binary.any():
        p[binary] = _mcnemar(d[binary])
        for r in np.nonzero(binary)[0]:
            methods[r] = "exact McNemar"
    rest = np.nonzero(~binary)[0]
    if rest.size == 0:
        return p, methods
    if n > MONTE_CARLO_MAX_N:
        rest = _normal_limit_rows(d, rest, observed, p, methods)
        if rest.size == 0:
            return p, methods
    signs, label, draws = _sign_patterns(n, seed)
    _flip_p(d, rest, observed, tol, signs, draws, p, x, first, second)
    for r in rest:
        methods[r] = label
    return p, methods


def _normal_limit_rows(d: np.ndarray, rest: np.ndarray, observed: np.ndarray, p: np.ndarray,
                       methods: list[str]) -> np.ndarray:
    """Fill p for long rows that are not heavy-tailed by the normal limit; return the rows still to flip."""
    every = rest.size == d.shape[0]     # every row: d itself, not a copy of it
    heavy = _heavy_tailed(d if every else d[rest])
    normal = rest[~heavy]
    scale = np.sqrt(np.sum((d if normal.size == d.shape[0] else d[normal]) ** 2, axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        p[normal] = np.where(scale > 0, 2 * _special.ndtr(-observed[normal] / scale), 1.0)
    for r in normal:
        methods[r] = "normal-limit"
    return rest[heavy]


def _sign_patterns(n: int, seed: int) -> tuple[np.ndarray, str, int | None]:
    """(signs, label, draws): every pattern up to EXACT_MAX_N, else seeded draws sized to a bounded amount of work."""
    if n <= EXACT_MAX_N:
        return _all_signs(n), "exact", None
    draws = MONTE_CARLO_DRAWS if n <= MONTE_CARLO_MAX_N else int(max(2000, min(MONTE_CARLO_DRAWS,
                                                                             MONTE_CARLO_WORK // n)))
    return _random_signs(n, seed, draws), "monte-carlo", draws


def _flip_p(d: np.ndarray, rest: np.ndarray, observed: np.ndarray, tol: np.ndarray, signs: np.ndarray,
            draws: int | None, p: np.ndarray, x: np.ndarray | None, first: np.ndarray | None,
            second: np.ndarray | None) -> None:
    """Fill p for `rest` by counting sign patterns at least as extreme, in blocks (per arm when `x` is given)."""
    n = d.shape[1]
    per_arm = None
    if x is not None and rest.size > x.shape[0]:
        centred = x - x.mean(axis=0)                                 # per-seed centring: less cancellation
        per_arm = np.ascontiguousarray((signs @ centred.T).T)        # (arms, patterns), rows contiguous
        scale = np.abs(centred).sum(axis=1)
        tol = tol.copy()
        tol[rest] += 1e-12 * (scale[first[rest]] + scale[second[rest]])   # rounding of the subtraction
    step = max(1, int((4e7 if per_arm is None else 2e6) // (signs.shape[0] * max(n if per_arm is None else 1, 1))))
    for s in range(0, rest.size, step):   # blocks of pairs: temporaries stay small (cache, memory)
        block = rest[s:s + step]
        if per_arm is None:
            sums = np.abs(signs @ d[block].T).T                     # (block, patterns)
        else:
            sums = per_arm[first[block]]
            sums -= per_arm[second[block]]
            np.abs(sums, out=sums)
        hits = np.count_nonzero(sums >= (observed[block] - tol[block])[:, None], axis=1)
        p[block] = hits / signs.shape[0] if draws is None else (hits + 1) / (draws + 1)


def permutation_p(xa: np.ndarray, xb: np.ndarray, seed: int) -> float:
    """Two-sided permutation p of a difference of means for arms that share no seeds (exact when small)."""
    if xa.size == 0 or xb.size == 0:
        return math.nan
    pooled = np.concatenate((xa, xb))
    observed = abs(xa.mean() - xb.mean())
    # relative tolerance: ties are judged on the scale of the data, not in absolute units
    tol = TIE_RTOL * max(float(np.abs(pooled).max()), float(observed))
    na = xa.size
    if math.comb(pooled.size, na) <= 50000:
        idx = np.array(list(combinations(range(pooled.size), na)))
        sa = pooled[idx].sum(axis=1)
        stat = np.abs(sa / na - (pooled.sum() - sa) / xb.size)
        return float(np.mean(stat >= observed - tol))
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(MONTE_CARLO_DRAWS // 1000):
        perms = rng.permuted(np.tile(pooled, (1000, 1)), axis=1)
        stat = np.abs(perms[:, :na].mean(axis=1) - perms[:, na:].mean(axis=1))
        hits += int(np.count_nonzero(stat >= observed - tol))
    return (hits + 1) / (MONTE_CARLO_DRAWS + 1)
