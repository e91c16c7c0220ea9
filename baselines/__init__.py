"""costmatch core: budgets, metered spend, run records and cost-matched comparison.

The public surface is what a user's arm, workload or analysis script needs.
Names load on first use (PEP 562), so `import baselines.core.meter` in an arm's
worker, or `costmatch --help`, does not pay for pandas, scipy or matplotlib.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Budget": "core.budget",
    "BudgetExhausted": "core.meter",
    "Meter": "core.meter",
    "InputError": "core.errors",
    "RunRecord": "core.records",
    "Scored": "core.scored",
    "read_records": "core.records",
    "write_records": "core.records",
    "RunTable": "analysis.tables.table",
    "Comparison": "analysis.compare.comparison",
    "Group": "analysis.compare.comparison",
    "ArmSummary": "analysis.compare.comparison",
    "PairResult": "analysis.compare.pair_result",
    "GateResult": "analysis.gating.gate",
    "CheckResult": "api",
    "compare": "analysis.compare.comparing",
    "CompareOptions": "analysis.compare.compare_options",
    "run": "api",
    "check": "api",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'baselines' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .core.budget import Budget
    from .api import CheckResult, check, run
    from .analysis.compare.comparing import compare
    from .analysis.compare.comparison import ArmSummary, Comparison, Group
    from .analysis.gating.gate import GateResult
    from .analysis.compare.pair_result import PairResult
    from .analysis.compare.compare_options import CompareOptions
    from .core.errors import InputError
    from .core.meter import BudgetExhausted, Meter
    from .core.records import RunRecord, read_records, write_records
    from .analysis.tables.table import RunTable
