"""Paired item-level differences with seed-clustered inference (Miller, "Adding Error Bars to Evals", 2024).

Why: an LLM eval run answers k questions; a seed is a cluster of k paired
items, not one number. Pairing by question (the same id in both arms) removes
the questions' own difficulty from the difference, and a cluster-robust
standard error keeps what the items of one seed share (the model's sampling
state, a shared prompt) from being counted as independent evidence.

The estimate is the item-weighted mean difference (every paired item counts
once). Its standard error is the larger of
- the cluster-robust (CR1) one, sum over seeds of the squared summed
  residuals, times G / (G - 1), over N^2: with equal cluster sizes exactly the
  paired t on per-seed mean differences;
- the within-seed floor s_w^2 / N (pooled within-seed item variance over the
  N paired items): the variance of the mean is at least this when items are
  independent given their seed, so a few seeds whose means happen to agree
  never give a near-zero width.
Bounds use Student t with G - 1 degrees of freedom (G seeds), the usual
small-G correction for clustered errors. Pure numpy, no I/O.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..compare.pair_result import PairResult
from .student_t import t_quantile, t_seeds_to_clear, t_sf

METHOD = "seed-clustered t on paired item differences"


@dataclass
class ItemPairing:
    """Per shared seed the paired item differences (candidate - baseline, signed), and what was left out."""

    clusters: list[np.ndarray] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    unpaired_items: int = 0          # ids in one arm only
    crashed_items: int = 0           # candidate items without a score, counted as a loss at the floor
    dropped_items: int = 0           # items without a score where no floor is known, or in the baseline

    @property
    def items(self) -> int:
        return int(sum(c.size for c in self.clusters))

    def notes(self) -> list[str]:
        out = [f"paired by item: {self.items} question(s) over {len(self.clusters)} seed(s)"]
        if self.unpaired_items:
            out.append(f"{self.unpaired_items} item(s) answered by one arm only were left out")
        if self.crashed_items:
            out.append(f"{self.crashed_items} unscored candidate item(s) counted as a loss at the range floor")
        if self.dropped_items:
            out.append(f"{self.dropped_items} unscored item(s) were left out (no range floor to count them at)")
        return out


def pair_items(cand: dict[int, list], base: dict[int, list], seeds, sign: float,
               floor: float | None) -> ItemPairing:
    """Match items by id within each seed; `floor` is the item reward a crashed candidate item counts as."""
    out = ItemPairing()
    for seed in seeds:
        c = {i["id"]: i["reward"] for i in cand[seed]}
        b = {i["id"]: i["reward"] for i in base[seed]}
        shared = [k for k in c if k in b]
        out.unpaired_items += len(c) + len(b) - 2 * len(shared)
        diffs = []
        for k in shared:
            rc, rb = c[k], b[k]
            if rb is None or (rc is None and floor is None):
                out.dropped_items += 1
                continue
            if rc is None:
                out.crashed_items += 1
                rc = floor
            diffs.append(sign * (rc - rb))
        if diffs:
            out.clusters.append(np.asarray(diffs, dtype=float))
            out.seeds.append(seed)
    return out


def clustered_bounds(clusters: list[np.ndarray], alpha: float) -> tuple[float, float, float, float] | None:
    """(mean, lower, upper, se): one-sided bounds at `alpha` each; None with fewer than 2 seeds or no spread."""
    g = len(clusters)
    if g < 2:
        return None
    sizes = np.array([c.size for c in clusters], dtype=float)
    total = float(sizes.sum())
    allv = np.concatenate(clusters)
    mean = float(allv.mean())
    sums = np.array([float((c - mean).sum()) for c in clusters])
    se_cr = math.sqrt(g / (g - 1) * float((sums * sums).sum())) / total
    within = sum(float(((c - c.mean()) ** 2).sum()) for c in clusters)
    se_floor = math.sqrt(within / (total - g) / total) if total > g else 0.0
    se = max(se_cr, se_floor)
    if not se > 1e-12 * max(1.0, float(np.abs(allv).max())):
        return None
    half = t_quantile(1 - alpha, g - 1) * se
    return mean, mean - half, mean + half, se


def seeds_to_decide(clusters: list[np.ndarray], margin: float, alpha: float, cap: int = 10000) -> int | None:
    """Seeds (with as many items each as now) at which this mean and spread would decide: closed form per n."""
    b = clustered_bounds(clusters, alpha)
    if b is None:
        return None
    mean, _, _, se = b
    g = len(clusters)
    distance = abs(mean + margin)
    if distance == 0:
        return None
    sd_cluster = se * math.sqrt(g)
    return t_seeds_to_clear(sd_cluster, distance, alpha, cap)


def clustered_pair(a: str, b: str, clusters: list[np.ndarray], level: float, pairing: ItemPairing):
    """A `PairResult` for arm a - arm b from per-seed item differences: the clustered t test and its interval.

    The p-value and the interval are one inference (the two-sided t test on
    G - 1 degrees of freedom and the interval it inverts to), so `decide`
    cannot print a verdict beside an interval that spans 0.
    """
    alpha = 1 - level
    bounds = clustered_bounds(clusters, alpha / 2)
    if bounds is None:
        return None
    mean, lower, upper, se = bounds
    g = len(clusters)
    p = min(1.0, 2 * t_sf(abs(mean) / se, g - 1))
    pair = PairResult(a, b, g, mean, (lower, upper), p, METHOD, p, se * math.sqrt(g), True, math.nan,
                      interval_method=METHOD, method=METHOD)
    pair.items = pairing.items
    return pair
