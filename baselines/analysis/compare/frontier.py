"""The cost-reward frontier a group's statistics support, among its fully reported arms.

Why not the Pareto set of point estimates: with every interval overlapping,
a frontier drawn through means (the old figure) claimed that two arms beat
the rest when the data could not tell most of them apart. Here an arm is
off the frontier only when another fully reported arm spends no more (its
median spend in the unit is at most the arm's) and the group's paired test
detects it better (a decided pair verdict, Holm-adjusted). Arms whose spend
in the unit is unknown or a lower bound cannot be placed, so the frontier is
"among fully reported arms" and says which arms it leaves out. A group that
is not valid has no frontier: its verdicts are not equal-budget results.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .comparison import Group


@dataclass
class Frontier:
    """Arms on the supported frontier, the ones off it (with the arm that beats each), and those not placed."""

    unit: str
    on: list[str] = field(default_factory=list)              # by median spend, cheapest first
    beaten: dict[str, str] = field(default_factory=dict)      # arm -> an arm that spends no more and is detected better
    not_placed: list[str] = field(default_factory=list)       # spend unknown or a lower bound in `unit`
    valid: bool = True


def _better(group: Group) -> set[tuple[str, str]]:
    """(winner, loser) for every decided pair of the group."""
    out = set()
    for p in group.pairs:
        if p.verdict == "a>b":
            out.add((p.a, p.b))
        elif p.verdict == "b>a":
            out.add((p.b, p.a))
    return out


def supported_frontier(group: Group, unit: str) -> Frontier:
    """The arms no cheaper-or-equal, fully reported arm is detected better than (see the module's rule)."""
    spend = {a.arm: a.spend[unit].median for a in group.arms
             if unit in a.spend and a.spend[unit].status == "measured" and a.spend[unit].median is not None}
    front = Frontier(unit, not_placed=[a.arm for a in group.arms if a.arm not in spend], valid=group.valid)
    if not group.valid:
        return front
    better = _better(group)
    for arm in sorted(spend, key=lambda a: (spend[a], a)):
        by = next((b for b in sorted(spend) if b != arm and spend[b] <= spend[arm] and (b, arm) in better), None)
        if by is None:
            front.on.append(arm)
        else:
            front.beaten[arm] = by
    return front
