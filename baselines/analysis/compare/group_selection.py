"""Which groups of a results file a comparison covers, and in which unit each is fixed.

Why: one results file holds several workloads and budgets, set in different
units. Applying `--fixed rollouts` to a group whose budget was set in tokens
makes an identical pair of arms FAIL as a broken comparison; so a group is
compared in the unit its own budget names, `--fixed` selects the groups
whose budget names it, and every group left out is listed with the reason.
"""
from __future__ import annotations

from .comparison import Skipped
from ...core.records import budget_label
from ...core.suggest import did_you_mean
from ...core.units import ordered_units


def select_groups(groups: list[tuple[str, str]], budgets: dict[str, dict[str, float]], fixed: str | None,
                  workloads: tuple[str, ...] = (), budget_filters: tuple[tuple[str, float], ...] = ()
                  ) -> tuple[list[tuple[str, str, str]], list[Skipped], int, list[str]]:
    """(workload, budget key, fixed unit) per selected group; the skipped; how many filters left out; notes.

    Raises ValueError when no unit can be chosen for a group (no --fixed and
    a budget that names no unit or several) or when nothing is left.
    """
    chosen, skipped, filtered, notes = [], [], 0, []
    groups = sorted(groups, key=lambda g: (g[0], sorted(budgets[g[1]].items())))
    for workload, bkey in groups:
        budget = budgets[bkey]
        if (workloads and workload not in workloads) or \
                any(budget.get(unit) != value for unit, value in budget_filters):
            filtered += 1
            continue
        named = ordered_units(budget)
        if fixed is not None:
            if not named or fixed in named:
                chosen.append((workload, bkey, fixed))
            else:
                skipped.append(Skipped(workload, dict(budget),
                                       f"its budget is set in {', '.join(named)}, not {fixed}; "
                                       f"pass --fixed {named[0]} to compare it"))
            continue
        if len(named) == 1:
            chosen.append((workload, bkey, named[0]))
        elif not named:
            raise ValueError(f"workload {workload!r}: its runs carry no budget, so the unit they were matched in "
                             "is unknown; pass --fixed UNIT")
        else:
            raise ValueError(f"workload {workload!r}: its budget sets {', '.join(named)}; "
                             "pass --fixed UNIT to say which one the arms were matched in")
    if not chosen and skipped:
        # No budget names the unit asked for: the user wants equal spend in it checked
        # anyway (a tool's claim "held fixed in tokens" with budgets set in rollouts).
        chosen = [(s.workload, _key_of(s, groups, budgets), fixed) for s in skipped]
        skipped = []
        notes.append(f"no group's budget names {fixed}; every selected group is checked for equal spend in {fixed} "
                     "as asked, against the median of its arms")
    if not chosen:
        what = [f"{w} at {budget_label(budgets[bk])}" for w, bk in groups[:10]]
        more = f" and {len(groups) - 10} more" if len(groups) > 10 else ""
        names = sorted({w for w, _ in groups})
        unknown = [w for w in workloads if w not in names]
        hint = f"; no workload is named {unknown[0]!r}{did_you_mean(unknown[0], names)}" if unknown else ""
        raise ValueError(f"no group matches the --workload/--budget filters{hint}; groups: {'; '.join(what)}{more}")
    return chosen, skipped, filtered, notes


def _key_of(skipped: Skipped, groups, budgets) -> str:
    return next(k for w, k in groups if w == skipped.workload and budgets[k] == skipped.budget)
