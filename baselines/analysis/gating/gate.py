"""The CI gate over a comparison: PASS, FAIL or INCONCLUSIVE per group, with the reason a user reads.

A gate that fails on noise gets switched off; one that passes a broken
comparison is worse than none. So:
- the verdict is three-way on one-sided bounds (each at level 1 - alpha) for
  the mean of candidate minus baseline: PASS when the lower bound is above
  -margin, FAIL when the upper bound is below -margin, INCONCLUSIVE
  otherwise, with the seeds a decision would likely need. Which bounds, and
  why, is `gate_bounds` (per seed) and `clustered` (paired by question);
- a comparison whose fixed unit is unequal or unverified for either arm
  is FAIL with that reason, whatever the rewards say;
- a candidate's crashed seeds count (`CRASH_RULE`) and are named;
- the reason names the method that set the bounds, and every note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..statistics.alpha import check_alpha, format_level
from ..statistics.betting import mean_bounds
from ..compare.compare_options import CompareOptions
from ..compare.comparing import compare
from ..compare.comparison import Comparison, Group
from ..statistics.clustered import METHOD as CLUSTERED
from ..statistics.clustered import pair_items, twoway_seeds_to_decide
from ..statistics.clustered import seeds_to_decide as clustered_seeds
from ..statistics.question_claim import POPULATION, item_bounds, question_route, route_note
from ..statistics.student_t import t_quantile
from .gate_bounds import (BOUNDS, FAIL, INCONCLUSIVE, PASS, SKEW_TOL, UNBOUNDED_MIN_N, GateDecision, _arm_note,
                          arm_strict_alpha, betting_seeds, gate_decision, margin_verdict, skew_allowance, skew_z)
from .pooled_shape import Shape, look_skew, pooled_decision
from .typical_gate import GATE_CLAIMS, combine, typical_gate_decision, worst_loss
from .gate_data import ArmRuns, arm_runs, seed_list
from ..statistics.reward_range import check_margin, detect_range, usable_range
from ..statistics.stats import unpaired_test
from ..tables.table import RunTable
from ...core.records import budget_key, budget_label
from ...core.units import UNIT_NOUNS, unit_noun
from ...core.suggest import did_you_mean
from ...core.units import nouns_of


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
    crashed: dict[str, list[int]] = field(default_factory=dict)  # unscored seeds per role (candidate, baseline)
    items: int | None = None        # paired items the verdict rests on (None: decided per seed)
    earlier_looks: list[int] = field(default_factory=list)  # seed counts of earlier checks (looks ledger)
    shared: int = 0                 # seeds both arms scored
    # issue 37: the claim gated (mean, typical or both), each claim's verdict and bounds, the worst seed's loss
    claim: str = "mean"
    claims: list[dict] = field(default_factory=list)
    worst_loss: float = math.nan
    worst_seed: int | None = None
    max_loss: float | None = None
    skew_z: float | None = None     # issue 40: skewness of the paired differences in SEs (a history pools it)
    # issue 37 item 2: what an item-paired verdict is about ("population" or "these"; None: decided per seed)
    questions: str | None = None
    question_count: int | None = None
    about: str = ""
    # which questions route decided ("population", "these", "fresh"; None: per seed); the history records it
    question_route: str | None = None
    # where the mean claim's route began writing `notes` (its bounds' caveats and refusals follow): the item
    # route and the typical claim replace what follows
    mean_notes_from: int = field(default=0, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        num = lambda x: None if x is None or not math.isfinite(x) else float(x)  # noqa: E731
        return {"verdict": self.verdict, "reason": self.reason, "workload": self.workload,
                "budget": self.budget, "n": self.n, "diff": num(self.diff),
                "bounds": [num(self.lower), num(self.upper)], "margin": num(self.margin),
                "alpha": self.alpha, "seeds_needed": self.seeds_needed, "paired": self.paired,
                "method": self.method, "notes": list(self.notes),
                "reward_range": list(self.reward_range) if self.reward_range is not None else None,
                "confounds": list(self.confounds),
                "crashed_seeds": {"candidate": list(self.crashed.get("candidate", [])),
                                  "baseline": list(self.crashed.get("baseline", []))},
                "items": self.items, "earlier_looks": list(self.earlier_looks),
                "claim": self.claim, "claims": [dict(c) for c in self.claims],
                "worst_loss": num(self.worst_loss), "worst_seed": self.worst_seed,
                "max_loss": num(self.max_loss) if self.max_loss is not None else None,
                "questions": self.questions, "question_count": self.question_count, "about": self.about}


def relative_margin(text: str | float, baseline_mean: float) -> float:
    """`--margin 0.02` in reward units, or `--margin 2%` of the baseline's mean reward."""
    try:
        if isinstance(text, str) and text.endswith("%"):
            value = float(text[:-1]) / 100 * abs(baseline_mean)
        else:
            value = float(text)
    except (TypeError, ValueError, OverflowError):  # was "could not convert string to float" (issue 31)
        raise ValueError(f"margin must be a number like 0.02 or a percentage like '2%', got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"margin must be finite and non-negative, got {text!r}")
    return value


def gate_group(group: Group, baseline: str, candidate: str, margin_text, alpha: float,
               lower_is_better: bool, rewards: dict[str, dict[int, float]],
               reward_range: tuple[float, float] | None = None, planned_n: int | None = None,
               alpha_total: float | None = None, bounds: str = "auto", *,
               runs: dict[str, ArmRuns] | None = None, anytime: bool = False, claim: str = "mean",
               max_loss: float | None = None, shape: Shape | None = None,
               questions: str = POPULATION) -> GateResult:
    """The verdict for one (workload, budget) group of a comparison.

    `reward_range` ([lo, hi], declared by the workload or the records; 0/1
    rewards are detected) switches to distribution-free bounds. In a
    sequential gate `alpha` is this look's share of alpha and `alpha_total`
    the whole: betting bounds are a confidence sequence, valid at every look
    at once, so bounded groups use `alpha_total` (no spending needed).
    `runs` (`gate_data.arm_runs` per arm) adds crashed seeds and per-item
    outcomes; `anytime` says earlier looks were taken at these results.
    `shape` (issue 40) is what the group's history says about the shape of
    its differences: unbounded groups then use `pooled_shape.pooled_decision`.
    Its reasons speak of units in the workload's own words (`unit_nouns`).
    """
    if runs is None:
        runs = {arm: ArmRuns(dict(rewards.get(arm, {}))) for arm in (baseline, candidate)}
    with nouns_of(group.unit_nouns):
        result = _gate_group(group, baseline, candidate, margin_text, alpha, lower_is_better, runs,
                             reward_range, planned_n, alpha_total, bounds, anytime, claim, max_loss, shape,
                             questions)
    result.unit_nouns = dict(group.unit_nouns or {})
    return result


def _gate_group(group: Group, baseline: str, candidate: str, margin_text, alpha: float, lower_is_better: bool,
                runs: dict[str, ArmRuns], reward_range: tuple[float, float] | None,
                planned_n: int | None, alpha_total: float | None, bounds: str, anytime: bool,
                claim: str = "mean", max_loss: float | None = None, shape: Shape | None = None,
                questions: str = POPULATION) -> GateResult:
    result = GateResult(INCONCLUSIVE, "", group.workload, group.budget, alpha=alpha, claim=claim, max_loss=max_loss)
    broken = _unfair(result, group, baseline, candidate)
    if broken is not None:
        return broken
    base_runs, cand_runs = runs[baseline], runs[candidate]
    base, cand = dict(base_runs.rewards), dict(cand_runs.rewards)
    result.crashed = {"candidate": list(cand_runs.crashed), "baseline": list(base_runs.crashed)}
    if not base or not cand:
        missing = baseline if not base else candidate
        return _broken(result, f"arm {missing!r} has no scored runs in this group")
    sign = -1.0 if lower_is_better else 1.0
    margin = relative_margin(margin_text, float(np.mean(list(base.values()))))
    result.margin = margin
    bounded = _gate_range(group, base, cand, reward_range, bounds)
    result.reward_range = bounded
    wide = check_margin(margin, bounded, [*base.values(), *cand.values()], "margin",
                        f"workload {group.workload!r} at budget {budget_label(group.budget)}")
    if wide is not None:   # one no loss ever seen reached: said, beside the verdict
        result.notes.append(wide)
    floor = None if bounded is None else (bounded[0] if sign > 0 else bounded[1])
    crash_fail = _count_crashes(result, cand, base, cand_runs, base_runs, floor)
    if crash_fail is not None:
        return crash_fail
    shared = sorted(set(base) & set(cand))
    result.shared = len(shared)
    if len(shared) >= 2:
        looks = anytime or alpha_total is not None
        decided = _paired_verdict(result, shared, base, cand, sign, margin, alpha, alpha_total, bounded,
                                  planned_n, looks, bounds, int(anytime) if alpha_total is None else 0,
                                  shape if not looks else None)
        if not looks:
            decided = _item_verdict(result, shared, cand_runs, base_runs, sign, margin, alpha, floor,
                                    bounds, questions) or decided
        verdict, mean, lower, upper, needed = _claims_verdict(result, decided, shared, base, cand, sign, margin,
                                                              alpha, claim, max_loss)
    else:  # no shared seeds (e.g. a stored baseline from other seeds): Welch, labelled unpaired
        result.paired = False
        verdict, mean, lower, upper, needed = _unpaired(sign, list(base.values()), list(cand.values()),
                                                        margin, alpha, bounded)
        result.method = "betting, unpaired" if bounded else "Welch t, unpaired"
        result.n = min(len(base), len(cand))
    result.verdict, result.diff, result.lower, result.upper, result.seeds_needed = verdict, mean, lower, upper, needed
    result.reason = _gate_reason(result, lower_is_better)
    return result


def _claims_verdict(result: GateResult, mean_route: tuple, shared: list, base: dict, cand: dict, sign: float,
                    margin: float, alpha: float, claim: str, max_loss: float | None) -> tuple:
    """The verdict of the claim(s) gated (`typical_gate`), the worst seed's loss, and `--max-loss`."""
    diffs = {s: sign * (cand[s] - base[s]) for s in shared}
    result.worst_loss, result.worst_seed = worst_loss(diffs)
    verdict, mean, lower, upper, needed = mean_route
    mean_d = GateDecision(verdict, mean, lower, upper, needed, result.method)
    result.claims = [] if claim == "typical" else [_claim_json("mean", mean_d, result.about)]
    if claim != "mean":
        typical = typical_gate_decision(list(diffs.values()), margin, alpha)
        result.claims.append(_claim_json("typical", typical))
        if claim == "typical":
            verdict, mean, lower, upper, needed = (typical.verdict, typical.mean, typical.lower, typical.upper,
                                                   typical.seeds_needed)
            result.method = typical.method
            result.items = None
            result.questions, result.question_count, result.about = None, None, ""
            result.question_route = None
            result.n = len(shared)
            # the mean route's notes (its caveats, its refusals: "... so no PASS") were about the mean claim
            result.notes = result.notes[:result.mean_notes_from]
        else:
            split = combine(mean_d, typical)
            if split != verdict or typical.verdict != verdict:
                result.notes.append(f"mean claim {mean_d.verdict}, typical-seed claim {typical.verdict}: both must "
                                    "agree to PASS or FAIL")
            verdict = split
            needed = max([x for x in (needed, typical.seeds_needed) if x], default=None)
        result.notes += typical.notes
    if math.isfinite(result.worst_loss):
        where = f" (seed {result.worst_seed})" if result.worst_seed is not None else ""
        result.notes.append(f"worst seed's loss {result.worst_loss:.4g}{where}")
    if max_loss is not None and result.worst_loss > max_loss:
        result.notes.append(f"FAIL by --max-loss {max_loss:g}: seed {result.worst_seed} lost {result.worst_loss:.4g}")
        verdict = FAIL
    return verdict, mean, lower, upper, needed


def _claim_json(claim: str, g: GateDecision, about: str = "") -> dict:
    """One gated claim; `about`: what an item-paired mean claim is about (as compare's `claims[].about`)."""
    num = lambda x: None if x is None or not math.isfinite(x) else float(x)  # noqa: E731
    return {"claim": claim, "verdict": g.verdict, "estimate": num(g.mean), "bounds": [num(g.lower), num(g.upper)],
            "method": g.method, "seeds_needed": g.seeds_needed, "about": about}


CRASH_RULE = ("a candidate seed that ran without a score counts as a loss at the reward range's floor where the "
              "baseline scored; without a range, the gate FAILs when the candidate has more unscored seeds than "
              "the baseline, and otherwise leaves them out, naming them")


def _count_crashes(result: GateResult, cand: dict, base: dict, cand_runs: ArmRuns, base_runs: ArmRuns,
                   floor: float | None) -> GateResult | None:
    """Apply CRASH_RULE to `cand` in place (floor losses) and write notes; a FAIL result when it says so."""
    crashed = cand_runs.crashed
    if base_runs.crashed:
        result.notes.append(f"baseline unscored on seed(s) {seed_list(base_runs.crashed)} (left out)")
    if not crashed:
        return None
    if floor is not None:
        counted = [s for s in crashed if s in base]
        for s in counted:
            cand[s] = floor
        if counted:
            result.notes.append(f"candidate unscored on seed(s) {seed_list(counted)}: counted as a loss at the "
                                f"range floor {floor:g}")
        rest = [s for s in crashed if s not in base]
        if rest:
            result.notes.append(f"candidate unscored on seed(s) {seed_list(rest)} where the baseline has no "
                                "score either (left out)")
        return None
    if len(crashed) > len(base_runs.crashed):
        result.verdict = FAIL
        result.reason = (f"the candidate crashed: unscored on {len(crashed)} seed(s) ({seed_list(crashed)}) where "
                         f"the baseline is unscored on {len(base_runs.crashed)}; without a reward range a crash "
                         "cannot be counted as a loss of known size, so it FAILs (declare reward_range to count "
                         "crashes at its floor)")
        result.method = "crash rule"
        return result
    result.notes.append(f"candidate unscored on seed(s) {seed_list(crashed)} (left out: the baseline is unscored "
                        f"on as many or more)")
    return None


def _item_verdict(result: GateResult, shared: list, cand_runs: ArmRuns, base_runs: ArmRuns, sign: float,
                  margin: float, alpha: float, floor: float | None, bounds: str,
                  questions: str = POPULATION) -> tuple | None:
    """The item-level (verdict, mean, lower, upper, seeds needed) when both arms carry items on every shared
    seed (pairing by question; `clustered`): for the claim `questions` makes (`question_claim`: two-way
    seed x question clustered about the question population when ids recur, else seed-clustered); None (the
    per-seed verdict stands) otherwise.

    When it decides, the per-seed route's notes (its bounds' caveats and its refusals) are replaced by this
    route's own: they were about a verdict no longer printed. On unbounded rewards (`floor` None) the item
    route's PASS or FAIL passes the per-seed route's skew rule on the seeds' mean item differences
    (`_item_skew_refusal`): its seed clustering rests on the same seeds."""
    if bounds != "auto" or not all(s in cand_runs.items and s in base_runs.items for s in shared):
        return None
    pairing = pair_items(cand_runs.items, base_runs.items, shared, sign, floor)
    b = item_bounds(pairing, questions, alpha)
    if b is None:
        result.notes.append("items present but without spread over 2 or more seeds: decided per seed")
        return None
    verdict = margin_verdict(b.lower, b.upper, margin)
    extra = []
    if floor is None and verdict != INCONCLUSIVE:
        refusal = _item_skew_refusal(verdict, pairing, base_runs, sign, margin, alpha, questions)
        if refusal:
            extra.append(refusal)
            verdict = INCONCLUSIVE
    needed = None   # refused by the skew rule (`extra`): no seed count, more of the same would decide no better
    if not extra and verdict == INCONCLUSIVE and b.method == CLUSTERED:
        needed = clustered_seeds(pairing.clusters, margin, alpha)
    elif not extra and verdict == INCONCLUSIVE and math.isfinite(b.se):
        needed = twoway_seeds_to_decide(pairing.clusters, pairing.ids, margin, alpha)
        if needed is None:
            extra.append(questions_note(pairing, margin, alpha, b.question_count))
    result.items, result.method, result.n = pairing.items, b.method, len(pairing.clusters)
    result.questions, result.question_count, result.about = b.questions, b.question_count, b.about
    result.question_route = question_route(b.questions, b.recur)
    keep = result.notes[:result.mean_notes_from]
    # the route's note replaces pairing's first line ("paired by item: N question(s) over G seed(s)") and says
    # which claim the verdict makes
    result.notes = keep + [route_note(pairing.items, len(pairing.clusters), b)] + pairing.notes()[1:] + extra
    return verdict, b.mean, b.lower, b.upper, needed


REFUSE_WORDS = ("declare reward_range for distribution-free bounds, add seeds, or pass --bounds t to use the "
                "per-seed t bounds")


def _item_skew_refusal(verdict: str, pairing, base_runs: ArmRuns, sign: float, margin: float, alpha: float,
                       questions: str) -> str:
    """Why an item-paired PASS or FAIL on unbounded rewards is refused, or "" when it stands: the per-seed
    route's skew rule (`gate_bounds._skew_checked`) on the seeds' mean item differences, which the item
    route's seed clustering rests on.

    Why: with left-skewed per-seed effects (lognormal sigma 1 and 1.5, a rare large loss) plus per-question
    noise (the same 20 questions on every seed), the two-way item route PASSed at the margin 0.16-0.23 of the
    time at 5-20 seeds, 0.39 with a rare large loss; with the rule 0.07-0.14, about the per-seed gate's on the
    same seed means (benchmarks/item_skew.py, 2,000 data sets per cell, docs/calibration.md). The rules: no
    PASS or FAIL below UNBOUNDED_MIN_N seeds; none the seed means' skewness leans against beyond
    `skew_allowance(n)` standard errors; none that fails to hold at the stricter alpha the arms' own seed
    means call for (`arm_strict_alpha`)."""
    means = np.array([float(c.mean()) for c in pairing.clusters])
    n = means.size
    if n < UNBOUNDED_MIN_N:
        return (f"paired by item on unbounded rewards, a {verdict} needs at least {UNBOUNDED_MIN_N} seeds (the "
                f"per-seed skew rule: the item bounds rest on {n} seed(s), and a rare large loss is absent from "
                f"most of so few), so no {verdict}: {REFUSE_WORDS}")
    z, allow = skew_z(means), skew_allowance(n)
    if (verdict == PASS and z < -allow - SKEW_TOL) or (verdict == FAIL and z > allow + SKEW_TOL):
        side = "left-skewed (an occasional large loss)" if z < 0 else "right-skewed (an occasional large gain)"
        return (f"the item bounds say {verdict} but the seeds' mean item differences are {side}: {abs(z):.1f} "
                f"standard errors, beyond the {allow:.2f} allowed at n = {n}; the tail can be bigger than these "
                f"seeds show, so no {verdict}: {REFUSE_WORDS}")
    arms = _item_arm_means(pairing, base_runs, sign, means)
    strict, z_arm, shown = arm_strict_alpha(alpha, arms, n, verdict)
    if strict < alpha:
        s = item_bounds(pairing, questions, strict)
        if s is None or margin_verdict(s.lower, s.upper, margin) != verdict:
            return "paired by item, " + _arm_note(verdict, z_arm, shown, strict).replace("the bounds say",
                                                                                         "the item bounds say", 1)
    return ""


def _item_arm_means(pairing, base_runs: ArmRuns, sign: float, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(baseline, candidate) per seed: the mean of each arm's paired items, oriented so higher is better
    (`means`: the seeds' mean item differences, candidate - baseline)."""
    base = []
    for seed, ids in zip(pairing.seeds, pairing.ids):
        rewards = {i["id"]: i["reward"] for i in base_runs.items[seed]}
        base.append(sign * float(np.mean([rewards[k] for k in ids])))
    b = np.array(base)
    return b, b + means


def questions_note(pairing, margin: float, alpha: float, count: int) -> str:
    """Why no seed count is printed for the population claim: what would decide instead."""
    from ..statistics.clustered import twoway_bounds
    tw = twoway_bounds(pairing.clusters, pairing.ids, alpha)
    distance = abs(tw.mean + margin)
    if distance > 0 and t_quantile(1 - alpha, count - 1) * math.sqrt(tw.question_var) >= distance:
        return (f"more seeds alone would not decide: the {count} questions' own sampling error keeps the bound "
                f"across -margin; more questions would (--questions these makes the claim about these questions only)")
    return "no number of seeds up to 10,000 would likely decide at this mean and spread"


def _unfair(result: GateResult, group: Group, baseline: str, candidate: str) -> GateResult | None:
    """A broken result when either arm's fixed unit is unverified or unequal; records the confounds otherwise."""
    for u in group.unverified:
        if u.arm in (baseline, candidate):
            return _broken(result, f"{u.arm} did not report the fixed unit {u.unit} in full ({u.reason})")
    for f in group.unequal:
        if f.arm in (baseline, candidate):
            return _broken(result, f"{f.arm} spent {_amount(f.spend)} {_unit_words(f.unit, group.unit_nouns)} "
                                   f"{f.direction} the reference "
                                   f"{_amount(f.reference)} (seed {f.seed}): not a like-for-like comparison")
    result.confounds = _confound_lines(group, baseline, candidate)
    return None


def _confound_lines(group: Group, baseline: str, candidate: str) -> list[str]:
    """One line per diverging unit, the candidate's median spend against the baseline's, both named.

    Why: "cand: tokens 3,000 vs 2,000" compared the arm with the two arms'
    median, a number no table prints (the report's confound table is against
    the median across all arms); a gate reader wants the candidate against
    the baseline it replaces.
    """
    flags = [f for f in group.confounded if f.arm in (baseline, candidate)]
    spend = {a.arm: a.spend for a in group.arms}
    out = []
    for unit in dict.fromkeys(f.unit for f in flags):
        words = _unit_words(unit, group.unit_nouns)
        mark = {f.arm: "≥" if f.lower_bound else "" for f in flags if f.unit == unit}
        c, b = (spend.get(arm, {}).get(unit) for arm in (candidate, baseline))
        if c is None or b is None or c.median is None or b.median is None:
            out += [f"{f.arm}: {words} {mark[f.arm]}{_amount(f.spend)} vs the two arms' median {_amount(f.reference)}"
                    for f in flags if f.unit == unit]
            continue
        ratio = f"{c.median / b.median:.2g}× the baseline's" if b.median > 0 else "the baseline spent none"
        out.append(f"{words}: {candidate} {mark.get(candidate, '')}{_amount(c.median)} vs {baseline} "
                   f"{mark.get(baseline, '')}{_amount(b.median)} ({ratio}; medians over seeds)")
    return out


def _unit_words(unit: str, nouns: dict | None) -> str:
    """"prompt tokens" for a standard unit (the report's words); a custom unit by its own name, unquoted."""
    return unit_noun(unit, nouns) if unit in UNIT_NOUNS or unit in (nouns or {}) else unit


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
                    alpha: float, alpha_total: float | None, bounded, planned_n: int | None, anytime: bool,
                    bounds: str = "auto", earlier_looks: int = 0, shape: Shape | None = None):
    """(verdict, mean, lower, upper, seeds needed) on the shared seeds; bounded groups use the whole alpha.
    With a history's `shape`, unbounded groups at one look take the pooled-shape route (issue 40)."""
    diffs = [sign * (cand[s] - base[s]) for s in shared]
    result.mean_notes_from = len(result.notes)
    result.skew_z = look_skew(diffs)
    look_alpha = alpha_total if (bounded is not None and alpha_total is not None) else alpha
    arms = ([sign * base[s] for s in shared], [sign * cand[s] for s in shared])
    if shape is not None and bounded is None and bounds == "auto" and not anytime and not earlier_looks:
        g = pooled_decision(diffs, margin, look_alpha, shape, arms)
    else:
        g = gate_decision(diffs, margin, look_alpha, bounded, planned_n, bounds="t" if bounds == "t" else "auto",
                          anytime=bool(anytime), earlier_looks=earlier_looks, arms=arms)
    if g.verdict == INCONCLUSIVE and bounded is not None and g.method.startswith("betting"):
        g.seeds_needed = betting_seeds(np.asarray(diffs, dtype=float), margin, look_alpha, bounded)
    if look_alpha != alpha:
        g.method += ", valid at every look (no alpha spending)"
        result.alpha = look_alpha
    if g.alpha is not None:        # unbounded after earlier looks: the alpha this look spent
        result.alpha = g.alpha
    result.method, result.notes = g.method, result.notes + list(g.notes)
    result.n = len(shared)
    return g.verdict, g.mean, g.lower, g.upper, g.seeds_needed


def _gate_reason(result: GateResult, lower_is_better: bool) -> str:
    """The one-line reason a gate prints: the verdict, the bounds it rests on, notes and the unpaired label."""
    verdict, mean, lower, upper, needed = result.verdict, result.diff, result.lower, result.upper, result.seeds_needed
    direction = "candidate - baseline" if not lower_is_better else "baseline - candidate (lower is better)"
    if result.claim == "typical":
        direction = f"median of {direction} (typical seed)"
    if math.isfinite(lower) or math.isfinite(upper):
        bounds = f"one-sided {format_level(1 - result.alpha)} bounds [{lower:+.4g}, {upper:+.4g}]"
    else:   # with the seeds there, a note says why (a sign test below 5 seeds, one question recurring)
        bounds = "no bounds (fewer than 2 seeds per arm)" if result.n < 2 else "no bounds"
    shown = f"{mean:+.4g}" if math.isfinite(mean) else "n/a"
    bound_text = f"{direction} = {shown}, {bounds} ({result.method}), margin {result.margin:.4g}"
    if verdict == PASS:
        reason = f"no regression beyond the margin: {bound_text}"
    elif verdict == FAIL and any(n.startswith("FAIL by --max-loss") for n in result.notes):
        reason = f"a seed lost more than --max-loss {result.max_loss:g}: {bound_text}"
    elif verdict == FAIL:
        reason = f"regression beyond the margin: {bound_text}"
    else:
        # the figure comes from the route that decided (issue 37): its own bounds on differences like these
        need = (f"; about {needed} paired seeds would likely decide (the same procedure, on differences like "
                "these)") if needed else ""
        reason = f"too few seeds to decide either way ({result.n}): {bound_text}{need}"
    if result.notes:
        reason += "; " + "; ".join(result.notes)
    if not result.paired:
        reason += (f" [unpaired: the arms share only {result.shared} seed]" if result.shared
                   else " [unpaired: the arms share no seeds]")
    return reason


def _unpaired(sign, base, cand, margin, alpha, reward_range=None):
    """Welch bounds (stats.unpaired_test) at one-sided alpha each, for arms that share no seeds.

    With a reward range, the difference of per-arm betting bounds (alpha/2 each).
    """
    if len(base) < 2 or len(cand) < 2:   # the difference of means is still what the reason prints
        return INCONCLUSIVE, sign * float(np.mean(cand) - np.mean(base)), -math.inf, math.inf, None
    if reward_range is not None:
        lo, hi = reward_range
        c = [sign * x for x in cand]
        b = [sign * x for x in base]
        rng_ = (lo, hi) if sign > 0 else (-hi, -lo)
        lc, uc = mean_bounds(c, alpha / 2, *rng_)
        lb, ub = mean_bounds(b, alpha / 2, *rng_)
        lower, upper = lc - ub, uc - lb
        diff = float(np.mean(c) - np.mean(b))
        return margin_verdict(lower, upper, margin), diff, lower, upper, None
    pair = unpaired_test("candidate", "baseline", [sign * c for c in cand], [sign * b for b in base],
                         level=1 - 2 * alpha)
    lower, upper = pair.ci
    return margin_verdict(lower, upper, margin), pair.diff, lower, upper, None


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


def run_gate(records, fixed: str | None, baseline: str, candidate: str, margin, alpha: float | None = None,
             tolerance: float | None = None, lower_is_better: bool = False,
             reward_range: tuple[float, float] | None = None,
             planned_n: int | None = None, alpha_total: float | None = None,
             bounds: str = "auto", selection: dict | None = None,
             anytime: bool = False, *, options: CompareOptions | None = None, claim: str = "mean",
             max_loss: float | None = None, shapes: dict | None = None) -> tuple[list[GateResult], Comparison]:
    """Gate every group where both arms ran; a group missing either arm is skipped.

    `options` is the comparison the gate reads (`CompareOptions`: tolerance,
    early stops, metric and start, confound units, workload/budget selection,
    reward range), the same object `compare` and the report use, so every
    verb judges one file alike; `tolerance` and `selection` (compare's
    workloads=/budgets=) replace its fields. `alpha` is the gate's one-sided
    alpha (default: the options'); a sequential look passes its share.
    Raises ValueError (the CLI's exit 2) for a candidate equal to the
    baseline, alpha outside (0, 0.5) or a negative or non-finite margin.
    `records` may be a RunTable (columns, no per-run objects: 1M runs in
    about the time of `compare`). `anytime`: earlier looks were taken at
    these results (the looks ledger), so bounded groups use the
    anytime-valid betting bounds. `shapes` ({(workload, budget key): Shape},
    from a history, issue 40) gives each unbounded group its history's shape.
    """
    options = gate_options(options, tolerance, selection)
    alpha = options.alpha if alpha is None else alpha
    _check_gate_args(baseline, candidate, alpha, bounds, margin)
    claim = "mean" if claim == "auto" else claim
    if claim not in GATE_CLAIMS:
        raise ValueError(f"claim must be one of {', '.join(GATE_CLAIMS)}, got {claim!r}")
    if max_loss is not None and not (math.isfinite(max_loss) and max_loss >= 0):
        raise ValueError(f"--max-loss must be a finite non-negative number, got {max_loss!r}")
    subset = _two_arms(records, baseline, candidate)
    comparison = compare(subset, fixed=fixed, options=replace(options, pairs="none"))
    results = []
    for group in comparison.groups:
        names = {a.arm for a in group.arms}
        if baseline in names and candidate in names:
            runs = {arm: arm_runs(subset.frame, group, arm) for arm in (baseline, candidate)}
            if options.metric != "reward":   # per-item rewards are final rewards, not the metric gated here
                for arm_data in runs.values():
                    arm_data.items = {}
            results.append(gate_group(group, baseline, candidate, margin, alpha, lower_is_better,
                                      {}, reward_range, planned_n, alpha_total, bounds, runs=runs,
                                      anytime=anytime, claim=claim, max_loss=max_loss,
                                      shape=(shapes or {}).get((group.workload, budget_key(group.budget))),
                                      questions=options.questions))
    if not results:
        raise ValueError(f"no workload and budget where both {baseline!r} and {candidate!r} ran")
    return results, comparison


def gate_options(options: CompareOptions | None, tolerance: float | None = None,
                 selection: dict | None = None) -> CompareOptions:
    """The comparison options a gate runs on: `options` (default CompareOptions()) with the given fields replaced."""
    changes = {k: tuple(v) for k, v in (selection or {}).items() if v is not None}
    if tolerance is not None:
        changes["tolerance"] = tolerance
    return replace(options or CompareOptions(), **changes)


def _check_gate_args(baseline: str, candidate: str, alpha, bounds: str, margin) -> None:
    if baseline == candidate:
        raise ValueError(f"the candidate and the baseline are the same arm ({baseline!r}); "
                         "name two different arms")
    check_alpha(alpha)
    if bounds not in BOUNDS:
        raise ValueError(f"bounds must be one of {', '.join(BOUNDS)}, got {bounds!r}")
    relative_margin(margin, 1.0)  # its form, before any group: "abc%" passed here and then gated nothing


def _two_arms(records, baseline: str, candidate: str):
    """The runs of the two gated arms (columns stay columns), after checking both are present."""
    table = records if isinstance(records, RunTable) else None
    arms = set(table.frame["arm"].astype(str).unique()) if table is not None else {r.arm for r in records}
    for arm in (baseline, candidate):
        if arm not in arms:
            shown = sorted(arms)
            listed = ", ".join(shown[:20]) + (f", ... ({len(shown) - 20} more)" if len(shown) > 20 else "")
            raise ValueError(f"arm {arm!r} is not in the results{did_you_mean(arm, shown)}; arms present: {listed}")
    if table is not None:   # columns all the way: 1M runs without a Python object per run
        mask = table.frame["arm"].astype(str).isin([baseline, candidate]).to_numpy()
        traces = None if table.traces is None else [table.traces[i] for i in np.flatnonzero(mask).tolist()]
        return RunTable(table.frame[mask], table.budgets, table.units, traces)   # traces: anytime metrics
    # one table, so the groups' rows reach each run's crash and items
    return RunTable.from_records([r for r in records if r.arm in (baseline, candidate)])
