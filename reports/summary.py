"""The few lines `costmatch run` prints when it finishes: per group, the state, the leader, the decided pairs.

Why not the whole report: the built-in suite's report is 200 lines; printed
to a terminal it buries the one thing a user needs first (did every group
check out, and who leads) and the path of the file that has the rest.
"""
from __future__ import annotations

import math
from pathlib import Path

from baselines.comparison import Comparison, Group
from baselines.units import nouns_of

from .text import budget_text


def group_state(group: Group) -> str:
    if group.not_a_comparison:
        return "NOT A COMPARISON"
    if not group.complete:
        return "INCOMPLETE"
    return "valid" if group.valid else "NOT VALID"


def group_line(group: Group) -> str:
    state = group_state(group)
    scored = [a for a in group.arms if a.scored and not math.isnan(a.mean)]
    parts = [f"{group.workload} at {budget_text(group.budget)} (fixed {group.fixed}): {state}"]
    if state == "INCOMPLETE":
        parts.append("; ".join(f"{a.arm} scored {a.scored} of {len(group.seeds)} seeds"
                               + (f" ({a.first_error})" if a.first_error else "") for a in group.incomplete_arms()[:3]))
    if scored:
        best = max(scored, key=lambda a: a.mean)
        parts.append(f"leader {best.arm} {best.mean:.3g}")
    decided = [p for p in group.pairs if p.verdict in ("a>b", "b>a")]
    if group.pairs:
        names = [f"{p.a}>{p.b}" if p.verdict == "a>b" else f"{p.b}>{p.a}" for p in decided[:4]]
        more = f" and {len(decided) - 4} more" if len(decided) > 4 else ""
        parts.append(f"{len(decided)} of {len(group.pairs)} pairs decided" + (f": {', '.join(names)}{more}"
                                                                              if names else ""))
    return "; ".join(parts)


def _in_own_words(group: Group) -> str:
    with nouns_of(group.unit_nouns):
        return group_line(group)


def run_summary(comparisons: list[Comparison], report: Path) -> str:
    lines = [_in_own_words(g) for c in comparisons for g in c.groups]
    lines += [f"skipped {s.workload}: {s.reason}" for c in comparisons for s in c.skipped]
    page = Path(report).with_name("report.html")
    lines.append(f"full report: {report}" + (f" and {page}" if page.is_file() else ""))
    return "\n".join(lines) + "\n"
