"""Spend checks of one group: is every arm matched in the fixed unit, and in every other unit?

Why apart from `comparing`: these are the rules a comparison exists to
enforce (a run over or under the fixed budget is flagged with its seed,
an unreported unit is never 0, an early stop is accepted only when asked,
a confound is judged on medians of fully reported arms); `comparing`
decides which groups and columns they run on.
"""
from __future__ import annotations

import math
import statistics

import numpy as np

from ..tables.columns import relative
from .compare_options import CompareOptions
from .over_budget import over_budget
from .comparison import MEASURED, PARTIAL, UNREPORTED, Flag, Group, Unverified

def check_runs(group: Group, cols, budget: dict, fixed: str, options: CompareOptions) -> None:
    """Notes for arms without scored runs, then `_check_fixed` on each arm's scored runs."""
    rewards, failed = cols.per_arm("reward"), cols.per_arm("failed")
    # Only scored runs enter the reward column, so only they must be matched in the
    # fixed unit; a run that failed is counted in `errors`, not judged on its spend.
    scored = [~np.isnan(r) for r in rewards]
    for i, arm in enumerate(cols.arms):
        if not scored[i].any():
            group.notes.append(f"{arm}: no scored runs ({len(rewards[i])} run(s), {int(failed[i].sum())} with errors)")

    all_scored = all(m.all() for m in scored)

    def keep(column: str) -> list[np.ndarray]:
        if all_scored:
            return cols.per_arm(column)
        return [s[m] for s, m in zip(cols.per_arm(column), scored)]

    _check_fixed(group, cols.arms, _FixedRuns(keep(f"spend:{fixed}"), keep(f"partial:{fixed}"), keep("seed"),
                                              keep("stop_reason"), keep("failed")), budget, fixed, options)


def set_over_budget(group: Group, cols, fixed: str, allowance: float) -> None:
    """`group.over_budget` from the group's scored runs (for a group the screen found clean: no other check)."""
    rewards = cols.per_arm("reward")
    scored = [~np.isnan(r) for r in rewards]
    group.over_budget = over_budget(cols.arms, [s[m] for s, m in zip(cols.per_arm(f"spend:{fixed}"), scored)],
                                    [s[m] for s, m in zip(cols.per_arm("seed"), scored)], fixed, allowance)


def _status(reported: int, full: int, runs: int) -> str:
    """Unreported when no run reports the unit, partial unless every run reports it in full."""
    return UNREPORTED if reported == 0 else PARTIAL if full < runs else MEASURED


class _FixedRuns:
    """Each arm's scored runs: fixed-unit spend, partial flags, seeds, stop reasons, failures."""

    def __init__(self, spends, partials, seeds, stops, failed):
        self.spends, self.partials, self.seeds, self.stops, self.failed = spends, partials, seeds, stops, failed


def _check_fixed(group: Group, arms: list[str], runs: _FixedRuns, budget: dict, fixed: str,
                 options: CompareOptions) -> None:
    verified = []
    for i, arm in enumerate(arms):
        if runs.spends[i].size == 0:
            continue  # no scored runs: noted by the caller, nothing to verify
        known = ~np.isnan(runs.spends[i])
        n_full = int((known & ~runs.partials[i]).sum())
        status = _status(int(known.sum()), n_full, len(runs.spends[i]))
        if status != MEASURED:
            group.unverified.append(Unverified(arm, fixed, status, n_full, len(runs.spends[i])))
        else:
            verified.append(i)
    if fixed in budget:
        reference, source = float(budget[fixed]), "budget"
    elif len(verified) >= 2:
        reference, source = float(np.median([np.median(runs.spends[i]) for i in verified])), "median of arms"
    else:
        group.notes.append(f"no budget in {fixed} and fewer than two arms report {fixed} in full, so equal spend "
                           f"in {fixed} cannot be checked" if verified else
                           f"no arm reports {fixed} in full, so equal spend in {fixed} cannot be checked")
        return
    group.reference, group.reference_source = reference, source
    if source == "budget":
        group.over_budget = over_budget(arms, runs.spends, runs.seeds, fixed, reference)
    for i in range(len(arms)):
        _drift(group, arms[i], runs, i, reference, source, fixed, options)


def _drift(group: Group, arm: str, runs: _FixedRuns, i: int, reference: float, source: str, fixed: str,
           options: CompareOptions) -> None:
    values = runs.spends[i]
    known = ~np.isnan(values)
    if not known.any():
        return
    rel = relative(values, reference)
    for direction, drifted in (("over", known & (rel > options.tolerance)),
                               ("under", known & (rel < -options.tolerance))):
        if not drifted.any():
            continue
        if direction == "under" and options.allow_early_stop:
            on_own = np.array([isinstance(s, str) and not s.startswith("budget:") for s in runs.stops[i]]) \
                & ~runs.failed[i]
            early = drifted & on_own
            if early.any():
                group.early_stopped.append(arm)
                group.notes.append(
                    f"{arm}: {int(early.sum())} run(s) stopped on their own below the {fixed} budget "
                    f"(min {np.min(values[early]):,.6g} of {reference:,.6g}); accepted as early stops")
            drifted = drifted & ~on_own
            if not drifted.any():
                continue
        worst = int(np.argmax(np.where(drifted, np.abs(values - reference), -np.inf)))
        group.unequal.append(Flag(arm, fixed, float(values[worst]), reference, direction, source,
                                  seed=int(runs.seeds[i][worst]), runs=int(drifted.sum()), of_runs=len(values)))


def check_confound(group: Group, arms: list[str], unit: str, tol: float) -> None:
    """Flag arms whose median spend in `unit` is beyond `tol` of the median across arms.

    An arm with no scored run is left out of both the median and the flags:
    it has no result for a spend to confound (an arm that raised on every
    seed was printed as a 0x confound in every unit, and moved the median).
    """
    complete, partial = [], []
    for i, arm in enumerate(arms):
        if group.arms[i].scored == 0:
            continue
        s = group.arms[i].spend[unit]
        if s.status == MEASURED:
            complete.append(i)
        elif s.status == PARTIAL:
            partial.append(i)
            group.unreported.append(Unverified(arm, unit, PARTIAL, s.reported_runs, group.arms[i].runs))
        else:
            group.unreported.append(Unverified(arm, unit, UNREPORTED, 0, group.arms[i].runs))
    if not complete:
        return
    reference = float(statistics.median([group.arms[i].spend[unit].median for i in complete]))
    for i in complete + partial:
        value = group.arms[i].spend[unit].median
        rel = (math.inf if value > 0 else 0.0) if reference == 0 else (value - reference) / abs(reference)
        lower_bound = i in partial
        if rel > tol or (rel < -tol and not lower_bound):
            group.confounded.append(Flag(arms[i], unit, value, reference, "over" if rel > 0 else "under",
                                         "median of arms", lower_bound=lower_bound))
