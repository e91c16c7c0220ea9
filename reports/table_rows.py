"""The row model every table format renders: one row per arm, its paired difference to a baseline, the words.

Why one module under all formats: markdown, LaTeX, CSV and HTML build
their cells from the same `Row`s and the same verdict words, so the
formats cannot disagree on a number, an interval or a verdict. Means and
intervals are clipped to the reward's possible range when one is known
(`reports.ranges`), so a success rate never prints as 1.084.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.compare.pair_result import PairResult

from .ranges import RewardRange, range_for
from .text import DASH, GE, floor_for_display, quantity


@dataclass
class Row:
    arm: str
    seeds: str
    spend: dict[str, tuple[float | None, str]]   # unit -> (median, status)
    mean: float
    ci: tuple[float, float]
    vs: PairResult | None                        # paired difference to the baseline (None for it)


def _vs(group: Group, arm: str, baseline: str | None) -> PairResult | None:
    if baseline is None or arm == baseline:
        return None
    for p in group.pairs:
        if p.a == arm and p.b == baseline:
            return p
        if p.b == arm and p.a == baseline:  # flip so it reads arm - baseline
            return dataclasses.replace(p, a=arm, b=baseline, diff=-p.diff, ci=(-p.ci[1], -p.ci[0]),
                                       verdict=_FLIP.get(p.verdict, p.verdict), notes=list(p.notes),
                                       claim_estimate=-p.claim_estimate,
                                       claim_ci=(-p.claim_ci[1], -p.claim_ci[0]),
                                       claims=[flip_claim(c) for c in p.claims])
    return None


_FLIP = {"a>b": "b>a", "b>a": "a>b"}

#: How each claim is named in a table cell.
CLAIM_WORDS = {"typical": "typical seed", "mean": "mean"}


def flip_claim(c):
    """A claim's verdict read the other way round (b - a)."""
    wins, losses = c.losses, c.wins
    return dataclasses.replace(c, verdict=_FLIP.get(c.verdict, c.verdict), estimate=-c.estimate,
                               ci=(-c.ci[1], -c.ci[0]), wins=wins, losses=losses,
                               win_share_ci=None if c.win_share_ci is None else
                               (1 - c.win_share_ci[1], 1 - c.win_share_ci[0]))


def claim_rows(p: PairResult) -> list:
    """The claims a pair's table shows, one row each: every claim asked for (the analysis decided them)."""
    return list(p.claims) if p.claims else [_mean_only(p)]


def _mean_only(p: PairResult):
    from baselines.analysis.compare.claims import ClaimVerdict
    return ClaimVerdict(p.claim, p.verdict, p.claim_estimate, p.claim_ci, p.claim_interval_method, p.claim_method,
                        p.p_decide, p.p_adjusted, list(p.notes))


def clip_pair(p: PairResult | None, rng: RewardRange | None) -> PairResult | None:
    """A difference of two rewards in [lo, hi] lies in [-(hi-lo), hi-lo]."""
    if p is None or rng is None:
        return p
    span = rng.hi - rng.lo
    box = RewardRange(-span, span, rng.source)
    return dataclasses.replace(p, diff=box.clip(p.diff), ci=(box.clip(p.ci[0]), box.clip(p.ci[1])),
                               claim_estimate=box.clip(p.claim_estimate),
                               claim_ci=(box.clip(p.claim_ci[0]), box.clip(p.claim_ci[1])),
                               claims=[dataclasses.replace(c, estimate=box.clip(c.estimate),
                                                           ci=(box.clip(c.ci[0]), box.clip(c.ci[1])))
                                       for c in p.claims])


def rows(group: Group, baseline: str | None = None, rng: RewardRange | None = None) -> list[Row]:
    out = []
    for a in group.arms:
        seeds = f"{a.scored}/{a.runs}" if a.scored != a.runs else str(a.runs)
        spend = {u: (a.spend[u].median, a.spend[u].status) for u in group.units}
        mean, ci = a.mean, a.ci
        if rng is not None:
            mean, ci = rng.clip(mean), (rng.clip(ci[0]), rng.clip(ci[1]))
        out.append(Row(a.arm, seeds, spend, mean, ci, clip_pair(_vs(group, a.arm, baseline), rng)))
    return out


# One word per verdict in every format (markdown, LaTeX, HTML, CSV). A pair table reads "a>b"/"b>a" (the
# row names a and b); a column against the baseline reads "better"/"worse" (the row is the arm).
VERDICT_SHORT = {"a>b": "better", "b>a": "worse", "no difference detected": "n.d.",
                 "underpowered": "underpowered", "equivalent": "equivalent"}
PAIR_WORDS = {"a>b": "a>b", "b>a": "b>a", "no difference detected": "n.d.", "underpowered": "underpowered",
              "equivalent": "equivalent"}
NOT_VALID = "not valid"   # the only word a pair of a not-valid group gets: its differences are no verdicts
VERDICT_LEGEND = ("n.d. = no difference detected; neither it nor \u201cunderpowered\u201d is evidence of "
                  "equality; \u201cnot valid\u201d = the group's budget is not verified equal, so no verdict.")


def family_line(pairs: list[PairResult | None]) -> str:
    """"Family: 3 pairs against a, Holm (...)." for the pairs a table prints; "" when none names a family.

    Why every format prints it: a pair's verdict depends on which pairs were
    Holm-adjusted with it, so the same pair can be n.d. among all pairs and
    decided against a baseline; a table that does not say which it is cannot
    be read against another.
    """
    families = sorted({p.family for p in pairs if p is not None and p.family})
    return f"Family: {'; '.join(families)} (a verdict depends on the pairs adjusted with it)." if families else ""


def baseline_pairs(group: Group, baseline: str | None) -> list[PairResult]:
    """The pairs behind a column against `baseline` (those `rows` prints beside each arm)."""
    return [p for p in group.pairs if baseline is not None and baseline in (p.a, p.b)]


def pair_verdict(p: PairResult, valid: bool = True) -> str:
    """The verdict word of a pair (a>b, b>a, n.d., underpowered), or "not valid" in a group that is not."""
    if not valid:
        return NOT_VALID
    return PAIR_WORDS.get(p.verdict, p.verdict) + ("" if p.paired else " (unpaired)")


def verdict_words(p: PairResult, valid: bool = True) -> str:
    """The verdict of an arm against the baseline (better, worse, n.d., underpowered), or "not valid"."""
    if not valid:
        return NOT_VALID
    return VERDICT_SHORT.get(p.verdict, p.verdict) + ("" if p.paired else " (unpaired)")



def group_range(comparison: Comparison, group: Group, ranges: dict | None) -> RewardRange | None:
    return range_for(ranges, group) if comparison.metric == "reward" else None


def spend_text(median, status, latex: bool) -> str:
    if status == "unreported" or median is None:
        return "---" if latex else DASH
    text = quantity(floor_for_display(median) if status == "partial" else median)
    if latex:
        text = text.replace(",", "{,}").replace("\u221e", "$\\infty$")
    if status == "partial":
        return f"$\\geq${text}" if latex else f"{GE}{text}"
    return text


def present_baseline(group: Group, baseline: str | None) -> str | None:
    """The baseline only where it ran: a group without it gets no difference column."""
    return baseline if baseline is not None and any(a.arm == baseline for a in group.arms) else None


def shown_units(group: Group, drop_unreported: bool, seconds: bool = False) -> list[str]:
    """Units to give a column; paper tables drop units no arm reports (the caption names them) and wall
    time unless `seconds` (on simulators it measures the machine; confounds leave it out for the same reason).

    Never the group's fixed unit: the table is about spend in it, and a reader
    told "unreported units are shown as \u2014" must find its column (of \u2014).
    """
    if not drop_unreported:
        return list(group.units)
    return [u for u in group.units if u == group.fixed or (u != "seconds" or seconds) and
            any(a.spend[u].status != "unreported" for a in group.arms)]


def silent_units(group: Group) -> list[str]:
    """Units no arm reports that get no column in a paper table (the fixed unit always has one)."""
    return [u for u in group.units
            if u != group.fixed and all(a.spend[u].status == "unreported" for a in group.arms)]
