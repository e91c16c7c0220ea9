"""Steps: where a series of per-commit estimates changed, with a false-alarm rate simulated for its length.

Why this procedure: asv finds steps in benchmark timings by a penalised
piecewise-constant fit; a costmatch history knows more, each point's
standard error, so the split statistic can be calibrated. At each possible
split j of a segment, T_j is the difference of the precision-weighted means
before and after it in standard errors. Binary segmentation splits where
|T_j| is largest while it exceeds a critical value c, then looks inside each
part with the same c (conservative there: a shorter segment has a smaller
maximum). c is the (1 - alpha) quantile of max_j |T_j| over the whole
history when nothing changes, simulated (seeded) with this history's seed
counts: normal per-seed differences, the spread estimated from the commits'
own standard errors and pooled over them, as the real series is. So the
chance of any step alarm in a history with no change is alpha, for its
length: a per-commit test at alpha over 30 commits would alarm most of the
time. The rate is re-simulated with other seeds and printed beside it.

The spread is pooled (root mean square of the commits' per-seed spread)
because one commit whose 10 seeds happen to agree gets a tiny standard
error of its own and would look like a step. A step's interval is its
change +- c standard errors (simultaneous over the split points).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

SIMULATIONS = 20_000
#: the default chance of any step alarm over a whole history with no change: half of the usual 0.05, so that
#: a history's false alarms (steps, and drift, which stays near 0 when nothing changes) are under 0.05 in all
STEP_ALPHA = 0.025
MAX_CELLS = 20_000_000   # simulations x commits: bounds the memory of the calibration


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
    false_alarm: float        # simulated P(any step | no change) over this length, with other seeds
    false_alarm_error: float  # its Monte Carlo standard error
    simulations: int
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


def _null_maxima(ns: tuple[int, ...], sims: int, seed: int) -> np.ndarray:
    """max_j |T_j| in `sims` histories with no change: normal seeds, the spread estimated per commit and pooled."""
    rng = np.random.default_rng(seed)
    n = np.array(ns, dtype=float)
    df = np.maximum(n - 1, 1)
    means = rng.standard_normal((sims, n.size)) / np.sqrt(n)
    pooled = (rng.chisquare(df, (sims, n.size))).sum(axis=1) / df.sum()   # s^2_pooled / sigma^2
    t = split_statistics(means, np.broadcast_to(n, means.shape)) / np.sqrt(pooled)[:, None]
    return np.abs(t).max(axis=1)


@lru_cache(maxsize=64)
def calibrate(ns: tuple[int, ...], alpha: float, sims: int = SIMULATIONS) -> tuple[float, float, float, int]:
    """(c, false-alarm rate with other seeds, its Monte Carlo error, simulations) for these seed counts."""
    sims = max(2000, min(sims, MAX_CELLS // max(len(ns), 1)))
    c = float(np.quantile(_null_maxima(ns, sims, seed=0), 1 - alpha))
    check = _null_maxima(ns, sims, seed=1)
    rate = float((check > c).mean())
    return c, rate, math.sqrt(rate * (1 - rate) / sims), sims


def find_steps(points: list[Point], alpha: float = STEP_ALPHA) -> StepReport:
    """The steps in `points` (in commit order): binary segmentation at the simulated critical value."""
    usable = [p for p in points if math.isfinite(p.value) and p.se is not None and math.isfinite(p.se)
              and p.se > 0 and p.n >= 2]
    if len(usable) < 3:
        return StepReport([], alpha, math.nan, math.nan, math.nan, 0, len(usable), math.nan,
                          "fewer than 3 commits with an interval: no steps sought")
    sd = pooled_sd(usable)
    c, rate, err, sims = calibrate(tuple(p.n for p in usable), alpha)
    x = np.array([p.value for p in usable])
    w = np.array([p.n for p in usable], dtype=float) / sd ** 2
    cuts: list[tuple[int, float]] = []
    _segment(x, w, 0, len(x), c, cuts)
    bounds = sorted(i for i, _ in cuts)
    edges = [0] + bounds + [len(x)]
    steps = []
    stats = dict(cuts)
    for k, cut in enumerate(bounds):
        left, right = slice(edges[k], cut), slice(cut, edges[k + 2])
        w1, w2 = w[left].sum(), w[right].sum()
        change = float((w[right] * x[right]).sum() / w2 - (w[left] * x[left]).sum() / w1)
        half = c * math.sqrt(1 / w1 + 1 / w2)
        steps.append(Step(cut, usable[cut].commit, usable[cut - 1].commit, change, change - half, change + half,
                          stats[cut]))
    return StepReport(steps, alpha, c, rate, err, sims, len(usable), sd)


def _segment(x: np.ndarray, w: np.ndarray, start: int, stop: int, c: float, cuts: list) -> None:
    if stop - start < 2:
        return
    t = np.abs(split_statistics(x[start:stop], w[start:stop]))
    j = int(np.argmax(t))
    if t[j] <= c:
        return
    cut = start + j + 1
    cuts.append((cut, float(t[j])))
    _segment(x, w, start, cut, c, cuts)
    _segment(x, w, cut, stop, c, cuts)


def false_alarm_sentence(report: StepReport) -> str:
    if not report.points or not math.isfinite(report.critical):
        return report.note
    return (f"false-alarm rate over these {report.points} commits: {report.false_alarm:.3f} ± "
            f"{report.false_alarm_error:.3f} (any step found when nothing changed; {report.simulations:,} seeded "
            f"simulations with these seed counts, normal per-seed differences; a step needs |T| > "
            f"{report.critical:.2f} standard errors)")
