"""Confounds as ratios to a named reference: the table's (to the median across arms) and the headline's (b / a).

Why the headline names an arm: "main confound: a spent 0.5x the median
tokens" stood where b had spent 3x a's tokens (with two arms, the median is
their midpoint, so 3x reads as 0.5x / 1.5x), and on replay the headline named
the trailing arm (0.73x) while the leader had spent 1.75x the other. The
headline now says the leader's spend against each arm it is compared with.
"""
from __future__ import annotations

import math

from ...core.units import unit_noun
from ..compare.comparison import Group
from .model import ConfoundRatio, PairRow

#: units a reader budgets in, in the order a headline prefers them (totals before their parts; no wall time)
HEADLINE_UNITS = ("tokens", "usd", "calls", "rollouts", "completion_tokens", "prompt_tokens")
MEDIAN = "the median across arms"


def ratio_text(ratio: float, lower_bound: bool = False) -> str:
    """``0.35×``, ``1.2×``, ``12×``; ``≥`` for a lower bound (one style for the one quantity)."""
    if not math.isfinite(ratio):
        return "> 0 (ref 0)"
    text = f"{ratio:,.0f}\u00d7" if ratio >= 10 else f"{ratio:.2g}\u00d7"
    return ("\u2265" if lower_bound else "") + text


def confound_ratios(group: Group) -> list[ConfoundRatio]:
    """Each confound flag of the compare step, as a ratio to the median across arms (the table's reference)."""
    out = []
    for f in group.confounded:
        ratio = f.spend / f.reference if f.reference else math.inf
        noun = unit_noun(f.unit, group.unit_nouns)
        out.append(ConfoundRatio(f.arm, MEDIAN, f.unit, noun, ratio, f.lower_bound,
                                 f"{f.arm} spent {ratio_text(ratio, f.lower_bound)} {MEDIAN}'s {noun}"))
    return out


def _median(group: Group, arm: str, unit: str) -> tuple[float | None, bool]:
    spend = group.arm(arm).spend.get(unit)
    if spend is None or spend.status == "unreported" or spend.median is None:
        return None, False
    return spend.median, spend.status == "partial"


def headline_confounds(group: Group, leader: str | None, pairs: list[PairRow],
                       tolerance: float = 0.1) -> list[ConfoundRatio]:
    """The leader's spend against each arm it is compared with, in the first unit (HEADLINE_UNITS order) where
    some of those ratios lie beyond the group's confound tolerance; [] when none does.

    Only units the compare step flagged as confounded count (its tolerance
    decided), and the reference is the other arm's median, named.
    """
    if leader is None:
        return []
    flagged = {f.unit for f in group.confounded}
    others = [p.b if p.a == leader else p.a for p in pairs if leader in (p.a, p.b)]
    for unit in [u for u in HEADLINE_UNITS if u in flagged] + sorted(flagged - set(HEADLINE_UNITS) - {"seconds"}):
        mine, lower = _median(group, leader, unit)
        if mine is None:
            continue
        found = []
        for other in others:
            theirs, _ = _median(group, other, unit)
            if theirs is None or theirs <= 0:
                continue
            ratio = mine / theirs
            if abs(ratio - 1) <= tolerance:
                continue
            noun = unit_noun(unit, group.unit_nouns)
            bound = "at least " if lower else ""
            found.append(ConfoundRatio(leader, other, unit, noun, ratio, lower,
                                       f"{leader} spent {bound}{ratio_text(ratio)} {other}'s {noun}"))
        if found:
            return sorted(found, key=lambda c: -abs(math.log(c.ratio)))
    return []
