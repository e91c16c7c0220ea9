"""`costmatch plan`: the cells of a suite and the most they may spend; runs nothing."""
from __future__ import annotations

import argparse

from .options import EXIT_OK, default_suite

HELP = "list the cells of a suite and the most they may spend; runs nothing"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", metavar="SUITE.toml", help="the suite (default: ./costmatch-suite.toml if present, else the built-in demo suite)")


def run(*, suite) -> int:
    from reports.text import quantity

    from ..records import budget_label
    from ..suite import load_suite
    from ..units import ordered_units

    loaded = load_suite(suite or default_suite())
    cells = loaded.cells()
    rows, totals = [], {}
    for cell in cells:
        rows.append(f"{cell.workload.name}\t{budget_label(cell.budget.limits)}\t{cell.arm.name}\t{cell.seed}")
        for unit, value in cell.budget.limits.items():
            totals[unit] = totals.get(unit, 0) + value
    print("workload\tbudget\tarm\tseed")
    print("\n".join(rows))
    total_text = ", ".join(f"{quantity(totals[u])} {u}" for u in ordered_units(totals))
    print(f"{len(cells)} cells; they may spend at most: {total_text} (plus each cell's last-step overshoot)")
    return EXIT_OK
