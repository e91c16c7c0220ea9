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
from .stats import PairResult, all_pairs, decide, t_interval
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
                "notes": list(self.notes),
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
            start: float = 0.0) -> Comparison:
    """Compare arms at equal spend in `fixed`, flagging every other unit that diverged.

    `tolerance` is relative (0.1 = 10%). With `allow_early_stop`, a run that
    under-spent the fixed unit because it stopped on its own (a stop reason
    other than ``budget:...`` and no error) is a note, not a break.
    `baseline` restricts the pairs to every arm against that arm.
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
        for (workload, bkey), rows in frame.groupby(["workload", "budget"], observed=True, sort=True):
            groups.append(_group(str(workload), table.budgets[bkey], rows, table.units, fixed,
                                 tolerance, alpha, allow_early_stop, baseline, margin, seed))
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
           baseline, margin, seed) -> Group:
    arm_codes = rows["arm"].astype(str).to_numpy()
    arms = sorted(set(arm_codes))
    order = {a: i for i, a in enumerate(arms)}
    arm_idx = np.fromiter((order[a] for a in arm_codes), dtype=np.int64, count=len(arm_codes))
    # Sort by arm, then seed: sums then run in one order whatever the input order,
    # so permuted inputs give byte-identical output.
    sort = np.lexsort((rows["seed"].to_numpy(), arm_idx))
    bounds = np.searchsorted(arm_idx[sort], np.arange(len(arms) + 1))
    # Every unit any record mentions is shown for every group: a unit this
    # workload does not report appears as unreported, never as absent or 0.
    units = ordered_units(set(all_units) | {fixed})

    def arm_slices(column: str) -> list[np.ndarray]:
        values = rows[column].to_numpy()[sort]
        return [values[bounds[i]:bounds[i + 1]] for i in range(len(arms))]

    spend_by_unit: dict[str, list[np.ndarray]] = {}
    partial_by_unit: dict[str, list[np.ndarray]] = {}
    for unit in units:
        if f"spend:{unit}" in rows.columns:
            spend_by_unit[unit] = arm_slices(f"spend:{unit}")
            partial_by_unit[unit] = arm_slices(f"partial:{unit}")
        else:
            spend_by_unit[unit] = [np.full(bounds[i + 1] - bounds[i], np.nan) for i in range(len(arms))]
            partial_by_unit[unit] = [np.zeros(bounds[i + 1] - bounds[i], bool) for i in range(len(arms))]

    rewards = arm_slices("reward")
    devs = arm_slices("dev_reward")
    failed = arm_slices("failed")
    summaries = []
    for i, arm in enumerate(arms):
        scored = rewards[i][~np.isnan(rewards[i])]
        mean, lo, hi = t_interval(scored)
        spend = {}
        for unit in units:
            values, partial = spend_by_unit[unit][i], partial_by_unit[unit][i]
            full = ~np.isnan(values) & ~partial
            status = _status(values, partial)
            reported = values[~np.isnan(values)]
            spend[unit] = UnitSpend(float(np.median(reported)) if reported.size else None, status,
                                    int(full.sum()))
        summaries.append(ArmSummary(
            arm, len(rewards[i]), int(scored.size), int(failed[i].sum()), mean, (lo, hi),
            float(scored.min()) if scored.size else math.nan,
            float(np.median(scored)) if scored.size else math.nan,
            float(scored.max()) if scored.size else math.nan,
            float(np.nanmean(devs[i])) if (~np.isnan(devs[i])).any() else math.nan, spend))

    group = Group(workload, dict(budget), summaries, units)
    # Only scored runs enter the reward column, so only they must be matched in the
    # fixed unit; a run that failed is counted in `errors`, not judged on its spend.
    scored_mask = [~np.isnan(r) for r in rewards]
    for i, arm in enumerate(arms):
        if not scored_mask[i].any():
            group.notes.append(f"{arm}: no scored runs ({len(rewards[i])} run(s), {int(failed[i].sum())} with errors)")
    keep = lambda slices: [s[m] for s, m in zip(slices, scored_mask)]  # noqa: E731
    _check_fixed(group, arms, keep(spend_by_unit[fixed]), keep(partial_by_unit[fixed]), keep(arm_slices("seed")),
                 keep(arm_slices("stop_reason")), keep(failed), budget, fixed, tol, allow_early)
    for unit in units:
        if unit != fixed:
            _check_confound(group, arms, unit, tol)
    _pairs(group, arms, rewards, arm_slices("seed"), alpha, baseline, margin, seed)
    return group


def _status(values: np.ndarray, partial: np.ndarray) -> str:
    reported = ~np.isnan(values)
    if not reported.any():
        return UNREPORTED
    if (~reported).any() or partial.any():
        return PARTIAL
    return MEASURED


def _check_fixed(group: Group, arms, spends, partials, seeds, stops, failed, budget, fixed, tol,
                 allow_early) -> None:
    verified = []
    for i, arm in enumerate(arms):
        if spends[i].size == 0:
            continue  # no scored runs: noted by the caller, nothing to verify
        status = _status(spends[i], partials[i])
        if status != MEASURED:
            n_rep = int((~np.isnan(spends[i]) & ~partials[i]).sum())
            group.unverified.append(Unverified(arm, fixed, status, n_rep, len(spends[i])))
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


def _pairs(group: Group, arms, rewards, seeds, alpha, baseline, margin, seed) -> None:
    scored = [i for i in range(len(arms)) if (~np.isnan(rewards[i])).any()]
    arms = [arms[i] for i in scored]
    rewards = [rewards[i] for i in scored]
    seeds = [seeds[i] for i in scored]
    if len(arms) < 2:
        return
    all_seeds = np.unique(np.concatenate(seeds)) if seeds else np.array([], dtype=np.int64)
    position = {int(s): j for j, s in enumerate(all_seeds)}
    matrix = np.full((len(arms), len(all_seeds)), np.nan)
    for i in range(len(arms)):
        cols = np.fromiter((position[int(s)] for s in seeds[i]), dtype=np.int64, count=len(seeds[i]))
        matrix[i, cols] = rewards[i]
    if baseline is not None and baseline not in arms:
        group.notes.append(f"baseline arm {baseline!r} did not run on this workload and budget")
        return
    pairs = all_pairs(arms, matrix, 1 - alpha, seed, baseline)
    group.pairs = decide(pairs, alpha, margin)
