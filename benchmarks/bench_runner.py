"""Runner speed: harness overhead per cell, and parallel speed-up on CPU-bound cells.

    python benchmarks/bench_runner.py [--cells 10000] [--cpu-cells 16 --spin 3000000]

1. 10,000 trivial cells through `costmatch run --jobs 2` against the same
   function through a bare `joblib.Parallel(n_jobs=2)`: the ratio of wall
   times and cells per second. The harness does more per cell (import and
   build the workload and arm, meter, validate, write and flush one line).
2. CPU-bound cells (a pure-Python loop, about a second each) with `--jobs 2` against `--jobs 1`
   (target: at least 1.7x on 2 cores).
Figures are from one run on a shared machine.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

SUITE = """
seeds = {seeds}
jobs = 2
[arms.once]
path = "benchmarks.trivial:Once"
params = {{ spin = {spin} }}
[[workloads]]
name = "trivial"
path = "benchmarks.trivial:Trivial"
fixed = "calls"
budget = {{ calls = 2 }}
arms = ["once"]
"""


def run_cli(suite: Path, out: Path, jobs: int) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out), "--quiet",
                           "--no-plots", "--jobs", str(jobs), "--fresh"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return wall


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cells", type=int, default=10000)
    p.add_argument("--cpu-cells", type=int, default=16)
    p.add_argument("--spin", type=int, default=15_000_000)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="costmatch-bench-runner-"))

    suite = work / "trivial.toml"
    suite.write_text(SUITE.format(seeds=a.cells, spin=0))
    ours = run_cli(suite, work / "out-trivial", 2)

    import joblib
    from benchmarks.trivial import work as cell_work
    start = time.perf_counter()
    joblib.Parallel(n_jobs=2)(joblib.delayed(cell_work)(i, 0) for i in range(a.cells))
    bare = time.perf_counter() - start
    print(f"1. {a.cells:,} trivial cells: costmatch run --jobs 2 {ours:.1f} s ({a.cells / ours:,.0f} cells/s, "
          f"whole process); bare joblib.Parallel(n_jobs=2) {bare:.2f} s ({a.cells / bare:,.0f} cells/s); "
          f"ratio {ours / bare:.1f}x")

    cpu = work / "cpu.toml"
    cpu.write_text(SUITE.format(seeds=a.cpu_cells, spin=a.spin))
    one = run_cli(cpu, work / "out-cpu-1", 1)
    two = run_cli(cpu, work / "out-cpu-2", 2)
    print(f"2. {a.cpu_cells} CPU-bound cells: --jobs 1 {one:.1f} s, --jobs 2 {two:.1f} s: speed-up {one / two:.2f}x")


if __name__ == "__main__":
    main()
