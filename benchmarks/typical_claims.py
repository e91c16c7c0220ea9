"""Issue 37: the typical-seed claim's false alarms, family-wise error, power and gate PASS rates.

    python benchmarks/typical_claims.py [--sims 2000] [--update docs/calibration.md]

Each cell is the share of seeded simulations, ± 1.96 Monte Carlo standard
errors (floored at 1/sims); alpha = 0.05 (two-sided for pair verdicts, one-sided
for the gate). The decisions are costmatch's own functions on per-seed
differences: `typical_seed.typical_claim` + `pair_verdict.holm` for pairs (what
`compare --claim typical` decides; tests/test_typical_calibration.py checks
that compare() gives the same verdicts), `typical_gate.typical_gate_decision`
for the gate (what `check --claim typical` decides). Every figure states the
claim, the margin, the data model and n in its heading.
`--update FILE` replaces this section of FILE (from its heading to the next
`## ` heading or the end).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.compare.pair_verdict import holm                       # noqa: E402
from baselines.analysis.gating.typical_gate import typical_gate_decision       # noqa: E402
from baselines.analysis.statistics.typical_seed import detectable_share, typical_claim  # noqa: E402

HEADING = "## Typical-seed claim (issue 37)"
ALPHA = 0.05
NS = (5, 10, 20)


def _rate(hits: int, sims: int) -> tuple[float, float]:
    p = hits / sims
    return p, 1.96 * math.sqrt(max(p * (1 - p), 1 / sims) / sims)


# -- data models: arms x seeds rewards, every arm with the same distribution (nulls) ----------------
def normal(rng, k, n):
    return rng.normal(0, 1, (1, n)) + rng.normal(0, 0.5, (k, n))


def binary_shared(rng, k, n, p=0.8):
    """One uniform per seed shared by the arms: identical arms are identical (every difference 0)."""
    return (rng.random((1, n)) < p).astype(float).repeat(k, 0)


def binary_independent(rng, k, n, p=0.7):
    return (rng.random((k, n)) < p).astype(float)


def accuracy_10(rng, k, n):
    difficulty = rng.random((1, n, 10))
    shared = rng.random((1, 1, 10)) < 0.7
    own = rng.random((k, n, 10))
    u = np.where(shared, difficulty, own)
    return (u < 0.7).mean(axis=2)


def scores_0_5(rng, k, n):
    return rng.integers(0, 6, (k, n)).astype(float)


def lognormal(rng, k, n):
    return rng.normal(0, 1, (1, n)) + np.exp(rng.normal(0, 1, (k, n)))


def rare_loss(rng, k, n):
    # every arm: 10% of seeds lose 10, the rest N(0, 1); the arms are exchangeable, P(D > 0) = P(D < 0)
    lose = rng.random((k, n)) < 0.1
    return np.where(lose, -10.0, rng.normal(0, 1, (k, n)))


NULLS = [("normal", normal), ("0/1, shared difficulty (.8)", binary_shared),
         ("0/1, independent (.7)", binary_independent), ("accuracy on 10 questions (.7)", accuracy_10),
         ("scores 0..5 (uniform, many ties)", scores_0_5), ("lognormal", lognormal),
         ("rare large loss (10% of seeds lose 10)", rare_loss)]


def rare_loss_difference(rng, n):
    """Per-seed differences at the typical claim's null with a rare large loss: 10% of seeds lose 10, the rest
    N(mu, 1) with mu set so that P(D > 0) = P(D < 0) (mu = Phi^-1(1 / 1.8))."""
    mu = stats.norm.ppf(1 / 1.8)
    return np.where(rng.random(n) < 0.1, -10.0, rng.normal(mu, 1, n))


def decided(matrix: np.ndarray, alpha: float = ALPHA) -> bool:
    """Any pair of the arms decided on the typical-seed claim after Holm (all pairs)."""
    k = matrix.shape[0]
    ps = [typical_claim(matrix[i] - matrix[j], 1 - alpha).p for i in range(k) for j in range(i + 1, k)]
    return bool((holm(ps) < alpha).any())


def false_alarm(draw, k: int, n: int, sims: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    return _rate(sum(decided(draw(rng, k, n)) for _ in range(sims)), sims)


def beta_difference(rng, n, a=2.0, b=5.0, mean=0.10, sd=0.10):
    """Per-seed differences +0.10 with sd 0.10, Beta(2, 5)-shaped (skewed, bounded: in [-0.08, 0.55])."""
    m, s = a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    return mean + sd * (rng.beta(a, b, n) - m) / s


def exact_power_beta(n: int, a=2.0, b=5.0) -> float:
    """The same power exactly: P(D > 0) from the Beta, then the binomial tail the sign test needs."""
    from baselines.analysis.statistics.typical_seed import sign_power
    m, s = a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    share = float(stats.beta.sf(m - s, a, b))     # D > 0  <=>  B > m - s (mean 0.10 = sd 0.10)
    return sign_power(n, share, ALPHA)


def power_beta(n: int, sims: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        r = typical_claim(beta_difference(rng, n), 1 - ALPHA)
        hits += r.p < ALPHA and r.counts.wins > r.counts.losses
    return _rate(hits, sims)


def at_detectable(n: int, shape: str, sims: int, seed: int) -> tuple[float, float, float | None]:
    """Decided share when the true win share is the printed "would likely be missed" share (one pair)."""
    share = detectable_share(n, ALPHA)
    if share is None:
        return math.nan, 0.0, None
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        if shape == "normal":
            d = rng.normal(stats.norm.ppf(share), 1, n)
        elif shape == "Beta":
            d = rng.beta(2, 5, n) - stats.beta.ppf(1 - share, 2, 5)
        else:   # 0/1: a wins where u < share, else loses (no ties) -- discordant pairs only
            d = np.where(rng.random(n) < share, 1.0, -1.0)
        r = typical_claim(d, 1 - ALPHA)
        hits += r.p < ALPHA and r.counts.wins > r.counts.losses
    rate, err = _rate(hits, sims)
    return rate, err, share


def gate_pass(draw_d, n: int, margin: float, sims: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    return _rate(sum(typical_gate_decision(draw_d(rng, n), margin, ALPHA).verdict == "PASS"
                     for _ in range(sims)), sims)


GATE_NULLS = [  # per-seed differences whose median is exactly -margin (P(D > -M) = 1/2), margin 0.1
    ("normal, median -0.1", lambda rng, n: rng.normal(-0.1, 0.2, n)),
    ("0/1: loses on half the seeds (D in {-1, 0})", lambda rng, n: np.where(rng.random(n) < 0.5, -1.0, 0.0)),
    ("lognormal sigma 1, mirrored, median -0.1",
     lambda rng, n: -0.1 - 0.1 * (np.exp(rng.normal(0, 1, n)) - 1.0)),
    ("rare loss: 10% lose 1, median -0.1", lambda rng, n: np.where(
        rng.random(n) < 0.1, -1.0, rng.normal(-0.1 + 0.2 * stats.norm.ppf(0.5 / 0.9), 0.2, n))),
]


def _cell(rate_err) -> str:
    rate, err = rate_err
    return "n/a" if not math.isfinite(rate) else f"{rate:.3f} ± {err:.3f}"


def section(sims: int) -> str:
    out = [HEADING, "",
           f"Generated by `python benchmarks/typical_claims.py --sims {sims} --update docs/calibration.md`. "
           f"Share of {sims:,} seeded simulations per cell, ± 1.96 Monte Carlo standard errors; alpha 0.05. "
           "Claim: **typical seed** (exact sign test, ties dropped; `compare --claim typical`, the default on "
           "per-seed data). The gate rows are `check --claim typical`, margin 0.1. n counts seeds.", ""]
    out += ["### typical-seed false alarm: two identical arms (any pair decided)", "",
            "| shape | " + " | ".join(f"n={n}" for n in NS) + " |", "|---" * (len(NS) + 1) + "|"]
    for i, (name, draw) in enumerate(NULLS):
        out.append(f"| {name} | " + " | ".join(_cell(false_alarm(draw, 2, n, sims, 100 + 10 * i + n))
                                             for n in NS) + " |")
    rng_cells = []
    for n in NS:
        rng = np.random.default_rng(900 + n)
        hits = 0
        for _ in range(sims):
            r = typical_claim(rare_loss_difference(rng, n), 1 - ALPHA)
            hits += r.p < ALPHA
        rng_cells.append(_cell(_rate(hits, sims)))
    out.append("| rare large loss at the typical null (10% lose 10, P(D>0) = P(D<0)) | " + " | ".join(rng_cells) + " |")
    out += ["", "### typical-seed family-wise false alarm: k identical arms, all pairs, Holm", "",
            "| shape | arms | " + " | ".join(f"n={n}" for n in NS) + " |", "|---" * (len(NS) + 2) + "|"]
    fam_sims = max(sims // 4, 100)
    for name, draw in (NULLS[0], NULLS[2], NULLS[4]):
        for k in (5, 10):
            out.append(f"| {name} | {k} | " + " | ".join(
                _cell(false_alarm(draw, k, n, fam_sims, 500 + k * 31 + n)) for n in NS) + " |")
    out.append(f"\n(family rows: {fam_sims:,} simulations each)")
    out += ["", "### typical-seed power: per-seed difference +0.10, sd 0.10, Beta(2, 5)-shaped (one pair)", "",
            "| | n=5 | n=10 | n=20 | n=30 |", "|---|---|---|---|---|",
            "| decided a>b (simulated) | " + " | ".join(_cell(power_beta(n, sims, 700 + n)) for n in (5, 10, 20, 30))
            + " |",
            "| decided a>b (exact binomial) | " + " | ".join(f"{exact_power_beta(n):.3f}" for n in (5, 10, 20, 30))
            + " |"]
    out += ["", "### at the printed \"would likely be missed\" win share: decided (one pair, power 0.8 by the exact "
            "binomial)", "", "| shape | n=5 | n=10 | n=20 |", "|---|---|---|---|"]
    for shape in ("normal", "Beta", "0/1"):
        cells = []
        for n in NS:
            rate, err, share = at_detectable(n, shape, sims, 800 + n)
            cells.append("no share printed (no outcome reaches p<0.05)" if share is None
                         else f"{rate:.3f} ± {err:.3f} (share {share:.2f})")
        out.append(f"| {shape} | " + " | ".join(cells) + " |")
    out += ["", "### gate, typical seed, margin 0.1: PASS", "",
            "| data | " + " | ".join(f"n={n}" for n in NS) + " |", "|---" * (len(NS) + 1) + "|",
            "| two seed-for-seed identical arms (every difference 0) | " + " | ".join(
                _cell(gate_pass(lambda rng, n: np.zeros(n), n, 0.1, sims, 600 + n)) for n in NS) + " |",
            "| identically distributed arms, accuracy on 20 questions (.7), independent | " + " | ".join(
                _cell(gate_pass(lambda rng, n: (rng.random((n, 20)) < 0.7).mean(1) - (rng.random((n, 20)) < 0.7)
                                .mean(1), n, 0.1, sims, 650 + n)) for n in NS) + " |"]
    for i, (name, draw_d) in enumerate(GATE_NULLS):
        out.append(f"| at the margin (size): {name} | " + " | ".join(
            _cell(gate_pass(draw_d, n, 0.1, sims, 1000 + 10 * i + n)) for n in NS) + " |")
    return "\n".join(out) + "\n"


def update(path: Path, text: str) -> None:
    from baselines.core.fileio import atomic_write_text

    old = path.read_text(encoding="utf-8") if path.exists() else ""
    keep, _, rest = old.partition(HEADING)
    keep = keep.rstrip("\n")
    after = rest.find("\n## ")
    tail = "\n" + rest[after + 1:] if after >= 0 else ""
    atomic_write_text(path, (keep + "\n\n" if keep else "") + text + tail)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sims", type=int, default=2000)
    p.add_argument("--update", default=None)
    a = p.parse_args()
    text = section(a.sims)
    if a.update:
        update(Path(a.update), text)
    print(text)
