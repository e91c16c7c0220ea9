"""Paired statistics that stay honest at 3-10 seeds.

Pure functions on arrays; no I/O. The choices, and the mistake each prevents:

- The interval is Student-t on per-seed paired differences: percentile and
  BCa bootstrap intervals cover only 71-81% at n = 3-5 (design notes), t stays
  near 95% under normal noise.
- The verdict never says "equal". Not rejecting is "no difference detected"
  with the minimum detectable effect, or "underpowered" when n < 3 or when no
  outcome of the exact test could reach alpha at this n (with 5 seeds the
  smallest two-sided sign-flip p is 0.0625).
- With many arms, p-values are Holm-adjusted within a comparison group so the
  family-wise false-alarm rate stays at alpha.
- Randomised parts (Monte Carlo sign flips, bootstrap) take an explicit seed:
  the same inputs and seed give the same numbers, byte for byte.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special as _special

EXACT_MAX_N = 20          # full enumeration: 2**20 sign patterns
MONTE_CARLO_MAX_N = 1000  # seeded Monte Carlo sign flips up to here
MONTE_CARLO_DRAWS = 20000 # Monte Carlo error on p is at most ~0.0035
# Beyond MONTE_CARLO_MAX_N the sign-flip distribution (variance sum d^2) is
# used through its normal limit: there the approximation error is far below
# the Monte Carlo error a feasible number of draws would leave.

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


def min_exact_p(n: int) -> float:
    """Smallest two-sided p an exact sign-flip test can give with n pairs."""
    return 1.0 if n < 1 else min(1.0, math.ldexp(1.0, 1 - n))  # 2 / 2**n, underflows to 0


def min_detectable_effect(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """(t(1-a/2) + t(power)) * sd / sqrt(n): the effect a paired t test finds with `power`."""
    if n < 2 or not math.isfinite(sd):
        return math.inf
    df = n - 1
    return float((t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * sd / math.sqrt(n))


# -- sign-flip permutation test --------------------------------------------------
def sign_flip_p(diffs, seed: int = 0) -> tuple[float, str]:
    """Two-sided sign-flip p-value of paired differences, and how it was computed.

    Exact enumeration of all 2**n sign patterns up to n = 20, a seeded Monte
    Carlo (with the +1 correction, so p is never 0) up to n = 1000, the
    normal limit of the same distribution beyond.
    """
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if n == 0:
        return (1.0, "none")
    observed = abs(d.sum())
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if n <= EXACT_MAX_N:
        sums = np.zeros(1)
        for value in d:
            sums = np.concatenate((sums + value, sums - value))
        return (float(np.mean(np.abs(sums) >= observed - tol)), "exact")
    if n <= MONTE_CARLO_MAX_N:
        rng = np.random.default_rng(seed)
        hits = 0
        for start in range(0, MONTE_CARLO_DRAWS, 2000):
            signs = rng.integers(0, 2, size=(2000, n), dtype=np.int8) * 2 - 1
            hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
        return ((hits + 1) / (MONTE_CARLO_DRAWS + 1), "monte-carlo")
    scale = math.sqrt(float(np.sum(d * d)))
    if scale == 0:
        return (1.0, "normal-limit")
    return (float(2 * _special.ndtr(-observed / scale)), "normal-limit")


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
    """Arm a minus arm b on one metric. `verdict` is filled after Holm."""

    a: str
    b: str
    n: int
    diff: float
    ci: tuple[float, float]
    p: float                  # sign-flip (paired) or permutation (unpaired) p-value
    p_method: str
    p_t: float                # t-test p-value; Holm-adjusted into p_adjusted
    sd: float
    paired: bool
    mde: float
    p_adjusted: float = math.nan
    verdict: str = ""
    equivalent: bool = False
    notes: list[str] = field(default_factory=list)
    bootstrap_ci: tuple[float, float] | None = None   # secondary; under-covers at small n

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "n": self.n, "diff": _num(self.diff),
                "ci": [_num(self.ci[0]), _num(self.ci[1])], "p": _num(self.p),
                "p_method": self.p_method, "p_t": _num(self.p_t),
                "p_adjusted": _num(self.p_adjusted), "paired": self.paired,
                "mde": _num(self.mde), "verdict": self.verdict, "notes": list(self.notes),
                **({"bootstrap_ci": [_num(self.bootstrap_ci[0]), _num(self.bootstrap_ci[1])]}
                   if self.bootstrap_ci is not None else {})}


def _num(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def paired_test(a: str, b: str, xa, xb, level: float = 0.95, seed: int = 0) -> PairResult:
    """Paired comparison of two arms on the same seeds (xa[i], xb[i] share seed i)."""
    d = np.asarray(xa, dtype=float) - np.asarray(xb, dtype=float)
    n = d.size
    mean, lo, hi = t_interval(d, level)
    sd = float(d.std(ddof=1)) if n >= 2 else math.nan
    p_t = _t_pvalue(mean, sd, n)
    p, method = sign_flip_p(d, seed)
    alpha = 1 - level
    return PairResult(a, b, n, mean, (lo, hi), p, f"sign-flip {method}", p_t, sd, True,
                      min_detectable_effect(sd, n, alpha))


def unpaired_test(a: str, b: str, xa, xb, level: float = 0.95, seed: int = 0) -> PairResult:
    """Welch interval and permutation p for arms that do not share seeds (labelled unpaired)."""
    xa = np.asarray(xa, dtype=float)
    xb = np.asarray(xb, dtype=float)
    na, nb = xa.size, xb.size
    diff = float(xa.mean() - xb.mean()) if na and nb else math.nan
    if na >= 2 and nb >= 2:
        va, vb = xa.var(ddof=1) / na, xb.var(ddof=1) / nb
        se = math.sqrt(va + vb)
        df = (va + vb) ** 2 / ((va ** 2 / (na - 1) if va else 0) + (vb ** 2 / (nb - 1) if vb else 0)) \
            if (va + vb) > 0 else 1.0
        half = float(t_quantile(0.5 + level / 2, df) * se)
        p_t = float(2 * _t_sf(abs(diff) / se, df)) if se > 0 else (1.0 if diff == 0 else 0.0)
        sd = se * math.sqrt(min(na, nb))
    else:
        half, p_t, sd = math.nan, math.nan, math.nan
    p = _permutation_p(xa, xb, seed)
    n = min(na, nb)
    return PairResult(a, b, n, diff, (diff - half, diff + half), p, "permutation (unpaired)",
                      p_t, sd, False, min_detectable_effect(sd, n, 1 - level))


def _t_pvalue(mean: float, sd: float, n: int) -> float:
    if n < 2 or not math.isfinite(sd):
        return math.nan
    if sd == 0:
        return 1.0 if mean == 0 else 0.0
    return float(2 * _t_sf(abs(mean) / (sd / math.sqrt(n)), n - 1))


def _permutation_p(xa: np.ndarray, xb: np.ndarray, seed: int) -> float:
    if xa.size == 0 or xb.size == 0:
        return math.nan
    pooled = np.concatenate((xa, xb))
    observed = abs(xa.mean() - xb.mean())
    tol = 1e-9 * max(1.0, float(np.abs(pooled).max()))
    na = xa.size
    if math.comb(pooled.size, na) <= 50000:
        from itertools import combinations
        total = pooled.sum()
        hits = count = 0
        for idx in combinations(range(pooled.size), na):
            sa = pooled[list(idx)].sum()
            stat = abs(sa / na - (total - sa) / xb.size)
            hits += stat >= observed - tol
            count += 1
        return hits / count
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(MONTE_CARLO_DRAWS // 1000):
        perms = rng.permuted(np.tile(pooled, (1000, 1)), axis=1)
        stat = np.abs(perms[:, :na].mean(axis=1) - perms[:, na:].mean(axis=1))
        hits += int(np.count_nonzero(stat >= observed - tol))
    return (hits + 1) / (MONTE_CARLO_DRAWS + 1)


def decide(pairs: list[PairResult], alpha: float = 0.05, margin: float | None = None) -> list[PairResult]:
    """Holm-adjust the t p-values of one group's pairs and set each verdict in words.

    a>b / b>a: the Holm-adjusted paired t test rejects at alpha.
    equivalent: with a margin, both one-sided tests (TOST) reject: the
    (1 - 2 alpha) interval lies inside (-margin, margin).
    underpowered: n < 3, or no outcome of the exact test could reach alpha.
    no difference detected: otherwise, with the minimum detectable effect.
    """
    adjusted = holm([p.p_t if math.isfinite(p.p_t) else 1.0 for p in pairs])
    for pair, p_adj in zip(pairs, adjusted):
        pair.p_adjusted = float(p_adj)
        pair.notes = []
        if pair.n < 3:
            pair.verdict = UNDERPOWERED
            pair.notes.append(f"only {pair.n} paired seed{'s' if pair.n != 1 else ''}; at least 3 are needed")
            continue
        if p_adj < alpha and math.isfinite(pair.diff) and pair.diff != 0:
            pair.verdict = "a>b" if pair.diff > 0 else "b>a"
            if pair.paired and min_exact_p(pair.n) > alpha:
                pair.notes.append(
                    f"with {pair.n} seeds no exact sign-flip test can reach p<{alpha:g}; "
                    "this verdict rests on the t interval's normality assumption")
            continue
        if margin is not None and _tost(pair, alpha, margin):
            pair.verdict = EQUIVALENT
            pair.equivalent = True
            continue
        if pair.paired and min_exact_p(pair.n) > alpha:
            pair.verdict = UNDERPOWERED
            pair.notes.append(f"with {pair.n} seeds no exact sign-flip test can reach p<{alpha:g}")
        else:
            pair.verdict = NO_DIFFERENCE
            if math.isfinite(pair.mde):
                pair.notes.append(f"differences smaller than {pair.mde:.3g} would likely be missed at n={pair.n}")
        if not pair.paired:
            pair.notes.append("unpaired: the arms do not share seeds")
    for pair in pairs:
        if not pair.paired and "unpaired: the arms do not share seeds" not in pair.notes:
            pair.notes.append("unpaired: the arms do not share seeds")
    return pairs


def _tost(pair: PairResult, alpha: float, margin: float) -> bool:
    if pair.n < 2 or not math.isfinite(pair.sd):
        return False
    se = pair.sd / math.sqrt(pair.n)
    if se == 0:
        return abs(pair.diff) < margin
    q = t_quantile(1 - alpha, pair.n - 1)
    return pair.diff - q * se > -margin and pair.diff + q * se < margin


# -- all pairs, fast ----------------------------------------------------------
def all_pairs(arms: list[str], matrix, level: float = 0.95, seed: int = 0,
              baseline: str | None = None) -> list[PairResult]:
    """Paired tests for every pair of arms (or every arm against `baseline`).

    `matrix` is arms x seeds with NaN where an arm has no score at a seed.
    Rows without NaN are handled in whole-array operations (4,950 pairs of
    10,000 seeds take well under the 2 s target); pairs with missing scores
    use the seeds both arms scored. Pairs sharing fewer than 2 seeds fall
    back to the unpaired test and say so.
    """
    x = np.asarray(matrix, dtype=float)
    k = len(arms)
    complete = ~np.isnan(x).any(axis=1) if x.size else np.zeros(k, bool)
    idx = [(i, j) for i in range(k) for j in range(i + 1, k)] if baseline is None else \
        [(i, arms.index(baseline)) for i in range(k) if arms[i] != baseline]
    fast = _complete_pairs(arms, x, [(i, j) for i, j in idx if complete[i] and complete[j]], level, seed)
    out: list[PairResult] = []
    for i, j in idx:
        pair_seed = seed * 1000003 + i * 1009 + j
        if complete[i] and complete[j]:
            out.append(fast[(i, j)])
            continue
        both = ~np.isnan(x[i]) & ~np.isnan(x[j])
        if both.sum() >= 2:
            out.append(paired_test(arms[i], arms[j], x[i][both], x[j][both], level, pair_seed))
        else:
            out.append(unpaired_test(arms[i], arms[j], x[i][~np.isnan(x[i])],
                                     x[j][~np.isnan(x[j])], level, pair_seed))
    return out


def _complete_pairs(arms, x, pairs, level: float, seed: int) -> dict[tuple[int, int], PairResult]:
    """`paired_test` for many pairs of fully scored rows at once (same numbers, array work).

    Pairs sharing a first arm are one block of differences; the t parts and
    the sign-flip normal limit are whole-array operations, and only small n
    (exact or Monte Carlo sign flips) loops per pair.
    """
    out: dict[tuple[int, int], PairResult] = {}
    if not pairs:
        return out
    n = x.shape[1]
    alpha = 1 - level
    q = t_quantile(0.5 + level / 2, n - 1) if n >= 2 else math.nan
    mde_factor = (t_quantile(1 - alpha / 2, n - 1) + t_quantile(0.8, n - 1)) / math.sqrt(n) if n >= 2 else math.inf
    by_first: dict[int, list[int]] = {}
    for i, j in pairs:
        by_first.setdefault(i, []).append(j)
    for i, js in by_first.items():
        d = x[i][None, :] - x[js]
        mean = d.mean(axis=1)
        if n >= 2:
            sd = d.std(axis=1, ddof=1)
            se = sd / math.sqrt(n)
            with np.errstate(divide="ignore", invalid="ignore"):
                p_t = np.where(sd > 0, 2 * _special.stdtr(n - 1, -np.abs(mean) / se),
                               np.where(mean == 0, 1.0, 0.0))
        else:
            sd = se = p_t = np.full(len(js), np.nan)
        if n > MONTE_CARLO_MAX_N:
            scale = np.sqrt((d * d).sum(axis=1))
            with np.errstate(divide="ignore", invalid="ignore"):
                p_sign = np.where(scale > 0, 2 * _special.ndtr(-np.abs(d.sum(axis=1)) / scale), 1.0)
            methods = ["normal-limit"] * len(js)
        else:
            p_sign, methods = [], []
            for row, j in zip(d, js):
                p, m = sign_flip_p(row, seed * 1000003 + i * 1009 + j)
                p_sign.append(p)
                methods.append(m)
        for r, j in enumerate(js):
            m, s_ = float(mean[r]), float(sd[r])
            half = q * s_ / math.sqrt(n) if n >= 2 else math.nan
            out[(i, j)] = PairResult(arms[i], arms[j], n, m, (m - half, m + half), float(p_sign[r]),
                                     f"sign-flip {methods[r]}", float(p_t[r]), s_, True,
                                     mde_factor * s_ if n >= 2 else math.inf)
    return out


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
