"""The CI gate: PASS, FAIL or INCONCLUSIVE on a paired difference with a margin.

A gate that fails on noise gets switched off; one that passes a broken
comparison is worse than none. So:
- the verdict is three-way on one-sided bounds (each at level 1 - alpha) for
  the mean of candidate minus baseline (per-seed paired differences): PASS
  when the lower bound is above -margin, FAIL when the upper bound is below
  -margin, INCONCLUSIVE otherwise, with the seeds a decision would likely
  need. Together the two bounds form a two-sided (1 - 2 alpha) interval;
- which bounds (`GateDecision.method`): bounded rewards (a declared
  `reward_range`, or all rewards 0/1) use the distribution-free betting
  bounds (`baselines.analysis.betting`): the t bounds PASSed a pass/fail candidate
  worse by exactly the margin 59% of the time at n = 5 (all five
  differences 0, a zero-width interval). Unbounded rewards use Student t,
  widened by a bootstrap-t bound when the differences are skewed; all
  differences equal is INCONCLUSIVE (a zero-width interval never decides);
- on unbounded rewards no test on n seeds sees a loss rarer than about 1/n
  (a loss in 10% of seeds is absent from 5 seeds 59% of the time), so a
  PASS at small n says so in its reason;
- a comparison whose fixed unit is unequal or unverified for either arm
  is FAIL with that reason, whatever the rewards say;
- adding seeds until the gate decides is only honest with a plan: looks
  fixed in advance and alpha spent across them (`spending_schedule`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from .comparison import Comparison, Group
from .stats import (SKEW_MAX_N, SKEW_MIN_N, SKEW_THRESHOLD, bootstrap_t_interval, degenerate, detect_range,
                    format_level, sample_skewness, t_interval, t_quantile, unpaired_test, usable_range)
from ..core.units import nouns_of

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"


@dataclass
class GateResult:
    verdict: str
    reason: str
    workload: str = ""
    budget: dict = field(default_factory=dict)
    n: int = 0
    diff: float = math.nan
    lower: float = math.nan
    upper: float = math.nan
    margin: float = math.nan
    alpha: float = 0.05
    seeds_needed: int | None = None
    confounds: list[str] = field(default_factory=list)
    paired: bool = True
    method: str = ""
    notes: list[str] = field(default_factory=list)
    reward_range: tuple[float, float] | None = None
    unit_nouns: dict[str, str] = field(default_factory=dict)  # the workload's words for its units (printing)

    def to_json(self) -> dict[str, Any]:
        num = lambda x: None if x is None or not math.isfinite(x) else float(x)  # noqa: E731
        return {"verdict": self.verdict, "reason": self.reason, "workload": self.workload,
                "budget": self.budget, "n": self.n, "diff": num(self.diff),
                "bounds": [num(self.lower), num(self.upper)], "margin": num(self.margin),
                "alpha": self.alpha, "seeds_needed": self.seeds_needed, "paired": self.paired,
                "method": self.method, "notes": list(self.notes),
                "reward_range": list(self.reward_range) if self.reward_range is not None else None,
                "confounds": list(self.confounds)}


@dataclass
class GateDecision:
    """The verdict on one sequence of differences, with the bounds, the method that set them and notes."""

    verdict: str
    mean: float
    lower: float
    upper: float
    seeds_needed: int | None
    method: str
    notes: list[str] = field(default_factory=list)


def decide_gate(diffs, margin: float, alpha: float = 0.05, reward_range: tuple[float, float] | None = None,
                planned_n: int | None = None) -> tuple[str, float, float, float, int | None]:
    """Verdict on per-seed differences (candidate - baseline, higher is better).

    Returns (verdict, mean, lower, upper, seeds_needed); `gate_decision` gives
    the same with the method and notes. The bounds are one-sided at `alpha`
    each, i.e. together a two-sided (1 - 2 alpha) interval.
    """
    g = gate_decision(diffs, margin, alpha, reward_range, planned_n)
    return g.verdict, g.mean, g.lower, g.upper, g.seeds_needed


BOUNDS = ("auto", "t", "betting")


def gate_decision(diffs, margin: float, alpha: float = 0.05, reward_range: tuple[float, float] | None = None,
                  planned_n: int | None = None, bounds: str = "auto") -> GateDecision:
    """See the module docstring. `reward_range` bounds each *reward* (differences span twice its width).

    With a reward range the bounds hold at every n at once (a confidence
    sequence), so sequential looks need no alpha spending; `planned_n` (the
    last look) only tunes their width. `bounds="t"` forces the t route on
    bounded rewards (more power, no guarantee against a rare loss: see
    docs/calibration.md); "betting" requires a reward range.
    """
    if bounds not in BOUNDS:
        raise ValueError(f"bounds must be one of {', '.join(BOUNDS)}, got {bounds!r}")
    if bounds == "betting" and reward_range is None:
        raise ValueError("betting bounds need a reward range: declare reward_range = [lo, hi]")
    if bounds == "t":
        reward_range = None
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be finite and non-negative, got {margin}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5 (one-sided), got {alpha}")
    mean = float(d.mean()) if n else math.nan
    if reward_range is not None:
        from .betting import diff_bounds
        lower, upper = diff_bounds(d, alpha, reward_range, planned_n) if n else (-math.inf, math.inf)
        method = f"betting confidence sequence (distribution-free, rewards in [{reward_range[0]:g}, {reward_range[1]:g}])"
        verdict = _verdict(lower, upper, margin) if n >= 2 else INCONCLUSIVE
        return GateDecision(verdict, mean, lower, upper, None, method)
    if n < 2:
        return GateDecision(INCONCLUSIVE, mean, -math.inf, math.inf, None, "t", ["fewer than 2 paired seeds"])
    _, lower, upper = t_interval(d, 1 - 2 * alpha)  # one-sided alpha on each side
    sd = float(d.std(ddof=1))
    method, notes = "t", []
    if degenerate(d):
        notes.append(f"all {n} differences are equal: a zero-width interval is not evidence; "
                     "declare the reward range for distribution-free bounds, or add seeds")
        return GateDecision(INCONCLUSIVE, mean, lower, upper, None, "t (degenerate)", notes)
    if SKEW_MIN_N <= n <= SKEW_MAX_N and abs(sample_skewness(d)) > SKEW_THRESHOLD:
        blo, bhi = bootstrap_t_interval(d, 1 - 2 * alpha, seed=0)
        lower, upper = min(lower, blo), max(upper, bhi)
        method = "t + bootstrap-t (skewed differences)"
    verdict = _verdict(lower, upper, margin)
    if verdict == PASS and (1 - 0.1) ** n > alpha:
        notes.append(f"rewards are unbounded and n = {n}: a loss that hits fewer than about 1 in {n} seeds can be "
                     f"absent from all of them (a loss in 10% of seeds is missed {0.9 ** n:.0%} of the time); "
                     "declare reward_range for a distribution-free gate")
    needed = seeds_to_decide(mean, sd, margin, alpha) if verdict == INCONCLUSIVE else None
    return GateDecision(verdict, mean, lower, upper, needed, method, notes)


def _verdict(lower: float, upper: float, margin: float) -> str:
    if lower > -margin:
        return PASS
    if upper < -margin:
        return FAIL
    return INCONCLUSIVE


def _betting_seeds(d: np.ndarray, margin: float, alpha: float, reward_range, cap: int = 10000) -> int | None:
    """Seeds at which differences like these (the observed ones repeated) would let the betting bounds decide."""
    from .betting import diff_bounds

    n = max(d.size, 2) * 2
    while n <= cap:
        lo, hi = diff_bounds(np.resize(d, n), alpha, reward_range)
        if _verdict(lo, hi, margin) != INCONCLUSIVE:
            return n
        n *= 2
    return None


def seeds_to_decide(mean: float, sd: float, margin: float, alpha: float, cap: int = 10000) -> int | None:
    """Seeds at which the observed mean and spread would put the interval clear of -margin."""
    distance = abs(mean + margin)
    if distance == 0 or not math.isfinite(sd):
        return None
    if sd == 0:
        return 2
    n = 2
    while n <= cap:
        if t_quantile(1 - alpha, n - 1) * sd / math.sqrt(n) < distance:
            return n
        n = n + 1 if n < 100 else int(n * 1.1)
    return None


def spending_schedule(looks: list[int], alpha: float) -> list[float]:
    """Alpha to spend at each look: O'Brien-Fleming-type spending, split by the union bound.

    alpha(t) = 2 - 2 Phi(z_{1 - alpha/2} / sqrt(t)) with t = n_k / n_K is the
    cumulative alpha allowed by look k; each look gets the increment. Since
    the increments sum to alpha, the chance of any false decision across all
    looks is at most alpha (a union bound: valid whatever the correlation of
    the looks, a little conservative). Early looks get little alpha, so an
    early stop needs a clear result.
    """
    if not looks or sorted(looks) != list(looks) or len(set(looks)) != len(looks) or looks[0] < 2:
        raise ValueError(f"looks must be increasing seed counts of at least 2, got {looks!r}")
    z = float(special.ndtri(1 - alpha / 2))
    cumulative = [2 - 2 * float(special.ndtr(z / math.sqrt(n / looks[-1]))) for n in looks]
    cumulative[-1] = alpha
    return [c - p for c, p in zip(cumulative, [0.0] + cumulative[:-1])]


def relative_margin(text: str | float, baseline_mean: float) -> float:
    """`--margin 0.02` in reward units, or `--margin 2%` of the baseline's mean reward."""
    if isinstance(text, str) and text.endswith("%"):
        value = float(text[:-1]) / 100 * abs(baseline_mean)
    else:
        value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"margin must be finite and non-negative, got {text!r}")
    return value


def gate_group(group: Group, baseline: str, candidate: str, margin_text, alpha: float,
               lower_is_better: bool, rewards: dict[str, dict[int, float]],
               reward_range: tuple[float, float] | None = None, planned_n: int | None = None,
               alpha_total: float | None = None, bounds: str = "auto") -> GateResult:
    """The verdict for one (workload, budget) group of a comparison.

    `reward_range` ([lo, hi], declared by the workload or the records; 0/1
    rewards are detected) switches to distribution-free betting bounds. In a
    sequential gate `alpha` is this look's share of alpha and `alpha_total`
    the whole: betting bounds are a confidence sequence, valid at every look
    at once, so bounded groups use `alpha_total` (no spending needed).
    Its reasons speak of units in the workload's own words (`unit_nouns`).
    """
    with nouns_of(group.unit_nouns):
        result = _gate_group(group, baseline, candidate, margin_text, alpha, lower_is_better, rewards,
                             reward_range, planned_n, alpha_total, bounds)
    result.unit_nouns = dict(group.unit_nouns or {})
    return result


def _gate_group(group: Group, baseline: str, candidate: str, margin_text, alpha: float, lower_is_better: bool,
                rewards: dict[str, dict[int, float]], reward_range: tuple[float, float] | None,
                planned_n: int | None, alpha_total: float | None, bounds: str) -> GateResult:
    result = GateResult(INCONCLUSIVE, "", group.workload, group.budget, alpha=alpha)
    broken = _unfair(result, group, baseline, candidate)
    if broken is not None:
        return broken
    base, cand = rewards.get(baseline, {}), rewards.get(candidate, {})
    if not base or not cand:
        missing = baseline if not base else candidate
        return _broken(result, f"arm {missing!r} has no scored runs in this group")
    shared = sorted(set(base) & set(cand))
    sign = -1.0 if lower_is_better else 1.0
    margin = relative_margin(margin_text, float(np.mean(list(base.values()))))
    result.margin = margin
    bounded = _gate_range(group, base, cand, reward_range, bounds)
    result.reward_range = bounded
    if len(shared) >= 2:
        verdict, mean, lower, upper, needed = _paired_verdict(result, shared, base, cand, sign, margin, alpha,
                                                              alpha_total, bounded, planned_n)
    else:  # no shared seeds (e.g. a stored baseline from other seeds): Welch, labelled unpaired
        result.paired = False
        verdict, mean, lower, upper, needed = _unpaired(sign, list(base.values()), list(cand.values()),
                                                        margin, alpha, bounded)
        result.method = "betting, unpaired" if bounded else "Welch t, unpaired"
        result.n = min(len(base), len(cand))
    result.verdict, result.diff, result.lower, result.upper, result.seeds_needed = verdict, mean, lower, upper, needed
    result.reason = _gate_reason(result, lower_is_better)
    return result


def _unfair(result: GateResult, group: Group, baseline: str, candidate: str) -> GateResult | None:
    """A broken result when either arm's fixed unit is unverified or unequal; records the confounds otherwise."""
    for u in group.unverified:
        if u.arm in (baseline, candidate):
            return _broken(result, f"{u.arm} did not report the fixed unit {u.unit} in full ({u.reason})")
    for f in group.unequal:
        if f.arm in (baseline, candidate):
            return _broken(result, f"{f.arm} spent {_amount(f.spend)} {f.unit} {f.direction} the reference "
                                   f"{_amount(f.reference)} (seed {f.seed}): not a like-for-like comparison")
    result.confounds = [f"{f.arm}: {f.unit} {'≥' if f.lower_bound else ''}{_amount(f.spend)} vs "
                        f"{_amount(f.reference)}" for f in group.confounded if f.arm in (baseline, candidate)]
    return None


def _amount(x: float) -> str:
    """Spend as people read it: "1,914,520" and "600,645" side by side, never "1.91452e+06"."""
    return f"{x:,.0f}" if math.isfinite(x) and abs(x) >= 1000 else f"{x:.6g}"


def _gate_range(group: Group, base: dict, cand: dict, reward_range, bounds: str):
    """The reward range that makes betting bounds valid, or None for t bounds (`--bounds` can force either)."""
    if reward_range is None:   # the range every run of the group declares (workload reward_range)
        reward_range = usable_range(list(base.values()) + list(cand.values()), getattr(group, "reward_range", None))
    bounded = detect_range(list(base.values()), list(cand.values()), reward_range)
    if bounds == "t":
        bounded = None
    elif bounds == "betting" and bounded is None:
        raise ValueError("--bounds betting needs a reward range: declare reward_range = [lo, hi]")
    return bounded


def _paired_verdict(result: GateResult, shared: list, base: dict, cand: dict, sign: float, margin: float,
                    alpha: float, alpha_total: float | None, bounded, planned_n: int | None):
    """(verdict, mean, lower, upper, seeds needed) on the shared seeds; bounded groups use the whole alpha."""
    diffs = [sign * (cand[s] - base[s]) for s in shared]
    look_alpha = alpha_total if (bounded is not None and alpha_total is not None) else alpha
    g = gate_decision(diffs, margin, look_alpha, bounded, planned_n)
    if g.verdict == INCONCLUSIVE and bounded is not None:
        g.seeds_needed = _betting_seeds(np.asarray(diffs, dtype=float), margin, look_alpha, bounded)
    if look_alpha != alpha:
        g.method += ", valid at every look (no alpha spending)"
        result.alpha = look_alpha
    result.method, result.notes = g.method, list(g.notes)
    result.n = len(shared)
    return g.verdict, g.mean, g.lower, g.upper, g.seeds_needed


def _gate_reason(result: GateResult, lower_is_better: bool) -> str:
    """The one-line reason a gate prints: the verdict, the bounds it rests on, notes and the unpaired label."""
    verdict, mean, lower, upper, needed = result.verdict, result.diff, result.lower, result.upper, result.seeds_needed
    direction = "candidate - baseline" if not lower_is_better else "baseline - candidate (lower is better)"
    bound_text = (f"{direction} = {mean:+.4g}, one-sided {format_level(1 - result.alpha)} bounds "
                  f"[{lower:+.4g}, {upper:+.4g}] ({result.method}), margin {result.margin:.4g}")
    if verdict == PASS:
        reason = f"no regression beyond the margin: {bound_text}"
    elif verdict == FAIL:
        reason = f"regression beyond the margin: {bound_text}"
    else:
        need = f"; about {needed} paired seeds would likely decide" if needed else ""
        reason = f"too few seeds to decide either way ({result.n}): {bound_text}{need}"
    if result.notes:
        reason += "; " + "; ".join(result.notes)
    if not result.paired:
        reason += " [unpaired: the arms share no seeds]"
    return reason


def _unpaired(sign, base, cand, margin, alpha, reward_range=None):
    """Welch bounds (stats.unpaired_test) at one-sided alpha each, for arms that share no seeds.

    With a reward range, the difference of per-arm betting bounds (alpha/2 each).
    """
    if len(base) < 2 or len(cand) < 2:
        return INCONCLUSIVE, math.nan, -math.inf, math.inf, None
    if reward_range is not None:
        from .betting import mean_bounds
        lo, hi = reward_range
        c = [sign * x for x in cand]
        b = [sign * x for x in base]
        rng_ = (lo, hi) if sign > 0 else (-hi, -lo)
        lc, uc = mean_bounds(c, alpha / 2, *rng_)
        lb, ub = mean_bounds(b, alpha / 2, *rng_)
        lower, upper = lc - ub, uc - lb
        diff = float(np.mean(c) - np.mean(b))
        return _verdict(lower, upper, margin), diff, lower, upper, None
    pair = unpaired_test("candidate", "baseline", [sign * c for c in cand], [sign * b for b in base],
                         level=1 - 2 * alpha)
    lower, upper = pair.ci
    verdict = PASS if lower > -margin else FAIL if upper < -margin else INCONCLUSIVE
    return verdict, pair.diff, lower, upper, None


def _broken(result: GateResult, reason: str) -> GateResult:
    result.verdict, result.reason = FAIL, f"broken comparison: {reason}"
    return result


def overall(results: list[GateResult]) -> str:
    if any(r.verdict == FAIL for r in results):
        return FAIL
    if not results or any(r.verdict == INCONCLUSIVE for r in results):
        return INCONCLUSIVE
    return PASS


def rewards_by_arm(group: Group) -> dict[str, dict[int, float]]:
    """Scored rewards per arm and seed, read off the group's own arms x seeds matrix (no re-selection)."""
    out: dict[str, dict[int, float]] = {}
    for i, arm in enumerate(group.arm_names):
        row = group.scores[i]
        known = ~np.isnan(row)
        out[arm] = dict(zip(group.seeds[known].tolist(), row[known].tolist()))
    return out


def run_gate(records, fixed: str, baseline: str, candidate: str, margin, alpha: float = 0.05,
             tolerance: float = 0.1, lower_is_better: bool = False,
             reward_range: tuple[float, float] | None = None,
             planned_n: int | None = None, alpha_total: float | None = None,
             bounds: str = "auto", selection: dict | None = None) -> tuple[list[GateResult], Comparison]:
    """Gate every group where both arms ran; a group missing either arm is skipped.

    Raises ValueError (the CLI's exit 2) for a candidate equal to the
    baseline, alpha outside (0, 0.5) or a negative or non-finite margin.
    `records` may be a RunTable (columns, no per-run objects: 1M runs in
    about the time of `compare`); `selection` is compare's workloads=/budgets=.
    """
    from .comparing import compare
    from .table import RunTable

    if baseline == candidate:
        raise ValueError(f"the candidate and the baseline are the same arm ({baseline!r}); "
                         "name two different arms")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 0.5):
        raise ValueError(f"alpha must be between 0 and 0.5 (one-sided), got {alpha}")
    if bounds not in BOUNDS:
        raise ValueError(f"bounds must be one of {', '.join(BOUNDS)}, got {bounds!r}")
    if not isinstance(margin, str):
        relative_margin(margin, 0.0)
    elif not margin.endswith("%"):
        relative_margin(margin, 0.0)

    table = records if isinstance(records, RunTable) else None
    arms = set(table.frame["arm"].astype(str).unique()) if table is not None else {r.arm for r in records}
    for arm in (baseline, candidate):
        if arm not in arms:
            shown = sorted(arms)
            listed = ", ".join(shown[:20]) + (f", ... ({len(shown) - 20} more)" if len(shown) > 20 else "")
            raise ValueError(f"arm {arm!r} is not in the results; arms present: {listed}")
    if table is not None:   # columns all the way: 1M runs without a Python object per run
        mask = table.frame["arm"].astype(str).isin([baseline, candidate]).to_numpy()
        subset = RunTable(table.frame[mask], table.budgets, table.units, None)
    else:
        subset = [r for r in records if r.arm in (baseline, candidate)]
    comparison = compare(subset, fixed, tolerance, alpha=alpha, pairs=False, **(selection or {}))
    results = []
    for group in comparison.groups:
        names = {a.arm for a in group.arms}
        if baseline in names and candidate in names:
            rewards = rewards_by_arm(group)
            results.append(gate_group(group, baseline, candidate, margin, alpha, lower_is_better,
                                      rewards, reward_range, planned_n, alpha_total, bounds))
    if not results:
        raise ValueError(f"no workload and budget where both {baseline!r} and {candidate!r} ran")
    return results, comparison
