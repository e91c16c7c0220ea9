"""What governed runs dropped, read back: the reader's columns and each group's `Degraded` arms.

Why a comparison needs it: two arms at equal tokens are like for like only
if both did the same kind of work to the end. A governed arm that skipped
verification for its last quarter spent the same tokens on something else,
and its reward says nothing about that; `compare` names such arms beside the
confounds ("degraded in the last 25%"). The record fields are optional and
advisory: a malformed `stop_kind` or `degraded` is ignored by both readers
alike (as a malformed `reward_range` is), never an error.
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: the reader's columns (absent when no run of the input carries the fields)
STOP_KIND, DEGRADED = "stop_kind", "degraded"


def stop_kind_column(values: list) -> np.ndarray:
    """Each run's `stop_kind` (a string), None where it is absent or not a string."""
    return np.array([v if isinstance(v, str) else None for v in values], dtype=object)


def degraded_text(value: Any) -> str | None:
    """A run's `degraded` list as canonical JSON {stage: budget fraction at its first refusal}.

    None when the field is absent, empty or not a list; entries without a
    string `stage` and a finite numeric `fraction` are skipped.
    """
    if not isinstance(value, list):
        return None
    first: dict[str, float] = {}
    for entry in value:
        if not isinstance(entry, dict):
            continue
        stage, fraction = entry.get("stage"), entry.get("fraction")
        if not isinstance(stage, str) or isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
            continue
        if math.isfinite(fraction) and stage not in first:
            first[stage] = float(fraction)
    return json.dumps(first, separators=(",", ":")) if first else None


def degraded_column(values: list) -> np.ndarray:
    return np.array([degraded_text(v) for v in values], dtype=object)


def record_columns(extras: list[dict | None]) -> dict[str, np.ndarray]:
    """The columns of records read line by line (`extra` holds the fields); {} when no record has them."""
    out: dict[str, np.ndarray] = {}
    if any(e and STOP_KIND in e for e in extras):
        out[STOP_KIND] = stop_kind_column([e.get(STOP_KIND) if e else None for e in extras])
    if any(e and DEGRADED in e for e in extras):
        out[DEGRADED] = degraded_column([e.get(DEGRADED) if e else None for e in extras])
    return out


def arrow_columns(pa, cols: dict, n: int) -> dict[str, np.ndarray]:
    """The same columns from the bulk reader's Arrow columns (the same functions decide)."""
    out: dict[str, np.ndarray] = {}
    if STOP_KIND in cols and cols[STOP_KIND].null_count < n:
        out[STOP_KIND] = stop_kind_column(cols[STOP_KIND].to_pylist())
    if DEGRADED in cols and cols[DEGRADED].null_count < n:
        out[DEGRADED] = degraded_column(cols[DEGRADED].to_pylist())
    return out


@dataclass
class Degraded:
    """An arm of a group whose governor dropped stages: in how many runs, and from which share of the budget."""

    arm: str
    runs: int                   # runs in which at least one stage was refused
    of_runs: int                # the arm's runs in the group
    first: float                # median budget fraction at the first refusal, over those runs
    earliest: float             # the smallest such fraction
    stages: dict[str, float] = field(default_factory=dict)   # stage -> median fraction of its first refusal
    stops: dict[str, int] = field(default_factory=dict)      # stop kind -> runs (governed runs of the arm)

    @property
    def last_share(self) -> float:
        """The share of the budget the arm ran degraded (median): 1 - `first`."""
        return max(0.0, 1.0 - self.first)

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "runs": self.runs, "of_runs": self.of_runs,
                "last_share": round(self.last_share, 6), "first_fraction": round(self.first, 6),
                "earliest_fraction": round(self.earliest, 6),
                "stages": {s: round(f, 6) for s, f in self.stages.items()}, "stop_kinds": dict(self.stops)}


def mark_degraded(groups: list, frame: pd.DataFrame) -> None:
    """Fill each group's `degraded` from the table's columns (nothing to do when no run was governed)."""
    if DEGRADED not in frame.columns and STOP_KIND not in frame.columns:
        return
    arms = frame["arm"].astype(str).to_numpy()
    texts = frame[DEGRADED].to_numpy() if DEGRADED in frame.columns else np.full(len(frame), None, dtype=object)
    kinds = frame[STOP_KIND].to_numpy() if STOP_KIND in frame.columns else np.full(len(frame), None, dtype=object)
    for group in groups:
        rows = np.asarray(group.rows, dtype=np.int64)
        for name in group.arm_names:
            mine = rows[arms[rows] == name]
            found = degraded_arm(name, [texts[i] for i in mine], [kinds[i] for i in mine])
            if found is not None:
                group.degraded.append(found)


def degraded_arm(arm: str, texts: list, kinds: list) -> Degraded | None:
    """One arm's `Degraded` from its runs' column values; None when no run dropped a stage."""
    runs = [json.loads(t) for t in texts if isinstance(t, str)]
    runs = [r for r in runs if r]
    if not runs:
        return None
    firsts = [min(r.values()) for r in runs]
    stages: dict[str, list[float]] = {}
    for r in runs:
        for stage, fraction in r.items():
            stages.setdefault(stage, []).append(fraction)
    stops: dict[str, int] = {}
    for kind in kinds:
        if isinstance(kind, str):
            stops[kind] = stops.get(kind, 0) + 1
    ordered = sorted(stages, key=lambda s: statistics.median(stages[s]))
    return Degraded(arm, len(runs), len(texts), float(statistics.median(firsts)), float(min(firsts)),
                    {s: float(statistics.median(stages[s])) for s in ordered}, stops)
