"""Issue 37 item 3, bounded rewards: the mean claim's "would likely be missed" difference, from the procedure
that decides.

    python benchmarks/mean_power_bounded.py [--sims 600] [--ns 6-14,16] [--write]
    python benchmarks/mean_power_bounded.py --check --sims 2000

On bounded rewards (a declared reward_range, or 0/1 rewards) the mean verdict
needs all three of: the paired t p and the exact sign-flip p (exact McNemar on
pass/fail outcomes) below Holm's first-step level, and the betting interval
(`pair_interval`: one-sided alpha / 2 each, alpha 0.05) excluding 0. This
script simulates exactly that on two data models, in units of the range's
width w (differences lie in [-w, w]):
- **continuous**: per-seed differences delta + s Z, Z standard normal,
  clipped to [-w, w]; one row per spread s / w in `SPREADS`;
- **pass/fail**: every difference -w, 0 or +w; a share q of the seeds differ
  (`DISCORDANT`), and of those (q + delta / w) / 2 favour a.
Per n, level and spread (or q) it writes the smallest delta / w decided in
`POWER` (0.8) of the data sets (common random numbers over a grid of delta,
linear interpolation; None: no delta inside the range reaches 0.8).
`--write` stores the rows of `--ns` in
baselines/analysis/statistics/mean_power_bounded_table.py, keeping its other
rows.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.statistics.betting import diff_bounds_many  # noqa: E402
from baselines.analysis.statistics.sign_flip import sign_flip_rows  # noqa: E402
from baselines.analysis.statistics.mean_power import bounded_floor  # noqa: E402
from benchmarks.mean_power import ALPHA, LEVELS, POWER, crossing  # noqa: E402

NS = tuple(range(6, 15)) + (16, 18, 20, 25, 30)
SPREADS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
DISCORDANT = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
DELTAS = np.round(np.arange(0.02, 1.0001, 0.02), 4)
OUT = Path(__file__).resolve().parents[1] / "baselines/analysis/statistics/mean_power_bounded_table.py"


def decided_many(d: np.ndarray, width: float = 1.0, levels=LEVELS) -> np.ndarray:
    """(levels x rows): the mean verdict decides a>b at each Holm first-step level (t, sign-flip, betting)."""
    n = d.shape[1]
    mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
    flat = sd <= 1e-12 * np.maximum(1.0, np.abs(mean))
    with np.errstate(divide="ignore", invalid="ignore"):
        p_t = np.where(flat, np.where(mean == 0, 1.0, 0.0),
                       2 * special.stdtr(n - 1, -np.abs(mean) / (sd / math.sqrt(n))))
    p_sf, _ = sign_flip_rows(d, 0)
    lo, _ = diff_bounds_many(d, ALPHA / 2, width)
    ok = (mean > 0) & (lo > 0)
    p = np.maximum(p_t, p_sf)
    return np.array([ok & (p < level) for level in levels])


def _start(n: int) -> float:
    """Below 0.9 x the betting floor (constant differences, the least spread) nothing is decided: skipped."""
    floor = bounded_floor(n, LEVELS[0], ALPHA, 0.0, 1.0)
    return 0.9 * floor if floor is not None else math.inf


def continuous_curve(n: int, spread: float, sims: int, seed: int) -> np.ndarray:
    """Decided share (levels x DELTAS) of clipped normal differences with sd `spread` (width 1)."""
    z = np.random.default_rng(seed).normal(0.0, 1.0, (sims, n))
    out = np.zeros((len(LEVELS), len(DELTAS)))
    start = _start(n)
    for j, delta in enumerate(DELTAS):
        if delta < start:
            continue
        out[:, j] = decided_many(np.clip(delta + spread * z, -1.0, 1.0)).mean(axis=1)
        if out[-1, j] >= 0.999:
            out[:, j + 1:] = 1.0
            break
    return out


def passfail_curve(n: int, q: float, sims: int, seed: int) -> np.ndarray:
    """Decided share (levels x DELTAS) of pass/fail differences with discordant share q (width 1)."""
    u = np.random.default_rng(seed).random((sims, n))
    out = np.zeros((len(LEVELS), len(DELTAS)))
    start = _start(n)
    for j, delta in enumerate(DELTAS):
        if delta < start:
            continue
        if delta > q + 1e-9:
            break                              # beyond q no data model: a > b on more seeds than differ
        p_win = (q + delta) / 2
        d = np.where(u < p_win, 1.0, np.where(u < q, -1.0, 0.0))
        out[:, j] = decided_many(d).mean(axis=1)
        if out[-1, j] >= 0.999:
            out[:, j + 1:] = 1.0
            break
    return out


def _row(curve: np.ndarray) -> tuple:
    return tuple(None if (x := crossing(DELTAS, curve[i], POWER)) is None else round(x, 3)
                 for i in range(len(LEVELS)))


def table(sims: int, ns=NS) -> tuple[dict, dict]:
    cont, pf = {}, {}
    for n in ns:
        cont[n] = tuple(_row(continuous_curve(n, s, sims, seed=37_300 + 100 * n + k)) for k, s in enumerate(SPREADS))
        pf[n] = tuple(_row(passfail_curve(n, q, sims, seed=37_200 + 100 * n + k)) for k, q in enumerate(DISCORDANT))
        print(n, "continuous", cont[n][3], "pass/fail q=0.5", pf[n][4], flush=True)
    return cont, pf


def _ns(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return tuple(out)


def _existing() -> tuple[dict, dict]:
    try:
        from baselines.analysis.statistics import mean_power_bounded_table as t
    except ImportError:
        return {}, {}
    same = tuple(t.LEVELS) == LEVELS and tuple(t.SPREADS) == SPREADS and tuple(t.DISCORDANT) == DISCORDANT
    return (dict(t.CONTINUOUS), dict(t.PASS_FAIL)) if same else ({}, {})


def beta_diffs(rng, sims: int, n: int, mean: float, sd: float = 0.1) -> np.ndarray:
    """Beta(2, 5)-shaped per-seed differences with this mean and sd (the issue's bounded shape)."""
    from scipy import stats as st
    m, v = st.beta.stats(2, 5, moments="mv")
    return mean + sd * (rng.beta(2, 5, (sims, n)) - m) / math.sqrt(v)


def passfail_diffs(rng, sims: int, n: int, q: float, delta: float) -> np.ndarray:
    u = rng.random((sims, n))
    return np.where(u < (q + delta) / 2, 1.0, np.where(u < q, -1.0, 0.0))


CHECKS = [("Beta(2, 5)-shaped, sd 0.1", None, 1), ("0/1, all seeds differ (q 1.0)", 1.0, 1),
          ("0/1, q 0.6", 0.6, 1), ("0/1, q 0.5", 0.5, 1),
          ("Beta(2, 5)-shaped, sd 0.1, 21 pairs (Holm: p < 0.05 / 21 first)", None, 21)]


def check(sims: int, ns=(5, 10, 20)) -> list[str]:
    """At the difference the note prints (one pair, rewards in [0, 1]), the share of data sets decided."""
    from baselines.analysis.statistics.mean_power import bounded_factor
    from baselines.analysis.statistics.sign_flip import min_exact_p
    lines = ["| shape | " + " | ".join(f"n={n}" for n in ns) + " |", "|---|" + "---|" * len(ns)]
    for k, (name, q, family) in enumerate(CHECKS):
        cells = []
        level = ALPHA / family
        for n in ns:
            if min_exact_p(n) >= level:
                cells.append("no figure (no sign-flip p reaches the level)")
                continue
            got = bounded_factor(n, level, ALPHA, 0.0, 1.0, 0.1 if q is None else math.nan, q)
            x = got[0] if got else None
            if x is None:
                cells.append("no figure (\"no difference inside the reward range would likely be decided\")")
                continue
            rng = np.random.default_rng(37_500 + 100 * k + n)
            d = beta_diffs(rng, sims, n, x) if q is None else passfail_diffs(rng, sims, n, q, x)
            share = float(decided_many(d, levels=(level,))[0].mean())
            cells.append(f"{share:.3f} ± {1.96 * math.sqrt(share * (1 - share) / sims):.3f} (X = {x:.3f})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=600)
    ap.add_argument("--ns", default=None, help="seed counts, e.g. 6-14,16 (default: all of NS)")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true", help="only the decided share at the printed difference")
    a = ap.parse_args()
    if a.check:
        print("\n".join(check(a.sims)))
        return
    cont, pf = table(a.sims, _ns(a.ns) if a.ns else NS)
    if a.write:
        old_c, old_p = _existing()
        cont, pf = {**old_c, **cont}, {**old_p, **pf}

        def body(rows):
            return "\n".join(f"    {n}: (\n" + "".join(f"        {r!r},\n" for r in rows[n]) + "    )," for n in sorted(rows))
        OUT.write_text(
            '"""Generated by `python benchmarks/mean_power_bounded.py --sims %d --ns N --write` (rows made apart); '
            "do not edit by hand.\n\n"
            "delta / w (w: the reward range's width) at which the mean verdict on bounded rewards (t and exact\n"
            "sign-flip p below the level, betting interval at 95%% excluding 0) decides a>b in 0.8 of data sets of n\n"
            "paired differences; None: no delta inside the range does. CONTINUOUS[n][k]: clipped normal\n"
            "differences with sd SPREADS[k] * w; PASS_FAIL[n][k]: differences in {-w, 0, w}, a share\n"
            'DISCORDANT[k] of seeds differing. Innermost: LEVELS (Holm\'s first step, alpha / tests)."""\n\n'
            "SIMS = %d\nINTERVAL_ALPHA = %r\nLEVELS = %r\nSPREADS = %r\nDISCORDANT = %r\nCONTINUOUS = {\n%s\n}\n"
            "PASS_FAIL = {\n%s\n}\n" % (a.sims, a.sims, ALPHA, LEVELS, SPREADS, DISCORDANT, body(cont), body(pf)))
        print("wrote", OUT)


if __name__ == "__main__":
    main()
