"""The CI gate: PASS, FAIL or INCONCLUSIVE on a paired difference with a margin.

A gate that fails on noise gets switched off; one that passes a broken
comparison is worse than none. So:
- the verdict is three-way on the one-sided interval of candidate minus
  baseline (per-seed paired differences, Student t): PASS when the lower
  bound is above -margin, FAIL when the upper bound is below -margin,
  INCONCLUSIVE otherwise, with the seeds a decision would likely need;
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

from .compare import Comparison, Group
from .stats import t_interval, t_quantile, unpaired_test

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

    def to_json(self) -> dict[str, Any]:
        num = lambda x: None if x is None or not math.isfinite(x) else float(x)  # noqa: E731
        return {"verdict": self.verdict, "reason": self.reason, "workload": self.workload,
                "budget": self.budget, "n": self.n, "diff": num(self.diff),
                "bounds": [num(self.lower), num(self.upper)], "margin": num(self.margin),
                "alpha": self.alpha, "seeds_needed": self.seeds_needed, "paired": self.paired,
                "confounds": list(self.confounds)}


def decide_gate(diffs, margin: float, alpha: float = 0.05) -> tuple[str, float, float, float, int | None]:
    """Verdict on per-seed differences (candidate - baseline, higher is better).

    Returns (verdict, mean, lower, upper, seeds_needed). The bounds are
    one-sided at `alpha` each, i.e. a (1 - 2 alpha) two-sided t interval.
    """
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if n < 2:
        return INCONCLUSIVE, float(d.mean()) if n else math.nan, -math.inf, math.inf, None
    mean, lower, upper = t_interval(d, 1 - 2 * alpha)  # one-sided alpha on each side
    sd = float(d.std(ddof=1))
    if lower > -margin:
        return PASS, mean, lower, upper, None
    if upper < -margin:
        return FAIL, mean, lower, upper, None
    return INCONCLUSIVE, mean, lower, upper, seeds_to_decide(mean, sd, margin, alpha)


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
        return float(text[:-1]) / 100 * abs(baseline_mean)
    return float(text)


def gate_group(group: Group, baseline: str, candidate: str, margin_text, alpha: float,
               lower_is_better: bool, rewards: dict[str, dict[int, float]]) -> GateResult:
    """The verdict for one (workload, budget) group of a comparison."""
    result = GateResult(INCONCLUSIVE, "", group.workload, group.budget, alpha=alpha)
    for u in group.unverified:
        if u.arm in (baseline, candidate):
            return _broken(result, f"{u.arm} did not report the fixed unit {u.unit} in full ({u.reason})")
    for f in group.unequal:
        if f.arm in (baseline, candidate):
            return _broken(result, f"{f.arm} spent {f.spend:,.6g} {f.unit} {f.direction} the reference "
                                   f"{f.reference:,.6g} (seed {f.seed}): not a like-for-like comparison")
    result.confounds = [f"{f.arm}: {f.unit} {f.spend:,.6g} vs {f.reference:,.6g}"
                        for f in group.confounded if f.arm in (baseline, candidate)]
    base, cand = rewards.get(baseline, {}), rewards.get(candidate, {})
    if not base or not cand:
        missing = baseline if not base else candidate
        return _broken(result, f"arm {missing!r} has no scored runs in this group")
    shared = sorted(set(base) & set(cand))
    sign = -1.0 if lower_is_better else 1.0
    margin = relative_margin(margin_text, float(np.mean(list(base.values()))))
    result.margin = margin
    if len(shared) >= 2:
        diffs = [sign * (cand[s] - base[s]) for s in shared]
        verdict, mean, lower, upper, needed = decide_gate(diffs, margin, alpha)
        result.n = len(shared)
    else:  # no shared seeds (e.g. a stored baseline from other seeds): Welch, labelled unpaired
        result.paired = False
        verdict, mean, lower, upper, needed = _unpaired(sign, list(base.values()), list(cand.values()),
                                                        margin, alpha)
        result.n = min(len(base), len(cand))
    result.verdict, result.diff, result.lower, result.upper, result.seeds_needed = verdict, mean, lower, upper, needed
    direction = "candidate - baseline" if not lower_is_better else "baseline - candidate (lower is better)"
    bound_text = f"{direction} = {mean:+.4g}, one-sided {1 - alpha:.0%} bounds [{lower:+.4g}, {upper:+.4g}], margin {margin:.4g}"
    if verdict == PASS:
        result.reason = f"no regression beyond the margin: {bound_text}"
    elif verdict == FAIL:
        result.reason = f"regression beyond the margin: {bound_text}"
    else:
        need = f"; about {needed} paired seeds would likely decide" if needed else ""
        result.reason = f"too few seeds to decide either way ({result.n}): {bound_text}{need}"
    if not result.paired:
        result.reason += " [unpaired: the arms share no seeds]"
    return result


def _unpaired(sign, base, cand, margin, alpha):
    """Welch bounds (stats.unpaired_test) at one-sided alpha each, for arms that share no seeds."""
    if len(base) < 2 or len(cand) < 2:
        return INCONCLUSIVE, math.nan, -math.inf, math.inf, None
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


def gate_markdown(results: list[GateResult], baseline: str, candidate: str, fixed: str) -> str:
    """GitHub job-summary markdown (appended to $GITHUB_STEP_SUMMARY)."""
    from reports.text import md, quantity

    icon = {PASS: "✅", FAIL: "❌", INCONCLUSIVE: "⚠️"}
    lines = [f"### costmatch check: {icon[overall(results)]} {overall(results)}", "",
             f"Candidate **{md(candidate)}** against baseline **{md(baseline)}** at equal {md(fixed)}.", "",
             "| workload | budget | verdict | n | diff | bounds | margin | reason |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        budget = ", ".join(f"{quantity(v)} {u}" for u, v in r.budget.items())
        bounds = f"[{r.lower:+.3g}, {r.upper:+.3g}]" if math.isfinite(r.lower) and math.isfinite(r.upper) else "n/a"
        diff = f"{r.diff:+.3g}" if math.isfinite(r.diff) else "n/a"
        margin = f"{r.margin:.3g}" if math.isfinite(r.margin) else "n/a"
        lines.append(f"| {md(r.workload)} | {md(budget)} | {icon[r.verdict]} {r.verdict} | {r.n} | {diff} | "
                     f"{bounds} | {margin} | {md(r.reason)} |")
    confounds = [c for r in results for c in r.confounds]
    if confounds:
        lines += ["", "Confounds (other units that diverged):"] + [f"- {md(c)}" for c in confounds]
    return "\n".join(lines) + "\n"


def rewards_by_arm(records, group: Group) -> dict[str, dict[int, float]]:
    """Scored rewards per arm and seed for one group (the gate pairs them by seed)."""
    from .records import budget_key

    key = budget_key(group.budget)
    out: dict[str, dict[int, float]] = {}
    for r in records:
        if r.workload == group.workload and budget_key(r.budget) == key and r.reward is not None:
            out.setdefault(r.arm, {})[r.seed] = r.reward
    return out


def run_gate(records, fixed: str, baseline: str, candidate: str, margin, alpha: float = 0.05,
             tolerance: float = 0.1, lower_is_better: bool = False) -> tuple[list[GateResult], Comparison]:
    """Gate every group where both arms ran; a group missing either arm is skipped."""
    from .compare import compare

    arms = {r.arm for r in records}
    for arm in (baseline, candidate):
        if arm not in arms:
            raise ValueError(f"arm {arm!r} is not in the results; arms present: {', '.join(sorted(arms))}")
    subset = [r for r in records if r.arm in (baseline, candidate)]
    comparison = compare(subset, fixed, tolerance, alpha=alpha)
    results = []
    for group in comparison.groups:
        names = {a.arm for a in group.arms}
        if baseline in names and candidate in names:
            results.append(gate_group(group, baseline, candidate, margin, alpha, lower_is_better,
                                      rewards_by_arm(subset, group)))
    if not results:
        raise ValueError(f"no workload and budget where both {baseline!r} and {candidate!r} ran")
    return results, comparison
