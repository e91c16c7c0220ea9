"""A gate history by seeded simulation: per-commit PASS, the drift alarm and false alarms (docs/calibration.md).

    python benchmarks/history_simulation.py [--histories 2000]

Issue 40's model: 30 commits; per-seed paired differences of commit k against
the pinned reference N(mu_k, 0.02), 10 seeds per commit, margin 0.05, alpha
0.05, no reward range; each commit's own gate compares it with the commit
before on the same seeds. "drift by 8": the drift alarm (the candidate gated
against the reference FAILs, alpha / horizon per look) fired at commit 8 or
before. "false alarm": a drift alarm or a step found anywhere in the history
(steps at the default level 0.025 over the whole history).
The same function, with fewer histories, is asserted by tests/test_history_sim.py.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.history.simulation import simulate_history  # noqa: E402

LOSING = [-0.01 * k for k in range(1, 31)]
FLAT = [0.0] * 30
AT_MARGIN = [-0.05] * 30

CELLS = [
    ("losing 0.01 per commit", LOSING, "auto", 30, 1),
    ("losing 0.01 per commit", LOSING, "t", 30, 2),
    ("losing 0.01 per commit", LOSING, "t", 20, 3),
    ("losing 0.01 per commit", LOSING, "auto", 20, 4),
    ("no change", FLAT, "auto", 30, 5),
    ("no change", FLAT, "t", 30, 6),
    ("no change", FLAT, "t", 20, 7),
    ("no change, right-skewed differences (lognormal, sigma 1)", FLAT, "auto", 30, 10, "lognormal"),
    ("no change, left-skewed differences (lognormal, sigma 1)", FLAT, "auto", 30, 11, "left-lognormal"),
    ("every commit exactly at the margin (-0.05)", AT_MARGIN, "auto", 30, 8),
    ("every commit exactly at the margin (-0.05)", AT_MARGIN, "t", 30, 9),
    ("every commit exactly at the margin, right-skewed differences", AT_MARGIN, "auto", 30, 12, "lognormal"),
]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--histories", type=int, default=2000)
    n = p.parse_args().histories
    print(f"| history ({n:,} seeded histories of 30 commits each) | bounds | drift horizon | per-commit PASS | "
          "drift alarm by commit 8 | median first drift alarm | drift alarm anywhere | step found anywhere | "
          "drift or step anywhere |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, means, bounds, horizon, seed, *shape in CELLS:
        r = simulate_history(means, bounds=bounds, horizon=horizon, histories=n, seed=seed,
                             shape=shape[0] if shape else "normal")
        e = r.error
        print(f"| {name} | {bounds} | {horizon} | {r.base_pass:.3f} | {r.drift_by[8]:.3f} ± {e(r.drift_by[8]):.3f} | "
              f"{r.first_drift_median:g} | {r.any_drift:.3f} ± {e(r.any_drift):.3f} | "
              f"{r.any_step:.3f} ± {e(r.any_step):.3f} | {r.any_alarm:.3f} ± {e(r.any_alarm):.3f} |", flush=True)


if __name__ == "__main__":
    main()
