"""Sign-flip cost by seed count and by arm count (issue 19 item 1).

    python benchmarks/bench_signflip.py [--repeats 3]

Times `stats.all_pairs` (every pair: t, sign-flip p, interval) in this
process on normal rewards, CPU time (time.process_time) and wall, median of
`--repeats`. The claim is about shapes: the cost per line must not explode
with the seed count, so 100 arms x 100 seeds and 100 arms x 1,000 seeds are
set beside the same number of lines at 10 seeds (1,000 and 10,000 arms
would be 0.5M and 50M pairs, so the line-matched rows use `--baseline`-style
pairs against one arm, which is what a large group gets by default once
issue 19 item 2 lands, and all pairs for 100 arms).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.statistics import stats  # noqa: E402


def one(arms: int, seeds: int, baseline: bool, repeats: int) -> tuple[float, float, int, str]:
    rng = np.random.default_rng(arms * 7 + seeds)
    matrix = rng.normal(0, 1, (arms, seeds)) + rng.normal(0, 1, seeds)
    names = [f"arm{i:05d}" for i in range(arms)]
    cpu, wall = [], []
    pairs = []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        pairs = stats.all_pairs(names, matrix, seed=1, baseline=names[0] if baseline else None)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), len(pairs), pairs[0].p_method


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    shapes = [(100, 10, False), (100, 20, False), (100, 100, False), (100, 1000, False),
              (1000, 10, True), (10000, 10, True), (100, 100, True), (100, 1000, True)]
    print("| arms x seeds | lines | pairs | p method | CPU s | wall s | CPU ms per pair |")
    print("|---|---|---|---|---|---|---|")
    for arms, seeds, base in shapes:
        cpu, wall, n, method = one(arms, seeds, base, a.repeats)
        print(f"| {arms} x {seeds}{' (vs one arm)' if base else ''} | {arms * seeds:,} | {n:,} | {method} | "
              f"{cpu:.3f} | {wall:.3f} | {1000 * cpu / n:.3f} |")
