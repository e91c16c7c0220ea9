"""The runs of each group, by arm, found in one pass over the records.

Why: the report walked back to the raw records for every figure and page
section (each call re-derived every record's budget key and regrouped the
runs by arm). The report builds one `RunIndex` and hands it down; figures and
pages read a group's runs from it.
"""
from __future__ import annotations

from collections.abc import Iterable

from ...core.records import RunRecord, budget_key


class RunIndex:
    """Records grouped by (workload, budget key) and arm; `of(group)` is a dictionary look-up."""

    def __init__(self, records: Iterable[RunRecord] = ()):
        self.records: list[RunRecord] = list(records)
        self._by: dict[tuple[str, str], dict[str, list[RunRecord]]] = {}
        for r in self.records:
            self._by.setdefault((r.workload, budget_key(r.budget)), {}).setdefault(r.arm, []).append(r)

    def of(self, group) -> dict[str, list[RunRecord]]:
        """arm -> the group's runs of that arm (empty when the records hold none)."""
        return self._by.get((group.workload, budget_key(group.budget)), {})

    def runs(self, group) -> list[RunRecord]:
        """Every run of the group, arm after arm."""
        return [r for rs in self.of(group).values() for r in rs]

    def __len__(self) -> int:
        return len(self.records)


def as_index(records) -> RunIndex:
    """`records` as a RunIndex: an index passes through, a list (or None) is indexed once."""
    return records if isinstance(records, RunIndex) else RunIndex(records or ())
