"""What an arm is: a policy that spends a Budget through a Meter.

An arm never sees another arm, the held-out split, or the budget it was not
given. It reports its current choice through ``meter.progress(best, choice)``
so that when the Meter stops it mid-step (BudgetExhausted) the harness still
knows what it would ship.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from baselines.meter import Meter


@dataclass
class ArmOutput:
    """What an arm returns: its final choice, and optionally alternatives.

    `alternatives` (e.g. every fork of a best-of-N arm) are scored on held-out
    data by the harness, not by the arm, and reported as `oracle_reward`: the
    best one could not have been picked without seeing the test split.
    """

    choice: Any
    alternatives: list[Any] = field(default_factory=list)


@runtime_checkable
class Arm(Protocol):
    """Implement ``run``; construct from the suite's ``params`` as keyword arguments."""

    def run(self, instance: Any, meter: Meter, rng: np.random.Generator) -> ArmOutput | Any:
        """Spend the budget on `instance`; return the choice (or an ArmOutput)."""
