"""Arguments of the Python API checked as the CLI checks its options: a wrong one names itself.

Why: `run(budget=30)`, `check([5])` and `check(..., margin="abc")` raised
AttributeError or "could not convert string to float" from deep inside
(issue 31); a notebook user should read which argument is wrong and what it
takes, as a CLI user reads which option is.
"""
from __future__ import annotations

from typing import Any, Mapping

from .budget import Budget
from .records import RunRecord


def budget_table(value: Any, where: str) -> dict[str, float]:
    """A Budget or a mapping of unit -> allowance as a plain dict; TypeError naming `where` otherwise."""
    if isinstance(value, Budget):
        return dict(value.limits)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{where}: give a Budget (e.g. Budget(rollouts=30)), a dict of unit -> allowance, or a list "
                    f"of them; got {type(value).__name__} {value!r:.60}")


def records_argument(records: Any, where: str) -> list[RunRecord]:
    """`records` as a list of RunRecord; TypeError naming `where` and the first item that is not one."""
    if isinstance(records, (str, bytes, Mapping)) or not hasattr(records, "__iter__"):
        raise TypeError(f"{where}: give a list of RunRecord or a results file path; got {type(records).__name__}")
    out = list(records)
    for i, record in enumerate(out):
        if not isinstance(record, RunRecord):
            raise TypeError(f"{where}: item {i} is {type(record).__name__} {record!r:.60}, not a RunRecord; give "
                            "records from run() or read_records(), or a results file path")
    return out
