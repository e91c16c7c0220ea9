"""Which number a comparison compares: the final reward, the dev score, or an anytime metric.

Why a separate step: the spend rules are the same whatever is compared, so
the metric only replaces the reward column; a metric that cannot be computed
for a run (no trace, no budget in the unit) is NaN, i.e. unscored, never 0.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .table import RunTable

METRICS = ("reward", "dev_reward", "auc", "reward@25%", "reward@50%", "reward@100%")


def metric_frame(table: RunTable, fixed_of, metric: str, start: float) -> tuple[pd.DataFrame, str]:
    """A copy of the table's frame whose `reward` column holds `metric`, and a note saying what it is.

    `fixed_of(budget_key)` names the fixed unit of each row's group: anytime
    metrics are read off the trace in that unit, up to that budget.
    """
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
    units = set()
    for i, trace in enumerate(traces):
        fixed = fixed_of(budgets[i])
        limit = table.budgets[budgets[i]].get(fixed) if fixed else None
        if trace is None or not limit:
            continue
        units.add(fixed)
        if metric == "auc":
            values[i] = anytime.budget_auc(trace, fixed, limit, start)
        else:
            fraction = float(metric.split("@")[1].rstrip("%")) / 100
            values[i] = anytime.best_at(trace, fixed, fraction * limit, start)
    frame["reward"] = values
    unit_text = "/".join(sorted(units)) or "the fixed unit"
    what = ("normalised budget-aware AUC: (1/B) x integral of best-so-far over spend in "
            f"{unit_text} up to the budget B" if metric == "auc"
            else f"best-so-far at {metric.split('@')[1]} of the {unit_text} budget")
    return frame, f"metric: {what}, from the runs' traces; start value {start:g} before the first point"
