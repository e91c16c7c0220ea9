"""A suite's results analysed once per fixed unit: what `costmatch run` and `run(out=...)` report.

One comparison per fixed unit (a suite may hold search-sim at equal tokens,
the same arms at equal rollouts, and bbob at equal calls), each analysed
once with the records indexed once and one table of reward ranges shared by
every section of the report.
"""
from __future__ import annotations

from ...core.records import RunRecord, budget_key
from ..compare.comparing import compare
from ..tables.group_runs import RunIndex, as_index
from .build import analyse
from .model import Analysis
from .ranges import ranges_for, reward_ranges


def analyses_by_fixed_unit(suite, records) -> list[tuple[str, Analysis]]:
    """(fixed unit, Analysis) for each fixed unit of `suite` that has records (a list or a RunIndex)."""
    index: RunIndex = as_index(records)
    declared = reward_ranges(index.records)
    ranges: dict = {}
    out = []
    for unit in suite.fixed_units:
        keys = {(w.name, b.key()) for w in suite.workloads if w.fixed == unit for b in w.budgets}
        subset: list[RunRecord] = [r for r in index.records if (r.workload, budget_key(r.budget)) in keys]
        if subset:
            comparison = compare(subset, fixed=unit, tolerance=suite.tolerance_of(unit),
                                 claim=getattr(suite, "claim", None),   # the suite's claim key (issue 37)
                                 questions=getattr(suite, "questions", None))
            ranges.update(ranges_for(comparison) | declared)
            out.append((unit, analyse(comparison, index, ranges=dict(ranges))))
    return out
