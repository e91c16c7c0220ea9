"""What a workload's score() may return: a run's reward and its per-item outcomes.

Why a type of its own: a run's reward is usually a mean over questions,
problems or test cases, and the statistics that decide at few seeds need the
items themselves (the same id is the same question for every arm at a seed).
A workload returns ``Scored(reward, items)``; the runner writes ``reward`` as
the record's reward and ``items`` as the record's ``items`` array (contract
v3: ``[{"id": ..., "reward": ...}]``). A plain number still works.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Scored:
    """A score with its items: `items` maps an item id (unique within the run) to its reward (None: unscored)."""

    reward: float | None
    items: Mapping[str, float | None] = field(default_factory=dict)


def unpack_score(value: Any) -> tuple[float | None, list[dict[str, Any]] | None]:
    """(reward, items) of what score() returned: items as the record's JSON array, None for a plain number.

    An item reward that is not a finite number raises ValueError (the runner
    turns it into the cell's score error), so a NaN never reaches a record.
    """
    if not isinstance(value, Scored):
        return (None if value is None else float(value)), None
    items = []
    for key, reward in value.items.items():
        if reward is not None:
            if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
                raise ValueError(f"item {key!r}: reward must be a finite number or None, got {reward!r}")
            reward = float(reward)
        items.append({"id": str(key), "reward": reward})
    if len({item["id"] for item in items}) != len(items):
        raise ValueError("two items have the same id once written as strings")
    return (None if value.reward is None else float(value.reward)), items
