"""`analyse(comparison, records)`: the one `Analysis` every view renders, computed once.

The compare step decides (spend checks, paired tests, Holm); this module
turns its records into what is printed: clipped means and intervals with the
decimals of their table, each pair's p under the name of its own method, the
verdict word, the notes of the procedure that decided, the headline confound
against a named arm, rankings at equal spend, oracle rows, and each group's
runs by arm. A view that needs a number it does not find here is missing a
field, not a licence to compute one.
"""
from __future__ import annotations

import math

from ...core.units import unit_noun
from ..compare.claims import claim_sentence
from ..compare.comparison import Comparison, Group
from ..compare.pair_result import PairResult
from ..compare.frontier import supported_frontier
from ..curves.anytime_series import anytime_series
from ..curves.ranking import group_ranking
from ..statistics.clustered import METHOD as CLUSTERED
from ..statistics.clustered import TWOWAY
from ..tables.group_runs import RunIndex, as_index
from .confounds import confound_ratios, headline_confounds
from .model import NOT_VALID, PAIR_WORDS, Analysis, ClaimResult, ArmRow, GroupAnalysis, Interval, OracleRow, PairRow, SpendCell
from .precision import decimals_for, fixed
from .ranges import RewardRange, range_for, ranges_for
from .sweep import sweeps

#: how a table names each claim (compare.claims)
CLAIM_WORDS = {"typical": "typical seed", "mean": "mean"}


def p_label(method: str) -> str:
    """The p column's name for a p-value of this method: the seed-clustered t p is never called "sign-flip"."""
    if method == CLUSTERED:
        return "seed-clustered t"
    if method == TWOWAY:
        return "two-way clustered t"
    if method.startswith("permutation"):
        return "permutation"
    if method.startswith("sign-flip"):
        return "sign-flip"
    if method.startswith("exact sign test") or method.startswith("sign test"):
        return "sign test"
    return method or "p"


def _clip(value: float, box: RewardRange | None) -> float:
    return value if box is None else box.clip(value)


def _word(verdict: str, paired: bool, valid: bool) -> str:
    return NOT_VALID if not valid else PAIR_WORDS.get(verdict, verdict) + ("" if paired else " (unpaired)")


def claim_word(claim: str, about: str = "") -> str:
    """How a table names a claim: "typical seed", "mean", or "mean, about these 20 questions" paired by item."""
    word = CLAIM_WORDS.get(claim, claim)
    return f"{word}, {about}" if about else word


def _claims(p: PairResult, valid: bool, box: RewardRange | None) -> list[ClaimResult]:
    """One ClaimResult per claim decided for the pair (the headline claim alone when none was asked for)."""
    if not p.claims:
        about = p.about if p.claim == "mean" else ""
        return [ClaimResult(p.claim, claim_word(p.claim, about), _clip(p.claim_estimate, box),
                            Interval(_clip(p.claim_ci[0], box), _clip(p.claim_ci[1], box),
                                     p.claim_interval_method or p.interval_method),
                            p.method, p.p_decide, p_label(p.method), p.p_adjusted,
                            p.verdict if valid else NOT_VALID, _word(p.verdict, p.paired, valid),
                            list(p.notes) if valid else [], about=about)]
    return [ClaimResult(v.claim, claim_word(v.claim, v.about), _clip(v.estimate, box),
                        Interval(_clip(v.ci[0], box), _clip(v.ci[1], box), v.interval_method), v.method, v.p,
                        p_label(v.method), v.p_adjusted, v.verdict if valid else NOT_VALID,
                        _word(v.verdict, p.paired, valid), list(v.notes) if valid else [], about=v.about)
            for v in p.claims]


def pair_row(p: PairResult, valid: bool = True, rng: RewardRange | None = None) -> PairRow:
    """The printed form of a pair: its headline claim's estimate, interval, test, p (under the name of that test)
    and verdict, every claim's row, clipped to +-(hi - lo) when the reward has a range; "not valid" in a group
    whose budget is not verified equal (its notes are then not shown either)."""
    box = None if rng is None else RewardRange(-(rng.hi - rng.lo), rng.hi - rng.lo, rng.source)
    claims = _claims(p, valid, box)
    head = next((c for c in claims if c.claim == p.claim), claims[0])
    boot = None if p.bootstrap_ci is None else Interval(_clip(p.bootstrap_ci[0], box), _clip(p.bootstrap_ci[1], box),
                                                        "bootstrap percentile")
    return PairRow(p.a, p.b, p.n, head.estimate, head.interval, head.test, head.p, p.p_method, head.p_label,
                   p.p_adjusted, p.verdict if valid else NOT_VALID, _word(p.verdict, p.paired, valid), p.paired,
                   p.family, list(p.notes) if valid else [], boot, head.claim, claims,
                   p.claim_text if valid else "")


def _arm_rows(group: Group, pairs: list[PairRow], baseline: str | None, rng: RewardRange | None) -> list[ArmRow]:
    out = []
    index = {(p.a, p.b): p for p in pairs}
    for a in group.arms:
        seeds = f"{a.scored}/{a.runs}" if a.scored != a.runs else str(a.runs)
        spend = {u: SpendCell(a.spend[u].median, a.spend[u].status) for u in group.units}
        vs = None
        if baseline is not None and a.arm != baseline:
            vs = index.get((a.arm, baseline)) or (index[(baseline, a.arm)].flipped()
                                                  if (baseline, a.arm) in index else None)
        out.append(ArmRow(a.arm, a.runs, a.scored, seeds, _clip(a.mean, rng),
                          Interval(_clip(a.ci[0], rng), _clip(a.ci[1], rng), a.interval), spend, vs))
    return out


def oracle_rows(by_arm: dict) -> list[OracleRow]:
    """Arms that scored their unselected alternatives (forks): mean selected reward beside the best alternative's."""
    out = []
    for arm, runs in sorted(by_arm.items()):
        both = [(r.reward, r.extra.get("oracle_reward")) for r in runs
                if r.extra and r.reward is not None and isinstance(r.extra.get("oracle_reward"), (int, float))]
        if both:
            out.append(OracleRow(arm, sum(s for s, _ in both) / len(both), sum(o for _, o in both) / len(both),
                                 len(both)))
    return out


def _reward_name(by_arm: dict) -> str | None:
    """What the group's reward measures when every run that says agrees (bbob: "digits of precision")."""
    names = {r.extra.get("reward_name") for rs in by_arm.values() for r in rs if r.extra}
    names.discard(None)
    return next(iter(names)) if len(names) == 1 and isinstance(next(iter(names)), str) else None


def _leader(group: Group) -> str | None:
    scored = [a for a in group.arms if a.scored and not math.isnan(a.mean)]
    return max(scored, key=lambda a: a.mean).arm if scored else None


def _baseline_note(group: Group, baseline: str | None, present: bool) -> str:
    if baseline is None or present:
        return ""
    return (f"--baseline {baseline}: {baseline} did not run in this group, so its table has no column against it "
            "(the pairs table has every pair)")


def analyse_group(group: Group, comparison: Comparison, index: RunIndex, baseline: str | None,
                  ranges: dict) -> GroupAnalysis:
    """One group's analysis: rows, pairs, confounds, ranking and oracle rows, in the group's unit nouns."""
    rng = range_for(ranges, group) if comparison.metric == "reward" else None
    pairs = [pair_row(p, group.valid, rng) for p in group.pairs]
    present = baseline is not None and any(a.arm == baseline for a in group.arms)
    arms = _arm_rows(group, pairs, baseline if present else None, rng)
    vs = [a.vs_baseline for a in arms if a.vs_baseline is not None]
    pair_decimals = decimals_for([c.interval.half_width for p in pairs for c in p.claims] +
                                 [p.interval.half_width for p in vs])
    _reword(pairs, group.pairs, pair_decimals)
    by_arm = index.of(group)
    leader = _leader(group)
    fixed = group.fixed or comparison.fixed or ""
    claims = tuple(dict.fromkeys(c.claim for p in group.pairs for c in (getattr(p, "claims", None) or [])))
    ranking = (group_ranking(by_arm, comparison.alpha, group.reward_range, claims or ("mean",))
               if len(group.arms) > 1 and by_arm else None)
    return GroupAnalysis(
        group=group,
        fixed_noun=unit_noun(fixed, group.unit_nouns) if fixed else "",
        arms=arms, pairs=pairs,
        decimals=decimals_for(a.interval.half_width for a in arms),
        pair_decimals=pair_decimals,
        baseline=baseline if present else None, baseline_note=_baseline_note(group, baseline, present),
        confounds=confound_ratios(group), headline_confound=headline_confounds(group, leader, pairs, comparison.tolerance),
        reward_range=rng,
        ranking=ranking, rank_pairs=_rank_pairs(ranking, pairs, fixed, group.valid, rng),
        oracle=oracle_rows(by_arm), runs=by_arm, leader=leader,
        frontiers={u: supported_frontier(group, u) for u in group.units},
        anytime=anytime_series(by_arm, fixed, group.budget.get(fixed)) if fixed and by_arm else None,
        reward_name=_reward_name(by_arm))


def _reword(rows: list[PairRow], results: list[PairResult], decimals: int) -> None:
    """Each pair's sentence with the numbers its table prints (same decimals), not 3 significant digits."""
    for row, result in zip(rows, results):
        if row.sentence and result.claims:
            row.sentence = claim_sentence(result, signed=lambda x: fixed(x, decimals, signed=True))


def _rank_pairs(ranking, pairs: list[PairRow], fixed: str, valid: bool, rng) -> dict:
    """The pairs the ranking's "order differs" list cites: the pairs table's at the fixed unit, else the ranking's."""
    if ranking is None:
        return {}
    out = {}
    for unit, verdicts in ranking.verdicts.items():
        if unit == fixed:
            out[unit] = {(p.a, p.b): p for p in pairs}
        else:
            out[unit] = {key: pair_row(p, valid, rng) for key, p in verdicts.items()}
    return out


def analyse(comparison: Comparison, records=None, baseline: str | None = None,
            ranges: dict | None = None) -> Analysis:
    """The analysis of a comparison and the records it came from (records: a list, a RunIndex or None).

    `ranges` ((workload, budget key) -> RewardRange) overrides the ranges
    read off the records (a suite's report shares one table of ranges).
    """
    index = as_index(records if records is not None else comparison.records)
    if ranges is None:
        ranges = ranges_for(comparison, index.records if len(index) else None)
    groups = [analyse_group(g, comparison, index, baseline, ranges) for g in comparison.groups]
    return Analysis(comparison, groups, baseline, index, sweeps(groups, comparison.fixed))
