"""Each arm's reward interval when rewards are bounded: exact or distribution-free, never a clipped t.

Why: a Student-t interval on ten pass/fail seeds that all failed is
``0.00 [0.00, 0.00]`` (zero width: read as certainty), and on 9 of 10 it
runs past 1 and is shown clipped. For rewards that are all 0 or 1 (and no
declared range) the interval is Clopper-Pearson's exact binomial one; for a
declared `reward_range` it is the betting confidence interval
(`baselines.betting`), valid for any distribution inside the range. These
are the same assumptions the paired statistics make for such groups (exact
McNemar / betting), so an arm's interval and its pairs' agree on what is
known. Unbounded rewards keep the t interval.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from .betting import _bounds01
from .stats import PASS_FAIL_RANGE, usable_range

T = "t"
EXACT_BINOMIAL = "clopper-pearson"
BETTING = "betting"


def clopper_pearson(successes: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Exact two-sided binomial intervals for `successes` of `n` (vectorised; NaN where n = 0)."""
    k, n = np.asarray(successes, dtype=float), np.asarray(n, dtype=float)
    half = (1 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, special.betaincinv(np.maximum(k, 1), np.maximum(n - k + 1, 1), half), 0.0)
        hi = np.where(k < n, special.betaincinv(k + 1, np.maximum(n - k, 1), 1 - half), 1.0)
    empty = n == 0
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def bounded_arm_intervals(groups, level: float = 0.95) -> None:
    """Replace each arm's t interval by a bounded-reward one where its group's rewards are bounded.

    Sets `ArmSummary.ci` and `ArmSummary.interval` in place. Betting rows of
    the same length share one vectorised pass across all groups.
    """
    by_length: dict[int, list[tuple[object, np.ndarray, float, float]]] = {}
    for group in groups:
        scores = getattr(group, "scores", None)
        if scores is None or not np.size(scores):
            continue
        declared = usable_range(scores, group.reward_range)
        finite = scores[np.isfinite(scores)]
        binary = declared is None and finite.size and np.isin(finite, PASS_FAIL_RANGE).all()
        if declared is None and not binary:
            continue
        for arm, row in zip(group.arms, scores):
            values = row[np.isfinite(row)]
            if binary:
                lo, hi = clopper_pearson(values.sum(), values.size, level)
                arm.ci, arm.interval = (float(lo), float(hi)), EXACT_BINOMIAL
            elif values.size:
                by_length.setdefault(values.size, []).append((arm, values, *declared))
    for n, rows in by_length.items():
        lows = np.array([lo for _, _, lo, _ in rows])
        widths = np.array([hi - lo for _, _, lo, hi in rows])
        u = np.clip((np.stack([v for _, v, _, _ in rows]) - lows[:, None]) / widths[:, None], 0.0, 1.0)
        low, up = _bounds01(u, (1 - level) / 2, n)
        for (arm, _, lo, _), a, b, w in zip(rows, low.tolist(), up.tolist(), widths.tolist()):
            arm.ci, arm.interval = (lo + a * w, lo + b * w), BETTING
