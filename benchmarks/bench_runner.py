"""Runner speed, both sides timed the same way: whole processes, interleaved, medians and spread.

    python benchmarks/bench_runner.py [--cells 10000] [--repeats 5] [--cpu-cells 16 --spin 15000000]

1. N trivial cells: `costmatch run --jobs 2` (a whole process: start-up, suite
   check, workers, one validated line per cell, the report) against a whole
   `python` process that runs the same cell function through a bare
   `joblib.Parallel(n_jobs=2)`. The two are run alternately (A B A B ...) so a
   noisy neighbour hits both; the script prints the median, min and max wall
   time of each side, the median CPU time (the process and the workers it
   waited for) and the ratio of the wall medians (target: within 2x), with
   the load average, since a busy 2-core machine stretches the side with
   more processes more.
2. The parent's work per finished record with a 10 KB trace, in process: during
   the run (write and flush the line, parse the trace-free head the worker
   sent, keep the record; target under 100 µs) and after it (attach the
   traces in one pass, for the report).
3. CPU-bound cells (a pure-Python loop) with `--jobs 2` against `--jobs 1`.
4. One trivial cell's cost in a worker, in process (the per-cell path alone).
The machine is shared: quote the spread with the medians.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
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

BARE = """
import sys, joblib
sys.path.insert(0, {root!r})
from benchmarks.trivial import work
out = joblib.Parallel(n_jobs={jobs}, return_as="generator_unordered")(
    joblib.delayed(work)(i, 0) for i in range({cells}))
n = sum(1 for _ in out)
assert n == {cells}
"""


CPU: dict[int, list[float]] = {}  # id(wall list) -> CPU seconds of the same runs


def timed(cmd: list[str], into: list[float] | None = None) -> float:
    """Wall seconds of one whole process; with `into`, also its CPU seconds (user + system, the
    process and the workers it waited for), kept beside the wall times for `spread`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}...: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    if into is not None:
        into.append(wall)
        CPU.setdefault(id(into), []).append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall


def run_cli(suite: Path, out: Path, jobs: int, *extra: str, fresh: bool = True) -> list[str]:
    return [sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out), "--quiet",
            "--no-plots", "--jobs", str(jobs), *(["--fresh"] if fresh else []), *extra]


def spread(values: list[float]) -> str:
    text = f"median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"
    cpu = CPU.get(id(values))
    return text + (f", CPU median {statistics.median(cpu):.2f} s" if cpu else "")


def parent_per_record(points: int = 150, passes: int = 5, records: int = 5000) -> tuple[float, float, int]:
    """Median µs per record of the parent's path for a record whose trace is about 10 KB:
    during the run (LineSink.take) and after it (LineSink.finish attaches the traces)."""
    import gc

    from baselines.running.runner import HEAD_OVER, LineSink, dump_line

    trace = [{"spend": {"calls": i, "rollouts": i, "seconds": i * 0.001}, "best": 0.5 + i * 1e-4}
             for i in range(points)]
    obj = {"schema": "costmatch.run/1", "workload": "w", "arm": "a", "seed": 1, "params": {},
           "budget": {"rollouts": 200}, "spend": {"calls": 200, "rollouts": 200, "seconds": 0.2},
           "reward": 0.5, "dev_reward": 0.6, "trace": trace, "stop_reason": "budget:rollouts",
           "error": None, "provenance": {"costmatch": "0.1.0", "arm_module": "x" * 16}}
    line = dump_line(obj)
    assert len(line) > HEAD_OVER
    item = (line, dump_line(dict(obj, trace=None)))  # what a worker sends for a long line
    during, after = [], []
    with tempfile.TemporaryFile() as handle:  # a real file: flushes and the once-a-second fsync included
        for _ in range(passes):
            kept: list = []
            sink = LineSink(handle, kept)
            start = time.perf_counter()
            for _ in range(records):
                sink.take(item)
            during.append((time.perf_counter() - start) / records * 1e6)
            start = time.perf_counter()
            sink.finish()
            after.append((time.perf_counter() - start) / records * 1e6)
            assert len(kept[-1].trace) == points
            gc.unfreeze()
    return statistics.median(during), statistics.median(after), len(line)


def worker_per_cell(cells: int = 5000, passes: int = 7) -> float:
    """Median µs of one trivial cell in a worker, in process (`cell_line`: build, run, validate, one line)."""
    from baselines.running.runner import cell_line
    from baselines.running.suite import load_suite

    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder) / "trivial.toml"
        suite.write_text(SUITE.format(seeds=cells, spin=0))
        todo = load_suite(suite).cells()
    for cell in todo[:200]:  # imports and caches
        cell_line(cell)
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        for cell in todo:
            cell_line(cell)
        times.append((time.perf_counter() - start) / len(todo) * 1e6)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cells", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--cpu-cells", type=int, default=16)
    p.add_argument("--spin", type=int, default=15_000_000)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="costmatch-bench-runner-"))

    suite = work / "trivial.toml"
    suite.write_text(SUITE.format(seeds=a.cells, spin=0))
    bare_cmd = [sys.executable, "-c", BARE.format(root=str(ROOT), jobs=2, cells=a.cells)]
    ours, bare = [], []
    load = os.getloadavg()[0]
    for i in range(a.repeats):  # interleaved: A B A B ...
        timed(run_cli(suite, work / "out-trivial", 2), ours)
        timed(bare_cmd, bare)
    done: list[float] = []  # the same command again: every cell is done: start-up, suite check, reading the file, report
    for _ in range(a.repeats):
        timed(run_cli(suite, work / "out-trivial", 2, fresh=False), done)
    ratio = statistics.median(ours) / statistics.median(bare)
    print(f"load average (1 min) before and after part 1: {load:.2f}, {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} CPUs (above ~0.5 the machine was not idle: compare CPU medians too)")
    print(f"1. {a.cells:,} trivial cells, whole processes, interleaved:\n"
          f"   costmatch run --jobs 2: {spread(ours)} ({a.cells / statistics.median(ours):,.0f} cells/s)\n"
          f"   bare joblib.Parallel(n_jobs=2): {spread(bare)} ({a.cells / statistics.median(bare):,.0f} cells/s)\n"
          f"   ratio of medians {ratio:.2f}x (target: within 2x); of CPU medians "
          f"{statistics.median(CPU[id(ours)]) / statistics.median(CPU[id(bare)]):.2f}x\n"
          f"   for scale, the same command with every cell already done (start-up, suite check, reading "
          f"and checking the {a.cells:,} records, the report; no cell runs): {spread(done)}")

    during, after, size = parent_per_record()
    print(f"2. parent work per record with a {size / 1000:.1f} KB trace, in process, 5,000 records a pass, "
          f"median of 5: during the run (write, flush, parse the head, keep) {during:.1f} µs "
          f"(target under 100 µs); after the run (attach the trace) {after:.1f} µs")

    if a.cpu_cells:
        cpu = work / "cpu.toml"
        cpu.write_text(SUITE.format(seeds=a.cpu_cells, spin=a.spin))
        one = timed(run_cli(cpu, work / "out-cpu-1", 1))
        two = timed(run_cli(cpu, work / "out-cpu-2", 2))
        print(f"3. {a.cpu_cells} CPU-bound cells: --jobs 1 {one:.1f} s, --jobs 2 {two:.1f} s: "
              f"speed-up {one / two:.2f}x")
    print(f"4. one trivial cell in a worker, in process (build, run, validate, one line), median of 7 passes "
          f"of 5,000 cells: {worker_per_cell():.1f} µs")


if __name__ == "__main__":
    main()
