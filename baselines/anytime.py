"""Anytime metrics from traces: who wins at budget X, for every X up to the budget.

A trace is the run's cumulative spend with its best-so-far score, in order of
spend. These are pure functions on traces. Choices the literature leaves open
are explicit arguments: the score before the first point (`start`, stated in
every output that uses it) and the normalisation (by the budget B).

Which score: a trace point's ``best`` is what the arm *saw* (its dev score,
optimistically selected); when the workload sets ``score_trace`` the runner
adds ``reward``, the held-out score of the choice in force at that point,
and these functions use it, so "who wins at spend X" means what would have
shipped at X.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def score_field(trace) -> str:
    """``reward`` (held-out score of the choice in force) when every point has it, else ``best``."""
    return "reward" if trace and all("reward" in p for p in trace) else "best"


def _points(trace, unit: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Spend in `unit` and the score curve, or None when any point does not report the unit.

    With held-out ``reward`` points the curve is that reward as it was (a later
    choice can score lower on test); with ``best`` it is the running maximum.
    """
    if not trace:
        return np.zeros(0), np.zeros(0)
    key = score_field(trace)
    xs, ys = [], []
    for point in trace:
        x = point.get("spend", {}).get(unit)
        if x is None or point.get(key) is None:
            return None
        xs.append(float(x))
        ys.append(float(point[key]))
    ys = np.asarray(ys)
    return np.asarray(xs), (ys if key == "reward" else np.maximum.accumulate(ys))


def best_at(trace, unit: str, x: float, start: float = math.nan) -> float:
    """Best-so-far score once `x` of `unit` was spent (`start` before the first point; NaN if unknown)."""
    pts = _points(trace, unit)
    if pts is None:
        return math.nan
    xs, ys = pts
    i = int(np.searchsorted(xs, x, side="right")) - 1
    return float(ys[i]) if i >= 0 else start


def budget_auc(trace, unit: str, budget: float, start: float = 0.0) -> float:
    """(1/B) * integral over [0, B] of the best-so-far score against spend in `unit`.

    The score is `start` before the first point and the last best after the
    last point (a run that stopped early keeps its best). NaN when the trace
    does not report the unit.
    """
    if budget <= 0:
        raise ValueError(f"budget must be positive, got {budget}")
    pts = _points(trace, unit)
    if pts is None:
        return math.nan
    xs, ys = pts
    edges = np.concatenate(([0.0], np.clip(xs, 0, budget), [budget]))
    values = np.concatenate(([start], ys))
    widths = np.diff(edges)
    return float(np.sum(widths * values) / budget)


def cost_to_target(trace, unit: str, target: float, spent: float) -> tuple[float, bool]:
    """(cost, reached): spend at which `target` was first reached, or the run's whole spend (censored)."""
    pts = _points(trace, unit)
    if pts is None:
        return math.nan, False
    xs, ys = pts
    hit = np.nonzero(ys >= target)[0]
    if hit.size:
        return float(xs[hit[0]]), True
    return float(spent), False


def expected_running_time(costs: Sequence[float], reached: Sequence[bool]) -> float:
    """ERT: total spend of all runs (censored ones count in full) / number of runs that reached the target.

    Infinite when no run reached it; this is how COCO treats unsuccessful runs.
    """
    successes = int(np.sum(reached))
    total = float(np.sum(costs))
    return total / successes if successes else math.inf


def cost_of_pass(costs: Sequence[float], rewards: Sequence[float], threshold: float = 1.0) -> float:
    """Expected cost per success for pass/fail rewards: mean cost / success rate (infinite at 0)."""
    rewards = np.asarray(rewards, dtype=float)
    rate = float(np.mean(rewards >= threshold)) if rewards.size else 0.0
    return float(np.mean(costs)) / rate if rate > 0 else math.inf


def seeded_bootstrap(stat, columns: list[np.ndarray], draws: int = 2000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of `stat(*columns)` resampling seeds jointly (rows stay paired).

    Used for aggregates that have no per-seed value (ERT, cost-of-pass): the
    same seeds are drawn for every column, so a difference between two arms
    is a paired difference. Seeded: the same inputs give the same interval.
    Like every bootstrap it under-covers at small n; callers say so.
    """
    n = len(columns[0])
    if n < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    values = []
    with np.errstate(invalid="ignore"):
        for _ in range(draws):
            idx = rng.integers(0, n, n)
            values.append(stat(*(c[idx] for c in columns)))
    values = np.sort(np.asarray(values, dtype=float))
    values = values[~np.isnan(values)]  # inf - inf: undefined draws are left out
    if values.size == 0:
        return (math.nan, math.nan)
    # nearest-rank percentiles: no arithmetic on the values, so infinite costs stay infinite
    lo = values[int(math.floor((1 - level) / 2 * (values.size - 1)))]
    hi = values[int(math.ceil((1 + level) / 2 * (values.size - 1)))]
    return (float(lo), float(hi))


def cost_table(records, unit: str, target: float, seed: int = 0, baseline: str | None = None) -> list[dict]:
    """Per arm: runs reaching `target`, ERT and cost-of-pass in `unit`, with seeded paired bootstrap intervals.

    A run reaches the target when its trace does (cost = spend at that point)
    or, without a trace, when its final reward does (cost = its spend); runs
    that never reach it are censored at their whole spend. Cost-of-pass uses
    final reward >= target as the pass. With `baseline`, each arm's ERT
    difference to it is bootstrapped on the seeds both share.
    """
    by_arm: dict[str, dict[int, tuple[float, bool, float, bool]]] = {}
    for r in records:
        spent = r.spend.get(unit)
        if spent is None or r.reward is None:
            continue
        if r.trace:
            cost, hit = cost_to_target(r.trace, unit, target, spent)
        else:
            cost, hit = float(spent), r.reward >= target
        if math.isnan(cost):
            continue
        by_arm.setdefault(r.arm, {})[r.seed] = (cost, hit, float(spent), r.reward >= target)
    ert = lambda c, h: expected_running_time(c, h)  # noqa: E731
    rows = []
    for k, arm in enumerate(sorted(by_arm)):
        runs = by_arm[arm]
        cost = np.array([v[0] for v in runs.values()])
        hit = np.array([v[1] for v in runs.values()], dtype=float)
        spent = np.array([v[2] for v in runs.values()])
        passed = np.array([v[3] for v in runs.values()], dtype=float)
        row = {"arm": arm, "runs": len(runs), "reached": int(hit.sum()), "ert": ert(cost, hit),
               "ert_ci": seeded_bootstrap(lambda c, h: ert(c, h), [cost, hit], seed=seed * 7919 + k),
               "cost_of_pass": cost_of_pass(spent, passed, threshold=0.5),
               "cost_of_pass_ci": seeded_bootstrap(lambda s, p: cost_of_pass(s, p, threshold=0.5), [spent, passed],
                                                   seed=seed * 7919 + k + 1)}
        if baseline is not None and arm != baseline and baseline in by_arm:
            shared = sorted(set(runs) & set(by_arm[baseline]))
            if len(shared) >= 2:
                a = [np.array([runs[s][i] for s in shared], dtype=float) for i in (0, 1)]
                b = [np.array([by_arm[baseline][s][i] for s in shared], dtype=float) for i in (0, 1)]
                diff = lambda ca, ha, cb, hb: ert(ca, ha) - ert(cb, hb)  # noqa: E731
                row["ert_diff_vs_baseline"] = diff(a[0], a[1], b[0], b[1])
                row["ert_diff_ci"] = seeded_bootstrap(diff, [a[0], a[1], b[0], b[1]], seed=seed * 7919 + k + 2)
        rows.append(row)
    return rows
