"""compare(records, fixed=UNIT): a comparison that cannot claim more than it shows.

Rules, and the mistake each one prevents (see the design notes):
- Runs are grouped by (workload, budget); two budgets are never pooled.
- The fixed unit is checked per run against the *requested* allowance when
  the records carry one. A median across arms as reference flags both arms
  of a two-arm comparison and hides a shared overshoot; a per-arm median
  hides one seed at 4x the budget.
- A run that does not report the fixed unit makes its arm `unverified`: an
  unreported unit is unknown, so it can never pass a fixed-unit check.
- Other units are compared only among arms that report them in full; an arm
  that does not report a unit is listed as such, never counted as 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
import pandas as pd

from .records import RunRecord
from .stats import PairResult, add_bootstrap, all_pairs, decide, t_interval
from .table import RunTable
from .units import STANDARD_UNITS, ordered_units

MEASURED, PARTIAL, UNREPORTED = "measured", "partial", "unreported"


@dataclass
class UnitSpend:
    """An arm's spend in one unit: median over runs that report it."""

    median: float | None
    status: str                # measured | partial | unreported
    reported_runs: int


@dataclass
class ArmSummary:
    arm: str
    runs: int
    scored: int
    errors: int
    mean: float
    ci: tuple[float, float]
    min: float
    median: float
    max: float
    dev_mean: float
    spend: dict[str, UnitSpend]

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "runs": self.runs, "scored": self.scored, "errors": self.errors,
                "reward": {"mean": _num(self.mean), "ci": [_num(self.ci[0]), _num(self.ci[1])],
                           "min": _num(self.min), "median": _num(self.median), "max": _num(self.max)},
                "dev_reward": {"mean": _num(self.dev_mean)},
                "spend": {u: {"median": _num(s.median), "status": s.status, "runs": s.reported_runs}
                          for u, s in self.spend.items()}}


@dataclass
class Flag:
    """One arm that drifted in one unit; `spend`/`reference` are what was decided on."""

    arm: str
    unit: str
    spend: float
    reference: float
    direction: str               # over | under
    reference_source: str        # "budget" or "median of arms"
    seed: int | None = None      # the worst run, for per-run drift in the fixed unit
    runs: int = 0                # how many runs drifted (fixed unit)
    of_runs: int = 0
    lower_bound: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"arm": self.arm, "unit": self.unit, "spend": _num(self.spend),
                               "reference": _num(self.reference), "direction": self.direction}
        out["reference_source"] = self.reference_source
        if self.seed is not None:
            out.update(seed=self.seed, runs=self.runs, of_runs=self.of_runs)
        if self.lower_bound:
            out["lower_bound"] = True
        return out


@dataclass
class Unverified:
    arm: str
    unit: str
    reason: str                  # unreported | partial
    reported_runs: int = 0
    runs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "unit": self.unit, "reason": self.reason,
                "reported_runs": self.reported_runs, "runs": self.runs}


@dataclass
class Group:
    workload: str
    budget: dict[str, float]
    arms: list[ArmSummary]
    units: list[str]
    unequal: list[Flag] = field(default_factory=list)
    unverified: list[Unverified] = field(default_factory=list)
    confounded: list[Flag] = field(default_factory=list)
    unreported: list[Unverified] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pairs: list[PairResult] = field(default_factory=list)
    reference: float | None = None
    reference_source: str | None = None
    early_stopped: list[str] = field(default_factory=list)  # arms whose under-spend was accepted

    @property
    def valid(self) -> bool:
        return not self.unequal and not self.unverified

    def arm(self, name: str) -> ArmSummary:
        for summary in self.arms:
            if summary.arm == name:
                return summary
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "budget": self.budget, "valid": self.valid,
                "reference": {"value": _num(self.reference), "source": self.reference_source},
                "arms": [a.to_json() for a in self.arms],
                "unequal": [f.to_json() for f in self.unequal],
                "unverified": [u.to_json() for u in self.unverified],
                "confounded": [f.to_json() for f in self.confounded],
                "unreported": [u.to_json() for u in self.unreported],
                "notes": list(self.notes), "early_stopped": list(self.early_stopped),
                "pairs": [p.to_json() for p in self.pairs]}


@dataclass
class Comparison:
    fixed: str
    tolerance: float
    groups: list[Group]
    alpha: float = 0.05
    metric: str = "reward"
    metric_note: str = ""

    @property
    def valid(self) -> bool:
        return all(g.valid for g in self.groups)

    def to_json(self) -> dict[str, Any]:
        out = {"fixed": self.fixed, "tolerance": self.tolerance, "alpha": self.alpha,
               "valid": self.valid, "metric": self.metric, "groups": [g.to_json() for g in self.groups]}
        if self.metric_note:
            out["metric_note"] = self.metric_note
        return out


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def compare(records: Iterable[RunRecord] | RunTable, fixed: str, tolerance: float = 0.1,
            alpha: float = 0.05, allow_early_stop: bool = False, baseline: str | None = None,
            margin: float | None = None, seed: int = 0, metric: str = "reward",
            start: float = 0.0, pairs: bool = True, bootstrap: bool = False) -> Comparison:
    """Compare arms at equal spend in `fixed`, flagging every other unit that diverged.

    `tolerance` is relative (0.1 = 10%). With `allow_early_stop`, a run that
    under-spent the fixed unit because it stopped on its own (a stop reason
    other than ``budget:...`` and no error) is a note, not a break.
    `baseline` restricts the pairs to every arm against that arm; with
    ``pairs=False`` no paired tests are run (flags and per-arm summaries only);
    `bootstrap` adds a secondary paired bootstrap interval (seeded) to each pair.
    `metric` is what the quality columns and pairs compare: the final
    ``reward``, ``dev_reward``, or an anytime metric of the trace in the fixed
    unit: ``auc`` (normalised budget-aware AUC, best-so-far `start` before the
    first point) or ``reward@25%`` / ``reward@50%`` / ``reward@100%``.
    """
    if not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) or tolerance < 0:
        raise ValueError(f"tolerance must be a finite non-negative number, got {tolerance!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    table = records if isinstance(records, RunTable) else RunTable.from_records(list(records))
    present = set(table.units) | {u for b in table.budgets.values() for u in b}
    if len(table) and fixed not in present and fixed not in STANDARD_UNITS:
        raise ValueError(f"unknown unit {fixed!r}; units present: {', '.join(ordered_units(present)) or 'none'}")
    if baseline is not None and len(table) and baseline not in set(table.frame["arm"].astype(str)):
        raise ValueError(f"unknown baseline arm {baseline!r}; arms present: "
                         f"{', '.join(sorted(set(table.frame['arm'].astype(str))))}")
    frame = table.frame
    note = ""
    if metric != "reward":
        frame, note = _metric_frame(table, fixed, metric, start)
    groups = []
    if len(frame):
        for workload, bkey, rows in _split_groups(frame):
            groups.append(_group(str(workload), table.budgets[bkey], rows, table.units, fixed,
                                 tolerance, alpha, allow_early_stop, baseline, margin, seed, pairs, bootstrap))
    return Comparison(fixed, float(tolerance), groups, alpha, metric, note)


METRICS = ("reward", "dev_reward", "auc", "reward@25%", "reward@50%", "reward@100%")


def _metric_frame(table: RunTable, fixed: str, metric: str, start: float) -> tuple[pd.DataFrame, str]:
    """A copy of the table whose `reward` column holds `metric` (NaN where it cannot be computed)."""
    from . import anytime

    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    frame = table.frame.copy()
    if metric == "dev_reward":
        frame["reward"] = frame["dev_reward"]
        return frame, "metric: the arm's own dev score of its final choice (not held out)"
    traces = table.traces or [None] * len(frame)
    values = np.full(len(frame), np.nan)
    budgets = frame["budget"].astype(str).to_numpy()
    for i, trace in enumerate(traces):
        limit = table.budgets[budgets[i]].get(fixed)
        if trace is None or not limit:
            continue
        if metric == "auc":
            values[i] = anytime.budget_auc(trace, fixed, limit, start)
        else:
            fraction = float(metric.split("@")[1].rstrip("%")) / 100
            values[i] = anytime.best_at(trace, fixed, fraction * limit, start)
    frame["reward"] = values
    what = ("normalised budget-aware AUC: (1/B) x integral of best-so-far over spend in "
            f"{fixed} up to the budget B" if metric == "auc" else f"best-so-far at {metric.split('@')[1]} of the {fixed} budget")
    return frame, f"metric: {what}, from the runs' traces; start value {start:g} before the first point"


def _group(workload, budget, rows: pd.DataFrame, all_units, fixed, tol, alpha, allow_early,
           baseline, margin, seed, want_pairs=True, bootstrap=False) -> Group:
    arms, arm_idx = _sorted_codes(rows["arm"])
    # Sort by arm, then seed: sums then run in one order whatever the input order,
    # so permuted inputs give byte-identical output.
    seeds = rows["seed"].to_numpy()
    in_order = len(arm_idx) < 2 or bool(np.all((np.diff(arm_idx) > 0) | ((np.diff(arm_idx) == 0) & (np.diff(seeds) > 0))))
    sort = None if in_order else np.lexsort((seeds, arm_idx))
    bounds = np.searchsorted(arm_idx if sort is None else arm_idx[sort], np.arange(len(arms) + 1))
    # Every unit any record mentions is shown for every group: a unit this
    # workload does not report appears as unreported, never as absent or 0.
    units = ordered_units(set(all_units) | {fixed})

    def sorted_column(column: str) -> np.ndarray:
        """A column in (arm, seed) order, contiguous; a unit the group lacks is all unreported."""
        if column in rows.columns:
            values = rows[column].to_numpy()
            return np.ascontiguousarray(values if sort is None else values[sort])
        if column.startswith("spend:"):
            return np.full(len(arm_idx), np.nan)
        return np.zeros(len(arm_idx), dtype=bool)

    def arm_slices(column: str) -> list[np.ndarray]:
        values = sorted_column(column)
        return [values[bounds[i]:bounds[i + 1]] for i in range(len(arms))]

    rewards = arm_slices("reward")
    failed = arm_slices("failed")
    summaries = _summaries(arms, sorted_column, bounds, units)
    group = Group(workload, dict(budget), summaries, units)
    # Only scored runs enter the reward column, so only they must be matched in the
    # fixed unit; a run that failed is counted in `errors`, not judged on its spend.
    scored_mask = [~np.isnan(r) for r in rewards]
    for i, arm in enumerate(arms):
        if not scored_mask[i].any():
            group.notes.append(f"{arm}: no scored runs ({len(rewards[i])} run(s), {int(failed[i].sum())} with errors)")
    keep = lambda slices: [s[m] for s, m in zip(slices, scored_mask)]  # noqa: E731
    _check_fixed(group, arms, keep(arm_slices(f"spend:{fixed}")), keep(arm_slices(f"partial:{fixed}")), keep(arm_slices("seed")),
                 keep(arm_slices("stop_reason")), keep(failed), budget, fixed, tol, allow_early)
    for unit in units:
        if unit != fixed:
            _check_confound(group, arms, unit, tol)
    if want_pairs:
        _pairs(group, arms, rewards, arm_slices("seed"), alpha, baseline, margin, seed, bootstrap)
    return group


def _split_groups(frame: pd.DataFrame):
    """(workload, budget key, rows) per group, sorted; one group is the frame itself (no copy)."""
    w = frame["workload"].cat.codes.to_numpy().astype(np.int64)
    b = frame["budget"].cat.codes.to_numpy().astype(np.int64)
    combined = w * (int(b.max()) + 1) + b
    # one workload and one budget (the common case) needs no hashing of a million codes
    uniques = combined[:1] if combined.min() == combined.max() else np.unique(combined)
    names = []
    for code in uniques:
        wc, bc = divmod(int(code), int(b.max()) + 1)
        names.append((str(frame["workload"].cat.categories[wc]), str(frame["budget"].cat.categories[bc]), code))
    for workload, bkey, code in sorted(names):
        rows = frame if len(uniques) == 1 else frame[combined == code]
        yield workload, bkey, rows


def _arm_medians(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Median per arm of a column sorted by arm (NaN = unreported, skipped).

    When every arm has as many runs the column is one (arms x runs) block and
    a single partition computes every median.
    """
    sizes = np.diff(bounds)
    if len(sizes) and sizes.min() == sizes.max() and sizes[0] > 0:
        return _nanmedian(values.reshape(len(sizes), int(sizes[0])), axis=1)
    return np.array([_nanmedian(values[a:b][None, :], axis=1)[0] if b > a else np.nan
                     for a, b in zip(bounds[:-1], bounds[1:])])


def _medians_of(columns: list[np.ndarray], bounds: np.ndarray) -> list[np.ndarray]:
    """`_arm_medians` of several columns; on large groups two threads share the work.

    Selection (numpy's partition) releases the GIL, and per-arm medians of a
    million-row group are most of a comparison's time, so both cores help.
    """
    if len(columns) > 1 and bounds[-1] >= 200_000:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(lambda values: _arm_medians(values, bounds), columns))
    return [_arm_medians(values, bounds) for values in columns]


def _arm_sums(mask: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Count of True per arm of a boolean column sorted by arm."""
    counts = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return counts[bounds[1:]] - counts[bounds[:-1]]


def _nanmedian(block: np.ndarray, axis: int) -> np.ndarray:
    nan = np.isnan(block)
    if not nan.any():
        return np.median(block, axis=axis)  # one partition for the whole block
    if nan.all():
        return np.full(block.shape[0], np.nan)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN arm: unreported, handled by the caller
        return np.nanmedian(block, axis=axis)


def _summaries(arms: list[str], column, bounds: np.ndarray, units: list[str]) -> list[ArmSummary]:
    """Per-arm counts, reward statistics and spend medians, computed on whole sorted columns."""
    reward, dev, failed = column("reward"), column("dev_reward"), column("failed")
    errors = _arm_sums(failed.astype(bool), bounds)
    spends = {unit: column(f"spend:{unit}") for unit in units}
    medians = _medians_of([reward] + list(spends.values()), bounds)
    reward_median = medians[0]
    stats_by_unit = {}
    for k, unit in enumerate(units):
        values, partial = spends[unit], column(f"partial:{unit}").astype(bool)
        known = ~np.isnan(values)
        stats_by_unit[unit] = (medians[k + 1], _arm_sums(known, bounds), _arm_sums(known & ~partial, bounds))
    out = []
    for i, arm in enumerate(arms):
        a, b = bounds[i], bounds[i + 1]
        runs = int(b - a)
        scored = reward[a:b][~np.isnan(reward[a:b])]
        mean, lo, hi = t_interval(scored)
        spend = {}
        for unit in units:
            medians, reported, full = stats_by_unit[unit]
            status = _status(int(reported[i]), int(full[i]), runs)
            spend[unit] = UnitSpend(float(medians[i]) if reported[i] else None, status, int(full[i]))
        devs = dev[a:b]
        out.append(ArmSummary(
            arm, runs, int(scored.size), int(errors[i]), mean, (lo, hi),
            float(scored.min()) if scored.size else math.nan,
            float(reward_median[i]) if scored.size else math.nan,
            float(scored.max()) if scored.size else math.nan,
            float(np.nanmean(devs)) if (~np.isnan(devs)).any() else math.nan, spend))
    return out


def _sorted_codes(column: pd.Series) -> tuple[list[str], np.ndarray]:
    """Arm names in sorted order and each row's index into them (categorical codes, no strings per row)."""
    codes = column.cat.codes.to_numpy()
    used = np.unique(codes)
    names = np.asarray(column.cat.categories.astype(str))[used]
    order = np.argsort(names, kind="stable")
    rank = np.empty(int(codes.max()) + 1 if codes.size else 0, dtype=np.int64)
    rank[used[order]] = np.arange(len(used))
    return [str(n) for n in names[order]], rank[codes]


def _status(reported: int, full: int, runs: int) -> str:
    """Unreported when no run reports the unit, partial unless every run reports it in full."""
    return UNREPORTED if reported == 0 else PARTIAL if full < runs else MEASURED


def _check_fixed(group: Group, arms, spends, partials, seeds, stops, failed, budget, fixed, tol,
                 allow_early) -> None:
    verified = []
    for i, arm in enumerate(arms):
        if spends[i].size == 0:
            continue  # no scored runs: noted by the caller, nothing to verify
        known = ~np.isnan(spends[i])
        n_full = int((known & ~partials[i]).sum())
        status = _status(int(known.sum()), n_full, len(spends[i]))
        if status != MEASURED:
            group.unverified.append(Unverified(arm, fixed, status, n_full, len(spends[i])))
        else:
            verified.append(i)
    if fixed in budget:
        reference, source = float(budget[fixed]), "budget"
    elif verified:
        reference, source = float(np.median([np.median(spends[i]) for i in verified])), "median of arms"
    else:
        group.notes.append(f"no arm reports {fixed} in full, so equal spend in {fixed} cannot be checked")
        return
    group.reference, group.reference_source = reference, source
    for i in range(len(arms)):
        values = spends[i]
        known = ~np.isnan(values)
        if not known.any():
            continue
        rel = _relative(values, reference)
        for direction, drifted in (("over", known & (rel > tol)), ("under", known & (rel < -tol))):
            if not drifted.any():
                continue
            if direction == "under" and allow_early:
                on_own = np.array([isinstance(s, str) and not s.startswith("budget:") for s in stops[i]]) \
                    & ~failed[i]
                early = drifted & on_own
                if early.any():
                    group.early_stopped.append(arms[i])
                    group.notes.append(
                        f"{arms[i]}: {int(early.sum())} run(s) stopped on their own below the "
                        f"{fixed} budget (min {np.min(values[early]):,.6g} of {reference:,.6g}); accepted as early stops")
                drifted = drifted & ~on_own
                if not drifted.any():
                    continue
            worst = int(np.argmax(np.where(drifted, np.abs(values - reference), -np.inf)))
            group.unequal.append(Flag(arms[i], fixed, float(values[worst]), reference, direction, source,
                                      seed=int(seeds[i][worst]), runs=int(drifted.sum()),
                                      of_runs=len(values)))


def _relative(values: np.ndarray, reference: float) -> np.ndarray:
    if reference == 0:
        return np.where(values > 0, np.inf, 0.0)
    return (values - reference) / abs(reference)


def _check_confound(group: Group, arms, unit, tol) -> None:
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
    medians = [group.arms[i].spend[unit].median for i in complete]
    reference = float(np.median(medians))
    for i in complete + partial:
        value = group.arms[i].spend[unit].median
        rel = float(_relative(np.array([value]), reference)[0])
        lower_bound = i in partial
        if rel > tol or (rel < -tol and not lower_bound):
            group.confounded.append(Flag(arms[i], unit, value, reference, "over" if rel > 0 else "under",
                                         "median of arms", lower_bound=lower_bound))


def _pairs(group: Group, arms, rewards, seeds, alpha, baseline, margin, seed, bootstrap=False) -> None:
    scored = [i for i in range(len(arms)) if (~np.isnan(rewards[i])).any()]
    arms = [arms[i] for i in scored]
    rewards = [rewards[i] for i in scored]
    seeds = [seeds[i] for i in scored]
    if len(arms) < 2:
        return
    all_seeds = np.unique(np.concatenate(seeds)) if seeds else np.array([], dtype=np.int64)
    matrix = np.full((len(arms), len(all_seeds)), np.nan)
    for i in range(len(arms)):
        matrix[i, np.searchsorted(all_seeds, seeds[i])] = rewards[i]
    if baseline is not None and baseline not in arms:
        group.notes.append(f"baseline arm {baseline!r} did not run on this workload and budget")
        return
    pairs = all_pairs(arms, matrix, 1 - alpha, seed, baseline)
    group.pairs = decide(pairs, alpha, margin)
    if bootstrap:
        add_bootstrap(group.pairs, arms, matrix, 1 - alpha, seed)
