"""The error rule for runs with alternatives, shared by the runner and the importers.

Contract section 1: a run whose *selected* choice was scored keeps its
reward, and errors of alternatives it did not select are kept as `notes`; a
run whose own scoring failed is unscored. The mistake this prevents: one
failed test pass of an unselected fork (agentdescent's fork 2001) nulled a
run whose selected fork had been scored, so fork-of-3 showed 2 of 3 seeds
and its pair with merge-of-3 lost a seed. The runner scores alternatives
through :func:`score_alternatives`; the agentdescent importer applies the
same rule to the forks a file lists, and the inspect importer to samples
whose retried attempt was scored.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from .scored import unpack_score


def score_alternatives(score: Callable[[Any, Any], Any], instance: Any,
                       alternatives: Sequence[Any]) -> tuple[float | None, list[str]]:
    """(oracle, notes): the best score over the alternatives that could be scored, and one note per
    alternative whose scoring failed or gave no finite number. Never raises for an alternative."""
    best: float | None = None
    notes: list[str] = []
    for i, alternative in enumerate(alternatives):
        try:
            value = unpack_score(score(instance, alternative))[0]
        except Exception as exc:  # an unselected alternative's failure is not the run's failure
            notes.append(f"alternative {i} (not selected): scoring failed: {type(exc).__name__}: {exc}")
            continue
        if value is None or not math.isfinite(value):
            notes.append(f"alternative {i} (not selected): no finite score ({value!r})")
            continue
        best = value if best is None else max(best, value)
    return best, notes
