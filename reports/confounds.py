"""Confounds at a glance: each arm's spend in units other than the fixed one, as a ratio to the median.

One table per group instead of one sentence per arm per unit (markdown
here, LaTeX in `latex.py`, HTML in `html.py` from the same matrix).
"""
from __future__ import annotations

from baselines.analysis.compare.comparison import Group
from baselines.core.units import unit_noun

from .text import GE, md, pipe_table, quantity


def confound_ratio(spend: float, reference: float, lower_bound: bool = False) -> str:
    """Compact ratio to the reference in one style: ``0.35×``, ``1.2×``, ``12×``; ``≥`` for a lower bound.

    One style for the one quantity: a column that mixed ``0.35×`` and ``−45%``
    made the reader convert before comparing two cells.
    """
    if reference == 0:
        text = "> 0 (ref 0)"
    else:
        r = spend / reference
        text = f"{r:,.0f}\u00d7" if r >= 10 else f"{r:.2g}\u00d7"
    return (GE if lower_bound else "") + text


UNKNOWN = "unknown"   # a confound cell of an arm that did not report the unit (never 0, never left out)


def confound_matrix(group: Group, units: list[str] | None = None) -> tuple[list[str], list[tuple[str, dict]]]:
    """(units with a confound, [(arm, {unit: ratio text})]): only cells beyond tolerance are filled, and
    "unknown" where an arm did not report the unit.

    One table per group instead of one sentence per arm per unit: a suite of
    seven arms and five units made forty bullets nobody read.
    """
    flags = [f for f in group.confounded if units is None or f.unit in units]
    shown = [u for u in group.units if any(f.unit == u for f in flags)]
    by_arm: dict[str, dict[str, str]] = {}
    for f in flags:
        by_arm.setdefault(f.arm, {})[f.unit] = confound_ratio(f.spend, f.reference, f.lower_bound)
    for a in group.arms:  # an arm that did not report a shown unit is a row of unknowns, not a missing row
        for u in shown:
            if u in a.spend and a.spend[u].status == "unreported":
                by_arm.setdefault(a.arm, {})[u] = UNKNOWN
    order = [a.arm for a in group.arms if a.arm in by_arm]
    return shown, [(arm, by_arm[arm]) for arm in order]


def confound_reference(group: Group, unit: str) -> float | None:
    for f in group.confounded:
        if f.unit == unit:
            return f.reference
    return None


def confound_markdown(group: Group, tolerance: float, units: list[str] | None = None) -> str:
    shown, table_rows = confound_matrix(group, units)
    if not table_rows:
        return ""
    headers = ["arm"] + [f"{md(unit_noun(u))} (median {quantity(confound_reference(group, u))})" for u in shown]
    body = [[md(arm)] + [cells.get(u, "") for u in shown] for arm, cells in table_rows]
    return (f"Confounds (spend in other units, as a ratio to the median across arms; only cells beyond "
            f"\u00b1{tolerance:.0%}; the reward column does not account for them):\n\n"
            + pipe_table(body, headers, align="l" + "r" * len(shown)))
