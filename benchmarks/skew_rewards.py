"""Issue 37 item 4: the unbounded gate's PASS at the margin on lognormal *rewards*, not only lognormal differences.

    python benchmarks/skew_rewards.py [--sims 2000] [--update docs/calibration.md]

The skew section of docs/calibration.md (benchmarks/skew_gate.py) draws the
per-seed *differences* as a mirrored lognormal. Here the *rewards* are
lognormal, base = exp(N(0, 1)) on every seed, and the candidate is worse on
the mean by exactly the margin (so every PASS is a false pass):
- **scaled-down candidate**: cand = (1 - r) exp(N(0, 1)), its log correlated
  rho with the baseline's on the same seed (rho 0: independent runs; rho 1
  would be skew_gate's mirrored lognormal), margin r e^0.5;
- **per-seed effect**: cand = base exp(e), e ~ N(log(1 - r) - tau^2 / 2, tau)
  on each seed, margin r e^0.5.
The gate is called as `costmatch check` calls it on the per-seed differences
(`gate_bounds.gate_decision`, alpha 0.05, default bounds, with the arms'
rewards so the skew check reads each arm's skewness as well as the
differences'; the mirrored row has differences only). Every cell is the
share of `--sims` seeded simulations, +- 1.96 Monte Carlo standard errors.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.gating import gate_bounds  # noqa: E402
from benchmarks.skew_gate import _cell, _rate, lognormal  # noqa: E402

ALPHA = 0.05
NS = (6, 8, 10, 14, 20)
HEADING = "## Lognormal rewards at the gate: scaled-down candidate and per-seed effect (issue 37)"


def scaled(r: float, rho: float):
    def arms(rng, sims, n):
        z, w = rng.normal(0, 1, (sims, n)), rng.normal(0, 1, (sims, n))
        return np.exp(z), (1 - r) * np.exp(rho * z + math.sqrt(1 - rho ** 2) * w)
    return arms, r * math.exp(0.5)


def effect(r: float, tau: float):
    def arms(rng, sims, n):
        base = np.exp(rng.normal(0, 1, (sims, n)))
        return base, base * np.exp(rng.normal(math.log(1 - r) - tau ** 2 / 2, tau, (sims, n)))
    return arms, r * math.exp(0.5)


def mirrored():
    """Differences only (no arms: the gate sees the differences' skewness alone, as in skew_gate.py)."""
    draw = lognormal(1.0, -1)
    return (lambda rng, sims, n: (None, draw(rng, (sims, n), -1.0))), 1.0


def diffs(arms, rng, sims, n) -> np.ndarray:
    """candidate - baseline per seed (rows x n) from a shape's `arms` draw."""
    base, cand = arms(rng, sims, n)
    return cand if base is None else cand - base


SHAPES = [(f"scaled-down candidate, r {r:g}, rho {rho:g}", *scaled(r, rho)) for r in (0.1, 0.3, 0.5) for rho in (0.0, 0.5)] + \
         [(f"per-seed effect, r {r:g}, tau {tau:g}", *effect(r, tau)) for r in (0.1, 0.3, 0.5) for tau in (0.5, 1.0)] + \
         [("mirrored lognormal differences, sigma 1 (skew_gate.py)", *mirrored())]


def pass_rate(draw, margin: float, n: int, sims: int, seed: int, use_arms: bool = True) -> tuple[float, float]:
    """PASS share; the gate gets the arms' rewards as `check` gives them (`use_arms` False: differences only).

    The seeds-needed search of an INCONCLUSIVE verdict is skipped (`_verdicts_only`): it runs after the
    verdict is set and only fills `seeds_needed`, and it was most of the cost.
    """
    with _verdicts_only():
        return _pass_rate(draw, margin, n, sims, seed, use_arms)


@contextlib.contextmanager
def _verdicts_only():
    search = gate_bounds._skew_checked_seeds
    gate_bounds._skew_checked_seeds = lambda *a, **k: None
    try:
        yield
    finally:
        gate_bounds._skew_checked_seeds = search


def _pass_rate(draw, margin: float, n: int, sims: int, seed: int, use_arms: bool) -> tuple[float, float]:
    base, cand = draw(np.random.default_rng(seed), sims, n)
    if base is None:
        hits = sum(gate_bounds.gate_decision(row, margin, ALPHA).verdict == "PASS" for row in cand)
    else:
        hits = sum(gate_bounds.gate_decision(c - b, margin, ALPHA, arms=(b, c) if use_arms else None).verdict
                   == "PASS" for b, c in zip(base, cand))
    return _rate(hits, sims)


def normal_arms(sd: float = 0.5):
    def arms(rng, sims, n):
        return rng.normal(0, sd, (sims, n)), rng.normal(0, sd, (sims, n))
    return arms


#: power: identical arms, PASS wanted (name, arms, margin); the gate with the arms' skewness and without
POWER = [("normal rewards, identical arms, sd 0.5 each (differences N(0, 0.71)), margin 0.5", normal_arms(), 0.5),
         ("lognormal rewards, identical arms (r 0, rho 0.5), margin 0.5 e^0.5", scaled(0.0, 0.5)[0],
          0.5 * math.exp(0.5))]


#: the reading under the tables (kept here so that `--update` does not drop it; its figures are from the
#: 2,000-sim run of 2026-12-03; the fresh-seed figures are the same cells with each seed + 53,600)
READING = """\
Why the differences' skew check missed these shapes (issue 37 item 4): a false PASS comes from seeds on which
the baseline's rare large rewards did not occur, or on which the candidate's did, and the *differences* then
look symmetric or right-skewed. So `check` also reads each arm's skewness, twice. `gate_bounds.arm_skew_z` /
`arm_skew_alpha`, the tail the seeds may have *missed*: when a right-skewed baseline leans more than 0.5 / 1.5 /
2.5 standard errors against a PASS while the candidate is right-skewed too (or a left-skewed candidate while
the baseline is left-skewed too; the mirror image against a FAIL), the verdict must also hold at alpha / 2 /
4 / 8. `gate_bounds.arm_tail_z` / `arm_tail_alpha`, the tail the seeds *show*: in a skewed arm the sample's
skewness and its mean go together, so when a right-skewed candidate leans more than 1.5 / 2.5 standard errors
against a PASS while the baseline is right-skewed too (or a left-skewed baseline while the candidate is
left-skewed too; the mirror against a FAIL), the verdict must also hold at alpha / 4 / 8. The verdict must
hold at the smaller of the two alphas. One skewed arm alone shows in the differences' own skewness.

Before either (differences only, same draws): 0.058-0.112 on the scaled-down candidate and up to 0.089 on the
per-seed effect with tau 0.5. With the missed-tail rule alone the candidate at half the baseline with
log-correlation 0.5 (r 0.5, rho 0.5) PASSed 0.060 / 0.070 / 0.060 / 0.061 / 0.053 at n = 6 / 8 / 10 / 14 / 20
(an xfail until then): in its false PASSes the candidate leaned a median 1.7 standard errors right, the
baseline 0.6. With both rules every cell above is at most 0.055 (0.05 + MC error at 2,000 data sets: 0.060).
The shown-tail steps were chosen on these draws; on fresh draws (each cell's seed + 53,600, 2,000 per
cell) the largest cell was the same one, 0.059 at n = 6 (0.054 / 0.054 / 0.036 / 0.035 at n = 8-20), and the
mirrored lognormal differences 0.051 at n = 14 (within MC error of 0.05). The price, in the power table:
identical normal arms (margin 0.5, differences N(0, 0.71)) PASS 0.455 at n = 10 and 0.830 at n = 20 (0.467 /
0.842 with the missed-tail rule alone, 0.500 / 0.873 with neither); identical lognormal arms 0.191 at n = 10
(0.235 / 0.379). The calibration grid's first tables (`python benchmarks/calibration.py --only unbounded-gate
--sims 2000`, rerun with both rules) give the arms to the gate too: identical normal arms with a shared seed
effect PASS 0.416 / 0.826 at n = 10 / 20 (0.425 / 0.837 with the missed-tail rule alone, 0.484 / 0.871 with
neither), and the "lognormal differences" shape, whose arms are both lognormal though the baseline cancels
from the differences, 0.013 / 0.015 (0.064 / 0.178 with neither): the rules cannot tell a masked tail from a
cancelled one.
The skew_gate.py tables above draw differences only. Asserted by `python3 -m pytest -m slow
tests/test_skew_rewards.py` (1,000 data sets per cell, n = 6, 10, 20).
"""


def power_grid(sims: int) -> list[tuple[str, list[tuple]]]:
    rows = []
    for s, (name, draw, margin) in enumerate(POWER):
        for use_arms, how in ((True, "gate (reads the arms)"), (False, "differences only (before issue 37 item 4)")):
            rows.append((f"{name}: {how}", [pass_rate(draw, margin, n, sims, seed=37_600 + 10 * s + n, use_arms=use_arms)
                                            for n in NS]))
            print(rows[-1][0], " ".join(f"{c[0]:.3f}" for c in rows[-1][1]), flush=True)
    return rows


def grid(sims: int) -> list[tuple[str, list[tuple]]]:
    rows = []
    for s, (name, draw, margin) in enumerate(SHAPES):
        rows.append((name, [pass_rate(draw, margin, n, sims, seed=37_400 + 10 * s + n) for n in NS]))
        print(name, " ".join(f"{c[0]:.3f}" for c in rows[-1][1]), flush=True)
    return rows


def section(sims: int) -> str:
    rows, power = grid(sims), power_grid(sims)
    lines = [HEADING, "",
             f"Generated by `python benchmarks/skew_rewards.py --sims {sims} --update docs/calibration.md`. "
             f"PASS at the margin (candidate worse on the mean by exactly the margin), share of {sims:,} seeded "
             "simulations per cell, ± 1.96 Monte Carlo standard errors; alpha 0.05, the default gate "
             "(skew-checked t + bootstrap-t). Rewards: base = exp(N(0, 1)); scaled-down candidate: "
             "(1 - r) exp(N(0, 1)) with log-correlation rho to the baseline on the same seed; per-seed effect: "
             "base exp(N(log(1 - r) - tau^2 / 2, tau)); margin r e^0.5 in both. The last row is the mirrored "
             "lognormal differences of the section above.", "",
             "| shape | " + " | ".join(f"n = {n}" for n in NS) + " |",
             "|---|" + "---|" * len(NS)]
    lines += [f"| {name} | " + " | ".join(_cell(c) for c in cells) + " |" for name, cells in rows]
    lines += ["", "### power: identical arms, PASS (the gate reading the arms' skewness, and on the differences only)",
              "", "| data | " + " | ".join(f"n = {n}" for n in NS) + " |", "|---|" + "---|" * len(NS)]
    lines += [f"| {name} | " + " | ".join(_cell(c) for c in cells) + " |" for name, cells in power]
    return "\n".join(lines) + "\n\n" + READING + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=2000)
    ap.add_argument("--update", type=Path)
    a = ap.parse_args()
    text = section(a.sims)
    if a.update:
        _update(a.update, text)
    print(text)


def _update(path: Path, text: str) -> None:
    """Replace this section (its heading to the next `## ` heading, or the end) in `path`, or append it."""
    old = path.read_text()
    if HEADING in old:
        head, _, rest = old.partition(HEADING)
        k = rest.find("\n## ")
        old = head + text + (rest[k + 1:] if k >= 0 else "")
    else:
        old = old.rstrip("\n") + "\n\n" + text
    path.write_text(old)


if __name__ == "__main__":
    main()
