"""`costmatch plan`: the cells of a suite and, per unit, the most they may spend; runs nothing.

Why per unit and per cell count: a cell budgeted in rollouts may spend any
number of tokens. Adding up only the units each cell is budgeted in gave the
demo suite "at most 105,000,000 tokens" for a run that spent 298,348,940. A
user budgets money from this line, so a unit's ceiling covers only the cells
budgeted in it, and the cells with no limit in it are counted beside it.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from ..core.units import ordered_units
from .options import EXIT_OK, suite_path

HELP = "list the cells of a suite and, per unit, the most they may spend; runs nothing"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", metavar="SUITE.toml", help="the suite file, or the name of a shipped suite (replay-aime2025); default: ./costmatch-suite.toml if present, else the built-in demo suite")


@dataclass(frozen=True)
class Ceiling:
    """The most the cells budgeted in `unit` may spend of it, and how many cells have no limit in it."""

    unit: str
    at_most: float
    limited: int     # cells whose budget names the unit
    unbounded: int   # cells whose budget does not: they may spend any amount of it


def ceilings(budgets: list[dict[str, float]]) -> list[Ceiling]:
    """One Ceiling per unit some cell is budgeted in (`budgets`: each cell's limits), in unit order."""

    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    for limits in budgets:
        for unit, value in limits.items():
            totals[unit] = totals.get(unit, 0) + value
            counts[unit] = counts.get(unit, 0) + 1
    return [Ceiling(u, totals[u], counts[u], len(budgets) - counts[u]) for u in ordered_units(totals)]


def ceiling_lines(n_cells: int, found: list[Ceiling]) -> list[str]:
    """What plan prints under the cells: a ceiling only where it is one, never a total over unlimited cells."""
    from reports.text import quantity  # start-up: only when the verb runs

    out = [f"{n_cells} cells; the most they may spend, per unit (plus each cell's last-step overshoot):"]
    for c in found:
        if c.unbounded:
            out.append(f"  {c.unit}: at most {quantity(c.at_most)} over {c.limited} cells; "
                       f"unbounded in {c.unbounded} cells")
        else:
            out.append(f"  {c.unit}: at most {quantity(c.at_most)} over all {c.limited} cells")
    open_units = [c.unit for c in found if c.unbounded]
    if open_units:
        named = " and ".join([", ".join(open_units[:-1]), open_units[-1]] if len(open_units) > 1 else open_units)
        out.append(f"  so the suite's total {named} {'has' if len(open_units) == 1 else 'have'} no upper bound "
                   "(a cell budgeted in one unit may spend any amount of the others)")
    others = [u for u in ("rollouts", "calls", "tokens", "usd", "seconds") if u not in {c.unit for c in found}]
    out.append(f"  every unit no cell is budgeted in ({', '.join(others + ['...'])}) has no limit")
    return out


def run(*, suite) -> int:
    from ..core.records import budget_label  # start-up: only when the verb runs
    from ..running.suite import load_suite

    loaded = load_suite(suite_path(suite))
    cells = loaded.cells()
    rows = [f"{cell.workload.name}\t{budget_label(cell.budget.limits)}\t{cell.arm.name}\t{cell.seed}"
            for cell in cells]
    print("workload\tbudget\tarm\tseed")
    print("\n".join(rows))
    print("\n".join(ceiling_lines(len(cells), ceilings([cell.budget.limits for cell in cells]))))
    return EXIT_OK
