"""compare(records): a comparison that cannot claim more than it shows.

Rules, and the mistake each one prevents (see the design notes):
- Runs are grouped by (workload, budget); two budgets are never pooled. Each
  group is fixed in the unit its budget names (or `fixed`, which then selects
  the groups whose budget names it); groups left out are listed, never dropped.
- The fixed unit is checked per run against the *requested* allowance when
  the records carry one. A median across arms as reference flags both arms
  of a two-arm comparison and hides a shared overshoot; a per-arm median
  hides one seed at 4x the budget. Without a budget the median of arms is the
  reference, and only when at least two arms report the unit: an arm is never
  judged against a median of itself.
- A run that does not report the fixed unit makes its arm `unverified`: an
  unreported unit is unknown, so it can never pass a fixed-unit check.
- Other units are compared only among arms that report them in full; an arm
  that does not report a unit is listed as such, never counted as 0.
- A group with one arm is not a comparison, and says so.
Pairwise statistics are a separate step (`pairing.py`) over each group's
arms x seeds matrix.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable

import numpy as np
import pandas as pd

from .columns import arm_sums, medians_of, relative, run_bounds, sorted_codes
from .compare_options import CompareOptions
from .comparison import (MEASURED, PARTIAL, UNREPORTED, ArmSummary, Comparison, Flag, Group, Skipped,  # noqa: F401
                         UnitSpend, Unverified)
from .metrics import METRICS, metric_frame  # noqa: F401 - re-exported
from .pairing import pair_group
from .records import RunRecord
from .selection import select_groups
from .stats import t_interval
from .table import RunTable
from .units import STANDARD_UNITS, ordered_units


def compare(records: Iterable[RunRecord] | RunTable, fixed: str | None = None, tolerance: float = 0.1,
            alpha: float = 0.05, allow_early_stop: bool = False, baseline: str | None = None,
            margin: float | None = None, seed: int = 0, metric: str = "reward",
            start: float = 0.0, pairs: bool | str = True, bootstrap: bool = False, *,
            options: CompareOptions | None = None, **selection) -> Comparison:
    """Compare arms at equal spend, flagging every other unit that diverged.

    `fixed` is the unit the arms were matched in; without it each group is
    fixed in the one unit its budget names. The keyword arguments are those
    of `CompareOptions` (pass `options=` to give them as one object;
    `workloads=`, `budgets=` and `confound_units=` select groups and units).
    `pairs` is True/"auto" (all pairs up to 20 arms, else against the best
    arm), "all", or False/"none".
    """
    if options is None:
        mode = {True: "auto", False: "none"}.get(pairs, pairs)
        options = CompareOptions(tolerance=tolerance, alpha=alpha, allow_early_stop=allow_early_stop,
                                 baseline=baseline, equivalence_margin=margin, seed=seed, metric=metric,
                                 start=start, pairs=mode, bootstrap=bootstrap,
                                 **{k: tuple(v) if isinstance(v, list) else v for k, v in selection.items()})
    elif selection:
        options = replace(options, **selection)
    table = records if isinstance(records, RunTable) else RunTable.from_records(list(records))
    _check_names(table, fixed, options)
    split = _GroupSplit(table.frame)
    chosen, skipped, filtered, notes = select_groups(split.keys, table.budgets, fixed, options.workloads,
                                                     options.budgets) if len(table) else ([], [], 0, [])
    unit_of = {bkey: unit for _, bkey, unit in chosen}
    frame, note = table.frame, ""
    if options.metric != "reward":
        frame, note = metric_frame(table, lambda bkey: unit_of.get(bkey, fixed), options.metric, options.start)
        split = _GroupSplit(frame)
    groups = [_group(workload, table.budgets[bkey], split.columns(workload, bkey), table.units, unit, options)
              for workload, bkey, unit in chosen]
    _mark_not_comparisons(groups)
    units = {g.fixed for g in groups}
    shown_fixed = fixed if fixed is not None else (units.pop() if len(units) == 1 else None)
    comparison = Comparison(shown_fixed, float(options.tolerance), groups, options.alpha, options.metric, note,
                            skipped)
    comparison.warnings.extend(notes)
    if filtered:
        comparison.warnings.append(f"{filtered} group(s) left out by --workload/--budget")
    return comparison


def _check_names(table: RunTable, fixed: str | None, options: CompareOptions) -> None:
    if not len(table):
        return
    present = set(table.units) | {u for b in table.budgets.values() for u in b}
    if fixed is not None and fixed not in present and fixed not in STANDARD_UNITS:
        raise ValueError(f"unknown unit {fixed!r}; units present: {', '.join(ordered_units(present)) or 'none'}")
    if options.baseline is not None:
        arms = table.frame["arm"].cat.categories.astype(str)
        if options.baseline not in set(arms):
            listed = ", ".join(sorted(arms)[:20]) + (f" and {len(arms) - 20} more" if len(arms) > 20 else "")
            raise ValueError(f"unknown baseline arm {options.baseline!r}; arms present: {listed}")


class _GroupSplit:
    """The frame sorted once by (group, arm, seed); each group is a slice, never a mask over all rows."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame
        w = frame["workload"].cat.codes.to_numpy().astype(np.int64)
        b = frame["budget"].cat.codes.to_numpy().astype(np.int64)
        self.n_budgets = max(len(frame["budget"].cat.categories), 1)
        group = w * self.n_budgets + b
        self.arm_names, arm_rank = sorted_codes(frame["arm"]) if len(frame) else ([], np.empty(0, np.int64))
        seeds = frame["seed"].to_numpy()
        self.order = None if _in_order(group, arm_rank, seeds) else np.lexsort((seeds, arm_rank, group))
        self.sorted_group = group if self.order is None else group[self.order]
        self.arm_rank = arm_rank if self.order is None else arm_rank[self.order]
        bounds = run_bounds(self.sorted_group)
        self.slices: dict[tuple[str, str], tuple[int, int]] = {}
        workloads, budgets = frame["workload"].cat.categories, frame["budget"].cat.categories
        for a, z in zip(bounds[:-1], bounds[1:]):
            wc, bc = divmod(int(self.sorted_group[a]), self.n_budgets)
            self.slices[(str(workloads[wc]), str(budgets[bc]))] = (int(a), int(z))
        self.keys = sorted(self.slices)
        self._cache: dict[str, np.ndarray] = {}

    def _whole(self, column: str) -> np.ndarray:
        if column not in self._cache:
            values = self.frame[column].to_numpy()
            self._cache[column] = values if self.order is None else values[self.order]
        return self._cache[column]

    def columns(self, workload: str, bkey: str) -> "_GroupColumns":
        a, z = self.slices[(workload, bkey)]
        rows = np.arange(a, z) if self.order is None else self.order[a:z]
        return _GroupColumns(self, a, z, rows)


class _GroupColumns:
    """One group's columns, sorted by (arm, seed): views into the split's sorted arrays."""

    def __init__(self, split: _GroupSplit, a: int, z: int, rows: np.ndarray):
        self.split, self.a, self.z, self.rows = split, a, z, rows
        ranks = split.arm_rank[a:z]
        bounds = run_bounds(ranks)
        self.arms = [split.arm_names[int(ranks[i])] for i in bounds[:-1]] if z > a else []
        self.bounds = bounds

    def __len__(self) -> int:
        return self.z - self.a

    def __call__(self, column: str) -> np.ndarray:
        """A column in (arm, seed) order; a unit the results lack is all unreported."""
        if column in self.split.frame.columns:
            return self.split._whole(column)[self.a:self.z]
        if column.startswith("spend:"):
            return np.full(len(self), np.nan)
        if column == "error":
            return np.full(len(self), None, dtype=object)
        return np.zeros(len(self), dtype=bool)

    def per_arm(self, column: str) -> list[np.ndarray]:
        values = self(column)
        return [values[self.bounds[i]:self.bounds[i + 1]] for i in range(len(self.arms))]


def _in_order(group: np.ndarray, arm: np.ndarray, seed: np.ndarray) -> bool:
    if group.size < 2:
        return True
    dg, da, ds = np.diff(group), np.diff(arm), np.diff(seed)
    return bool(np.all((dg > 0) | ((dg == 0) & ((da > 0) | ((da == 0) & (ds > 0))))))


def _group(workload: str, budget: dict, cols: _GroupColumns, all_units, fixed: str,
           options: CompareOptions) -> Group:
    # Every unit any record mentions is shown for every group: a unit this
    # workload does not report appears as unreported, never as absent or 0.
    units = ordered_units(set(all_units) | {fixed})
    group = Group(workload, dict(budget), _summaries(cols, units), units, fixed=fixed, rows=cols.rows)
    group.seeds, group.scores = _score_matrix(cols)
    rewards, failed = cols.per_arm("reward"), cols.per_arm("failed")
    # Only scored runs enter the reward column, so only they must be matched in the
    # fixed unit; a run that failed is counted in `errors`, not judged on its spend.
    scored = [~np.isnan(r) for r in rewards]
    for i, arm in enumerate(cols.arms):
        if not scored[i].any():
            group.notes.append(f"{arm}: no scored runs ({len(rewards[i])} run(s), {int(failed[i].sum())} with errors)")

    def keep(column: str) -> list[np.ndarray]:
        return [s[m] for s, m in zip(cols.per_arm(column), scored)]

    _check_fixed(group, cols.arms, _FixedRuns(keep(f"spend:{fixed}"), keep(f"partial:{fixed}"), keep("seed"),
                                              keep("stop_reason"), keep("failed")), budget, fixed, options)
    for unit in units:
        if options.checks_confounds_in(unit, fixed):
            _check_confound(group, cols.arms, unit, options.tolerance)
    pair_group(group, options)
    return group


def _score_matrix(cols: _GroupColumns) -> tuple[np.ndarray, np.ndarray]:
    """The arms x seeds matrix of the compared score (NaN = no scored run at that seed)."""
    seeds, rewards = cols("seed"), cols("reward")
    all_seeds = np.unique(seeds)
    matrix = np.full((len(cols.arms), len(all_seeds)), np.nan)
    for i in range(len(cols.arms)):
        a, z = cols.bounds[i], cols.bounds[i + 1]
        matrix[i, np.searchsorted(all_seeds, seeds[a:z])] = rewards[a:z]
    return all_seeds, matrix


def _summaries(cols: _GroupColumns, units: list[str]) -> list[ArmSummary]:
    """Per-arm counts, reward statistics and spend medians, computed on whole sorted columns."""
    bounds = cols.bounds
    reward, dev, failed, errors_text = cols("reward"), cols("dev_reward"), cols("failed"), cols("error")
    errors = arm_sums(failed.astype(bool), bounds)
    spends = {unit: cols(f"spend:{unit}") for unit in units}
    medians = medians_of([reward] + list(spends.values()), bounds)
    stats_by_unit = {}
    for k, unit in enumerate(units):
        values, partial = spends[unit], cols(f"partial:{unit}").astype(bool)
        known = ~np.isnan(values)
        stats_by_unit[unit] = (medians[k + 1], arm_sums(known, bounds), arm_sums(known & ~partial, bounds))
    out = []
    for i, arm in enumerate(cols.arms):
        a, b = bounds[i], bounds[i + 1]
        scored = reward[a:b][~np.isnan(reward[a:b])]
        mean, lo, hi = t_interval(scored)
        spend = {}
        for unit in units:
            unit_medians, reported, full = stats_by_unit[unit]
            status = _status(int(reported[i]), int(full[i]), int(b - a))
            spend[unit] = UnitSpend(float(unit_medians[i]) if reported[i] else None, status, int(full[i]))
        devs = dev[a:b]
        first_error = next((str(e) for e in errors_text[a:b] if e is not None and e == e), None) \
            if errors[i] else None
        out.append(ArmSummary(
            arm, int(b - a), int(scored.size), int(errors[i]), mean, (lo, hi),
            float(scored.min()) if scored.size else math.nan,
            float(medians[0][i]) if scored.size else math.nan,
            float(scored.max()) if scored.size else math.nan,
            float(np.nanmean(devs)) if (~np.isnan(devs)).any() else math.nan, spend, first_error))
    return out


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


def _check_confound(group: Group, arms: list[str], unit: str, tol: float) -> None:
    complete, partial = [], []
    for i, arm in enumerate(arms):
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
    reference = float(np.median([group.arms[i].spend[unit].median for i in complete]))
    for i in complete + partial:
        value = group.arms[i].spend[unit].median
        rel = float(relative(np.array([value]), reference)[0])
        lower_bound = i in partial
        if rel > tol or (rel < -tol and not lower_bound):
            group.confounded.append(Flag(arms[i], unit, value, reference, "over" if rel > 0 else "under",
                                         "median of arms", lower_bound=lower_bound))


def _mark_not_comparisons(groups: list[Group]) -> None:
    """A group with one arm answers no "A vs B" question; say so, naming the budgets its workload was split over."""
    by_workload: dict[str, list[Group]] = {}
    for g in groups:
        by_workload.setdefault(g.workload, []).append(g)
    for g in groups:
        if len(g.arms) >= 2:
            continue
        siblings = [s for s in by_workload[g.workload] if s is not g]
        if siblings:
            budgets = "; ".join(_budget_text(s.budget) + f" ({', '.join(s.arm_names)})" for s in siblings)
            g.not_a_comparison = (f"not an equal-budget comparison: only {', '.join(g.arm_names)} ran at "
                                  f"{_budget_text(g.budget)}; other arms of {g.workload} ran at {budgets}")
        else:
            g.not_a_comparison = (f"not a comparison: only one arm ({', '.join(g.arm_names)}) ran on "
                                  f"{g.workload} at {_budget_text(g.budget)}")


def _budget_text(budget: dict) -> str:
    return ", ".join(f"{v:,.10g} {u}" for u, v in budget.items()) or "no budget"
