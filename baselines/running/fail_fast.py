"""Stop an arm at its first record that breaks the contract; the other arms go on (issue 39).

Why: a reward outside the workload's declared range was found by `compare`
after every cell had run its whole budget (8 of 8 cells; with a real model,
real money). The same arm's next cells break the same way, so the first
such record stops that (workload, arm): cells not yet sent are never run,
one line says why, and the run ends with exit 1. What breaks the contract:

- a reward outside the workload's declared ``reward_range`` (the worker's
  own check already makes such a record an ``InvalidRecord`` error; any
  record that check refuses counts);
- no reward on a record without an error (the workload's score returned None);
- spend in the fixed unit the meter did not see: unreported or reported in
  part on a record without an error (an unreported unit is not zero, so the
  run can never satisfy the fixed-unit check).

A resume applies the rule to the kept records of arms whose code did not
change: an arm that broke it once is not run again until it is edited.
Cells already sent to a worker when the record arrives finish (at most
two batches per worker slot); their records are kept like any other.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..core.json_line import quote
from ..core.records import RunRecord, budget_key


def breach(record: RunRecord, fixed: str | None) -> str | None:
    """Why `record` breaks the contract (see the module docstring), or None."""
    if isinstance(record.error, dict) and record.error.get("type") == "InvalidRecord":
        # the worker's own check refused the record (a reward outside the declared range, a NaN): the same
        # arm's next cells would be refused alike
        message = str(record.error.get("message", ""))
        return message.removeprefix("the cell produced a record costmatch cannot store: ").removeprefix(
            "cell result: ")[:300]
    if record.error is not None:
        return None
    if record.reward is None:
        return "it has no reward (the workload's score returned None)"
    declared = record.extra.get("reward_range") if isinstance(record.extra, dict) else None
    if isinstance(declared, (list, tuple)) and len(declared) == 2:
        low, high = declared
        if isinstance(low, (int, float)) and isinstance(high, (int, float)) and not low <= record.reward <= high:
            return f"reward {record.reward:g} is outside the workload's declared reward_range [{low:g}, {high:g}]"
    if fixed is not None:
        if record.spend.get(fixed) is None:
            return (f"its spend in the fixed unit {fixed} is unreported (the meter never saw it), so equal spend "
                    "can never be verified")
        if fixed in (record.partial or ()):
            return f"its spend in the fixed unit {fixed} was reported only in part (some charges without it)"
    return None


@dataclass
class FailFast:
    """Which (workload, arm) pairs are stopped, and the fixed unit of each (workload, budget) group."""
    fixed: dict[tuple[str, str], str]
    stopped: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def of(cls, suite: Any) -> "FailFast":
        return cls({(w.name, budget_key(b.to_dict())): w.fixed for w in suite.workloads for b in w.budgets})

    def observe(self, record: RunRecord) -> None:
        """Stop the record's arm (one line on stderr) at its first record that breaks the contract."""
        key = (record.workload, record.arm)
        if key in self.stopped:
            return
        why = breach(record, self.fixed.get((record.workload, budget_key(record.budget))))
        if why is not None:
            self.stopped[key] = why
            print(f"costmatch: arm {quote(record.arm)} on workload {quote(record.workload)} broke the contract at "
                  f"seed {record.seed}: {why}; its remaining cells are not run (the other arms go on): fix it and "
                  "run again", file=sys.stderr)

    def observe_all(self, records: Iterable[RunRecord]) -> None:
        for record in records:
            self.observe(record)

    def skips(self, cell: Any) -> bool:
        """Whether `cell` belongs to a stopped arm (it is not sent)."""
        return bool(self.stopped) and (cell.workload.name, cell.arm.name) in self.stopped
