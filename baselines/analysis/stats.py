"""Paired statistics that stay honest at 3-10 seeds.

Pure functions on arrays; no I/O. The choices, and the mistake each prevents:

- A verdict needs BOTH the paired t test and the exact sign-flip test
  (on 0/1 rewards: the exact McNemar test on discordant pairs) to reject,
  after Holm: the t test alone decides from a zero-width interval on 0/1
  rewards (p = 0 for [1,1,1] vs [0,0,0]) and gave 21% family-wise false
  alarms on binary rewards at n = 3; the sign-flip test is exact for any
  distribution under "the arms are exchangeable". `PairResult.method` names
  the test whose p decided (the larger of the two).
- The interval depends on what the rewards are (`interval_method`): bounded
  rewards (a declared `reward_range`, or every reward 0 or 1) get the
  distribution-free betting interval (`baselines.analysis.betting`), since t covers
  82% on binary rewards at n = 3; unbounded differences at 4 <= n <= 50 get
  the hull of the t and a seeded bootstrap-t interval (t alone covered
  82-87% on lognormal differences), beyond that the hull only when the
  sample is skewed, and Student t beyond n = 500. docs/calibration.md has
  the simulation behind each choice.
- The verdict never says "equal". Not rejecting is "no difference detected"
  with the minimum detectable effect (noncentral t, so it has the stated
  power), or "underpowered" when n < 3 or when no outcome of the exact test
  could reach alpha at this n (with 5 seeds the smallest two-sided sign-flip
  p is 0.0625, so no pair decides at n <= 5).
- With many arms, p-values are Holm-adjusted within a comparison group so the
  family-wise false-alarm rate stays at alpha.
- Randomised parts (Monte Carlo sign flips, bootstrap) take an explicit seed:
  the same inputs and seed give the same numbers, byte for byte.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

import numpy as np
from scipy import special as _special

from .alpha import check_alpha
from .betting import diff_bounds, diff_bounds_many, mean_bounds

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
BOOTSTRAP_T_DRAWS = 2000  # seeded bootstrap-t resamples for the skew-robust interval
SKEW_MIN_N, SKEW_MAX_N = 4, 500  # bootstrap-t only where it helps (n >= 4) and t's skew error matters
HULL_ALWAYS_MAX_N = 50    # up to here every unbounded pair interval is the t + bootstrap-t hull: choosing
                          # by sample skewness missed skewed samples that looked symmetric (lognormal
                          # coverage .87 at n = 5 instead of .90); price on normal data: 1.67x the t
                          # width at n = 5, 1.12x at n = 10, 1.05x at n = 20 (docs/calibration.md)
SKEW_THRESHOLD = 0.5      # beyond HULL_ALWAYS_MAX_N: |sample skewness| above which the hull is used

NO_DIFFERENCE = "no difference detected"
UNDERPOWERED = "underpowered"
EQUIVALENT = "equivalent"


def t_quantile(q: float, df: float) -> float:
    """Student-t quantile (scipy.special ufunc: microseconds, not a distribution object)."""
    return float(_special.stdtrit(df, q))


def _t_sf(x: float, df: float) -> float:
    return float(_special.stdtr(df, -x))


# -- one sample ---------------------------------------------------------------
def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t interval of `values` (NaN bounds when n < 2)."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if n < 2:
        return (mean, math.nan, math.nan)
    half = float(t_quantile(0.5 + level / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return (mean, mean - half, mean + half)


def format_level(level: float) -> str:
    """A confidence level as a percentage that never rounds up to "100%" (or down to "0%").

    Two significant digits of the miss probability: 0.95 -> "95%", 0.975 ->
    "97.5%", 0.99995 -> "99.995%". Printing 100% claimed certainty the
    bounds do not have.
    """
    miss = 1.0 - float(level)
    if not 0 < miss < 1:
        return f"{level:.0%}"
    digits = max(0, -int(math.floor(math.log10(miss * 100))) + 1)
    text = f"{math.floor(level * 100 * 10 ** digits) / 10 ** digits:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def min_exact_p(n: int) -> float:
    """Smallest two-sided p an exact sign-flip test can give with n pairs."""
    return 1.0 if n < 1 else min(1.0, math.ldexp(1.0, 1 - n))  # 2 / 2**n, underflows to 0


def min_detectable_effect(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The effect a two-sided paired t test at `alpha` finds with probability `power` (noncentral t).

    The shortcut (t(1-a/2) + t(power)) sd / sqrt(n) had power .77 at n = 3 and
    .79 at n = 5; this solves the noncentral-t power equation instead.
    """
    if n < 2 or not math.isfinite(sd):
        return math.inf
    return float(mde_factor(n, alpha, power) * sd)


@lru_cache(maxsize=4096)
def mde_factor(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """delta / sd at which P(|T| > t(1-a/2, n-1)) = power, T noncentral t with ncp delta sqrt(n) / sd."""
    if n < 2:
        return math.inf
    df = n - 1
    crit = t_quantile(1 - alpha / 2, df)

    def power_at(ncp: float) -> float:
        return float(1 - _special.nctdtr(df, ncp, crit) + _special.nctdtr(df, ncp, -crit))

    lo, hi = 0.0, (crit + t_quantile(power, df)) * 4 + 10
    for _ in range(80):   # bisection: power is increasing in ncp
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if power_at(mid) < power else (lo, mid)
    return hi / math.sqrt(n)


# -- sign-flip permutation test --------------------------------------------------
def t_seeds_to_clear(sd: float, distance: float, alpha: float, cap: int = 10000) -> int | None:
    """The fewest seeds at which a one-sided t bound with this spread would lie `distance` from the mean.

    One search for the gate's "seeds that would decide" (per-seed and clustered by question): it steps
    by one up to 100 seeds, then by 10%, so a hopeless case stops after a bounded number of quantiles.
    """
    n = 2
    while n <= cap:
        if t_quantile(1 - alpha, n - 1) * sd / math.sqrt(n) < distance:
            return n
        n = n + 1 if n < 100 else int(n * 1.1)
    return None


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
    """Rows whose mean|d|^3 / mean(d^2)^1.5 exceeds HEAVY_TAIL_RATIO (normal limit unreliable)."""
    m2 = np.mean(d * d, axis=1)
    m3 = np.mean(np.abs(d) ** 3, axis=1)
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


def _three_valued(d: np.ndarray) -> np.ndarray:
    """Rows whose nonzero values all share one magnitude (0/1 rewards: differences -1, 0, 1)."""
    a = np.abs(d)
    top = a.max(axis=1)
    nonzero = a > TIE_RTOL * top[:, None]
    return np.all(~nonzero | (np.abs(a - top[:, None]) <= TIE_RTOL * top[:, None]), axis=1)


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
    tol = TIE_RTOL * np.abs(d).sum(axis=1)
    binary = _three_valued(d)
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
    heavy = _heavy_tailed(d[rest])
    normal = rest[~heavy]
    scale = np.sqrt(np.sum(d[normal] ** 2, axis=1))
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


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as given)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


# -- a pair of arms ------------------------------------------------------------
@dataclass
class PairResult:
    """Arm a minus arm b on one metric. `verdict` is filled after Holm.

    `method` names the test whose p-value decided (see `decide`), and
    `interval_method` how `ci` was computed; `p_decide` is the p-value
    Holm adjusts (the larger of the t and sign-flip p for paired arms).
    """

    a: str
    b: str
    n: int
    diff: float
    ci: tuple[float, float]
    p: float                  # sign-flip (paired) or permutation (unpaired) p-value
    p_method: str
    p_t: float                # t-test p-value
    sd: float
    paired: bool
    mde: float
    p_adjusted: float = math.nan
    verdict: str = ""
    equivalent: bool = False
    notes: list[str] = field(default_factory=list)
    bootstrap_ci: tuple[float, float] | None = None   # secondary; under-covers at small n
    interval_method: str = "t"
    method: str = ""
    p_decide: float = math.nan
    reward_range: tuple[float, float] | None = None
    family: str = ""          # the pairs Holm adjusted together ("all 21 pairs", "6 pairs against base")
    items: int | None = None  # paired items behind a seed-clustered pair (None: per-seed statistics)

    def __post_init__(self) -> None:
        if not math.isfinite(self.p_decide):
            self.p_decide = _decision_p(self.p, self.p_t, self.paired)
        if not self.method:
            self.method = _decision_method(self.p, self.p_method, self.p_t, self.paired)

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "n": self.n, "diff": _num(self.diff),
                "ci": [_num(self.ci[0]), _num(self.ci[1])], "interval_method": self.interval_method,
                "p": _num(self.p), "p_method": self.p_method, "p_t": _num(self.p_t),
                "p_decide": _num(self.p_decide), "method": self.method,
                "p_adjusted": _num(self.p_adjusted), "paired": self.paired,
                "mde": _num(self.mde), "verdict": self.verdict, "notes": list(self.notes),
                "family": self.family, "items": self.items,
                **({"reward_range": list(self.reward_range)} if self.reward_range is not None else {}),
                **({"bootstrap_ci": [_num(self.bootstrap_ci[0]), _num(self.bootstrap_ci[1])]}
                   if self.bootstrap_ci is not None else {})}


def _num(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def _decision_p(p: float, p_t: float, paired: bool) -> float:
    """The p-value a verdict needs below alpha (after Holm): both tests must reject.

    Taking the larger p is valid whenever either test is: on normal noise the
    t test, on any exchangeable pair (0/1, skewed, ties) the sign-flip test.
    """
    ps = [x for x in (p, p_t) if x is not None and math.isfinite(x)]
    return max(ps) if ps else math.nan


def _decision_method(p: float, p_method: str, p_t: float, paired: bool) -> str:
    name = "Welch t" if not paired else "paired t"
    if not math.isfinite(p_t):
        return p_method
    if not math.isfinite(p):
        return name
    return p_method if p >= p_t else name


def parse_reward_range(value, where: str = "reward_range") -> tuple[float, float] | None:
    """A declared `reward_range` ([lo, hi] from a suite workload or a record) as a tuple, or None.

    ValueError with one line naming `where` when it is not two finite numbers lo < hi.
    """
    if value is None:
        return None
    ok = isinstance(value, (list, tuple)) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    if not ok or not value[0] < value[1]:
        raise ValueError(f"{where}: reward_range must be [lo, hi], two finite numbers with lo < hi, got {value!r}")
    return (float(value[0]), float(value[1]))


def usable_range(values, declared) -> tuple[float, float] | None:
    """A group's declared range when it can back a distribution-free interval: lo < hi and every value inside.

    (A metric other than the reward, e.g. an AUC with a start value outside
    the range, may leave it; then the range says nothing about these values.)
    """
    if declared is None:
        return None
    try:
        lo, hi = float(declared[0]), float(declared[1])
    except (TypeError, ValueError, IndexError):
        return None
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi) or (v.size and (v.min() < lo or v.max() > hi)):
        return None
    return (lo, hi)


#: the range of rewards that are all 0 or 1 (pass/fail), when no range is declared
PASS_FAIL_RANGE = (0.0, 1.0)


def detect_range(xa, xb, reward_range=None) -> tuple[float, float] | None:
    """The reward range that makes distribution-free intervals possible, or None.

    A declared `reward_range` [lo, hi] wins (values outside it are an error);
    otherwise rewards that are all 0 or 1 are pass/fail and bounded by [0, 1].
    """
    values = np.concatenate((np.asarray(xa, dtype=float).ravel(), np.asarray(xb, dtype=float).ravel()))
    values = values[~np.isnan(values)]
    if reward_range is not None:
        lo, hi = (float(reward_range[0]), float(reward_range[1]))
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"reward_range must be two finite numbers lo < hi, got {list(reward_range)}")
        if values.size and (values.min() < lo or values.max() > hi):
            raise ValueError(f"rewards outside the declared reward_range [{lo:g}, {hi:g}] "
                             f"(min {values.min():g}, max {values.max():g}); fix the range or the rewards")
        return (lo, hi)
    if values.size and np.all((values == 0) | (values == 1)):
        return PASS_FAIL_RANGE
    return None


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


HULL = "t + bootstrap-t hull (skew-robust)"


def _use_hull(n: int, skew: float) -> bool:
    return SKEW_MIN_N <= n <= HULL_ALWAYS_MAX_N or (
        HULL_ALWAYS_MAX_N < n <= SKEW_MAX_N and abs(skew) > SKEW_THRESHOLD)


def sample_skewness(d) -> float:
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


def degenerate(d: np.ndarray) -> bool:
    """All differences equal (to a relative 1e-12): there is no spread to build a t interval from."""
    return d.size >= 2 and float(np.ptp(d)) <= 1e-12 * max(1.0, float(np.abs(d).max()))


def paired_test(a: str, b: str, xa, xb, level: float = 0.95, seed: int = 0,
                reward_range: tuple[float, float] | None = None) -> PairResult:
    """Paired comparison of two arms on the same seeds (xa[i], xb[i] share seed i).

    `reward_range` ([lo, hi] declared by the workload or the records) turns on
    the distribution-free interval; 0/1 rewards get it without a declaration.
    """
    xa, xb = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
    d = xa - xb
    n = d.size
    rng_ = detect_range(xa, xb, reward_range)
    mean = float(d.mean()) if n else math.nan
    sd = float(d.std(ddof=1)) if n >= 2 else math.nan
    p_t = _t_pvalue(mean, sd, n)
    p, method = sign_flip_p(d, seed)
    alpha = 1 - level
    if n >= 2:
        lo, hi, how = pair_interval(d, level, rng_, seed)
    else:
        lo, hi, how = math.nan, math.nan, "t"
    return PairResult(a, b, n, mean, (lo, hi), p, f"sign-flip {method}", p_t, sd, True,
                      min_detectable_effect(sd, n, alpha), interval_method=how, reward_range=rng_)


def unpaired_test(a: str, b: str, xa, xb, level: float = 0.95, seed: int = 0,
                  reward_range: tuple[float, float] | None = None) -> PairResult:
    """Welch interval and permutation p for arms that do not share seeds (labelled unpaired).

    With a reward range (declared, or 0/1 rewards) the interval is the
    difference of two betting intervals at alpha/4 per side each.
    """
    xa = np.asarray(xa, dtype=float)
    xb = np.asarray(xb, dtype=float)
    na, nb = xa.size, xb.size
    diff = float(xa.mean() - xb.mean()) if na and nb else math.nan
    rng_ = detect_range(xa, xb, reward_range) if na and nb else None
    how = "Welch t"
    if na >= 2 and nb >= 2:
        va, vb = xa.var(ddof=1) / na, xb.var(ddof=1) / nb
        se = math.sqrt(va + vb)
        df = (va + vb) ** 2 / ((va ** 2 / (na - 1) if va else 0) + (vb ** 2 / (nb - 1) if vb else 0)) \
            if (va + vb) > 0 else 1.0
        half = float(t_quantile(0.5 + level / 2, df) * se)
        p_t = float(2 * _t_sf(abs(diff) / se, df)) if se > 0 else (1.0 if diff == 0 else 0.0)
        sd = se * math.sqrt(min(na, nb))
        ci = (diff - half, diff + half)
    else:
        p_t, sd, ci = math.nan, math.nan, (math.nan, math.nan)
    if rng_ is not None and na and nb:
        quarter = (1 - level) / 4
        la, ua = mean_bounds(xa, quarter, *rng_)
        lb, ub = mean_bounds(xb, quarter, *rng_)
        ci = (la - ub, ua - lb)
        how = f"betting (distribution-free, rewards in [{rng_[0]:g}, {rng_[1]:g}]), unpaired"
    p = _permutation_p(xa, xb, seed)
    n = min(na, nb)
    return PairResult(a, b, n, diff, ci, p, "permutation (unpaired)",
                      p_t, sd, False, min_detectable_effect(sd, n, 1 - level), interval_method=how,
                      reward_range=rng_)


def _t_pvalue(mean: float, sd: float, n: int) -> float:
    if n < 2 or not math.isfinite(sd):
        return math.nan
    if sd <= 1e-12 * max(1.0, abs(mean)):
        return 1.0 if mean == 0 else 0.0
    return float(2 * _t_sf(abs(mean) / (sd / math.sqrt(n)), n - 1))


def _permutation_p(xa: np.ndarray, xb: np.ndarray, seed: int) -> float:
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


def _family_mde(pair: PairResult, alpha: float, family: int) -> None:
    """The minimum detectable effect at the level the verdict really needs, and the note that says it.

    Why: a verdict needs the Holm-adjusted p below alpha, and Holm's first
    step asks for alpha / (pairs in the group). The effect a single t test
    at alpha finds (0.18 on the demo) was printed as what "would likely be
    missed" beside a +0.32 difference that was missed: the note understated
    the effect 21 pairs need. The figure is now for the strictest step (power
    0.8 there, more at later steps), and the note says when the exact
    sign-flip test cannot reach that step at all at this n.
    """
    level = alpha / max(family, 1)
    if family > 1 and pair.n >= 2 and math.isfinite(pair.mde):
        pair.mde = pair.mde * mde_factor(pair.n, level) / mde_factor(pair.n, alpha)
    if not (math.isfinite(pair.mde) and pair.mde > 0):
        return
    where = f"at n={pair.n}" if family == 1 else f"at n={pair.n} with {family} pairs (Holm: p<{level:.2g} first)"
    pair.notes.append(f"differences smaller than {pair.mde:.3g} would likely be missed {where}")
    if pair.paired and family > 1 and min_exact_p(pair.n) > level:
        pair.notes.append(f"the exact sign-flip test cannot reach p<{level:.2g} at n={pair.n}: "
                          "add seeds, or compare against one arm (--baseline)")


def decide(pairs: list[PairResult], alpha: float = 0.05, margin: float | None = None) -> list[PairResult]:
    """Holm-adjust the decision p-values of one group's pairs and set each verdict in words.

    a>b / b>a: the Holm-adjusted decision p (the larger of the t and the exact
    sign-flip/McNemar p, so both tests reject) is below alpha. `method` says
    which of the two was binding.
    equivalent: with a margin, both one-sided tests (TOST) reject: the
    two-sided (1 - 2 alpha) t interval lies inside (-margin, margin); never
    from a zero-width interval, and for bounded rewards the betting bounds
    at alpha must lie inside too.
    underpowered: n < 3, or no outcome of the exact test could reach alpha.
    no difference detected: otherwise, with the minimum detectable effect.
    """
    check_alpha(alpha)
    if margin is not None and (not math.isfinite(margin) or margin <= 0):
        raise ValueError(f"the equivalence margin must be a positive finite number, got {margin}")
    pvalues = [p.p_decide if math.isfinite(p.p_decide) else 1.0 for p in pairs]
    # one pair: Holm's adjustment is min(1, p) (the same number holm() gives, without its arrays)
    adjusted = [min(1.0, pvalues[0])] if len(pvalues) == 1 else holm(pvalues).tolist()
    for pair, p_adj in zip(pairs, adjusted):
        pair.p_adjusted = float(p_adj)
        pair.notes = []
        if pair.n < 3:
            pair.verdict = UNDERPOWERED
            pair.notes.append(f"only {pair.n} paired seed{'s' if pair.n != 1 else ''}; at least 3 are needed")
            continue
        if p_adj < alpha and math.isfinite(pair.diff) and pair.diff != 0:
            if _interval_agrees(pair):
                pair.verdict = "a>b" if pair.diff > 0 else "b>a"
                tests = "" if pair.items else "; both the t and the exact test reject"
                pair.notes.append(f"decided by {pair.method} (Holm-adjusted p {p_adj:.3g}{tests}) and the "
                                  f"{pair.interval_method} interval, which excludes 0")
                _degenerate_note(pair)
                continue
            pair.notes.append(f"the tests reject (Holm-adjusted p {p_adj:.3g}) but the {pair.interval_method} "
                              "interval printed beside the verdict includes 0, so the pair is not decided: a "
                              "verdict and its interval come from one inference")
        if margin is not None and _tost(pair, alpha, margin):
            pair.verdict = EQUIVALENT
            pair.equivalent = True
            continue
        if pair.paired and min_exact_p(pair.n) > alpha:
            pair.verdict = UNDERPOWERED
            pair.notes.append(f"with {pair.n} seeds no exact sign-flip test can reach p<{alpha:g}")
        else:
            pair.verdict = NO_DIFFERENCE
            _family_mde(pair, alpha, len(pairs))
        _degenerate_note(pair)
        if not pair.paired:
            pair.notes.append("unpaired: the arms do not share seeds")
    for pair in pairs:
        if not pair.paired and "unpaired: the arms do not share seeds" not in pair.notes:
            pair.notes.append("unpaired: the arms do not share seeds")
    return pairs


def _interval_agrees(pair: PairResult) -> bool:
    """The pair's printed interval excludes 0 on the side of its difference (NaN ends: the tests alone)."""
    lo, hi = pair.ci
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return True
    return lo > 0 if pair.diff > 0 else hi < 0


def _degenerate_note(pair: PairResult) -> None:
    if pair.paired and pair.n >= 2 and pair.sd == 0 and pair.reward_range is None:
        pair.notes.append(f"all {pair.n} differences are equal: the interval has zero width and is not a "
                          "confidence statement; the verdict rests on the exact sign-flip test")


def _tost(pair: PairResult, alpha: float, margin: float) -> bool:
    if pair.n < 2 or not math.isfinite(pair.sd):
        return False
    se = pair.sd / math.sqrt(pair.n)
    if se <= 0:
        return False  # a zero-width interval never decides
    q = t_quantile(1 - alpha, pair.n - 1)
    inside = pair.diff - q * se > -margin and pair.diff + q * se < margin
    if inside and pair.reward_range is not None:
        # bounded rewards: the distribution-free interval (level 1 - alpha, so
        # conservative for TOST's 1 - 2 alpha) must lie inside the margin too
        lo, hi = pair.ci
        return math.isfinite(lo) and math.isfinite(hi) and -margin < lo and hi < margin
    return inside


# -- all pairs, fast ----------------------------------------------------------
def all_pairs(arms: list[str], matrix, level: float = 0.95, seed: int = 0,
              baseline: str | None = None, reward_range: tuple[float, float] | None = None) -> list[PairResult]:
    """Paired tests for every pair of arms (or every arm against `baseline`).

    `matrix` is arms x seeds with NaN where an arm has no score at a seed.
    Rows without NaN are handled in whole-array operations with one shared
    sign matrix per group (cost per pair does not grow with 2**n); pairs with
    missing scores use the seeds both arms scored. Pairs sharing fewer than 2
    seeds fall back to the unpaired test and say so. `reward_range` as in
    `paired_test` (0/1 rewards are detected per group).
    """
    x = np.asarray(matrix, dtype=float)
    k = len(arms)
    complete = ~np.isnan(x).any(axis=1) if x.size else np.zeros(k, bool)
    idx = [(i, j) for i in range(k) for j in range(i + 1, k)] if baseline is None else \
        [(i, arms.index(baseline)) for i in range(k) if arms[i] != baseline]
    group_range = detect_range(x, x[:0], reward_range) if x.size else None
    fast = _complete_pairs(arms, x, [(i, j) for i, j in idx if complete[i] and complete[j]], level, seed,
                           group_range)
    out: list[PairResult] = []
    for i, j in idx:
        if complete[i] and complete[j]:
            out.append(fast[(i, j)])
            continue
        both = ~np.isnan(x[i]) & ~np.isnan(x[j])
        if both.sum() >= 2:
            out.append(paired_test(arms[i], arms[j], x[i][both], x[j][both], level, seed, group_range))
        else:
            out.append(unpaired_test(arms[i], arms[j], x[i][~np.isnan(x[i])],
                                     x[j][~np.isnan(x[j])], level, seed, group_range))
    return out


def _complete_pairs(arms, x, pairs, level: float, seed: int,
                    reward_range: tuple[float, float] | None = None) -> dict[tuple[int, int], PairResult]:
    """`paired_test` for many pairs of fully scored rows at once (same numbers, array work).

    The t parts and the sign-flip p are whole-array operations (one shared
    sign matrix, `sign_flip_rows`); only the interval of skewed or bounded
    pairs is computed pair by pair.
    """
    out: dict[tuple[int, int], PairResult] = {}
    if not pairs:
        return out
    n = x.shape[1]
    alpha = 1 - level
    factor = mde_factor(n, alpha) if n >= 2 else math.inf
    first = np.array([i for i, _ in pairs])
    second = np.array([j for _, j in pairs])
    step = max(1, int(2e7 // max(n, 1)))
    for s in range(0, len(pairs), step):
        fi, se_ = first[s:s + step], second[s:s + step]
        d = x[fi] - x[se_]
        mean = d.mean(axis=1)
        if n >= 2:
            sd = d.std(axis=1, ddof=1)
            se = sd / math.sqrt(n)
            with np.errstate(divide="ignore", invalid="ignore"):
                p_t = np.where(sd > 1e-12 * np.maximum(1.0, np.abs(mean)),
                               2 * _special.stdtr(n - 1, -np.abs(mean) / se), np.where(mean == 0, 1.0, 0.0))
        else:
            sd = p_t = np.full(len(fi), np.nan)
        p_sign, methods = sign_flip_rows(d, seed, x, fi, se_)
        los, his, hows = _block_intervals(d, mean, sd, level, reward_range, seed)
        for i, j, m, s_, lo, hi, p, method, pt, how in zip(
                fi.tolist(), se_.tolist(), mean.tolist(), np.asarray(sd, dtype=float).tolist(), los.tolist(),
                his.tolist(), p_sign.tolist(), methods, np.asarray(p_t, dtype=float).tolist(), hows):
            out[(i, j)] = PairResult(arms[i], arms[j], n, m, (lo, hi), p, f"sign-flip {method}", pt, s_, True,
                                     factor * s_ if n >= 2 else math.inf, interval_method=how,
                                     reward_range=reward_range)
    return out


def _block_intervals(d: np.ndarray, mean: np.ndarray, sd: np.ndarray, level: float,
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


# -- bootstrap (secondary) ------------------------------------------------------
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
