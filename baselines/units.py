"""Spend units and how to tell them apart.

The standard units are fixed by the contract; any other name is a custom unit
and is treated the same way. `tokens` is derived (prompt + completion) only
when both parts are reported, so a missing half can never make it look small.
"""
from __future__ import annotations

STANDARD_UNITS: tuple[str, ...] = (
    "rollouts", "calls", "prompt_tokens", "completion_tokens", "tokens", "usd", "seconds",
)

#: Units measured on a continuous scale; budgets in these split evenly,
#: never into whole-number shares.
CONTINUOUS_UNITS: frozenset[str] = frozenset({"usd", "seconds"})

#: Units a model call reports about itself; the Meter tracks per call whether
#: each was reported, which is what tells "partial" from "unreported".
CALL_UNITS: tuple[str, ...] = ("prompt_tokens", "completion_tokens", "tokens", "usd")

#: How a unit is spoken of in captions and flags, so a token confound is never
#: described as call frequency (a mistake of the tool costmatch replaces).
UNIT_NOUNS: dict[str, str] = {
    "rollouts": "rollouts",
    "calls": "model calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
    "tokens": "tokens",
    "usd": "dollars",
    "seconds": "seconds of wall time",
}


def unit_noun(unit: str) -> str:
    """The words for a unit in prose (custom units are named as they are)."""
    return UNIT_NOUNS.get(unit, f"'{unit}' units")


def ordered_units(units) -> list[str]:
    """Standard units in contract order, then custom units alphabetically."""
    units = set(units)
    head = [u for u in STANDARD_UNITS if u in units]
    return head + sorted(units - set(STANDARD_UNITS))
