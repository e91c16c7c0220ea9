"""What an arm is: a policy that spends a Budget through a Meter.

The protocol lives in the core, `baselines/core/protocols.py` (Arm, ArmOutput,
and the checks a suite runs); this module re-exports it so that
``from arms.base import ArmOutput`` keeps working.

An arm never sees another arm, the held-out split, or the budget it was not
given. It reports its current choice through ``meter.progress(best, choice)``
so that when the Meter stops it mid-step (BudgetExhausted) the harness still
knows what it would ship.
"""
from __future__ import annotations

from baselines.core.protocols import Arm, ArmOutput

__all__ = ["Arm", "ArmOutput"]
