"""Seeded simulation of a gate history: per-commit gates, the drift alarm and the step search, by the real code.

Why through the real code: the figures in docs/calibration.md must be those of
what `check --history` and `costmatch history` do, so each simulated commit is
gated by `gate_bounds.gate_decision` (the base gate at alpha, the drift gate
at `drift.drift_alpha`), written as a `HistoryEntry`, and the history is read
by `view.group_history` (the steps and the drift flags every view shows).

With `pool` (the default, as `check --history` does), each gate after a
group's first look reads the skewness pooled over the history's earlier looks
(`pooled_shape`); `pool=False` is the one-sample default gate of each check.

The data model (issue 40): per-seed paired differences of commit k against
the reference are N(mu_k, sd), independent across commits; commit k's own
gate compares it with commit k - 1 on the same seeds (commit 0 is the
reference itself), so its differences are d_k - d_(k-1).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..gating.gate_bounds import PASS, gate_decision
from ..gating.pooled_shape import Shape, look_skew, pooled_decision
from ..gating.typical_gate import combine, typical_gate_decision
from .drift import drift_alpha
from .steps import STEP_ALPHA
from .entry import Drift, HistoryEntry
from .view import group_history


@dataclass
class HistoryRates:
    histories: int
    commits: int
    base_pass: float            # share of all commits whose own gate PASSed
    drift_by: dict[int, float]  # commit -> share of histories whose drift alarm fired at or before it
    any_drift: float            # share of histories with a drift alarm anywhere
    any_step: float             # share with a step found anywhere
    any_alarm: float            # drift or step anywhere
    first_drift_median: float   # median commit of the first drift alarm (inf when most never fire)
    step_at: float = math.nan   # share of histories with a step found at `expected_step` (within one commit)

    def error(self, rate: float) -> float:
        return math.sqrt(max(rate * (1 - rate), 1e-12) / self.histories)


def _mean_decision(diffs: np.ndarray, margin: float, alpha: float, bounds: str, shape: Shape | None):
    if bounds == "auto" and shape is not None:
        return pooled_decision(diffs, margin, alpha, shape)
    return gate_decision(diffs, margin, alpha, bounds=bounds)


def _decide(diffs: np.ndarray, margin: float, alpha: float, bounds: str, claim: str, shape: Shape | None = None):
    """The gate's decision on one commit's differences for `claim` (issue 37): mean, typical or both."""
    if claim == "mean":
        return _mean_decision(diffs, margin, alpha, bounds, shape)
    typical = typical_gate_decision(diffs, margin, alpha)
    if claim == "typical":
        return typical
    mean = _mean_decision(diffs, margin, alpha, bounds, shape)
    return dataclasses.replace(mean, verdict=combine(mean, typical))


def _entry(k: int, base: np.ndarray, ref: np.ndarray, margin: float, alpha: float, horizon: int,
           bounds: str, claim: str = "mean", shapes: tuple[Shape, Shape] | None = None) -> HistoryEntry:
    """Commit k's line; `shapes` (base series, drift series) are the history's pooled shapes before it."""
    base_shape, drift_shape = shapes if shapes is not None else (None, None)
    g = _decide(base, margin, alpha, bounds, claim, base_shape)
    a = drift_alpha(k, horizon, alpha)
    d = _decide(ref, margin, a if a > 0 else alpha / horizon, bounds, claim, drift_shape)
    n = ref.size
    drift = Drift("reference", "sim", "candidate", d.mean, d.lower, d.upper, a, k, horizon, d.method,
                  d.verdict if a > 0 else "INCONCLUSIVE", n, se=_se(ref), skew_z=look_skew(ref))
    return HistoryEntry(f"c{k}", "w", {"rollouts": 1}, "base", "candidate", g.verdict, g.mean, g.lower, g.upper,
                        alpha, margin, g.method, n, se=_se(base), drift=drift, skew_z=look_skew(base))


def _noise(rng, shape: str, size) -> np.ndarray:
    if shape == "normal":
        return rng.standard_normal(size)
    z = (rng.lognormal(0.0, 1.0, size) - math.exp(0.5)) / math.sqrt((math.e - 1) * math.e)
    return z if shape == "lognormal" else -z


def _se(d: np.ndarray) -> float:
    """As `recording.paired_se` records it: sd / sqrt(n) of the per-seed differences."""
    return float(d.std(ddof=1) / math.sqrt(d.size))


def simulate_history(means, sd: float = 0.02, n: int = 10, margin: float = 0.05, alpha: float = 0.05,
                     horizon: int = 30, bounds: str = "auto", histories: int = 500, seed: int = 0,
                     step_alpha: float = STEP_ALPHA, by: tuple[int, ...] = (8,), shape: str = "normal",
                     expected_step: int | None = None, claim: str = "mean", pool: bool = True,
                     steps: bool = True) -> HistoryRates:
    """Rates over `histories` seeded histories whose commit k (1-based) has true drift `means[k - 1]`.

    `shape` "lognormal": per-seed differences mean + sd * (a centred lognormal, sigma 1, scaled to sd 1),
    skewed right; "left-lognormal" its mirror image. `steps` False skips the step search (three quarters of the
    time; its figures are then NaN): it reads the estimates and standard errors, not the gate's bounds, so on the
    same seed its figures do not depend on `pool` or `bounds`.
    """
    rng = np.random.default_rng(seed)
    means = np.asarray(means, dtype=float)
    commits = means.size
    passes, first, found_count, alarms, located = 0, [], 0, 0, 0
    for _ in range(histories):
        d = means[:, None] + sd * _noise(rng, shape, (commits, n))
        previous = np.zeros(n)
        entries = []
        shapes = (Shape(), Shape()) if pool else None
        for k in range(1, commits + 1):
            e = _entry(k, d[k - 1] - previous, d[k - 1], margin, alpha, horizon, bounds, claim, shapes)
            entries.append(e)
            if pool:
                shapes = (shapes[0].add(e.skew_z), shapes[1].add(e.drift.skew_z))
            previous = d[k - 1]
        passes += sum(e.verdict == PASS for e in entries)
        if not steps:
            fired = [k for k, e in enumerate(entries, 1) if e.drift.drifted]
            first.append(fired[0] if fired else math.inf)
            alarms += bool(fired)
            continue
        view = group_history(entries, step_alpha)
        fired = [p.index + 1 for p in view.points if p.drifted]
        first.append(fired[0] if fired else math.inf)
        found = bool(view.steps.steps)
        if expected_step is not None:   # commit k is point k - 1; a step "at k" is first seen at point k - 1
            located += any(abs(st.index - (expected_step - 1)) <= 1 for st in view.steps.steps)
        found_count += found
        alarms += found or bool(fired)
    first_arr = np.array(first)
    found_steps = found_count / histories if steps else math.nan
    return HistoryRates(histories, commits, passes / (histories * commits),
                        {b: float((first_arr <= b).mean()) for b in by}, float(np.isfinite(first_arr).mean()),
                        found_steps, alarms / histories if steps else math.nan, float(np.median(first_arr)),
                        located / histories if expected_step is not None and steps else math.nan)

