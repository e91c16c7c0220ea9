"""What the gate needs of one arm's runs in a group: scored rewards, crashed seeds and per-item outcomes.

Why not the group's score matrix alone: its NaN means both "no run at this
seed" and "the run crashed" (reward null), and a gate that reads only the
matrix drops a candidate's crashes in silence (a candidate with error
records on 5 of 20 seeds PASSed). The runs are reached through the group's
`rows` in the table it was built from, so nothing is re-selected by budget.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..compare.comparison import Group


@dataclass
class ArmRuns:
    """One arm in one group: seed -> reward of scored runs, seeds that ran unscored, seed -> items."""

    rewards: dict[int, float] = field(default_factory=dict)
    crashed: list[int] = field(default_factory=list)
    items: dict[int, list] = field(default_factory=dict)


def arm_runs(frame: pd.DataFrame | None, group: Group, arm: str) -> ArmRuns:
    """The arm's runs in `group` (`frame` is the table the group was built from; None: rewards only)."""
    out = ArmRuns()
    if arm in group.arm_names:
        row = group.scores[group.arm_names.index(arm)]
        known = ~np.isnan(row)
        out.rewards = dict(zip(group.seeds[known].tolist(), row[known].tolist()))
    if frame is None or not len(group.rows):
        return out
    sub = frame.iloc[np.asarray(group.rows)]
    mine = (sub["arm"].astype(str) == arm).to_numpy()
    seeds = sub["seed"].to_numpy()[mine]
    rewards = sub["reward"].to_numpy(dtype=float)[mine]
    out.crashed = sorted(int(s) for s in seeds[np.isnan(rewards)])
    if "items" in sub.columns:
        for seed, items in zip(seeds.tolist(), sub["items"].to_numpy()[mine]):
            if items is not None:
                out.items[int(seed)] = items
    return out


def seed_list(seeds: list[int], limit: int = 10) -> str:
    """Seeds for a message: "3, 7, 12" or the first ten and how many more."""
    shown = ", ".join(str(s) for s in seeds[:limit])
    return shown + (f", ... ({len(seeds) - limit} more)" if len(seeds) > limit else "")
