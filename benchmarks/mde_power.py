"""Does the printed detectable effect have the power it claims? (student_t.mde_factor, fixed 2026-12-03)

    python benchmarks/mde_power.py [--sims 20000]

Claim: a mean difference of `mde_factor(n) * sd` is detected by the two-sided paired t test at
alpha 0.05 with power 0.8. Data model: n normal paired differences, sd 1, mean mde_factor(n) (the
valid alternative) or 0 (size). Prints, per n, the simulated rejection rate under each, seeded.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from baselines.analysis.statistics.student_t import mde_factor  # noqa: E402


def rejection_rate(n: int, mean: float, sims: int, rng: np.random.Generator, alpha: float = 0.05) -> float:
    d = rng.normal(mean, 1.0, size=(sims, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    return float(np.mean(np.abs(t) > stats.t.ppf(1 - alpha / 2, n - 1)))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sims", type=int, default=20000)
    args = p.parse_args()
    rng = np.random.default_rng(20261203)
    print("| n | mde_factor(n) | power at the MDE (claim 0.80) | size at 0 (claim 0.05) |")
    print("|---|---|---|---|")
    for n in (2, 3, 4, 5, 10, 20):
        f = mde_factor(n)
        print(f"| {n} | {f:.3f} | {rejection_rate(n, f, args.sims, rng):.3f} | {rejection_rate(n, 0.0, args.sims, rng):.3f} |")


if __name__ == "__main__":
    main()
