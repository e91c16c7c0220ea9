"""Paired statistics that stay honest at 3-10 seeds: the tests of a pair of arms, one pair or all at once.

Pure functions on arrays; no I/O. What each pair gets, and why:

- the paired t p and the exact sign-flip p (`sign_flip`; exact McNemar on
  0/1 rewards), so `pair_verdict.decide` can require both to reject;
- the interval `pair_interval` chooses from what the rewards are (betting on
  bounded rewards, the t + bootstrap-t hull on small unbounded samples);
- the minimum detectable effect (`student_t`).
Arms that share no seeds get Welch t and a permutation p, labelled unpaired.
Randomised parts take an explicit seed: the same inputs and seed give the
same numbers, byte for byte.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special as _special

from .betting import mean_bounds
from .pair_interval import block_intervals, pair_interval
from ..compare.pair_result import PairResult
from .reward_range import detect_range
from .sign_flip import permutation_p, sign_flip_p, sign_flip_rows
from .student_t import mde_factor, min_detectable_effect, t_pvalue, t_quantile, t_sf


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
    p_t = t_pvalue(mean, sd, n)
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
        p_t = float(2 * t_sf(abs(diff) / se, df)) if se > 0 else (1.0 if diff == 0 else 0.0)
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
    p = permutation_p(xa, xb, seed)
    n = min(na, nb)
    return PairResult(a, b, n, diff, ci, p, "permutation (unpaired)",
                      p_t, sd, False, min_detectable_effect(sd, n, 1 - level), interval_method=how,
                      reward_range=rng_)


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
        d = x[fi]                                  # in place: one (pairs x seeds) block, not three
        d -= x[se_[0]] if (se_ == se_[0]).all() else x[se_]   # against one baseline: broadcast, no gather
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
        los, his, hows = block_intervals(d, mean, sd, level, reward_range, seed)
        for i, j, m, s_, lo, hi, p, method, pt, how in zip(
                fi.tolist(), se_.tolist(), mean.tolist(), np.asarray(sd, dtype=float).tolist(), los.tolist(),
                his.tolist(), p_sign.tolist(), methods, np.asarray(p_t, dtype=float).tolist(), hows):
            out[(i, j)] = PairResult(arms[i], arms[j], n, m, (lo, hi), p, f"sign-flip {method}", pt, s_, True,
                                     factor * s_ if n >= 2 else math.inf, interval_method=how,
                                     reward_range=reward_range)
    return out
