"""What a workload is: instances per seed, and held-out scoring.

Common random numbers: ``instance(seed)`` must return the same tasks, splits
and noise stream for every arm at that seed, so per-seed differences between
arms measure the arms and not the draw. ``score`` uses data the arm never saw.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Workload(Protocol):
    """Construct from the suite's ``params`` as keyword arguments.

    `measures` names the units this workload's instances charge to the Meter
    (a measured unit that was never charged is a measured 0; anything else
    is unreported).
    """

    measures: tuple[str, ...]

    def instance(self, seed: int) -> Any:
        """The problem for this seed, identical for every arm."""

    def score(self, instance: Any, choice: Any) -> float | None:
        """Held-out reward of an arm's final choice (None when it cannot be scored)."""
