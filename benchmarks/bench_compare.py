"""Speed and memory of compare on a 1,000,000-line results file (issue targets).

    python benchmarks/bench_compare.py [--arms 100 --seeds 10000] [--no-agentdescent]

Measures, in one run on this machine:
1. `costmatch compare --json` as a whole process: wall time and peak RSS
   (targets: <= 10 s, <= 1.5 GB).
2. The in-memory comparison (records already loaded; best of three runs
   on both sides) against
   agentdescent==0.7.0's compare() + to_markdown() on equivalent ArmResults,
   run in its own virtual environment (target: >= 10x faster).
3. All 4,950 paired comparisons of 100 arms x 10,000 seeds (target <= 2 s)
   against agentdescent's all-pairs separates().
Ratios are from one run on a shared machine; rerun to see the spread.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def agentdescent_python(root: Path) -> str:
    env = root / "agentdescent-0.7.0"
    python = env / "bin" / "python"
    if not python.exists():
        venv.create(env, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "agentdescent==0.7.0"], check=True)
    return str(python)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--arms", type=int, default=100)
    p.add_argument("--seeds", type=int, default=10000)
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "costmatch-bench"))
    p.add_argument("--no-agentdescent", action="store_true")
    a = p.parse_args()
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"results-{a.arms}x{a.seeds}.jsonl"
    if not data.exists():
        from make_results import write
        write(str(data), a.arms, a.seeds)
    print(f"input: {data} ({data.stat().st_size / 1e6:.0f} MB, {a.arms * a.seeds:,} lines)")

    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "baselines.cli", "compare", str(data), "--fixed", "tokens", "--json",
                           "--no-cache"],
                          cwd=HERE.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert proc.returncode == 0, proc.stderr
    print(f"1. costmatch compare --json, whole process: {wall:.2f} s wall, peak RSS {peak:.0f} MB")

    from baselines import compare
    from baselines.analysis.tables.table import RunTable
    from reports.markdown import comparison_markdown

    table = RunTable.read([data], cache=False)

    def best_of_three(func) -> float:  # as timeit does: the least disturbed of three runs
        times = []
        for _ in range(3):
            start = time.perf_counter()
            func()
            times.append(time.perf_counter() - start)
        return min(times)

    # the work agentdescent's compare + to_markdown do: flags and per-arm summaries
    ours = best_of_three(lambda: comparison_markdown(compare(table, fixed="tokens", pairs=False)))
    ours_full = best_of_three(lambda: comparison_markdown(compare(table, fixed="tokens")))
    comparison = compare(table, fixed="tokens")
    pairs = comparison.groups[0].pairs
    import numpy as np
    from baselines.analysis.statistics.stats import all_pairs
    frame = table.frame
    arms = sorted(frame["arm"].astype(str).unique())
    matrix = np.vstack([frame.loc[frame["arm"] == arm].sort_values("seed")["reward"].to_numpy() for arm in arms])
    pair_time = best_of_three(lambda: all_pairs(arms, matrix))
    result = all_pairs(arms, matrix)
    print(f"2. in-memory compare() + markdown, flags and per-arm summaries: {ours:.3f} s; "
          f"with all {len(pairs):,} paired tests as well: {ours_full:.2f} s")
    print(f"3. all pairs alone ({len(result):,} paired comparisons of {matrix.shape[1]:,} seeds): {pair_time:.2f} s")

    if a.no_agentdescent:
        return
    python = agentdescent_python(work)
    out = subprocess.run([python, str(HERE / "_agentdescent_side.py"), str(data), "pairs"],
                         capture_output=True, text=True, check=True)
    theirs = json.loads(out.stdout)
    print(f"   agentdescent 0.7.0 compare() + to_markdown(): {theirs['compare_markdown_s']:.2f} s "
          f"-> costmatch is {theirs['compare_markdown_s'] / ours:.1f}x faster on the same work, "
          f"{theirs['compare_markdown_s'] / ours_full:.1f}x with every paired test added")
    print(f"   agentdescent 0.7.0 separates() over all {theirs['pairs']:,} pairs: "
          f"{theirs['separates_all_pairs_s']:.1f} s -> costmatch all pairs is "
          f"{theirs['separates_all_pairs_s'] / pair_time:.0f}x faster")


if __name__ == "__main__":
    main()
