"""The allowance every arm of a comparison gets, per unit.

A Budget is validated on construction because a NaN or negative allowance
would make every later drift check meaningless. One Budget object goes to
every arm of a workload; `split` hands sub-runs (forks, workers) shares that
never add up to more than the whole.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from .errors import InputError
from .records import MAX_AMOUNT, budget_key
from .units import CONTINUOUS_UNITS, ordered_units


@dataclass(frozen=True)
class Budget:
    """Allowance per unit, e.g. ``Budget({"tokens": 200_000, "calls": 100})``."""

    limits: Mapping[str, float]

    def __init__(self, limits: Mapping[str, float] | None = None, /, **units: float):
        merged = dict(limits or {})
        merged.update(units)
        if not merged:
            raise ValueError("Budget needs at least one unit, e.g. Budget(tokens=200000)")
        clean: dict[str, float] = {}
        for unit, value in merged.items():
            if not isinstance(unit, str) or not unit:
                raise ValueError(f"Budget unit names must be non-empty strings, got {unit!r}")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"Budget unit '{unit}' must be a number, got {value!r}")
            if isinstance(value, int) and abs(value) > MAX_AMOUNT:  # 10**400 overflowed float() below
                raise InputError(f"Budget unit '{unit}' is an integer of {len(str(abs(value)))} digits, above "
                                 f"the largest allowance {MAX_AMOUNT:g}")
            if not math.isfinite(value):
                raise ValueError(f"Budget unit '{unit}' must be finite, got {value!r}")
            if value < 0:
                raise ValueError(f"Budget unit '{unit}' must be non-negative, got {value!r}")
            clean[unit] = int(value) if float(value).is_integer() else float(value)
        object.__setattr__(self, "limits", {u: clean[u] for u in ordered_units(clean)})

    @property
    def units(self) -> tuple[str, ...]:
        return tuple(self.limits)

    def __getitem__(self, unit: str) -> float:
        return self.limits[unit]

    def get(self, unit: str, default=None):
        return self.limits.get(unit, default)

    def __contains__(self, unit: object) -> bool:
        return unit in self.limits

    def __hash__(self) -> int:
        return hash(tuple(self.limits.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Budget) and dict(self.limits) == dict(other.limits)

    def to_dict(self) -> dict[str, float]:
        return dict(self.limits)

    def key(self) -> str:
        """The canonical JSON naming this budget by exact value (the records' `budget_key`)."""
        return budget_key(self.limits)

    def split(self, ways: int) -> list["Budget"]:
        """Shares for `ways` independent sub-runs.

        Whole-number allowances (rollouts, calls, tokens, integer custom
        units) split into whole numbers: each
        share is ``total // ways`` and the first ``total % ways`` shares get one
        more, so shares differ by at most one and add up to exactly the whole.
        A share may be 0 when the total is smaller than `ways`. Continuous
        units (usd, seconds, fractional allowances) split evenly, rounded
        down in the last place so the shares never add up to more than the whole.
        """
        if isinstance(ways, bool) or not isinstance(ways, int) or ways < 1:
            raise ValueError(f"split(ways) needs a positive whole number, got {ways!r}")
        shares: list[dict[str, float]] = [{} for _ in range(ways)]
        for unit, total in self.limits.items():
            if isinstance(total, int) and unit not in CONTINUOUS_UNITS:
                base, extra = divmod(total, ways)
                for i in range(ways):
                    shares[i][unit] = base + (1 if i < extra else 0)
            else:
                part = total / ways
                while part * ways > total:
                    part = math.nextafter(part, 0.0)
                for i in range(ways):
                    shares[i][unit] = part
        return [Budget(s) for s in shares]

    def __repr__(self) -> str:
        inner = ", ".join(f"{u}={v!r}" for u, v in self.limits.items())
        return f"Budget({inner})"
