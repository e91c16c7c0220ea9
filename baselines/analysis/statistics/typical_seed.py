"""The "typical seed" claim: exact sign tests and the order-statistic intervals they invert to.

Claim: arm a beats arm b on a typical seed, i.e. it wins on more of the
seeds where the two differ than it loses (P(D > 0) > P(D < 0) for the
per-seed paired difference D = a - b; without ties: the median of D is
above 0). Why this claim exists: a distribution-free interval for the *mean*
of rewards in [0, 1] cannot exclude 0 at 10 seeds even when a wins on all 10
(docs/statistics.md, "How tight a distribution-free bound can be"); the
sign test needs nothing but independent seeds, holds its size for any shape
and any n, and rejects at 10 of 10 seeds (p = 2/2^10).

Rules, and the mistake each prevents:
- Ties (D = 0 to a relative 1e-9) are dropped and the test is the exact
  binomial test *conditional* on the number of seeds that differ. Given m
  untied seeds the win count is Binomial(m, pi) with pi = P(D > 0 | D != 0),
  and pi <= 1/2 under H0, so the size is at most alpha for every m and
  every tie rate (0/1 rewards, where most seeds tie). Counting ties as half
  a win tests the same hypothesis but has no exact binomial null; counting
  them against the claim would make 0/1 rewards undecidable.
- The interval printed beside the verdict is the order-statistic interval
  for the median of the untied differences, at the level whose duality
  with the two-sided sign test is exact: it excludes 0 exactly when p <=
  alpha, so a decided pair never stands beside an interval through 0.
- The gate's form (`margin_sign_bounds`) is the unconditional one-sided
  test of H0: P(D > -M) <= 1/2 (the median loss is at least M); a seed
  exactly at -M counts against PASS (and against FAIL), so the bounds are
  order statistics of all n differences.
- Power is exact (binomial): a sign test's power depends on the win share
  only, so "would likely be missed" is a win share, not a difference.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import special as _special

def _binom_cdf(k, n: int, p: float):
    """P(K <= k), K ~ Binomial(n, p), as scipy.stats.binom.cdf gives it (0 below 0, 1 from n on).

    scipy.special's bdtr, not scipy.stats: importing scipy.stats costs about a second of CPU at the
    start of every `compare` (issue 38 measured it as most of a warm compare), and these tests need
    nothing else from it. bdtr itself is nan outside 0..n-1, hence the ends set here."""
    k = np.asarray(k, dtype=float)
    inside = _special.bdtr(np.clip(k, 0, max(n, 0)), n, p)
    out = np.where(k < 0, 0.0, np.where(k >= n, 1.0, inside))
    return out if out.ndim else float(out)


def _binom_sf(k, n: int, p: float):
    """P(K > k), as scipy.stats.binom.sf gives it (1 below 0, 0 from n on)."""
    k = np.asarray(k, dtype=float)
    inside = _special.bdtrc(np.clip(k, 0, max(n, 0)), n, p)
    out = np.where(k < 0, 1.0, np.where(k >= n, 0.0, inside))
    return out if out.ndim else float(out)


def _beta_ppf(q: float, a: float, b: float) -> float:
    """The q-quantile of Beta(a, b) (scipy.stats.beta.ppf), by the inverse regularised incomplete beta."""
    return float(_special.betaincinv(a, b, q))


TIE_RTOL = 1e-9        # |d| at most this fraction of max|d| (and of 1) is a tie

POWER = 0.8            # "would likely decide" / "would likely be missed" mean: power 0.8 at the level needed

METHOD = "exact sign test (ties dropped)"
INTERVAL_METHOD = "order statistics (median of untied differences)"
GATE_METHOD = "exact sign test on the median difference (typical seed)"


@dataclass(frozen=True)
class SignCounts:
    """Seeds where a - b is above, below and at the null value."""

    wins: int
    losses: int
    ties: int

    @property
    def untied(self) -> int:
        return self.wins + self.losses


@dataclass(frozen=True)
class TypicalResult:
    """The typical-seed claim on one pair: counts, exact p, median and win-share intervals."""

    counts: SignCounts
    p: float                              # two-sided exact sign-test p (ties dropped)
    median: float                         # median of the untied differences (0 when all tie)
    ci: tuple[float, float]               # order-statistic interval for that median, level 1 - alpha
    win_share: float                      # wins / untied
    win_share_ci: tuple[float, float]     # Clopper-Pearson, level 1 - alpha


def tie_tolerance(d: np.ndarray) -> float:
    """The tolerance below which a difference is a tie: relative to the data, never absolute."""
    top = float(np.max(np.abs(d))) if d.size else 0.0
    return TIE_RTOL * max(1.0, top)


def sign_counts(d, null: float = 0.0) -> SignCounts:
    """Wins (d > null), losses (d < null) and ties of paired differences; NaN differences are not counted."""
    d = np.asarray(d, dtype=float)
    d = d[np.isfinite(d)] - null
    tol = tie_tolerance(d)
    wins, losses = int((d > tol).sum()), int((d < -tol).sum())
    return SignCounts(wins, losses, int(d.size) - wins - losses)


def sign_test_p(wins: int, losses: int) -> float:
    """Two-sided exact sign-test p on the untied seeds: twice the smaller binomial tail (capped at 1)."""
    m = wins + losses
    if m == 0:
        return 1.0
    return float(min(1.0, 2.0 * _binom_cdf(min(wins, losses), m, 0.5)))


def one_sided_sign_p(successes: int, n: int) -> float:
    """P(Binomial(n, 1/2) >= successes): the exact p of H0 "P(success) <= 1/2"."""
    if n <= 0:
        return 1.0
    return float(_binom_sf(successes - 1, n, 0.5))


@functools.lru_cache(maxsize=8192)
def order_rank(n: int, tail: float) -> int:
    """Largest k >= 1 with P(Binomial(n, 1/2) <= k - 1) <= tail; 0 when none (no bound at this n).

    Then the k-th smallest of n values is a lower bound for their median
    at level 1 - tail (and the k-th largest an upper bound), for any
    distribution, continuous or not.
    """
    if n <= 0:
        return 0
    # cdf[j] = P(K <= j) <= tail holds for j = 0 .. J and fails above: find the first failing j.
    fails = lambda j: _special.bdtr(j.astype(float), n, 0.5) > tail * (1 + 1e-12)   # j in 0 .. n - 1
    guess = n / 2 + _z(tail) * math.sqrt(n) / 2
    first = _first_true(fails, 0, n - 1, guess, n)
    return n if first is None else first


def median_interval(values, level: float = 0.95) -> tuple[float, float]:
    """Distribution-free two-sided interval for the median of `values` (order statistics, exact)."""
    x = np.sort(np.asarray(values, dtype=float))
    k = order_rank(x.size, (1 - level) / 2)
    if k == 0:
        return -math.inf, math.inf
    return float(x[k - 1]), float(x[x.size - k])


def clopper_pearson(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval for a proportion (the win share among untied seeds)."""
    if n <= 0:
        return 0.0, 1.0
    a = (1 - level) / 2
    lo = 0.0 if successes == 0 else _beta_ppf(a, successes, n - successes + 1)
    hi = 1.0 if successes == n else _beta_ppf(1 - a, successes + 1, n - successes)
    return lo, hi


def typical_claim(d, level: float = 0.95) -> TypicalResult:
    """The typical-seed claim for paired differences d = a - b (see the module docstring)."""
    d = np.asarray(d, dtype=float)
    d = d[np.isfinite(d)]
    counts = sign_counts(d)
    tol = tie_tolerance(d)
    untied = d[np.abs(d) > tol]
    median, ci = _median_and_interval(untied, level) if untied.size else (0.0, (-math.inf, math.inf))
    share = counts.wins / counts.untied if counts.untied else math.nan
    return TypicalResult(counts, sign_test_p(counts.wins, counts.losses), median, ci, share,
                         clopper_pearson(counts.wins, counts.untied, level))


def _median_and_interval(untied: np.ndarray, level: float) -> tuple[float, tuple[float, float]]:
    """np.median(untied) and median_interval(untied, level), from one partition at the order statistics they read.

    Why not a sort and np.median's partition: a 100-arm compare's 99 pairs of
    10,000 seeds spent 0.037 s of its 0.2 s CPU on them (issue 38). The
    partition puts each of these ranks where a sort would, and the lower
    middle of an even count is the largest value left of the upper one, so
    the numbers are the same; an untied difference is never 0, so the mean
    of the two middle values is np.median's.
    """
    n = untied.size
    k = order_rank(n, (1 - level) / 2)
    half = n // 2
    x = np.partition(untied, [half] + ([k - 1, n - k] if k else []))
    median = float(x[half]) if n % 2 else float((x[:half].max() + x[half]) / 2)
    return median, ((float(x[k - 1]), float(x[n - k])) if k else (-math.inf, math.inf))


def typical_rows(d: np.ndarray, level: float = 0.95) -> list[TypicalResult]:
    """`typical_claim` for every row of a block of differences (rows with NaN use their finite entries)."""
    return [typical_claim(row, level) for row in np.atleast_2d(d)]


def min_sign_p(n: int) -> float:
    """The smallest two-sided p the sign test can give on n untied seeds (2 / 2^n)."""
    return 1.0 if n < 1 else min(1.0, math.ldexp(1.0, 1 - n))


def _first_true(cond, lo: int, hi: int, guess: float, n: int) -> int | None:
    """First j in lo..hi with cond(js)[j] true, cond monotone (false ... false true ... true); None if none.

    Evaluates a window of one standard deviation (and 8 counts) either side of Binomial(n, 1/2) around `guess` first,
    and the whole range only when that window does not bracket the switch, so the answer is the
    one a whole-range evaluation gives (issue 38: `seeds_to_decide` evaluated the whole range for
    every n up to its cap of 2,000, 0.7 s of every compare)."""
    if hi < lo:
        return None
    half = int(math.sqrt(n) / 2) + 8
    a, b = max(lo, int(guess) - half), min(hi, int(guess) + half)
    if a <= b:
        js = np.arange(a, b + 1)
        ok = np.flatnonzero(cond(js))
        inside = ok.size and (a == lo or ok[0] > 0) and (b == hi or ok[-1] == js.size - 1)
        if inside and ok[-1] - ok[0] + 1 == ok.size:
            return int(js[ok[0]])
        if not ok.size and b == hi and a > lo and not cond(np.arange(lo, a)).any():
            return None
    js = np.arange(lo, hi + 1)
    ok = np.flatnonzero(cond(js))
    return int(js[ok[0]]) if ok.size else None


_Z = {}


def _z(tail: float) -> float:
    """The normal quantile at a lower tail (only to place the search window; never decides)."""
    if tail not in _Z:
        _Z[tail] = float(_special.ndtri(min(max(tail, 1e-300), 0.5)))
    return _Z[tail]


@functools.lru_cache(maxsize=8192)
def critical_wins(n: int, level: float) -> int | None:
    """Fewest wins of n untied seeds whose two-sided p is at most `level`; None when no count reaches it."""
    if n < 1:
        return None
    # k wins is significant when k > n - k and 2 P(K <= n - k) <= level: monotone in k over k > n/2.
    # n - k is in 0 .. n - 1 there, where _binom_cdf is bdtr itself (no clipping): called directly.
    cond = lambda k: 2 * _special.bdtr((n - k).astype(float), n, 0.5) <= level * (1 + 1e-12)
    guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2
    return _first_true(cond, n // 2 + 1, n, guess, n)


def sign_power(n: int, share: float, level: float) -> float:
    """Exact power of the two-sided sign test at `level` on n untied seeds won with probability `share` (> 1/2)."""
    c = critical_wins(n, level)
    if c is None:
        return 0.0
    return float(_binom_sf(c - 1, n, share))


def detectable_share(n: int, level: float, power: float = POWER) -> float | None:
    """Smallest win share the sign test finds with probability `power` at `level` on n untied seeds.

    "A typical-seed advantage below this would likely be missed": exact, the
    decision procedure's own figure (the verdict is this test).
    """
    c = critical_wins(n, level)
    if c is None:
        return None
    lo, hi = 0.5, 1.0
    if _binom_sf(c - 1, n, hi) < power:
        return None
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _binom_sf(c - 1, n, mid) < power else (lo, mid)
    return hi


def seeds_to_decide(share: float, level: float, power: float = POWER, cap: int = 2000) -> int | None:
    """Fewest untied seeds at which a true win share `share` is decided with probability `power` (exact).

    `sign_power` for n = 1 .. cap as array work: the critical counts of all
    n at once (`critical_wins_upto`) and one bdtrc call for their powers,
    the same numbers as n calls (issue 38: the scan to the cap was 0.1 s of
    a million-run compare when a pair's share is near 1/2).
    """
    if not (math.isfinite(share) and share > 0.5):
        return None
    if share >= 1.0:
        share = 1.0
    c = critical_wins_upto(cap, level)
    n = np.arange(1, cap + 1, dtype=np.int64)
    k = (c - 1).astype(float)
    inside = _special.bdtrc(np.clip(k, 0, n), n, share)
    powers = np.where(c > 0, np.where(k < 0, 1.0, np.where(k >= n, 0.0, inside)), 0.0)
    hits = np.flatnonzero(powers >= power)
    return int(hits[0]) + 1 if hits.size else None


@functools.lru_cache(maxsize=64)
def critical_wins_upto(cap: int, level: float) -> np.ndarray:
    """`critical_wins(n, level)` for n = 1 .. cap (index n - 1; 0 where none), read-only.

    Each n's count is bracketed in a window of five counts around the normal
    guess, all n in one bdtr call: the count is the first k where the
    condition holds when the k before it fails (or is n // 2, outside the
    search) -- the condition is monotone in k. An n whose window does not
    bracket its switch goes to `critical_wins` itself. Tested equal to
    `critical_wins` for every n up to 2,000 at the levels a comparison uses.
    """
    n = np.arange(1, cap + 1, dtype=np.int64)
    lo, hi = n // 2 + 1, n
    guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)
    offsets = np.arange(-2, 3)
    ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"
    nn = np.broadcast_to(n[:, None], ks.shape)
    with np.errstate(invalid="ignore"):
        cond = 2 * _special.bdtr((nn - ks).astype(float), nn, 0.5) <= level * (1 + 1e-12)
    cond &= ks >= lo[:, None]                    # k = lo - 1 stands for "no count below lo": never significant
    switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 1)
    found = switch.any(axis=1)
    first = np.where(found, ks[:, 1:][np.arange(cap), switch.argmax(axis=1)], 0)
    at_lo = cond[:, 0] & (ks[:, 0] == lo)        # the window starts at lo and lo already qualifies
    first = np.where(at_lo, lo, first)
    out = first.astype(np.int64)
    for i in np.flatnonzero(~(found | at_lo)).tolist():
        out[i] = critical_wins(i + 1, level) or 0
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class MarginBounds:
    """The gate's typical-seed bounds: order statistics of all n differences (one-sided, each at 1 - alpha)."""

    median: float
    lower: float
    upper: float
    above: int        # seeds with d > -margin
    below: int        # seeds with d < -margin
    n: int
    p_pass: float     # exact p of H0 "median difference <= -margin" (P(D > -M) <= 1/2)
    p_fail: float     # exact p of H0 "median difference >= -margin"


def margin_sign_bounds(d, margin: float, alpha: float) -> MarginBounds:
    """One-sided order-statistic bounds on the median paired difference, and the exact tests behind them.

    PASS (lower > -margin) exactly when P(Binomial(n, 1/2) >= #(d > -M))
    <= alpha; FAIL (upper < -margin) likewise for #(d < -M). A seed at
    exactly -M counts for neither, so both tests stay exact.
    """
    d = np.sort(np.asarray(d, dtype=float)[np.isfinite(np.asarray(d, dtype=float))])
    n = d.size
    k = order_rank(n, alpha)
    lower = float(d[k - 1]) if k else -math.inf
    upper = float(d[n - k]) if k else math.inf
    tol = tie_tolerance(d + margin) if n else 0.0
    above, below = int((d + margin > tol).sum()), int((d + margin < -tol).sum())
    median = float(np.median(d)) if n else math.nan
    return MarginBounds(median, lower, upper, above, below, n, one_sided_sign_p(above, n),
                        one_sided_sign_p(below, n))


def margin_seeds_to_decide(share: float, alpha: float, power: float = POWER, cap: int = 2000) -> int | None:
    """Fewest seeds at which the one-sided margin sign test at alpha has `power` when P(D > -M) = share."""
    if not (math.isfinite(share) and share > 0.5):
        return None
    share = min(share, 1.0)
    for n in range(1, cap + 1):
        k = order_rank(n, alpha)
        if k and _binom_sf(n - k, n, share) >= power:   # need at least n - k + 1 seeds above
            return n
    return None
