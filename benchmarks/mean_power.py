"""Issue 37 item 3: the mean claim's "would likely be missed" difference, from the procedure that decides.

    python benchmarks/mean_power.py [--sims 1000] [--ns 6-14,20] [--write]

The mean verdict on a paired pair of unbounded rewards needs all three of:
the paired t p and the exact sign-flip p (Monte Carlo above 14 seeds, as the
tool computes it) below the level Holm's first step asks (alpha / tests), and
the printed interval (the t + bootstrap-t hull at 1 - alpha, `pair_interval`)
excluding 0. This script simulates exactly that on the data model the printed
figure assumes: normal per-seed differences with sd 1 and mean delta
(common random numbers over a grid of delta), and writes, per n and level, the
smallest delta / sd decided in `POWER` (0.8) of the data sets, by linear
interpolation on the grid. `--write` stores the rows of `--ns` in
baselines/analysis/statistics/mean_power_table.py, keeping its other rows
(shipped: the simulation is too slow to run at report time; above 14 seeds the
Monte Carlo sign-flip p makes a row take minutes, so rows can be made apart). The interval level is alpha = 0.05's; other
alphas fall back to the noncentral-t figure, and the note says so.
The hull and the t statistic are shift-equivariant (the bootstrap resamples
with a fixed seed), so they are computed once per data set; the sign-flip p is
recomputed at every delta.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.statistics.pair_interval import block_intervals  # noqa: E402
from baselines.analysis.statistics.sign_flip import sign_flip_rows  # noqa: E402

ALPHA = 0.05
POWER = 0.8
NS = tuple(range(6, 21)) + (25, 30, 40, 50)
LEVELS = (0.05, 0.025, 0.0167, 0.01, 0.005, 0.0025, 0.001, 0.0005)
DELTAS = np.round(np.concatenate([np.arange(0.1, 4.0001, 0.1), np.arange(4.25, 6.0001, 0.25)]), 4)
OUT = Path(__file__).resolve().parents[1] / "baselines/analysis/statistics/mean_power_table.py"


def decided(d: np.ndarray, level: float, hull_lo: np.ndarray) -> np.ndarray:
    """Rows the mean verdict decides a>b at Holm's first step `level` (t, sign-flip and interval all agree)."""
    n = d.shape[1]
    mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
    p_t = 2 * special.stdtr(n - 1, -np.abs(mean) / (sd / math.sqrt(n)))
    p_sf, _ = sign_flip_rows(d, 0)
    return (np.maximum(p_t, p_sf) < level) & (mean > 0) & (hull_lo > 0)


def curve(n: int, sims: int, seed: int, deltas=DELTAS, levels=LEVELS) -> np.ndarray:
    """Decided share (levels x deltas) on normal differences with sd 1."""
    z = np.random.default_rng(seed).normal(0.0, 1.0, (sims, n))
    lo, _, _ = block_intervals(z, z.mean(axis=1), z.std(axis=1, ddof=1), 1 - ALPHA, None, 0)
    out = np.zeros((len(levels), len(deltas)))
    for j, delta in enumerate(deltas):
        d = z + delta
        for i, level in enumerate(levels):
            out[i, j] = decided(d, level, lo + delta).mean()
    return out


def crossing(deltas: np.ndarray, share: np.ndarray, power: float = POWER) -> float | None:
    """The smallest delta at which the (monotone-smoothed) share reaches `power`, interpolated; None if never."""
    s = np.maximum.accumulate(share)
    k = np.flatnonzero(s >= power)
    if not k.size:
        return None
    k = int(k[0])
    if k == 0:
        return float(deltas[0])
    x0, x1, y0, y1 = deltas[k - 1], deltas[k], s[k - 1], s[k]
    return float(x0 + (power - y0) * (x1 - x0) / (y1 - y0)) if y1 > y0 else float(x1)


def table(sims: int, ns=NS) -> dict:
    rows = {}
    for n in ns:
        c = curve(n, sims, seed=37_000 + n)
        rows[n] = tuple(None if (x := crossing(DELTAS, c[i])) is None else round(x, 3) for i in range(len(LEVELS)))
        print(n, rows[n], flush=True)
    return rows


def _ns(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return tuple(out)


def _existing() -> dict:
    """The rows already in the shipped table (made with the same sims and levels), or none."""
    try:
        from baselines.analysis.statistics import mean_power_table as t
    except ImportError:
        return {}
    return dict(t.FACTORS) if tuple(t.LEVELS) == LEVELS else {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=1000)
    ap.add_argument("--ns", default=None, help="seed counts, e.g. 6-14,20 (default: all of NS)")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    rows = table(a.sims, _ns(a.ns) if a.ns else NS)
    if a.write:
        rows = {**_existing(), **rows}
        rows = {n: rows[n] for n in sorted(rows)}
        body = "\n".join(f"    {n}: {r!r}," for n, r in rows.items())
        OUT.write_text(
            '"""Generated by `python benchmarks/mean_power.py --sims %d --ns N --write` (rows made apart); do not edit by hand.\n\n'
            "delta / sd at which the mean verdict (t and exact sign-flip p below the level, t + bootstrap-t hull at\n"
            "95%% excluding 0) decides a>b in 0.8 of data sets of n normal paired differences; None: never, up to\n"
            '6 sd. Columns: LEVELS (Holm\'s first step, alpha / tests)."""\n\n'
            "SIMS = %d\nINTERVAL_ALPHA = %r\nLEVELS = %r\nFACTORS = {\n%s\n}\n" % (a.sims, a.sims, ALPHA, LEVELS, body))
        print("wrote", OUT)


if __name__ == "__main__":
    main()
