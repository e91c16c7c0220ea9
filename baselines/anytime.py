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


def fractions_of_budget(trace, unit: str, budget: float, fractions=(0.25, 0.5, 1.0),
                        start: float = math.nan) -> dict[str, float]:
    """Best-so-far at 25, 50 and 100% of the budget (keys like ``"reward@50%"``)."""
    return {f"reward@{int(f * 100)}%": best_at(trace, unit, f * budget, start) for f in fractions}
