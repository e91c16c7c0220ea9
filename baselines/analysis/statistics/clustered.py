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

That interval is about *these* questions: when the same question ids recur
on every seed, the questions are one sample from a population of questions,
and the seed-clustered interval treats their own mean as the target (issue
37: 20 fixed questions with effects +-0.2, a candidate 0.05 worse on the
population PASSed the gate at the margin in .107/.183/.230 of data sets at
10/20/40 seeds). `twoway_bounds` is the claim about the question population:
two-way seed x question cluster-robust variance (Cameron, Gelbach & Miller
2011, "Robust inference with multiway clustering", JBES 29(2)):
V = V_seed + V_question - V_item, each CR1-scaled by G / (G - 1), never below
the seed-clustered variance above (the population mean's error is these
questions' error plus the questions' own sampling error), and Student t with
min(G_seed, G_question) - 1 degrees of freedom (their few-cluster rule).
docs/calibration.md holds its size at the margin at 5-40 seeds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..compare.pair_result import PairResult
from .student_t import t_quantile, t_seeds_to_clear, t_sf

METHOD = "seed-clustered t on paired item differences"
TWOWAY = "two-way seed x question clustered t on paired item differences"
#: What an item-paired verdict is about (issue 37): "population" (the questions are a sample; two-way
#: clustering when ids recur across seeds) or "these" (the questions asked, seed-clustered).
QUESTION_CLAIMS = ("population", "these")


@dataclass
class ItemPairing:
    """Per shared seed the paired item differences (candidate - baseline, signed), and what was left out."""

    clusters: list[np.ndarray] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)
    ids: list[list[str]] = field(default_factory=list)   # the question id of every difference, per cluster
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
        diffs, kept = [], []
        for k in shared:
            rc, rb = c[k], b[k]
            if rb is None or (rc is None and floor is None):
                out.dropped_items += 1
                continue
            if rc is None:
                out.crashed_items += 1
                rc = floor
            diffs.append(sign * (rc - rb))
            kept.append(k)
        if diffs:
            out.clusters.append(np.asarray(diffs, dtype=float))
            out.seeds.append(seed)
            out.ids.append(kept)
    return out


def questions_recur(ids: list[list[str]]) -> bool:
    """True when some question id is paired on two or more seeds (fixed questions, not fresh ones per seed)."""
    seen: set[str] = set()
    for cluster in ids:
        for k in cluster:
            if k in seen:
                return True
        seen.update(cluster)
    return False


def question_count(ids: list[list[str]]) -> int:
    """Distinct question ids over all seeds."""
    return len({k for cluster in ids for k in cluster})


@dataclass
class TwoWay:
    """The population claim's bounds: mean, one-sided bounds, se, degrees of freedom, and the part of the
    variance that more seeds would not remove (the questions' own sampling error)."""

    mean: float
    lower: float
    upper: float
    se: float
    df: int
    seed_var: float        # the seed-clustered variance (shrinks as 1/seeds)
    question_var: float    # the rest (shrinks only with more questions)
    questions: int


def twoway_bounds(clusters: list[np.ndarray], ids: list[list[str]], alpha: float) -> TwoWay | None:
    """Two-way seed x question clustered bounds (one-sided at `alpha` each); None with fewer than 2 seeds or
    2 questions, or no spread."""
    these = clustered_bounds(clusters, alpha)
    if these is None:
        return None
    index: dict[str, int] = {}
    q = np.array([index.setdefault(k, len(index)) for cluster in ids for k in cluster], dtype=np.int64)
    gq, gs = len(index), len(clusters)
    if gq < 2:
        return None
    allv = np.concatenate(clusters)
    n = float(allv.size)
    mean = float(allv.mean())
    resid = allv - mean
    seed_sums = np.array([float((c - mean).sum()) for c in clusters])
    q_sums = np.bincount(q, weights=resid, minlength=gq)
    v_seed = gs / (gs - 1) * float((seed_sums ** 2).sum()) / n ** 2
    v_q = gq / (gq - 1) * float((q_sums ** 2).sum()) / n ** 2
    v_item = n / (n - 1) * float((resid ** 2).sum()) / n ** 2 if n > 1 else 0.0
    v_these = these[3] ** 2
    var = max(v_seed + v_q - v_item, v_these)
    se = math.sqrt(var)
    df = min(gs, gq) - 1
    half = t_quantile(1 - alpha, df) * se
    return TwoWay(mean, mean - half, mean + half, se, df, v_these, var - v_these, gq)


def twoway_seeds_to_decide(clusters: list[np.ndarray], ids: list[list[str]], margin: float, alpha: float,
                           cap: int = 10000) -> int | None:
    """Seeds (same questions) at which the population bound would clear -margin at this mean and spread:
    the seed part of the variance shrinks as 1/seeds, the questions' part does not; None when the
    questions' part alone keeps the bound across (more questions, not seeds, would decide)."""
    b = twoway_bounds(clusters, ids, alpha)
    if b is None:
        return None
    distance = abs(b.mean + margin)
    if distance == 0:
        return None
    g = len(clusters)
    per_seed = b.seed_var * g
    n = 2
    while n <= cap:
        df = min(n, b.questions) - 1
        if t_quantile(1 - alpha, df) * math.sqrt(per_seed / n + b.question_var) < distance:
            return n
        if t_quantile(1 - alpha, b.questions - 1) * math.sqrt(b.question_var) >= distance:
            return None
        n = n + 1 if n < 100 else int(n * 1.1)
    return None


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
