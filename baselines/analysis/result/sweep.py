"""Budget sweeps: a workload's arms across the budgets it ran at in one fixed unit, and which order changes a test
decided.

Why a band needs two decided pairs: the replay sweep shaded "mix -> majority"
(a leader change) although no pair was decided at either budget and the mix
arm never ran at the second budget. A band is drawn between two neighbouring
budgets only when both arms ran at both, the earlier leader was detected
better at the first budget and the later one at the second; any other change
of the highest mean is said in words (`notes`), never shaded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...core.units import unit_noun
from .model import GroupAnalysis


@dataclass
class SweepBand:
    lo: float
    hi: float
    before: str
    after: str


@dataclass
class Sweep:
    """One workload across budgets in `fixed`: per arm (budget, mean, (lo, hi), valid), the decided bands."""

    workload: str
    fixed: str
    groups: list[GroupAnalysis]
    series: dict[str, list[tuple[float, float, tuple[float, float], bool]]] = field(default_factory=dict)
    bands: list[SweepBand] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _finite_positive(x) -> bool:
    return x is not None and math.isfinite(x) and 0 < x < 1e300


def _leader(ga: GroupAnalysis) -> str | None:
    scored = [a for a in ga.arms if math.isfinite(a.mean)]
    return max(sorted(scored, key=lambda a: a.arm), key=lambda a: a.mean).arm if scored else None


def _decided(ga: GroupAnalysis, winner: str, loser: str) -> bool:
    p = ga.pair(winner, loser)
    return p is not None and ga.valid and p.verdict == "a>b"


def _amount(x: float) -> str:
    """A budget as the tables print it: 2,314,440, never 2.31444e+06."""
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.6g}"


def _band_or_note(g0: GroupAnalysis, g1: GroupAnalysis, fixed: str) -> tuple[SweepBand | None, str]:
    x, y = _leader(g0), _leader(g1)
    lo, hi = g0.group.budget[fixed], g1.group.budget[fixed]
    if not x or not y or x == y or not (g0.valid and g1.valid):
        return None, ""
    ran = {a.arm for a in g0.arms} & {a.arm for a in g1.arms}
    where = f"between {_amount(lo)} and {_amount(hi)} {unit_noun(fixed, g0.group.unit_nouns)}"
    if not {x, y} <= ran:
        missing = sorted({x, y} - ran)
        return None, (f"The highest mean changes from {x} to {y} {where}, but {', '.join(missing)} did not run at "
                      "both budgets: no order change is drawn.")
    if _decided(g0, x, y) and _decided(g1, y, x):
        return SweepBand(lo, hi, x, y), ""
    return None, (f"The highest mean changes from {x} to {y} {where}; no paired test decided both orders, "
                  "so no change of leader is claimed or drawn.")


def workload_sweep(groups: list[GroupAnalysis], workload: str, fixed: str) -> Sweep | None:
    """The sweep of `workload` in `fixed`, or None when it ran at fewer than two budgets in that unit."""
    mine = [ga for ga in groups if ga.group.workload == workload and (ga.group.fixed or fixed) == fixed
            and fixed in ga.group.budget and _finite_positive(ga.group.budget[fixed])]
    if len(mine) < 2:
        return None
    mine.sort(key=lambda ga: ga.group.budget[fixed])
    sweep = Sweep(workload, fixed, mine)
    arms = sorted({a.arm for ga in mine for a in ga.arms})
    for ga in mine:
        by = {a.arm: a for a in ga.arms}
        for arm in arms:  # NaN where the arm did not run: its line breaks there, never joins across
            a = by.get(arm)
            sweep.series.setdefault(arm, []).append(
                (ga.group.budget[fixed], a.mean if a else math.nan,
                 (a.interval.lo, a.interval.hi) if a else (math.nan, math.nan), ga.valid))
    for g0, g1 in zip(mine, mine[1:]):
        band, note = _band_or_note(g0, g1, fixed)
        if band is not None:
            sweep.bands.append(band)
        if note:
            sweep.notes.append(note)
    return sweep


def sweeps(groups: list[GroupAnalysis], fixed: str | None) -> list[Sweep]:
    """Every workload's sweep, per fixed unit of its groups."""
    out = []
    units = sorted({ga.group.fixed or fixed or "" for ga in groups} - {""})
    for workload in sorted({ga.group.workload for ga in groups}):
        for unit in units:
            s = workload_sweep(groups, workload, unit)
            if s is not None:
                out.append(s)
    return out
