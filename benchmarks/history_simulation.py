"""A gate history by seeded simulation: per-commit PASS, the drift alarm and false alarms (docs/calibration.md).

    python benchmarks/history_simulation.py [--histories 2000]

Issue 40's model: 30 commits; per-seed paired differences of commit k against
the pinned reference N(mu_k, 0.02), 10 seeds per commit, margin 0.05, alpha
0.05, no reward range; each commit's own gate compares it with the commit
before on the same seeds. "drift by 8": the drift alarm (the candidate gated
against the reference FAILs, alpha / horizon per look) fired at commit 8 or
before. "auto, pooled shape" is the default of `check --history` (each
look after a group's first reads the skewness its earlier looks recorded,
gating/pooled_shape.py); "auto, one-sample" the default gate of a single
check. "false alarm": a drift alarm or a step found anywhere in the history
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
STEP = [0.0] * 14 + [-0.01] * 16      # commits 15-30 lose 0.01 at once (one commit of issue 40's loss)

#: (name, means, bounds, horizon, seed[, shape[, claim[, pool]]]); pool False: the one-sample default gate at
#: every commit (what each check did before the history's pooled shape, gating/pooled_shape.py)
CELLS = [
    ("losing 0.01 per commit", LOSING, "auto", 30, 1),
    ("losing 0.01 per commit", LOSING, "auto", 30, 1, "normal", "mean", False),
    ("losing 0.01 per commit", LOSING, "t", 30, 2),
    ("losing 0.01 per commit", LOSING, "t", 20, 3),
    ("no change", FLAT, "auto", 30, 5),
    ("no change", FLAT, "auto", 30, 5, "normal", "mean", False),
    ("no change", FLAT, "t", 30, 6),
    ("no change, right-skewed differences (lognormal, sigma 1)", FLAT, "auto", 30, 10, "lognormal"),
    ("no change, left-skewed differences (lognormal, sigma 1)", FLAT, "auto", 30, 11, "left-lognormal"),
    ("every commit exactly at the margin (-0.05)", AT_MARGIN, "auto", 30, 8),
    ("every commit exactly at the margin (-0.05)", AT_MARGIN, "t", 30, 9),
    ("every commit exactly at the margin, right-skewed differences", AT_MARGIN, "auto", 30, 12, "lognormal"),
    ("every commit exactly at the margin, right-skewed differences", AT_MARGIN, "auto", 30, 12, "lognormal", "mean",
     False),
    ("one step of -0.01 at commit 15", STEP, "auto", 30, 13),
]
#: issue 37's typical-seed claim (`check --claim typical`): the median paired difference, exact sign test
TYPICAL = [
    ("losing 0.01 per commit, typical-seed claim", LOSING, "auto", 30, 21, "normal", "typical"),
    ("losing 0.01 per commit, both claims", LOSING, "auto", 30, 22, "normal", "both"),
    ("no change, typical-seed claim", FLAT, "auto", 30, 23, "normal", "typical"),
    ("every commit exactly at the margin, typical-seed claim", AT_MARGIN, "auto", 30, 24, "normal", "typical"),
]


HEADER = ("| history | bounds | drift horizon | per-commit PASS | drift alarm by commit 8 | median first drift alarm | "
          "drift alarm anywhere | step found anywhere | drift or step anywhere |")


def rows(histories: int, cells=CELLS, steps: bool = True) -> list[str]:
    out = [HEADER, "|---|---|---|---|---|---|---|---|---|"]
    for name, means, bounds, horizon, seed, *extra in cells:
        shape, claim, pool = (list(extra) + ["normal", "mean", True][len(extra):])[:3]
        r = simulate_history(means, bounds=bounds, horizon=horizon, histories=histories, seed=seed, shape=shape,
                             expected_step=15 if means is STEP else None, claim=claim, pool=pool, steps=steps)
        bounds = ("auto, one-sample" if not pool else "auto, pooled shape") if bounds == "auto" else bounds
        e = r.error
        shown = lambda x: f"{x:.3f} ± {e(x):.3f}" if x == x else "not run"  # noqa: E731  (NaN: --no-steps)
        located = f" (at commit 15 ± 1: {r.step_at:.3f})" if means is STEP and steps else ""
        out.append(f"| {name} | {bounds} | {horizon} | {r.base_pass:.3f} | {shown(r.drift_by[8])} | "
                   f"{r.first_drift_median:g} | {shown(r.any_drift)} | {shown(r.any_step)}{located} | "
                   f"{shown(r.any_alarm)} |")
        print(out[-1], file=sys.stderr, flush=True)
    return out


INTRO = """## A gate history across commits (issue 40)

`python benchmarks/history_simulation.py --histories {n}` ({n:,} seeded histories per row; asserted at
400 by `pytest -m slow tests/test_history_sim.py`). Issue 40's model: 30 commits; the per-seed paired
differences of commit k against the pinned reference are N(mu_k, 0.02), independent across commits
(10 seeds per commit, margin 0.05, alpha 0.05, no reward range); each commit's own gate compares it
with the commit before on the same seeds (differences d_k - d_(k-1), commit 0 being the reference).
The drift gate is the candidate against the reference at alpha / horizon per look (its FAIL is the
alarm); steps are `costmatch history`'s search at its default level 0.025 for the whole history. Each
commit is gated by the real code (`pooled_decision` with the shape the earlier commits recorded, the
default of `check --history`; "auto, one-sample" is `gate_decision` alone, each check's default before
the history's pooled shape) and each history read by the real `group_history`.
"""


def section(histories: int) -> str:
    return INTRO.format(n=histories) + "\n" + "\n".join(rows(histories, CELLS + TYPICAL)) + "\n"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--histories", type=int, default=2000)
    p.add_argument("--rows", default=None, metavar="A:B,C,...",
                   help="only these rows (A:B is rows A to B-1), to share the work out")
    p.add_argument("--no-steps", action="store_true",
                   help="skip the step search (3/4 of the time; it reads no gate bounds, so on the same seeds its "
                        "columns do not depend on the bounds or the pooled shape)")
    a = p.parse_args()
    if a.rows:
        cells = CELLS + TYPICAL
        picked = []
        for part in a.rows.split(","):
            lo, _, hi = part.partition(":")
            picked += cells[int(lo):int(hi)] if hi else [cells[int(lo)]]
        print("\n".join(rows(a.histories, picked, steps=not a.no_steps)[2:]))
    else:
        print(section(a.histories))


if __name__ == "__main__":
    main()
