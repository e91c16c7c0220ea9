"""Degrade before the wall: optional stages an arm drops as its budget runs low, and rounds it does not start.

Why: a budget used only as a brake cuts an arm mid-round, so the round's
spend buys nothing, and the arm's optional work (a ranking sweep, a
verification rollout) runs until the very end at the expense of the work it
cannot do without. A `Governor` answers two questions an arm asks: may this
optional stage still run (`allow`), and can the next round be paid for in
full (`fits`)? It only advises: the Meter still enforces the budget, and a
run without a budget is not governed at all (every stage allowed, every
round fits, nothing recorded), so its records are those of an ungoverned run.

What it did goes into the run's record (`record_fields`): the stages it
refused and the spend at which it first did, and how the run ended
(`stop_kind`), so a report can say that an arm ran its last quarter without
verification instead of presenting it as like for like.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

#: how a governed run ended: the Meter stopped it, it ended cleanly because the next round
#: would not fit, or it stopped on its own (converged, a round limit) before either
BUDGET, PROJECTED, CONVERGED = "budget", "projected", "converged"
ESTIMATES = ("max", "mean")


@dataclass(frozen=True)
class Fired:
    """A stage's first refusal: the largest budget fraction spent (and its unit) and the spend then."""

    stage: str
    floor: float
    fraction: float
    unit: str
    spend: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "floor": self.floor, "fraction": round(self.fraction, 6),
                "unit": self.unit, "spend": {u: _clean(v) for u, v in self.spend.items()}}


def _floor(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"governor stage {name!r} needs a floor in (0, 1] (a fraction of the budget), "
                         f"got {value!r}")
    return float(value)


class Governor:
    """Stages with floors, and a projection at round barriers, for one Meter.

    `stages` maps a stage name to its floor: the fraction of the budget from
    which `allow(stage)` says no. The fraction is the largest over every
    budgeted unit (spent / allowance), so a stage stops at its floor in
    whichever unit runs out first. Get one through ``meter.governor(...)``.
    """

    def __init__(self, meter, stages: Mapping[str, float], estimate: str = "max"):
        if estimate not in ESTIMATES:
            raise ValueError(f"governor estimate must be one of {', '.join(ESTIMATES)}, got {estimate!r}")
        self._meter = meter
        self.stages: dict[str, float] = {str(name): _floor(name, floor) for name, floor in stages.items()}
        self.estimate = estimate
        self.fired: list[Fired] = []
        self.rounds: list[dict[str, float]] = []   # spend of each finished round, per budgeted unit
        self.ended = False                          # `fits` said no at least once
        self._mark = self._spent()

    # -- what the arm asks ------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether a budget governs anything (without one every stage runs and every round fits)."""
        budget = self._meter.budget
        return budget is not None and bool(budget.units)

    def declare(self, stage: str, floor: float) -> None:
        """Add a stage (or move its floor) before the arm first asks about it."""
        self.stages[str(stage)] = _floor(stage, floor)

    def allow(self, stage: str) -> bool:
        """May `stage` run now? No once any budgeted unit reaches the stage's floor (and from then on)."""
        if stage not in self.stages:
            known = ", ".join(repr(s) for s in self.stages) or "none"
            raise ValueError(f"unknown governor stage {stage!r}; declared: {known} (declare it with a floor)")
        if not self.active:
            return True
        if any(f.stage == stage for f in self.fired):
            return False
        fraction, unit = self.fraction()
        if fraction < self.stages[stage]:
            return True
        self.fired.append(Fired(stage, self.stages[stage], fraction, unit, self._spent()))
        return False

    def fraction(self) -> tuple[float, str | None]:
        """(largest spent/allowance over budgeted units, that unit); (0.0, None) without a budget."""
        if not self.active:
            return 0.0, None
        best, which = -1.0, None
        for unit, limit in self._meter.budget.limits.items():
            spent = self._meter.spent(unit)
            share = 1.0 if limit <= 0 else spent / limit  # an allowance of 0 is all spent
            if share > best:
                best, which = share, unit
        return max(best, 0.0), which

    def round_done(self) -> None:
        """Mark a round barrier: the spend since the last barrier is one round's spend."""
        if not self.active:
            return
        now = self._spent()
        self.rounds.append({u: now[u] - self._mark.get(u, 0.0) for u in now})
        self._mark = now

    def projected(self) -> dict[str, float]:
        """The next round's spend per budgeted unit as projected from the rounds so far ({} before any)."""
        if not self.rounds:
            return {}
        units = self.rounds[0].keys()
        if self.estimate == "mean":
            return {u: sum(r[u] for r in self.rounds) / len(self.rounds) for u in units}
        return {u: max(r[u] for r in self.rounds) for u in units}

    def fits(self, next_round: Mapping[str, float] | None = None) -> bool:
        """Can the next round be paid for in full in every budgeted unit?

        `next_round` (unit -> spend) overrides the projection for the units it
        names. Before any round has finished there is nothing to project from,
        so the first round fits unless a unit is already used up. The Meter
        stops a run once a unit reaches its allowance, so the round must end
        strictly below it. A "no" marks the run as ended by projection.
        """
        if not self.active:
            return True
        need = self.projected()
        need.update({u: float(v) for u, v in (next_round or {}).items()})
        for unit, limit in self._meter.budget.limits.items():
            if self._meter.spent(unit) + need.get(unit, 0.0) >= limit:
                self.ended = True
                return False
        return True

    # -- what the record says -----------------------------------------------------------
    def stop_kind(self, stop_reason: str | None) -> str | None:
        """budget, projected or converged from the runner's stop reason (None for an error or a timeout)."""
        if stop_reason is None:
            return None
        if stop_reason.startswith("budget:"):
            return BUDGET
        if stop_reason != "done":
            return None
        return PROJECTED if self.ended else CONVERGED

    def record_fields(self, stop_reason: str | None) -> dict[str, Any]:
        """The fields a governed run's record carries (contract v3); {} when no budget governed it."""
        if not self.active:
            return {}
        return {"stop_kind": self.stop_kind(stop_reason),
                "degraded": [f.to_json() for f in self.fired],
                "governor": {"stages": dict(self.stages), "rounds": len(self.rounds),
                             "round_spend": {u: _clean(v) for u, v in self.projected().items()},
                             "estimate": self.estimate}}

    def _spent(self) -> dict[str, float]:
        return {u: float(self._meter.spent(u)) for u in self._meter.budget.units} if self.active else {}


def _clean(value: float) -> float | int:
    """A per-round spend for JSON: whole numbers as integers."""
    if math.isfinite(value) and float(value).is_integer():
        return int(value)
    return round(value, 6)


def governor_fields(meter, stop_reason: str | None) -> dict[str, Any]:
    """The record fields of the governor `meter` holds, if any ({} without one or without a budget)."""
    governor = getattr(meter, "_governor", None) if meter is not None else None
    return governor.record_fields(stop_reason) if governor is not None else {}
