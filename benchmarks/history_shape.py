"""Does the history's pooled shape (gating/pooled_shape.py) hold the skewed cells? Seeded, by the real code.

    python benchmarks/history_shape.py [--histories 1000]

Each history is 30 looks of one group, each look 10 fresh per-seed differences of one shape with mean exactly
-margin (margin 0.05, sd 0.02), gated by `pooled_decision` with the shape its earlier looks recorded, as
`check --history` gates a group. Reported: the PASS rate at the margin at each look (left-skewed shapes: the
one-sample default's cells, docs/calibration.md "skew"), a false drift alarm anywhere in 30 looks at alpha / 30
(right-skewed shapes: the drift gate's cell the default missed, 0.368), and the dilution case: 20 looks of normal
differences, then one commit whose differences turn left-skewed at the margin.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.gating.gate_bounds import FAIL, PASS  # noqa: E402
from baselines.analysis.gating.pooled_shape import Shape, look_skew, pooled_decision  # noqa: E402

MARGIN, SD, LOOKS, ALPHA = 0.05, 0.02, 30, 0.05


def _noise(rng, sigma: float | None, size) -> np.ndarray:
    """Unit-variance noise: normal (sigma None) or a centred lognormal(0, sigma), right-skewed."""
    if sigma is None:
        return rng.standard_normal(size)
    s2 = sigma * sigma
    return (rng.lognormal(0.0, sigma, size) - math.exp(s2 / 2)) / math.sqrt((math.exp(s2) - 1) * math.exp(s2))


def series(histories: int, sigma: float | None, sign: float, alpha: float, n: int = 10, seed: int = 0,
           normal_before: int = 0, looks: int = LOOKS) -> tuple[np.ndarray, np.ndarray]:
    """(PASS rate per look, FAIL rate per look) over `histories` seeded histories of LOOKS looks at the margin.

    `sign` -1 mirrors the shape (left-skewed); `normal_before` looks of normal differences come first."""
    rng = np.random.default_rng(seed)
    passes, fails = np.zeros(looks), np.zeros((histories, looks), dtype=bool)
    for h in range(histories):
        shape = Shape()
        for k in range(looks):
            noise = _noise(rng, None if k < normal_before else sigma, n)
            d = -MARGIN + SD * (noise if k < normal_before else sign * noise)
            g = pooled_decision(d, MARGIN, alpha, shape)
            passes[k] += g.verdict == PASS
            fails[h, k] = g.verdict == FAIL
            shape = shape.add(look_skew(d))
    return passes / histories, fails


def _mc(rate: float, n: int) -> float:
    return 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / n)


PASS_CELLS = {"left0.5": ("left lognormal sigma 0.5", 0.5, 10, 1), "left1": ("left lognormal sigma 1", 1.0, 10, 2),
              "left1.5": ("left lognormal sigma 1.5", 1.5, 10, 3),
              "left1-n6": ("left lognormal sigma 1, n = 6", 1.0, 6, 4),
              "left1-n20": ("left lognormal sigma 1, n = 20", 1.0, 20, 5), "normal": ("normal", None, 10, 6)}
DRIFT_CELLS = {"right0.5": ("right lognormal sigma 0.5", 0.5, 11), "right1": ("right lognormal sigma 1", 1.0, 12),
               "right1.5": ("right lognormal sigma 1.5", 1.5, 13), "normal-drift": ("normal", None, 14)}
DILUTE_CELLS = {"dilute1": ("left lognormal sigma 1", 1.0, 21), "dilute1.5": ("left lognormal sigma 1.5", 1.5, 22)}


def tables(histories: int, only: list[str] | None = None) -> str:
    """The three tables (the cells named in `only`, by the keys above; all by default)."""
    keep = lambda key: only is None or key in only  # noqa: E731
    out = [f"{histories:,} seeded histories per row, looks of 10 seeds each (n = 6 and 20 where said; the PASS "
           "table's first 10 looks: the allowance is at its cap from look 6 at n = 10 and the pooled skewness only "
           "grows); ± 1.96 Monte Carlo standard errors of the worst look", "",
           "| differences at the margin | PASS, look 1 (the default) | look 2 | look 3 | look 4 | look 6 | look 10 "
           "| worst look |", "|---|---|---|---|---|---|---|---|"]
    first = {}
    for key, (name, sigma, n, seed) in PASS_CELLS.items():
        if not keep(key):
            continue
        p, _ = series(histories, sigma, -1.0, ALPHA, n, seed, looks=10)
        first[(sigma, n)] = p[0]
        worst = int(p.argmax())
        out.append(f"| {name} | " + " | ".join(f"{p[k]:.3f}" for k in (0, 1, 2, 3, 5, 9))
                   + f" | {p[worst]:.3f} ± {_mc(p[worst], histories):.3f} (look {worst + 1}) |")
        print(out[-1], file=sys.stderr, flush=True)
    out += ["", "| differences at the margin, drift looks at alpha / 30 | false drift alarm anywhere in 30 looks |",
            "|---|---|"]
    for key, (name, sigma, seed) in DRIFT_CELLS.items():
        if not keep(key):
            continue
        _, f = series(histories, sigma, 1.0, ALPHA / LOOKS, 10, seed)
        rate = float(f.any(axis=1).mean())
        out.append(f"| {name} | {rate:.3f} ± {_mc(rate, histories):.3f} |")
        print(out[-1], file=sys.stderr, flush=True)
    out += ["", "| one commit turns skewed after 20 normal looks (at the margin) | PASS at that look (21) |",
            "|---|---|"]
    for key, (name, sigma, seed) in DILUTE_CELLS.items():
        if not keep(key):
            continue
        p, _ = series(histories, sigma, -1.0, ALPHA, 10, seed, normal_before=20, looks=21)
        out.append(f"| {name} | {p[20]:.3f} ± {_mc(p[20], histories):.3f} |")
        print(out[-1], file=sys.stderr, flush=True)
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--histories", type=int, default=1000)
    p.add_argument("--only", default=None, help="comma-separated cell keys (PASS_CELLS, DRIFT_CELLS, DILUTE_CELLS)")
    a = p.parse_args()
    print(tables(a.histories, a.only.split(",") if a.only else None))


if __name__ == "__main__":
    main()
