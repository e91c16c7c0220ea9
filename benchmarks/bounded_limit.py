"""Issue 27: is there a tighter fixed-n lower bound for bounded non-binary rewards than the gate's betting bound?

    python benchmarks/bounded_limit.py [--sims 1000] [--table]

`--table` prints the markdown table docs/statistics.md quotes (the mean lower
bound per method, two shapes); the slow tests/test_doc_outputs.py re-runs it.

One-sided lower bounds at alpha = 0.05 for the mean of paired differences in
[-1, 1] (rewards in [0, 1]), all fed the same draws: the gate's betting bound
for n seeds (`betting.diff_bounds_many`), a hedged-capital mixture over a
fixed grid of 20 stakes (valid by Markov's inequality on the final capital),
the empirical Bernstein bound (Maurer & Pontil 2009) and Hoeffding's. Prints
the mean of (sample mean - lower bound), the mean lower bound and its
coverage of the true mean, and for all-equal differences the limit no valid
distribution-free bound can beat: with every difference equal to c, the
two-point law with mass p at c and 1 - p at -1 has mean (1 + c) p - 1 and
gives that sample with probability p^n, so a valid lower bound is at most
(1 + c) alpha^(1/n) - 1.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.statistics.betting import diff_bounds_many  # noqa: E402

ALPHA = 0.05


def current(d):            # betting bound for n seeds (the gate today)
    lo, _ = diff_bounds_many(d, ALPHA, 1.0)
    return lo

def hoeffding(d):
    n = d.shape[1]
    return d.mean(1) - 2 * math.sqrt(math.log(1 / ALPHA) / (2 * n))

def emp_bernstein(d):      # Maurer & Pontil 2009, values in [a, a + R], R = 2
    n = d.shape[1]; R = 2.0
    v = d.var(1, ddof=1)
    return d.mean(1) - np.sqrt(2 * v * math.log(2 / ALPHA) / n) - 7 * R * math.log(2 / ALPHA) / (3 * (n - 1))

def grid_mixture(d, G=20, c=0.99):
    """Mixture over a fixed grid of stakes lambda_g = c * g/G / mu (u-scale): the final capital average (Markov)."""
    u = (d + 1) / 2
    rows, n = u.shape
    lo = np.zeros(rows); hi = u.mean(1)          # lower bound for mu in [0, mean]
    frac = c * np.arange(1, G + 1) / G
    for _ in range(40):
        mid = (lo + hi) / 2
        lam = frac[None, :] / np.maximum(mid[:, None], 1e-12)     # (rows, G)
        logk = np.log1p(lam[:, :, None] * (u[:, None, :] - mid[:, None, None])).sum(2)   # (rows, G)
        cap = np.log(np.mean(np.exp(logk - logk.max(1, keepdims=True)), 1)) + logk.max(1)
        rej = cap >= math.log(1 / ALPHA)
        lo = np.where(rej, mid, lo); hi = np.where(rej, hi, mid)
    return 2 * lo - 1

def limit_all_equal(c, n):
    return (1 + c) * ALPHA ** (1 / n) - 1

METHODS = {"betting bound for n (current)": current, "hedged-capital grid mixture": grid_mixture,
           "empirical Bernstein": emp_bernstein, "Hoeffding": hoeffding}

def shapes():
    def accuracy(q):
        def draw(rng, sims, n, delta=0.0):
            u = rng.random((sims, n, q)); v = np.where(rng.random((sims, n, q)) < 0.7, u, rng.random((sims, n, q)))
            return (v < 0.7 + delta).mean(2) - (u < 0.7).mean(2)
        return draw
    def scores(rng, sims, n, delta=0.0):
        u = rng.random((sims, n, 5))
        return ((u < 0.6 + delta).sum(2) - (u < 0.6).sum(2)) / 5.0
    def rare(rng, sims, n, delta=0.0):
        lose = rng.random((sims, n)) < 0.2
        return np.where(lose, -0.8, (0.8 * 0.2 + delta) / 0.8)
    def allc(rng, sims, n, delta=0.0):
        return np.full((sims, n), 0.3)
    return {"all differences +0.3": allc, "accuracy on 20 questions (identical)": accuracy(20),
            "accuracy on 100 questions (identical)": accuracy(100), "scores 0..5 / 5 (identical)": scores,
            "rare loss (20% lose 0.8, mean 0)": rare}

TABLE_SHAPES = {"all differences +0.3": ("all +0.3", 0.3),
                "accuracy on 20 questions (identical)": ("accuracy on 20 questions, identical arms (limit for all 0)", 0.0)}
TABLE_ORDER = ("betting bound for n (current)", "hedged-capital grid mixture", "Hoeffding", "empirical Bernstein")


def print_table(sims: int) -> None:
    """The mean lower bound of each method, as docs/statistics.md shows it."""
    print("| differences | n | limit | betting for n (gate) | hedged-capital mixture, 20 fixed stakes | Hoeffding "
          "| empirical Bernstein |")
    print("|---|---|---|---|---|---|---|")
    for name, draw in shapes().items():
        if name not in TABLE_SHAPES:
            continue
        label, c = TABLE_SHAPES[name]
        for n in (5, 10, 20):
            d = draw(np.random.default_rng(n), sims, n)
            bounds = [f"{np.mean(METHODS[m](d)):+.3f}" for m in TABLE_ORDER]
            print(f"| {label if n == 5 or c else 'same'} | {n} | {limit_all_equal(c, n):+.3f} | " + " | ".join(bounds) + " |")


if __name__ == "__main__":
    sims = int(sys.argv[sys.argv.index("--sims") + 1]) if "--sims" in sys.argv else 1000
    if "--table" in sys.argv:
        print_table(sims)
        sys.exit(0)
    for name, draw in shapes().items():
        for n in (5, 10, 20):
            d = draw(np.random.default_rng(n), sims, n)
            mu = 0.0 if name != "all differences +0.3" else 0.3
            out = []
            for m, f in METHODS.items():
                lb = f(d)
                out.append(f"{m}: mean-L {np.mean(d.mean(1) - lb):.3f} L {np.mean(lb):+.3f} cover {np.mean(lb <= mu):.3f}")
            if name == "all differences +0.3":
                out.append(f"limit L* {limit_all_equal(0.3, n):+.3f}")
            print(f"{name} n={n}: " + " | ".join(out), flush=True)
