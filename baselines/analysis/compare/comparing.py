"""compare(records): a comparison that cannot claim more than it shows.

Rules, and the mistake each one prevents (docs/design-notes.md):
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
The per-run spend checks themselves are in `spend_checks.py`; this module
groups the runs, picks the groups and hands each its columns. Pairwise statistics are a separate step (`pairing.py`) over each group's
arms x seeds matrix.
"""
from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Iterable

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from ..statistics.arm_intervals import bounded_arm_intervals
from ..statistics.reward_range import check_margin
from ..tables.columns import all_none, arm_sums, distinct_part, medians_of, run_bounds, small_int, sorted_codes
from .compare_options import CompareOptions
from ..tables.degradation import mark_degraded
from .comparison import MEASURED, PARTIAL, UNREPORTED, ArmSummary, Comparison, Group, UnitSpend
from .screen import screen_groups
from .spend_checks import check_confound, check_runs, set_over_budget
from ...core.scoped import gc_paused
from .pairing import item_pairs, pair_groups
from ...core.provenance import different_code_lines
from ...core.api_arguments import check_arguments, comparison_rules
from ...core.errors import InputError
from ...core.records import RunRecord, budget_key, budget_label
from .group_selection import select_groups
from ..tables.table import RunTable
from ...core.suggest import did_you_mean
from ...core.units import STANDARD_UNITS, canonical_unit, ordered_units


def compare(records: Iterable[RunRecord] | RunTable, *, fixed: str | None = None,
            options: CompareOptions | None = None, tolerance: float | None = None, alpha: float | None = None,
            allow_early_stop: bool | None = None, baseline: str | None = None,
            equivalence_margin: float | None = None, seed: int | None = None, metric: str | None = None,
            start: float | None = None, pairs: bool | str | None = None, bootstrap: bool | None = None,
            workloads: Iterable[str] | None = None, budgets: Iterable[tuple[str, float]] | None = None,
            confound_units: Iterable[str] | None = None,
            reward_range: tuple[float, float] | None = None, claim: str | None = None,
            questions: str | None = None) -> Comparison:
    """Compare arms at equal spend, flagging every other unit that diverged.

    `fixed` is the unit the arms were matched in; without it each group is
    fixed in the one unit its budget names. Every other keyword is a field of
    `CompareOptions` (defaults there: tolerance 0.1, alpha 0.05, metric
    "reward", ...); `options=` gives them as one object, and a keyword given
    beside it replaces that field (`compare(r, options=o, tolerance=0.5)`
    runs at 0.5). `equivalence_margin` is the +-M of the equivalence test
    (`check`'s `margin` is the regression margin of the gate). `pairs` is
    True/"auto" (all pairs up to 20 arms, else against the best arm), "all",
    or False/"none"; `workloads=`, `budgets=` and `confound_units=` select
    groups and units. `claim` ("typical", the default; "mean"; "both") names
    the claim every pair verdict decides (docs/statistics.md, "Which claim").
    `questions` ("population", the default; "these") is what an item-paired
    verdict is about when the same question ids recur across seeds: the
    population the questions were drawn from (two-way seed x question
    clustering) or these questions only (seed-clustered).
    """
    check_arguments("compare", comparison_rules(RunTable, CompareOptions), locals())  # each named, before any work
    options = options_with(options, tolerance=tolerance, alpha=alpha, allow_early_stop=allow_early_stop,
                           baseline=baseline, equivalence_margin=equivalence_margin, seed=seed, metric=metric,
                           start=start, pairs=pairs, bootstrap=bootstrap, workloads=workloads, budgets=budgets,
                           confound_units=confound_units, reward_range=reward_range, claim=claim,
                           questions=questions)
    with gc_paused():
        return _compare(records, fixed, options)


#: Options held as tuples (a frozen dataclass), which callers may give as lists.
_TUPLES = ("workloads", "budgets", "confound_units", "reward_range")


def options_with(options: CompareOptions | None, **given) -> CompareOptions:
    """`options` (default CompareOptions()) with every field given here (not None) replaced.

    The one merge rule of `compare` and `check`: a keyword beside `options=`
    is honoured, never silently dropped. `pairs` may be True/False.
    """
    pairs = given.get("pairs")
    if isinstance(pairs, bool):
        given["pairs"] = "auto" if pairs else "none"
    settings = {k: tuple(v) if k in _TUPLES and not isinstance(v, str) else v  # one name stays one name
                for k, v in given.items() if v is not None}
    return replace(options, **settings) if options is not None else CompareOptions(**settings)


def _compare(records, fixed: str | None, options: CompareOptions) -> Comparison:
    fixed = None if fixed is None else canonical_unit(fixed)   # the aliases the suite and the CLI accept
    source = None if isinstance(records, RunTable) else list(records)   # kept for the views (figures, notes)
    table = records if source is None else RunTable.from_records(source)
    _check_names(table, fixed, options)
    split = _GroupSplit(table.frame)
    chosen, skipped, filtered, notes = select_groups(split.keys, table.budgets, fixed, options.workloads,
                                                     options.budgets) if len(table) else ([], [], 0, [])
    unit_of = {bkey: unit for _, bkey, unit in chosen}
    frame, note = table.frame, ""
    if options.metric != "reward":
        from ..curves.anytime import metric_frame   # start-up: only for a metric other than the reward
        frame, note = metric_frame(table, lambda bkey: unit_of.get(bkey, fixed), options.metric, options.start)
        split = _GroupSplit(frame)
    units = ordered_units(set(table.units) | {unit for _, _, unit in chosen})
    summaries, arm_units = _all_summaries(split, units) if chosen else ([], {})
    groups = _groups(split, chosen, table.budgets, summaries, arm_units, units, options)
    mark_degraded(groups, table.frame)
    range_notes(groups, split)
    bounded_arm_intervals(groups)
    _margin_in_range(groups, options.equivalence_margin)
    pair_groups(groups, options)
    if "items" in frame.columns and options.metric == "reward":
        item_pairs(groups, frame, options)
    _mark_not_comparisons(groups)
    fixed_units = {g.fixed for g in groups}
    shown_fixed = fixed if fixed is not None else (fixed_units.pop() if len(fixed_units) == 1 else None)
    comparison = Comparison(shown_fixed, float(options.tolerance), groups, options.alpha, options.metric, note,
                            skipped)
    for s in skipped:  # "skipped: bbob at 500 function evaluations", not "model calls"
        key = (s.workload, budget_key(s.budget))
        if key in split.index:
            s.unit_nouns = _declared_nouns(split.columns(*key)("nouns"))
    comparison.records = source
    comparison.warnings.extend(notes)
    comparison.warnings.extend(code_warnings(frame))
    if filtered:
        comparison.warnings.append(f"{filtered} group(s) left out by --workload/--budget")
    return comparison


def _margin_in_range(groups: list[Group], margin: float | None) -> None:
    """Refuse an equivalence margin no difference can exceed (at least a group's range width); note one wider
    than every reward observed (`check_margin`): "equivalent" would then be decided before the data."""
    if margin is None:
        return
    for g in groups:
        note = check_margin(margin, g.reward_range, g.scores, "the equivalence margin",
                            f"workload {g.workload!r} at budget {budget_label(g.budget)}")
        if note is not None:
            g.notes.append(note)


def code_warnings(frame: pd.DataFrame) -> list[str]:
    """One line per (workload, arm) whose runs came from more than one version of the code (`provenance`)."""
    if "code" not in frame.columns or all_none(frame["code"].to_numpy()) or frame["code"].isna().all():
        return []
    counts: dict[tuple[str, str], dict[str, int]] = {}
    rows = frame.loc[frame["code"].notna(), ["workload", "arm", "code"]].astype(str).value_counts()
    for (workload, arm, code), n in rows.items():
        counts.setdefault((workload, arm), {})[code] = int(n)
    return different_code_lines(counts)


def _check_names(table: RunTable, fixed: str | None, options: CompareOptions) -> None:
    if not len(table):  # as the CLI says for an empty file (issue 31: the API returned an empty comparison)
        raise InputError("compare: no runs to compare; pass the records of at least one run")
    present = set(table.units) | {u for b in table.budgets.values() for u in b}
    if fixed is not None and fixed not in present and fixed not in STANDARD_UNITS:
        raise ValueError(f"unknown unit {fixed!r}{did_you_mean(fixed, sorted(present | set(STANDARD_UNITS)))}; "
                         f"units present: {', '.join(ordered_units(present)) or 'none'}")
    if options.baseline is not None:
        arms = table.frame["arm"].cat.categories.astype(str)
        if options.baseline not in set(arms):
            listed = ", ".join(sorted(arms)[:20]) + (f" and {len(arms) - 20} more" if len(arms) > 20 else "")
            raise ValueError(f"unknown baseline arm {options.baseline!r}{did_you_mean(options.baseline, list(arms))}; "
                             f"arms present: {listed}")


class _GroupSplit:
    """The frame sorted once by (group, arm, seed); each group is a slice, never a mask over all rows."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame
        self.n_budgets = max(len(frame["budget"].cat.categories), 1)
        group = _group_codes(frame["workload"].cat.codes.to_numpy(), frame["budget"].cat.codes.to_numpy(),
                             max(len(frame["workload"].cat.categories), 1), self.n_budgets)
        self.arm_names, arm_rank = sorted_codes(frame["arm"])
        seeds = frame["seed"].to_numpy()
        one = bool(group.size) and group.min() == group.max()   # one group: its key orders and splits nothing
        self.order = None if _in_order(group, arm_rank, seeds, one) else np.lexsort((seeds, arm_rank, group))
        self.sorted_group = group if self.order is None else group[self.order]
        self.arm_rank = arm_rank if self.order is None else arm_rank[self.order]
        bounds = np.array([0, group.size], dtype=np.int64) if one else run_bounds(self.sorted_group)
        #: where each group starts in the sorted rows, plus the end
        self.bounds = bounds
        #: (group, arm) runs of the sorted rows: one segment per arm of each group
        self.segments = _change_bounds(self.sorted_group, self.arm_rank, one)
        self.slices: dict[tuple[str, str], tuple[int, int]] = {}
        #: each group's position in split order (the order of `bounds`)
        self.index: dict[tuple[str, str], int] = {}
        workloads = [str(w) for w in frame["workload"].cat.categories]
        budgets = [str(b) for b in frame["budget"].cat.categories]
        starts, ends = bounds[:-1].tolist(), bounds[1:].tolist()
        codes = self.sorted_group[bounds[:-1]].tolist() if len(frame) else []
        for g, (a, z, code) in enumerate(zip(starts, ends, codes)):
            wc, bc = divmod(code, self.n_budgets)
            key = (workloads[wc], budgets[bc])
            self.slices[key] = (a, z)
            self.index[key] = g
        #: the (workload, budget key) of each group in split order
        self.group_keys = list(self.slices)
        self.keys = sorted(self.slices)
        self._cache: dict[str, np.ndarray] = {}

    def whole(self, column: str) -> np.ndarray:
        """A column of the whole frame in sorted order; a unit the results lack is all unreported."""
        if column not in self._cache:
            if column in self.frame.columns:
                values = self.frame[column].to_numpy()
                if self.order is not None and values.strides != (0,):   # a broadcast constant is one value in
                    values = values[self.order]                         # any order: no gather, no copy
            elif column.startswith("spend:"):
                values = np.full(len(self.frame), np.nan)
            elif column == "error":
                values = np.full(len(self.frame), None, dtype=object)
            else:
                values = np.zeros(len(self.frame), dtype=bool)
            self._cache[column] = values
        return self._cache[column]

    def summaries_between(self, a: int, z: int, summaries: list[ArmSummary]) -> list[ArmSummary]:
        first, last = np.searchsorted(self.segments, [a, z])
        return summaries[int(first):int(last)]

    def columns(self, workload: str, bkey: str) -> "_GroupColumns":
        a, z = self.slices[(workload, bkey)]
        return _GroupColumns(self, a, z)


class _GroupColumns:
    """One group's columns, sorted by (arm, seed): views into the split's sorted arrays.

    Its arms' bounds are the split's segments inside the group (within a
    group only the arm changes), not a pass over its rows; `rows` is made
    when asked for (a million-run group's arange was 8 MB, most often unread).
    """

    def __init__(self, split: _GroupSplit, a: int, z: int):
        self.split, self.a, self.z = split, a, z
        first, last = np.searchsorted(split.segments, [a, z])
        bounds = split.segments[int(first):int(last) + 1] - a
        ranks = split.arm_rank[a:z]
        self.arms = [split.arm_names[int(ranks[i])] for i in bounds[:-1]] if z > a else []
        self.bounds = bounds

    @property
    def rows(self) -> np.ndarray:
        """The group's rows of the frame, in (arm, seed) order."""
        return np.arange(self.a, self.z) if self.split.order is None else self.split.order[self.a:self.z]

    def __len__(self) -> int:
        return self.z - self.a

    def __call__(self, column: str) -> np.ndarray:
        """A column in (arm, seed) order; a unit the results lack is all unreported."""
        return self.split.whole(column)[self.a:self.z]

    def per_arm(self, column: str) -> list[np.ndarray]:
        values = self(column)
        return [values[self.bounds[i]:self.bounds[i + 1]] for i in range(len(self.arms))]


def _group_codes(workload: np.ndarray, budget: np.ndarray, n_workloads: int, n_budgets: int) -> np.ndarray:
    """workload * n_budgets + budget per row, in the narrowest type that holds every code (no int64 temporaries)."""
    dtype = small_int(n_workloads * n_budgets)
    group = workload.astype(dtype)
    group *= dtype(n_budgets)
    group += budget.astype(dtype, copy=False)
    return group


def _in_order(group: np.ndarray, arm: np.ndarray, seed: np.ndarray, one_group: bool = False) -> bool:
    """Whether the rows are in strictly increasing (group, arm, seed) order: then no sort and no copies.

    Compared, never subtracted: a difference of seeds spanning the int64 range
    overflows, and three int64 difference arrays were a third of the split's
    time and most of its peak (issue 38). `one_group`: every row has the same
    group, whose key then decides nothing and is not compared.
    """
    if group.size < 2:
        return True
    later = np.zeros(group.size - 1, dtype=bool)   # decided: this row's key is above the previous one's
    for k in (arm, seed) if one_group else (group, arm, seed):
        if ((k[1:] < k[:-1]) & ~later).any():
            return False
        later |= k[1:] > k[:-1]
    return bool(later.all())


def _change_bounds(group: np.ndarray, arm: np.ndarray, one_group: bool = False) -> np.ndarray:
    """`run_bounds` of the sorted (group, arm) pairs: where either changes, without an int64 combined key
    (`one_group`: the group never changes, and is not compared)."""
    if group.size == 0:
        return np.zeros(1, dtype=np.int64)
    changed = arm[1:] != arm[:-1]
    if not one_group:
        changed |= group[1:] != group[:-1]
    return np.concatenate(([0], np.flatnonzero(changed) + 1, [group.size])).astype(np.int64)


def _group(workload: str, budget: dict, cols: _GroupColumns, summaries: list[ArmSummary], units: list[str],
           fixed: str, options: CompareOptions) -> Group:
    # Every unit any record mentions is shown for every group: a unit this
    # workload does not report appears as unreported, never as absent or 0.
    group = Group(workload, dict(budget), summaries, units, fixed=fixed, rows=cols.rows)
    group.seeds, group.scores = _score_matrix(cols)
    group.reward_range = _declared_range(cols("reward_lo"), cols("reward_hi")) or _option_range(group, options)
    group.unit_nouns = _declared_nouns(cols("nouns"))
    check_runs(group, cols, budget, fixed, options)
    for unit in units:
        if options.checks_confounds_in(unit, fixed):
            check_confound(group, cols.arms, unit, options.tolerance)
    return group


def _groups(split: "_GroupSplit", chosen: list[tuple[str, str, str]], budgets: dict[str, dict],
            summaries: list[ArmSummary], arm_units: dict[str, tuple[np.ndarray, np.ndarray]], units: list[str],
            options: CompareOptions, screened: bool = True) -> list[Group]:
    """The `Group` of every chosen (workload, budget key, fixed unit), in `chosen` order.

    With `screened` (the default) one whole-column pass (`comparing_screen`)
    finds the groups whose spend checks would flag nothing; those get the
    reference the check would set and skip the per-group work, and their
    score matrices are views of one reshaped column. Every other group, and
    every unit a group may be flagged in, goes through `check_runs` /
    `check_confound` as with `screened=False` (the group-by-group path,
    kept as the reference the tests compare against).
    """
    if not chosen or not screened:
        return _each_group(split, chosen, budgets, summaries, units, options)
    confound_units = [u for u in units if any(options.checks_confounds_in(u, f) for _, _, f in chosen)]
    screen = screen_groups(split, [budgets[bkey] for _, bkey in split.group_keys], {f for _, _, f in chosen},
                           confound_units, {u: arm_units[u][0] for u in confound_units},
                           {u: arm_units[u][1] for u in confound_units}, options.tolerance)
    seeds = split.whole("seed")
    scores = _read_only(split.whole("reward"))          # the groups hold views into it: never written
    rows = np.arange(len(seeds), dtype=np.int32 if len(seeds) < 2 ** 31 else np.int64) if split.order is None \
        else split.order
    bounds = split.bounds.tolist()
    first_arm, end_arm = screen.first_arm.tolist(), screen.end_arm.tolist()
    reshaped = screen.reshaped.tolist()
    fixed_of = {unit: (clean.tolist(), reference.tolist(), source) for unit, (clean, reference, source)
                in screen.fixed.items()}
    confound_of = {unit: clean.tolist() for unit, clean in screen.confound.items()}
    out = []
    for workload, bkey, fixed in chosen:
        g = split.index[(workload, bkey)]
        a, z, s0, s1 = bounds[g], bounds[g + 1], first_arm[g], end_arm[g]
        budget = budgets[bkey]
        group = Group(workload, dict(budget), summaries[s0:s1], units, fixed=fixed, rows=rows[a:z])
        cols = None
        if reshaped[g]:
            n = (z - a) // (s1 - s0)
            group.seeds, group.scores = seeds[a:a + n].copy(), scores[a:z].reshape(s1 - s0, n)
        else:
            cols = split.columns(workload, bkey)
            group.seeds, group.scores = _score_matrix(cols)
        group.reward_range = screen.reward_range[g] or _option_range(group, options)
        nouns = screen.nouns[g]
        group.unit_nouns = dict(nouns) if nouns else {}
        clean, reference, source = fixed_of[fixed]
        if clean[g]:
            group.reference, group.reference_source = reference[g], source[g]
            if source[g] == "budget" and np.nanmax(split.whole(f"spend:{fixed}")[a:z], initial=-np.inf) > \
                    reference[g]:   # within tolerance, yet over the allowance: said (issue 39)
                set_over_budget(group, cols or split.columns(workload, bkey), fixed, reference[g])
        else:
            check_runs(group, cols or split.columns(workload, bkey), budget, fixed, options)
        for unit in confound_units:
            if not confound_of[unit][g] and options.checks_confounds_in(unit, fixed):
                check_confound(group, group.arm_names, unit, options.tolerance)
        out.append(group)
    return out


def _read_only(values: np.ndarray) -> np.ndarray:
    """A float view of `values` that refuses writes (a copy only when they are not float64).

    Why a view: a private copy of the reward column was 8 MB per million runs
    held for the whole comparison (issue 38: peak memory); the score matrices
    are read, never written, and a read-only view makes sure of it.
    """
    out = values.astype(float, copy=False).view()
    out.flags.writeable = False
    return out


def _each_group(split: "_GroupSplit", chosen: list[tuple[str, str, str]], budgets: dict[str, dict],
                summaries: list[ArmSummary], units: list[str], options: CompareOptions) -> list[Group]:
    """`_group` for every chosen group, one at a time: every check runs on every group."""
    out = []
    for workload, bkey, unit in chosen:
        cols = split.columns(workload, bkey)
        out.append(_group(workload, budgets[bkey], cols, split.summaries_between(cols.a, cols.z, summaries),
                          units, unit, options))
    return out


def _declared_nouns(nouns: np.ndarray) -> dict[str, str]:
    """The unit words the group's runs declare (the first declaration; a workload declares one set)."""
    first = next((text for text in nouns if isinstance(text, str)), None)
    return json.loads(first) if first else {}


def _option_range(group: Group, options: CompareOptions) -> tuple[float, float] | None:
    """`--reward-range LO,HI` for a group whose runs declare none; a reward outside it is the user's mistake.

    Why refuse: the range clips every printed mean and interval and licenses
    distribution-free statistics; rewards outside it would print a clipped,
    zero-width "1.000 [1.000, 1.000]" for a mean of 1.4.
    """
    if options.reward_range is None:
        return None
    lo, hi = options.reward_range
    scores = group.scores[np.isfinite(group.scores)] if group.scores is not None else np.zeros(0)
    if options.metric == "reward" and scores.size and (scores.min() < lo or scores.max() > hi):
        raise ValueError(f"{group.workload} at {budget_label(group.budget)}: rewards lie outside --reward-range "
                         f"{lo:g},{hi:g} (min {scores.min():g}, max {scores.max():g}); widen the range or drop it")
    return options.reward_range


def _declared_range(lo: np.ndarray, hi: np.ndarray) -> tuple[float, float] | None:
    """The reward range every run of the group declares; none when any run lacks one.

    Runs that declare different ranges get their hull (every reward lies in
    its own run's range, so in the hull); `range_notes` says so. They used to
    fall to the t route without a word.
    """
    if lo.size == 0 or np.isnan(lo).any() or np.isnan(hi).any():
        return None
    return float(lo.min()), float(hi.max())


def range_notes(groups: list[Group], split: "_GroupSplit") -> None:
    """A note on each group whose runs declare different reward ranges (the hull is used)."""
    if "reward_lo" not in split.frame.columns or not len(split.frame) or \
            all(group.reward_range is None for group in groups):   # no range, no note: no pass over the columns
        return
    lo, hi = split.whole("reward_lo").astype(float, copy=False), split.whole("reward_hi").astype(float, copy=False)
    starts = split.bounds[:-1]
    differs = ((np.fmin.reduceat(lo, starts) != np.fmax.reduceat(lo, starts))
               | (np.fmin.reduceat(hi, starts) != np.fmax.reduceat(hi, starts))).tolist()
    for group in groups:
        key = (group.workload, budget_key(group.budget))
        if group.reward_range is None or not differs[split.index[key]]:
            continue
        cols = split.columns(group.workload, budget_key(group.budget))
        pairs = sorted(set(zip(cols("reward_lo").tolist(), cols("reward_hi").tolist())))
        if len(pairs) > 1:
            shown = ", ".join(f"[{a:g}, {b:g}]" for a, b in pairs[:4])
            group.notes.append(f"runs declare different reward ranges ({shown}); their hull "
                               f"[{group.reward_range[0]:g}, {group.reward_range[1]:g}] bounds every reward "
                               "and is the range used")


def _score_matrix(cols: _GroupColumns) -> tuple[np.ndarray, np.ndarray]:
    """The arms x seeds matrix of the compared score (NaN = no scored run at that seed)."""
    seeds, rewards = cols("seed"), cols("reward")
    sizes = np.diff(cols.bounds)
    if len(sizes) and sizes.min() == sizes.max():
        block = seeds.reshape(len(sizes), int(sizes[0]))
        if (block == block[0]).all():  # every arm ran the same seeds: the matrix is the column reshaped
            return block[0].copy(), rewards.reshape(block.shape).astype(float, copy=True)
    all_seeds = np.unique(seeds)
    matrix = np.full((len(cols.arms), len(all_seeds)), np.nan)
    for i in range(len(cols.arms)):
        a, z = cols.bounds[i], cols.bounds[i + 1]
        matrix[i, np.searchsorted(all_seeds, seeds[a:z])] = rewards[a:z]
    return all_seeds, matrix


def _all_summaries(split: "_GroupSplit", units: list[str]
                   ) -> tuple[list[ArmSummary], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Per-(group, arm) counts, reward statistics and spend medians, on the whole sorted columns at once.

    One pass over the file's columns, not one per group: ten thousand small
    groups cost about what one group of the same lines costs. Also returns,
    per unit, each (group, arm)'s median spend and whether it is measured in
    full, for the group screen.
    """
    bounds = split.segments
    runs = np.diff(bounds)
    reward, dev, failed, errors_text = (split.whole(c) for c in ("reward", "dev_reward", "failed", "error"))
    failed = failed.astype(bool, copy=False)
    any_failed = bool(distinct_part(failed).any())
    errors = arm_sums(failed, bounds) if any_failed else np.zeros(len(runs), dtype=np.int64)
    spends = {unit: split.whole(f"spend:{unit}") for unit in units}
    known_reward, scored_counts = _known_counts(reward, bounds, runs)
    known_spends = {unit: _known_counts(values, bounds, runs) for unit, values in spends.items()}
    medians = medians_of([reward] + list(spends.values()), bounds,   # a column known complete: no NaN search
                         [known_reward is None] + [known is None for known, _ in known_spends.values()])
    dev_known, dev_counts = _known_counts(dev, bounds, runs)
    dev_sums = np.zeros(len(runs)) if not dev_counts.any() else np.add.reduceat(
        dev if dev_known is None else np.where(dev_known, dev, 0.0), bounds[:-1])
    low = np.fmin.reduceat(reward, bounds[:-1]) if len(bounds) > 1 else np.zeros(0)
    high = np.fmax.reduceat(reward, bounds[:-1]) if len(bounds) > 1 else np.zeros(0)
    arm_units, unit_columns = {}, []
    for k, unit in enumerate(units):
        values, partial = spends[unit], split.whole(f"partial:{unit}").astype(bool, copy=False)
        known, reported = known_spends[unit]
        full = reported if not distinct_part(partial).any() else \
            arm_sums(~partial if known is None else known & ~partial, bounds)
        status = np.where(reported == 0, UNREPORTED, np.where(full < runs, PARTIAL, MEASURED))
        if ((reported > 0) & (reported < runs)).any():
            medians[k + 1] = _partial_lower_bounds(values, known, bounds, reported, runs, medians[k + 1])
        arm_units[unit] = (medians[k + 1], (reported > 0) & (full >= runs))
        unit_medians = [m if r else None for m, r in zip(medians[k + 1].tolist(), reported.tolist())]
        unit_columns.append((unit, unit_medians, status.tolist(), full.tolist()))
    failed_rows = np.flatnonzero(failed) if any_failed else np.zeros(0, dtype=np.intp)
    means, lows, highs = segment_t_intervals(reward, known_reward, bounds, scored_counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        dev_means = np.where(dev_counts > 0, dev_sums / np.maximum(dev_counts, 1), math.nan)
    scored_list = scored_counts.tolist()
    nan = math.nan
    low_l = [x if n else nan for x, n in zip(low.tolist(), scored_list)]
    median_l = [x if n else nan for x, n in zip(medians[0].tolist(), scored_list)]
    high_l = [x if n else nan for x, n in zip(high.tolist(), scored_list)]
    names = [split.arm_names[r] for r in split.arm_rank[bounds[:-1]].tolist()] if len(bounds) > 1 else []
    starts = bounds[:-1].tolist()
    out = []
    for i, (a, n_runs, n_scored, n_errors, mean, lo, hi) in enumerate(zip(
            starts, runs.tolist(), scored_list, errors.tolist(), means.tolist(), lows.tolist(), highs.tolist())):
        spend = {unit: UnitSpend(unit_medians[i], status[i], full[i]) for unit, unit_medians, status, full
                 in unit_columns}
        first_error = None
        if n_errors:
            first = failed_rows[np.searchsorted(failed_rows, a)]
            first_error = None if errors_text[first] is None else str(errors_text[first])
        out.append(ArmSummary(names[i], n_runs, n_scored, n_errors, mean, (lo, hi), low_l[i], median_l[i],
                              high_l[i], dev_means[i].item(), spend, first_error))
    return out, arm_units


def _known_counts(values: np.ndarray, bounds: np.ndarray, runs: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """(known, count per segment) of a float column's non-NaN values; known is None when every value is known
    (the counts are then the segment sizes). Why: most columns are complete or empty, and the mask, its
    count and every later masked step were passes over a million rows for nothing (issue 38)."""
    part = distinct_part(values)     # a broadcast constant column: one value to look at
    unknown = np.isnan(part)
    if not unknown.any():
        return None, runs.astype(np.int64, copy=True)
    if unknown.all():
        return np.zeros(values.shape, dtype=bool), np.zeros(len(runs), dtype=np.int64)
    known = np.logical_not(unknown, out=unknown)
    return known, arm_sums(known, bounds)


def _partial_lower_bounds(values: np.ndarray, known: np.ndarray, bounds: np.ndarray, reported: np.ndarray,
                         runs: np.ndarray, medians: np.ndarray) -> np.ndarray:
    """Medians where an arm left the unit unreported on some runs: the median with those runs at 0.

    Why: such an arm's figure is printed as a lower bound ("≥"). The median of
    the runs that did report is no bound at all (an unreported run may have
    spent less than every reported one); spend is never negative, so counting
    an unreported run as 0 (and a partly reported run at its reported part)
    gives a median the true one cannot be below.
    """
    gaps = np.flatnonzero((reported > 0) & (reported < runs))
    floored = np.where(known, values, 0.0)
    out = medians.copy()
    for i in gaps.tolist():
        out[i] = float(np.median(floored[bounds[i]:bounds[i + 1]]))
    return out


def segment_t_intervals(values: np.ndarray, known: np.ndarray | None, bounds: np.ndarray, counts: np.ndarray,
                        level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and Student-t interval of each segment's known values, all segments at once.

    The same numbers as `stats.t_interval` per segment (NaN bounds below two
    values), computed with two passes so the variance is taken about each
    segment's own mean (no sum-of-squares cancellation). `known` None: every
    value is known, and nothing is masked (no copy of the column).
    """
    if len(bounds) < 2:
        empty = np.zeros(0)
        return empty, empty, empty
    starts = bounds[:-1]
    unknown = None if known is None else ~known
    filled = values
    if unknown is not None:
        filled = values.copy()              # one column-sized temporary at a time (issue 38: peak memory)
        filled[unknown] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.add.reduceat(filled, starts) / counts
        centred = np.repeat(means, np.diff(bounds))
        np.subtract(values, centred, out=centred)
        if unknown is not None:
            centred[unknown] = 0.0
        np.multiply(centred, centred, out=centred)
        variance = np.add.reduceat(centred, starts) / (counts - 1)
        del filled, centred
        half = stdtrit(np.maximum(counts - 1, 1), 0.5 + level / 2) * np.sqrt(variance / counts)
    half = np.where(counts >= 2, half, np.nan)
    means = np.where(counts >= 1, means, np.nan)
    return means, means - half, means + half


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
            budgets = "; ".join(budget_label(s.budget) + f" ({', '.join(s.arm_names)})" for s in siblings)
            g.not_a_comparison = (f"not an equal-budget comparison: only {', '.join(g.arm_names)} ran at "
                                  f"{budget_label(g.budget)}; other arms of {g.workload} ran at {budgets}")
        else:
            g.not_a_comparison = (f"not a comparison: only one arm ({', '.join(g.arm_names)}) ran on "
                                  f"{g.workload} at {budget_label(g.budget)}")

