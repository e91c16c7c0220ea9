"""Each arm's reward interval when rewards are bounded: exact or distribution-free, never a clipped t.

Why: a Student-t interval on ten pass/fail seeds that all failed is
``0.00 [0.00, 0.00]`` (zero width: read as certainty), and on 9 of 10 it
runs past 1 and is shown clipped. For rewards that are all 0 or 1 (and no
declared range) the interval is Clopper-Pearson's exact binomial one; for a
declared `reward_range` it is the betting confidence interval
(`baselines.analysis.statistics.betting`), valid for any distribution inside the range. These
are the same assumptions the paired statistics make for such groups (exact
McNemar / betting), so an arm's interval and its pairs' agree on what is
known. Unbounded rewards keep the t interval; an arm whose rewards are
skewed (|sample skewness| > 0.5) gets the label `T_SKEWED`, since t covered
only 0.82-0.87 (lognormal sigma 1) and 0.69-0.76 (sigma 1.5) at n = 3-20 where
95% was printed, and no interval tried reached 0.93 there
(docs/calibration.md, "Per-arm intervals on skewed rewards").
"""
from __future__ import annotations

import numpy as np
from scipy import special

from .betting import mean_bounds_many
from .pair_interval import SKEW_THRESHOLD
from .reward_range import usable_range

T = "t"
T_SKEWED = "t (skewed rewards: may under-cover)"
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
        binary = declared is None and finite.size and bool(((finite == 0) | (finite == 1)).all())
        if declared is None and not binary:
            label_skewed(group.arms, scores)
            continue
        for arm, row in zip(group.arms, scores):
            values = row[np.isfinite(row)]
            if binary:
                lo, hi = clopper_pearson(values.sum(), values.size, level)
                arm.ci, arm.interval = (float(lo), float(hi)), EXACT_BINOMIAL
            elif values.size:
                by_length.setdefault(values.size, []).append((arm, values, *declared))
    for rows in by_length.values():
        low, up = mean_bounds_many(np.stack([v for _, v, _, _ in rows]), (1 - level) / 2,
                                   np.array([lo for _, _, lo, _ in rows]), np.array([hi for _, _, _, hi in rows]))
        for (arm, *_), a, b in zip(rows, low.tolist(), up.tolist()):
            arm.ci, arm.interval = (a, b), BETTING


def skewness_rows(scores: np.ndarray) -> np.ndarray:
    """Sample skewness of each row's finite values (0 where fewer than 3 or no spread).

    The cube is c * c * c, not c ** 3: numpy's power costs 50-130 ms per
    million values against 2 ms for two products (issue 38: 0.06 s of a
    million-run compare), and the figure is only compared with
    SKEW_THRESHOLD. Two column-sized temporaries, reused in place.
    """
    x = np.asarray(scores, dtype=float)
    ok = np.isfinite(x)
    n = ok.sum(axis=1)
    gaps = None if ok.all() else ~ok
    c = x.copy()
    if gaps is not None:
        c[gaps] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = c.sum(axis=1) / n
        np.subtract(x, mean[:, None], out=c)
        if gaps is not None:
            c[gaps] = 0.0
        power = c * c
        m2 = power.sum(axis=1) / n
        power *= c
        m3 = power.sum(axis=1) / n
        del c, power
        g = m3 / m2 ** 1.5
    return np.where((n >= 3) & (m2 > 0) & np.isfinite(g), g, 0.0)


def label_skewed(arms, scores: np.ndarray) -> None:
    """Mark the t interval of each arm whose rewards are skewed (|sample skewness| > SKEW_THRESHOLD) as `T_SKEWED`."""
    for arm, g in zip(arms, skewness_rows(scores).tolist()):
        if getattr(arm, "interval", T) == T and abs(g) > SKEW_THRESHOLD:
            arm.interval = T_SKEWED
