"""The item-paired gate on skewed per-seed effects: size at the margin, and the power the skew rule costs.

    python benchmarks/item_skew.py [--sims 2000] [--update docs/calibration.md]

Why: the per-seed gate refuses a PASS on left-skewed differences because t bounds PASSed them at the margin
far more often than alpha (docs/calibration.md, "Every shape"). The item route (runs carrying `items`) clusters
by seed, so it rests on the same seeds: a skewed per-seed effect reaches it as skewed seed means.

Data model (one data set): n seeds, the same Q question ids q0..q{Q-1} on every seed (so the default claim, about
the question population, takes the two-way seed x question clustered route), unbounded rewards (no range).
Baseline item reward b[s, q] = N(0, 1) + a per-question difficulty N(0, 1); candidate c = b + d with
d[s, q] = delta + e[s] + eps[s, q]: a per-seed effect e (mean 0, its shape the row's) and per-question noise
eps ~ N(0, sd(e)) (as large, per item, as the per-seed effect's spread). Shapes of e, as benchmarks/skew_gate.py
draws per-seed differences: normal N(0, 1); lognormal sigma 1 and 1.5, left-skewed (-(exp(N(0, sigma)) -
exp(sigma^2 / 2))); a rare large loss (10% of seeds lose 10, the rest N(1, 0.5)).
- **size**: delta = -margin (the candidate worse by exactly the margin), margin 1; every PASS is false. Size
  does not depend on the margin or the scale (every procedure here is location-scale equivariant).
- **power**: normal e ~ N(0, 1), eps ~ N(0, 1), delta = 0 (identical on the mean), margin 0.5: PASS wanted.
Procedures, all on the same draws, alpha 0.05 one-sided, one look:
- **item route alone** (the gate before the skew rule): the two-way bounds of `question_claim.item_bounds`
  and `margin_verdict`, as `_item_verdict` decided;
- **gate** (`gate.gate_group` as `costmatch check` calls it, runs carrying items): the item route with the
  per-seed skew rule on the seeds' mean item differences (`gate._item_skew_refusal`);
- **per-seed gate** on the same seeds (runs without items, reward = the run's mean item reward): what the
  per-seed route alone says on these data.
Each cell: share of `--sims` seeded data sets, +- 1.96 Monte Carlo standard errors (floored at 1/sims).
`--update FILE` replaces this section (from its heading to the next `## ` heading) in FILE, or appends it.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.doc_section import replace_section  # noqa: E402
from baselines.analysis.compare.comparison import Group  # noqa: E402
from baselines.analysis.gating.gate import gate_group  # noqa: E402
from baselines.analysis.gating.gate_bounds import margin_verdict  # noqa: E402
from baselines.analysis.gating.gate_data import ArmRuns  # noqa: E402
from baselines.analysis.statistics.clustered import pair_items  # noqa: E402
from baselines.analysis.statistics.question_claim import item_bounds  # noqa: E402

ALPHA = 0.05
NS = (5, 8, 10, 20)
QS = (5, 20)
HEADING = "## The item-paired gate on skewed per-seed effects (item route size and the skew rule)"
PROCEDURES = ("item route alone", "gate", "per-seed gate")


def _lognormal_left(sigma: float):
    def draw(rng, n):
        return -(np.exp(rng.normal(0, sigma, n)) - math.exp(sigma ** 2 / 2))
    return draw, math.sqrt((math.exp(sigma ** 2) - 1) * math.exp(sigma ** 2))


def _normal(rng, n):
    return rng.normal(0, 1, n)


def _rare(rng, n):
    return rng.normal(1.0, 0.5, n) - (rng.random(n) < 0.1) * 10.0


SHAPES = [("normal", _normal, 1.0), ("lognormal sigma 1, left-skewed", *_lognormal_left(1.0)),
          ("lognormal sigma 1.5, left-skewed", *_lognormal_left(1.5)),
          ("rare large loss (10% of seeds lose 10)", _rare, math.sqrt(0.25 + 0.09 * 100))]


def draw_arms(rng, n: int, q: int, effect, sd: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """(baseline, candidate) item rewards, (n seeds, q questions): the data model above."""
    base = rng.normal(0, 1, (n, q)) + rng.normal(0, 1, q)
    d = delta + effect(rng, n)[:, None] + rng.normal(0, sd, (n, q))
    return base, base + d


GROUP = Group("w", {"tokens": 1}, [], ["tokens"])


def verdicts(base: np.ndarray, cand: np.ndarray, margin: float) -> tuple[str, str, str]:
    """(item route alone, gate, per-seed gate) verdicts on one data set."""
    n, q = base.shape
    ids = [f"q{i}" for i in range(q)]
    items = {arm: {s: [{"id": k, "reward": float(v)} for k, v in zip(ids, x[s])] for s in range(n)}
             for arm, x in (("base", base), ("cand", cand))}
    rewards = {arm: {s: float(x[s].mean()) for s in range(n)} for arm, x in (("base", base), ("cand", cand))}
    b = item_bounds(pair_items(items["cand"], items["base"], list(range(n)), 1.0, None), "population", ALPHA)
    alone = margin_verdict(b.lower, b.upper, margin)
    runs = {arm: ArmRuns(dict(rewards[arm]), [], items[arm]) for arm in ("base", "cand")}
    gate = gate_group(GROUP, "base", "cand", margin, ALPHA, False, {}, runs=runs).verdict
    per_seed = gate_group(GROUP, "base", "cand", margin, ALPHA, False, rewards).verdict
    return alone, gate, per_seed


def rate(hits: int, sims: int) -> tuple[float, float]:
    p = hits / sims
    return p, 1.96 * math.sqrt(max(p * (1 - p), 1 / sims) / sims)


def cell(effect, sd: float, delta: float, margin: float, n: int, q: int, sims: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(PROCEDURES, 0)
    for _ in range(sims):
        for name, v in zip(PROCEDURES, verdicts(*draw_arms(rng, n, q, effect, sd, delta), margin)):
            hits[name] += v == "PASS"
    return {name: rate(h, sims) for name, h in hits.items()}


def run(sims: int, ns=NS, qs=QS) -> dict:
    out = {}
    for i, (name, effect, sd) in enumerate(SHAPES):
        for q in qs:
            for n in ns:
                out[("size", name, q, n)] = cell(effect, sd, -1.0, 1.0, n, q, sims, 41000 + 1000 * i + 10 * q + n)
    for q in qs:
        for n in ns:
            out[("power", "normal", q, n)] = cell(_normal, 1.0, 0.0, 0.5, n, q, sims, 49000 + 10 * q + n)
    return out


def _fmt(x: tuple[float, float]) -> str:
    return f"{x[0]:.3f} ± {x[1]:.3f}"


def section(results: dict, sims: int) -> str:
    ns = sorted({k[3] for k in results})
    qs = sorted({k[2] for k in results})
    head = "| procedure | questions | " + " | ".join(f"n={n}" for n in ns) + " |"
    rule = "|---|---|" + "---|" * len(ns)
    lines = [HEADING, "",
             f"Generated by `python benchmarks/item_skew.py --sims {sims} --update docs/calibration.md`. Mean claim, "
             "alpha 0.05 one-sided, one look, default options (questions population, bounds auto), unbounded "
             f"rewards. PASS share of {sims:,} seeded data sets per cell, ± 1.96 Monte Carlo standard errors; n "
             "counts seeds. Data model (the script's docstring): the same Q question ids on every seed; per-seed "
             "effect e of the row's shape (mean 0) plus per-question noise N(0, sd(e)) on every item difference, "
             "baseline items N(0, 1) plus a per-question difficulty N(0, 1). **item route alone** is the two-way seed "
             "x question clustered bound as the gate used it before the skew rule; **gate** is `gate_group` with "
             "items (the item route with the per-seed skew rule on the seeds' mean item differences); **per-seed "
             "gate** is the same data without items (each run's reward its items' mean).", ""]
    for name, _, _ in SHAPES:
        lines += [f"### size: {name} per-seed effect, candidate worse by exactly the margin (margin 1)", "",
                  head, rule]
        for proc in PROCEDURES:
            for q in qs:
                lines.append(f"| {proc} | {q} | " + " | ".join(_fmt(results[("size", name, q, n)][proc])
                                                             for n in ns) + " |")
        lines.append("")
    lines += ["### power: normal per-seed effect N(0, 1), item noise N(0, 1), identical means, margin 0.5", "",
              head, rule]
    for proc in PROCEDURES:
        for q in qs:
            lines.append(f"| {proc} | {q} | " + " | ".join(_fmt(results[("power", "normal", q, n)][proc])
                                                         for n in ns) + " |")
    lines += ["", "The item route alone exceeds alpha wherever the per-seed effect is left-skewed, most with 20 "
              "questions, where each seed's mean carries the skewed effect almost undiluted (with 5 questions the "
              "two-way route's min(seeds, questions) - 1 = 4 degrees of freedom keep it nearer). The gate applies "
              "the per-seed skew rule to the seeds' mean item differences (no PASS or FAIL below 6 seeds, none "
              "against their skewness, the arms' seed means' skew alpha): its size is then at or below the per-seed "
              "gate's on the same data, at a power cost on normal effects of about the per-seed gate's own. Neither "
              "holds 0.05 on lognormal effects plus per-question noise at 20 questions: the noise hides the bulk's "
              "skew from the sample skewness (the skew allowance was chosen on pure lognormal differences), a "
              "limit of the per-seed rule measured here, not removed. The rare large loss is the 1/n limit of "
              "unbounded rewards (docs/gate.md); declare reward_range for distribution-free bounds.", ""]
    return "\n".join(lines)


def update(path: Path, text: str) -> None:
    replace_section(path, HEADING, text)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sims", type=int, default=2000)
    p.add_argument("--ns", default=None, help="comma-separated seed counts (default 5,8,10,20)")
    p.add_argument("--qs", default=None, help="comma-separated question counts (default 5,20)")
    p.add_argument("--update", default=None)
    a = p.parse_args()
    ns = tuple(int(x) for x in a.ns.split(",")) if a.ns else NS
    qs = tuple(int(x) for x in a.qs.split(",")) if a.qs else QS
    text = section(run(a.sims, ns, qs), a.sims)
    if a.update:
        update(Path(a.update), text)
    print(text)
