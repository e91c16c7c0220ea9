"""The possible range of a reward, so no printed mean or interval leaves it.

A Student-t interval on a success rate of 0.88 over 25 seeds reads
``[0.676, 1.084]``: a reviewer sees a success rate above 1. The range comes
from the records (a top-level ``reward_range: [lo, hi]`` field, kept in
`RunRecord.extra`) or, when every scored reward is 0 or 1, is [0, 1]. The
statistics stay as computed; displays clip to the range and say so in a note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.records import budget_key


@dataclass(frozen=True)
class RewardRange:
    lo: float
    hi: float
    source: str  # "declared" (records' reward_range) or "binary" (every reward is 0 or 1)

    def clip(self, value: float) -> float:
        if value is None or not math.isfinite(value):
            return value
        return min(self.hi, max(self.lo, value))

    def note(self) -> str:
        why = ("the declared range of the reward" if self.source == "declared"
               else "since every reward is 0 or 1")
        return (f"Rewards lie in [{self.lo:g}, {self.hi:g}], {why}; means and interval ends outside it "
                "are shown clipped to it.")


def _declared(value) -> tuple[float, float] | None:
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
            and value[0] < value[1]):
        return float(value[0]), float(value[1])
    return None


def reward_ranges(records) -> dict[tuple[str, str], RewardRange]:
    """(workload, budget key) -> the range its rewards may take, where one is known.

    A declared range wins; records that disagree on it give no range (clipping
    to one of two claims would hide the other).
    """
    declared: dict[tuple[str, str], set] = {}
    binary: dict[tuple[str, str], bool] = {}
    for r in records or ():
        key = (r.workload, budget_key(r.budget))
        rng = _declared(r.extra.get("reward_range")) if r.extra else None
        declared.setdefault(key, set()).add(rng)
        if r.reward is not None and math.isfinite(r.reward):
            binary[key] = binary.get(key, True) and r.reward in (0.0, 1.0)
    out = {}
    for key, found in declared.items():
        if len(found) == 1 and None not in found:
            lo, hi = next(iter(found))
            out[key] = RewardRange(lo, hi, "declared")
        elif binary.get(key):
            out[key] = RewardRange(0.0, 1.0, "binary")
    return out


def range_for(ranges: dict | None, group) -> RewardRange | None:
    if not ranges:
        return None
    return ranges.get((group.workload, budget_key(group.budget)))


def binary_ranges(comparison) -> dict[tuple[str, str], RewardRange]:
    """The range each group's runs declare (read in bulk), else [0, 1] where every compared score is 0 or 1."""
    out = {}
    for g in comparison.groups:
        declared = getattr(g, "reward_range", None)
        if declared is not None:
            out[(g.workload, budget_key(g.budget))] = RewardRange(declared[0], declared[1], "declared")
            continue
        scores = getattr(g, "scores", None)
        if scores is None or not np.size(scores):
            continue
        finite = scores[np.isfinite(scores)]
        if finite.size and np.isin(finite, (0.0, 1.0)).all():
            out[(g.workload, budget_key(g.budget))] = RewardRange(0.0, 1.0, "binary")
    return out


def ranges_for(comparison, records=None) -> dict[tuple[str, str], RewardRange]:
    """Declared ranges from the records (when read), else [0, 1] where every score is 0 or 1."""
    out = binary_ranges(comparison)
    if records is not None:
        out.update(reward_ranges(records))
    return out
