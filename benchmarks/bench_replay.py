"""Replay at size: the one-pool curve of a 500-problem x 80-sample file, and a 5-arm x 10-seed suite on it.

    python benchmarks/bench_replay.py [--problems 500] [--samples 80] [--draws 64] [--no-suite] [--rerun]

1. Budget curves (baselines.analysis.curves.tts_curves: majority@n for n = 1..80, the adaptive
   rule at ten settings, the oracle, and the paired difference with a
   1,000-resample band): CPU seconds, against a plain Python loop that walks
   the same orderings of the pool one sample at a time (the results must be
   identical; the ratio is printed); with --rerun also against majority@n
   recomputed from scratch for every n (the approach the walk replaces).
2. `costmatch run` of a suite of 5 arms x 10 seeds on two such files (two
   "models"), 2 jobs, at 8 samples' worth of tokens per problem: wall seconds
   of the whole command (cells, report and figures). Target: under a minute.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from baselines.analysis.curves.tts_curves import compare_curves, orderings, pool_curves, walk  # noqa: E402
from benchmarks.replay_synthetic import write_synthetic  # noqa: E402
from workloads.replay import Replay  # noqa: E402

SUITE = """name = "replay-bench"
seeds = 10
jobs = 2
[arms.first]
path = "arms.replay_tts:FirstSample"
params = {{ model = "m1" }}
[arms.majority]
path = "arms.replay_tts:Majority"
params = {{ model = "m1" }}
[arms.majority-8]
path = "arms.replay_tts:Majority"
params = {{ n = 8, model = "m1" }}
[arms.adaptive]
path = "arms.replay_tts:AdaptiveMajority"
params = {{ model = "m1" }}
[arms.mix]
path = "arms.replay_tts:ModelMix"
params = {{ models = ["m1", "m2"] }}
[[workloads]]
name = "synth"
path = "workloads.replay:Replay"
params = {{ benchmark = "synth", folder = "{folder}" }}
fixed = "completion_tokens"
budget = {{ completion_tokens = {budget} }}
arms = ["first", "majority", "majority-8", "adaptive", "mix"]
"""


def plain_loop(codes: np.ndarray, gold: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Majority right after each draw, walking each ordering one sample at a time (ties to the first seen)."""
    problems, draws, width = order.shape
    correct = np.zeros(order.shape, bool)
    for p in range(problems):
        row, target = codes[p].tolist(), int(gold[p])
        for r in range(draws):
            counts: dict[int, int] = {}
            rank: dict[int, int] = {}
            leader = None
            for t, column in enumerate(order[p, r].tolist()):
                code = row[column]
                if code >= 0:
                    counts[code] = counts.get(code, 0) + 1
                    rank.setdefault(code, len(rank))
                    if leader is None or counts[code] > counts[leader] or (
                            counts[code] == counts[leader] and rank[code] < rank[leader]):
                        leader = code  # a tie goes to the answer seen first
                correct[p, r, t] = leader is not None and leader == target and target >= 0
    return correct


def rerun_each_n(codes: np.ndarray, gold: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The loop the one-pool walk replaces: majority@n recomputed from scratch for every n (Counter ties to the
    first seen: most_common keeps insertion order among equal counts)."""
    problems, draws, width = order.shape
    correct = np.zeros(order.shape, bool)
    for n in range(1, width + 1):
        for p in range(problems):
            row, target = codes[p], int(gold[p])
            for r in range(draws):
                votes = Counter(c for c in row[order[p, r, :n]].tolist() if c >= 0)
                correct[p, r, n - 1] = bool(votes) and target >= 0 and votes.most_common(1)[0][0] == target
    return correct


def bench_curves(folder: Path, draws: int, rerun: bool) -> None:
    pools = Replay(benchmark="synth", folder=str(folder), models=["m1"]).pools
    pool = pools.pools["m1"]
    start = time.process_time()
    curves = pool_curves(pool.codes, pool.tokens, pool.sizes, pools.gold_codes, draws=draws)
    difference = compare_curves(curves["adaptive"], curves["majority"])
    fast = time.process_time() - start
    order = orderings(pool.sizes, pool.codes.shape[1], draws, 0)
    start = time.process_time()
    slow_correct = plain_loop(pool.codes, pools.gold_codes, order)
    slow = time.process_time() - start
    same = np.array_equal(slow_correct, walk(pool.codes, pool.tokens, pool.sizes, pools.gold_codes, order).correct)
    problems, width = pool.codes.shape
    if rerun:
        start = time.process_time()
        again = rerun_each_n(pool.codes, pools.gold_codes, order)
        naive = time.process_time() - start
        print(f"curves: majority@n re-run for every n (Counter per n, problem and ordering): {naive:.1f} s CPU; "
              f"ratio to the one-pool walk {naive / fast:.0f}x; identical outcomes: {np.array_equal(again, slow_correct)}")
    print(f"curves: {problems} problems x {width} samples, {draws} orderings: majority@1..{width}, adaptive at "
          f"{len(curves['adaptive'].settings)} settings, oracle, paired band: {fast:.2f} s CPU; plain loop over the "
          f"same orderings (majority only): {slow:.2f} s CPU; ratio {slow / fast:.1f}x; identical outcomes: {same}")
    print(f"  majority@1 {curves['majority'].accuracy[0]:.3f}, majority@{width} {curves['majority'].accuracy[-1]:.3f}, "
          f"oracle@{width} {curves['oracle'].accuracy[-1]:.3f}; crossovers {[round(x) for x in difference.crossovers]}")


def bench_suite(folder: Path, budget: int) -> None:
    suite = folder / "suite.toml"
    suite.write_text(SUITE.format(folder=folder, budget=budget))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(folder / "out"),
                           "--quiet"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    cells = sum(1 for _ in open(folder / "out" / "results.jsonl"))
    print(f"suite: 5 arms x 10 seeds = {cells} cells at {budget:,} completion tokens each, report and figures: "
          f"{wall:.1f} s wall (exit {proc.returncode}){' ' + proc.stderr.strip()[-300:] if proc.returncode else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=500)
    parser.add_argument("--samples", type=int, default=80)
    parser.add_argument("--draws", type=int, default=64)
    parser.add_argument("--no-suite", action="store_true")
    parser.add_argument("--rerun", action="store_true", help="also time majority@n re-run for every n (slow)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="costmatch-replay-"))
    write_synthetic(folder / "synth_m1.jsonl", args.problems, args.samples, seed=0)
    write_synthetic(folder / "synth_m2.jsonl", args.problems, args.samples, seed=1)
    bench_curves(folder, args.draws, args.rerun)
    if not args.no_suite:
        pool = Replay(benchmark="synth", folder=str(folder), models=["m1"]).pools.pools["m1"]
        bench_suite(folder, int(8 * pool.tokens.sum() / pool.sizes.sum() * args.problems))


if __name__ == "__main__":
    main()
