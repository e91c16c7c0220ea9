"""The anytime curves a figure draws: each arm's score against spend in one unit, only where traces have points.

Why here, not in the figure: the anytime figure read every trace itself and
filled the grid before a run's first point with 0.0, so a best-of-1 arm
(two trace points) drew reward 0 at every sample but the last. A curve is
NaN (not drawn) before a run's first point, and the arm's mean at a grid
point is taken over the runs that have a point by then; the figure renders
these arrays and computes nothing.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import anytime

GRID_POINTS = 101


@dataclass
class AnytimeSeries:
    """Per arm: the runs x grid matrix of scores, its mean over runs (NaN where no run has a point yet)."""

    unit: str
    grid: np.ndarray
    kind: str | None                                   # "reward" (held-out), "dev", "mixed" or None (no trace)
    curves: dict[str, np.ndarray] = field(default_factory=dict)
    means: dict[str, np.ndarray] = field(default_factory=dict)
    points: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # arm -> (spend, mean) at trace points
    missing: list[str] = field(default_factory=list)   # arms whose traces do not report the unit
    left_off: list[str] = field(default_factory=list)  # "arm (no trace)"


def trace_score_kind(records) -> str | None:
    """``reward`` when every traced run has held-out points, ``dev`` when none has, ``mixed`` or None."""
    kinds = {anytime.score_field(r.trace) for r in records if r.trace}
    if not kinds:
        return None
    return {"reward"} == kinds and "reward" or {"best"} == kinds and "dev" or "mixed"


def _trace_xs(runs, unit: str) -> list[float]:
    return sorted({float(p["spend"][unit]) for r in runs for p in r.trace
                   if isinstance(p.get("spend"), dict) and p["spend"].get(unit) is not None})


def anytime_series(by_arm: dict, unit: str, limit: float) -> AnytimeSeries:
    """Each arm's anytime curve over [0, limit] in `unit` (`by_arm`: arm -> the group's runs)."""
    grid = np.linspace(0, limit, GRID_POINTS) if limit and math.isfinite(limit) else np.zeros(0)
    traced = [r for rs in by_arm.values() for r in rs if r.trace]
    out = AnytimeSeries(unit, grid, trace_score_kind(traced))
    for arm in sorted(by_arm):
        runs = [r for r in by_arm[arm] if r.trace]
        if not runs:
            out.left_off.append(f"{arm} (no trace)")
            continue
        matrix = np.array([[anytime.best_at(r.trace, unit, x) for x in grid] for r in runs])
        if not (matrix.size and not np.isnan(matrix).all()):
            out.missing.append(arm)
            continue
        out.curves[arm] = matrix
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out.means[arm] = np.nanmean(matrix, axis=0)
        xs = [x for x in _trace_xs(runs, unit) if x <= limit]
        ys = [_mean_at(runs, unit, x) for x in xs]
        out.points[arm] = [(x, y) for x, y in zip(xs, ys) if math.isfinite(y)]
    return out


def _mean_at(runs, unit: str, x: float) -> float:
    values = [anytime.best_at(r.trace, unit, x) for r in runs]
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan
