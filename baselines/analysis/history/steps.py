"""Steps: where a series of per-commit estimates changed, with a false-alarm rate held over its length.

Why this procedure: asv finds steps in benchmark timings by a penalised
piecewise-constant fit; a costmatch history knows more, each point's seed
count and spread, so the split statistic can be calibrated. At each possible
split j of a segment, T_j is the difference of the precision-weighted means
before and after it in standard errors. Binary segmentation splits where
|T_j| is largest while it exceeds a critical value c, then looks inside each
part the same way. c is the (1 - alpha) quantile of max_j |T_j| over random
reorderings of the segment's own commits (seeded; each part is tested
against its own reorderings, since a part holding a second step reorders
into a wider spread): for the whole history, if nothing changed, the
commits' estimates are exchangeable and every order is as likely as the one
observed, so the chance of any step alarm in the whole history is at most
alpha, for its length (a per-commit test at alpha over 30 commits would alarm
on most histories), whatever the shape of the per-seed differences. A normal
model with the same seed counts, tried first, held its level on normal
differences but alarmed on 0.051 of lognormal histories where 0.025 was asked
(docs/calibration.md); the reorderings do not assume a shape.

The spread is pooled (root mean square of the commits' per-seed spread)
because one commit whose 10 seeds happen to agree gets a tiny standard
error of its own and would look like a step. A step's interval is its
change +- c' standard errors, c' from reorderings of the series with its
steps taken out (simultaneous over the split points). With fewer than 1 / alpha
distinct orders (4 commits at alpha 0.025) no step can be called.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
import itertools

import numpy as np

REORDERINGS = 4_000
#: the default chance of any step alarm over a whole history with no change: half of the usual 0.05, so that
#: a history's false alarms (steps, and drift, which stays near 0 when nothing changes) are under 0.05 in all
STEP_ALPHA = 0.025


@dataclass
class Point:
    commit: str
    value: float
    se: float
    n: int


@dataclass
class Step:
    index: int            # the first point after the step
    commit: str           # that point's commit: the one the change arrived with
    previous: str         # the commit before it
    change: float         # mean after - mean before (adjacent segments)
    lower: float
    upper: float
    statistic: float      # |T| at the split, in standard errors

    def to_json(self) -> dict:
        return {"index": self.index, "commit": self.commit, "previous": self.previous, "change": self.change,
                "interval": [self.lower, self.upper], "statistic": self.statistic}


@dataclass
class StepReport:
    steps: list[Step]
    alpha: float
    critical: float           # c, in standard errors
    false_alarm: float        # share of reorderings of this history with a step beyond c (at most alpha)
    false_alarm_error: float  # its Monte Carlo standard error
    simulations: int          # reorderings
    points: int
    pooled_sd: float
    note: str = ""

    def to_json(self) -> dict:
        return {"steps": [s.to_json() for s in self.steps], "alpha": self.alpha, "critical": self.critical,
                "false_alarm": self.false_alarm, "false_alarm_error": self.false_alarm_error,
                "simulations": self.simulations, "points": self.points, "pooled_sd": self.pooled_sd,
                "note": self.note}


def split_statistics(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """T_j for every split j (between x[..., j] and x[..., j + 1]): the weighted-mean difference in standard errors.

    `x` and `w` (precisions, 1 / se^2) have the commits on the last axis; the
    result has one column fewer.
    """
    cw = np.cumsum(w, axis=-1)
    cwx = np.cumsum(w * x, axis=-1)
    total_w, total_wx = cw[..., -1:], cwx[..., -1:]
    w1, s1 = cw[..., :-1], cwx[..., :-1]
    w2, s2 = total_w - w1, total_wx - s1
    return (s2 / w2 - s1 / w1) / np.sqrt(1 / w1 + 1 / w2)


def pooled_sd(points: list[Point]) -> float:
    """The per-seed spread pooled over the commits: sqrt(sum (n - 1) s^2 / sum (n - 1)), s = se sqrt(n)."""
    df = np.array([max(p.n - 1, 1) for p in points], dtype=float)
    s2 = np.array([(p.se ** 2) * p.n for p in points])
    return float(math.sqrt((df * s2).sum() / df.sum()))


def permutation_maxima(x: np.ndarray, w: np.ndarray, reorderings: int = REORDERINGS, seed: int = 0) -> np.ndarray:
    """max_j |T_j| over random reorderings of the (value, precision) pairs (every order when there are fewer)."""
    n = x.size
    if math.factorial(n) <= reorderings:
        orders = np.array(list(itertools.permutations(range(n))))
    else:
        rng = np.random.default_rng(seed)
        orders = rng.permuted(np.tile(np.arange(n), (reorderings, 1)), axis=1)
    return np.abs(split_statistics(x[orders], w[orders])).max(axis=1)


def critical_value(maxima: np.ndarray, alpha: float) -> tuple[float, float]:
    """(c, the share of reorderings beyond c): c is the smallest value with at most alpha of them above it."""
    ranked = np.sort(maxima)
    k = int(math.ceil((1 - alpha) * ranked.size)) - 1
    c = float(ranked[min(max(k, 0), ranked.size - 1)])
    return c, float((maxima > c).mean())


def find_steps(points: list[Point], alpha: float = STEP_ALPHA) -> StepReport:
    """The steps in `points` (in commit order): binary segmentation, each segment tested against its reorderings."""
    usable = [p for p in points if math.isfinite(p.value) and p.se is not None and math.isfinite(p.se)
              and p.se > 0 and p.n >= 2]
    if len(usable) < 3:
        return StepReport([], alpha, math.nan, math.nan, math.nan, 0, len(usable), math.nan,
                          f"fewer than 3 commits with an interval ({len(usable)} of {len(points)}; a commit has "
                          "one when its per-seed differences, 2 or more, are not all equal): no steps sought")
    sd = pooled_sd(usable)
    x = np.array([p.value for p in usable])
    w = np.array([p.n for p in usable], dtype=float) / sd ** 2
    cuts: list[tuple[int, float]] = []
    whole = _segment(x, w, 0, len(x), alpha, cuts)   # the whole history's test: its rate is the one stated
    c, rate, sims = whole
    err = math.sqrt(max(rate * (1 - rate), 1e-12) / sims)
    bounds = sorted(i for i, _ in cuts)
    edges = [0] + bounds + [len(x)]
    band = _residual_critical(x, w, edges, alpha) if bounds else c
    stats = dict(cuts)
    steps = []
    for k, cut in enumerate(bounds):
        left, right = slice(edges[k], cut), slice(cut, edges[k + 2])
        w1, w2 = w[left].sum(), w[right].sum()
        change = float((w[right] * x[right]).sum() / w2 - (w[left] * x[left]).sum() / w1)
        half = band * math.sqrt(1 / w1 + 1 / w2)
        steps.append(Step(cut, usable[cut].commit, usable[cut - 1].commit, change, change - half, change + half,
                          stats[cut]))
    return StepReport(steps, alpha, c, rate, err, sims, len(usable), sd)


def _segment(x: np.ndarray, w: np.ndarray, start: int, stop: int, alpha: float, cuts: list
             ) -> tuple[float, float, int]:
    """Split [start, stop) where |T| is largest if it beats this segment's own reorderings; recurse into both parts.

    Each segment is tested against reorderings of its own commits (a segment
    with a step inside reorders into a wider spread, so one critical value
    for all would miss the second step). Returns (c, share of reorderings
    beyond c, reorderings) of this segment's test.
    """
    if stop - start < 3:
        return math.inf, 0.0, 1
    seg_x, seg_w = x[start:stop], w[start:stop]
    maxima = permutation_maxima(seg_x, seg_w, seed=start)
    c, rate = critical_value(maxima, alpha)
    t = np.abs(split_statistics(seg_x, seg_w))
    j = int(np.argmax(t))
    if t[j] > c:
        cut = start + j + 1
        cuts.append((cut, float(t[j])))
        _segment(x, w, start, cut, alpha, cuts)
        _segment(x, w, cut, stop, alpha, cuts)
    return c, rate, maxima.size


def _residual_critical(x: np.ndarray, w: np.ndarray, edges: list[int], alpha: float) -> float:
    """The critical value of the steps' intervals: reorderings of the series with its steps taken out.

    Why not the whole history's c: a series with a real step reorders into a
    spread far wider than its noise (8.5 standard errors for a 0.04 step in 30
    commits), and intervals that wide say nothing. Taking each segment's mean
    out leaves the noise, whose reorderings give a simultaneous band.
    """
    resid = x.copy()
    for lo, hi in zip(edges[:-1], edges[1:]):
        resid[lo:hi] -= (w[lo:hi] * x[lo:hi]).sum() / w[lo:hi].sum()
    return critical_value(permutation_maxima(resid, w, seed=len(x)), alpha)[0]


def false_alarm_sentence(report: StepReport) -> str:
    if not report.points or not math.isfinite(report.critical):
        return report.note
    return (f"false-alarm rate over these {report.points} commits: {report.false_alarm:.3f} (at most "
            f"{report.alpha:g}: the chance of any step found when nothing changed, from {report.simulations:,} "
            f"seeded reorderings of these commits; a step needs |T| > {report.critical:.2f} standard errors)")
