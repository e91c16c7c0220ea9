"""Checks exact_paired's tie tolerance against 60-digit arithmetic, and the equivalence reasons of
exact_paired.toml for ni_pvalue's upper guard and the tolerance's mutants.

    python benchmarks/mutation_equivalent/exact_paired_edges.py [--depth 16] [--max-n 60]

1. The guard `delta0 >= 1` (mutants `> 1`, `>= 2`): for delta0 in [1, 2) the unguarded body must give 1.0,
   the guard's answer, for every n <= max-n and every observed outcome.
2. The tolerance of `at_least_as_extreme`, `z_all >= z_obs - TIE_RTOL * max(1, |z_obs|)`: at every delta0 lower_bound's bisection can
   visit (its whole tree to `--depth` levels, the points computed as it computes them) and at +-margin for
   margins 0, 0.001, ..., 1 (exact_decision), for every n <= max-n and every observed outcome with a finite
   statistic, each outcome within 1e-8 (relative) below z_obs is decided in 60 digits (the tests' own
   reference, at delta0 as written): a tie left out or a non-tie let in is an error. The mutants `>`,
   `TIE_RTOL / max(...)` and `max(2.0, ...)` are counted where their reject set differs from the module's
   (a set is the outcomes above a threshold: equal iff as many).
Each near-tie error and mutant difference is then turned into p-values. Exit 1 on a tie left out, on any
difference of `>` or `max(2.0, ...)`, or on a p >= 1e-10 that any of them moves by more than 1e-9 relative.

2026-12-04 20:16:52-20:31 UTC (depth 16, n 1-60, exit 0): guard 277,970 cases, 0 not 1.0; 2,681,814,910
cases, 19,295 near pairs decided in 60 digits: 5,775 ties (float gaps up to 9.9e-14 of the scale), 0 left out;
5 non-ties let in (float gaps from 2.1e-13; 60-digit gaps 2.1e-13 to 1.3e-12; every p unchanged to the last bit); `>` 0 and `max(2.0, ...)` 0 differences; `TIE_RTOL / max`
14 (|z| 3.4-1629, near delta0 = +-1 and +-0.96: 13 p unchanged, one 3.85e-74 moved by 3e-7 relative).
"""
from __future__ import annotations

import argparse
import math
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np

from baselines.analysis.statistics import exact_paired as ep


def unguarded(n: int, delta0: float) -> list[float]:
    """ni_pvalue's body after its guards, for every observed outcome of n seeds."""
    x10s, x01s, _, _ = ep._outcomes(n)
    z_all = ep.score_statistic(x10s, x01s, n, delta0)
    out = []
    for x10, x01 in zip(x10s, x01s):
        z_obs = float(ep.score_statistic(np.array([x10]), np.array([x01]), n, delta0)[0])
        out.append(ep._tail_sup(n, delta0, ep.at_least_as_extreme(z_all, z_obs)))
    return out


def bisection_points(depth: int) -> list[float]:
    """Every midpoint lower_bound can evaluate: the tree of its (lo, hi) intervals, midpoints as it computes them."""
    points, level = [], [(-1.0, 1.0)]
    for _ in range(depth):
        nxt = []
        for lo, hi in level:
            mid = (lo + hi) / 2
            points.append(mid)
            nxt += [(mid, hi), (lo, mid)]
        level = nxt
    return points


def precise_z_of():
    """The 60-digit statistic of tests/test_mutants_exact_paired__ties.py (the tests' reference, reused)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
    from test_mutants_exact_paired__ties import precise_z
    return precise_z


def tolerance_check(n: int, deltas: list[float], window: float = 1e-8, examples: list | None = None) -> dict[str, int]:
    """Per observed outcome with a finite z: the module's reject set against the mathematical one, and each
    mutant's set against the module's. Outcomes within `window` (relative) below z_obs are decided in 60
    digits; those further below are not at least as extreme however the tolerance is varied."""
    precise_z = precise_z_of()
    rtol = ep.TIE_RTOL
    x10s, x01s, _, _ = ep._outcomes(n)
    out = dict.fromkeys(["cases", "near pairs", "ties", "largest tie gap e-15", "ties left out", "non-ties let in",
                         "> instead of >=", "rtol / max(1, |z|)", "rtol * max(2, |z|)"], 0)
    out["smallest non-tie gap e-15"] = math.inf
    for delta0 in deltas:
        z = ep.score_statistic(x10s, x01s, n, delta0)
        order = np.argsort(z, kind="stable")
        zs = z[order]
        finite = np.flatnonzero(np.isfinite(z))
        obs = z[finite]
        scale = np.maximum(1.0, np.abs(obs))
        out["cases"] += obs.size
        base = np.searchsorted(zs, obs - rtol * scale, side="left")
        out["> instead of >="] += int(np.sum(np.searchsorted(zs, obs - rtol * scale, side="right") != base))
        narrow = np.searchsorted(zs, obs - rtol / scale, side="left") != base
        out["rtol / max(1, |z|)"] += int(np.sum(narrow))
        if examples is not None:
            examples += [("rtol / max(1, |z|) differs", n, delta0, int(x10s[finite[k]]), int(x01s[finite[k]]),
                          float(obs[k])) for k in np.flatnonzero(narrow)]
        wide = np.maximum(2.0, np.abs(obs))
        out["rtol * max(2, |z|)"] += int(np.sum(np.searchsorted(zs, obs - rtol * wide, side="left") != base))
        lo = np.searchsorted(zs, obs - window * scale, side="left")
        hi = np.searchsorted(zs, obs, side="left")
        exact = {}
        d = Decimal(repr(delta0))   # the value as written (0.2, not the binary 0.2000000000000000111)
        for k in np.flatnonzero(hi > lo):
            i = finite[k]
            for j in order[lo[k]:hi[k]]:
                out["near pairs"] += 1
                for m in (i, j):
                    if m not in exact:
                        exact[m] = precise_z(int(x10s[m]), int(x01s[m]), n, d)
                tie = abs(exact[j] - exact[i]) < Decimal("1e-40")
                gap = round(float((z[i] - z[j]) / scale[k]) * 1e15)   # the float gap, relative, in units of 1e-15
                if tie:
                    out["ties"] += 1
                    out["largest tie gap e-15"] = max(out["largest tie gap e-15"], gap)
                elif exact[j] < exact[i]:
                    out["smallest non-tie gap e-15"] = min(out["smallest non-tie gap e-15"], gap)
                kept = z[j] >= z[i] - rtol * scale[k]
                wrong = "tie left out" if tie and not kept else "non-tie let in" if kept and not tie and exact[j] < exact[i] else ""
                out["ties left out"] += wrong == "tie left out"
                out["non-ties let in"] += wrong == "non-tie let in"
                if wrong and examples is not None:
                    examples.append((wrong, n, delta0, (int(x10s[i]), int(x01s[i])), (int(x10s[j]), int(x01s[j])),
                                     float(z[i]), float((z[j] - z[i]) / scale[k]), float((exact[j] - exact[i]) / Decimal(float(scale[k])))))
    return out


def pvalue_effect(n: int, delta0: float, observed: tuple[int, int], reject_other) -> tuple[float, float]:
    """(the module's p, p with `reject_other(z, z_obs, reject)`'s reject set instead) for one observed outcome."""
    x10s, x01s, _, _ = ep._outcomes(n)
    z = ep.score_statistic(x10s, x01s, n, delta0)
    z_obs = float(ep.score_statistic(np.array([observed[0]]), np.array([observed[1]]), n, delta0)[0])
    reject = ep.at_least_as_extreme(z, z_obs)
    other = reject_other(x10s, x01s, z, z_obs, reject)
    return ep._tail_sup(n, delta0, reject), ep._tail_sup(n, delta0, other)


def what_it_changes(examples: list) -> tuple[int, float]:
    """Each near-tie error or mutant difference turned into p-values: (how many change a p >= 1e-10 by more
    than 1e-9 relative, the largest relative change of any p)."""
    material, largest = 0, 0.0
    for example in examples:
        kind, n, delta0 = example[:3]
        if kind == "non-tie let in":
            j = example[4]
            rule = lambda a, b, z, z_obs, reject: reject & ~((a == j[0]) & (b == j[1]))
            observed = example[3]
        elif kind == "tie left out":
            j = example[4]
            rule = lambda a, b, z, z_obs, reject: reject | ((a == j[0]) & (b == j[1]))
            observed = example[3]
        else:   # the narrow mutant's own set
            rule = lambda a, b, z, z_obs, reject: z >= z_obs - ep.TIE_RTOL / max(1.0, abs(z_obs))
            observed = (example[3], example[4])
        p, q = pvalue_effect(n, delta0, observed, rule)
        change = abs(p - q) / max(p, q, 1e-300)
        largest = max(largest, change)
        material += int(max(p, q) >= 1e-10 and change > 1e-9)
        print(f"   {example}: p {p!r} -> {q!r}")
    return material, largest


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=ep.BISECTION_STEPS)
    parser.add_argument("--max-n", type=int, default=ep.EXACT_MAX_N)
    args = parser.parse_args()
    bad = 0
    guard_deltas = [1.0, float(np.nextafter(1.0, 2.0)), 1 + 1e-9, 1.25, 1.5, 1.999, float(np.nextafter(2.0, 1.0))]
    guard_cases = 0
    for n in range(1, args.max_n + 1):
        for delta0 in guard_deltas:
            values = unguarded(n, delta0)
            guard_cases += len(values)
            wrong = [v for v in values if v != 1.0]
            bad += len(wrong)
            if wrong:
                print(f"guard: n={n} delta0={delta0!r}: {len(wrong)} outcomes not 1.0, e.g. {wrong[0]!r}")
    print(f"guard: {guard_cases} cases (n 1-{args.max_n}, delta0 in {guard_deltas}), {bad} not 1.0")
    deltas = bisection_points(args.depth)
    margins = [i / 1000 for i in range(1001)]
    deltas += [-m for m in margins] + margins[:-1]
    total, examples = {}, []
    for n in range(1, args.max_n + 1):
        for key, value in tolerance_check(n, deltas, examples=examples).items():
            if key.startswith("largest"):
                total[key] = max(total.get(key, 0), value)
            elif key.startswith("smallest"):
                total[key] = min(total.get(key, math.inf), value)
            else:
                total[key] = total.get(key, 0) + value
    print(f"tolerance {ep.TIE_RTOL}: {len(deltas)} delta0 values per n (the bisection tree to depth {args.depth} and "
          f"+-0.001 margins), n 1-{args.max_n}: {total}")
    material, largest = what_it_changes(examples)
    print(f"tolerance: {total['ties left out']} ties left out; {len(examples)} near-ties or mutant differences, "
          f"{material} of them changing a p >= 1e-10 by more than 1e-9 relative (largest change of any p: {largest:.2g})")
    bad += total["ties left out"] + total["> instead of >="] + total["rtol * max(2, |z|)"] + material
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
