"""The CI gate's error rates by seeded simulation (the figures quoted in docs/gate.md).

    python benchmarks/gate_simulation.py [--sims 1000]

Per-seed paired differences are normal with standard deviation 1 and the
margin is 1 (a margin of one standard deviation of the paired difference),
alpha = 0.05 one-sided. docs/gate.md quotes the table this prints (at the
default --sims), and the slow tests/test_doc_outputs.py runs it again and
compares, so the quoted figures cannot drift from the code.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.gating.sequential import simulate  # noqa: E402

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sims", type=int, default=1000)
    n = p.parse_args().sims
    rows = [
        ("candidate identical to baseline, 10 seeds", simulate(0.0, 1.0, 1.0, n=10, sims=n, seed=1), "fail"),
        ("candidate worse by 2x the margin, 10 seeds", simulate(-2.0, 1.0, 1.0, n=10, sims=n, seed=3), "fail"),
        ("candidate worse by exactly the margin, 10 seeds", simulate(-1.0, 1.0, 1.0, n=10, sims=n, seed=4), "pass"),
        ("sequential 5,10,15,20: worse by exactly the margin", simulate(-1.0, 1.0, 1.0, looks=[5, 10, 15, 20],
                                                                       sims=n, seed=5), "fail"),
        ("sequential 5,10,15,20: identical", simulate(0.0, 1.0, 1.0, looks=[5, 10, 15, 20], sims=n, seed=6), "fail"),
        ("sequential 5,10,15,20: worse by 2x the margin", simulate(-2.0, 1.0, 1.0, looks=[5, 10, 15, 20],
                                                                  sims=n, seed=7), "fail"),
    ]
    print(f"| scenario ({n:,} simulated gates each) | PASS | FAIL | INCONCLUSIVE | mean seeds |")
    print("|---|---|---|---|---|")
    for name, r, _ in rows:
        print(f"| {name} | {r['pass']:.1%} | {r['fail']:.1%} | {r['inconclusive']:.1%} | {r['mean_seeds']:.1f} |")
