"""The 1M-line read path: costmatch's streaming reader against polars, both as whole processes.

    python benchmarks/bench_reader.py [--arms 100 --seeds 10000] [--repeats 3] [--runner-fields]

--runner-fields times a file in the shape `costmatch run` writes (provenance,
reward range, stop reason on every line) instead of measures only.

Each side runs in its own process and is timed the same way (CPU = user +
system time of that process from os.wait4, peak RSS = its ru_maxrss),
interleaved A, B, A, B, ... and summarised by the median (with min-max):

- A: ``RunTable.read([file])`` (validated columns) then a group-by mean of
  reward per (workload, budget, arm);
- B: polars ``scan_ndjson(file).group_by(workload, arm).agg(mean reward)``
  (no validation at all; the lazy scan reads only the three columns it needs);
- C: polars ``read_ndjson(file)`` (every column, as A reads) and the same group-by.

Targets (issue 19, item 5): A's CPU within 1.5x of B's, and A's peak memory
at most 1.5x the file size. The memory figure is also given net of the
process's memory after its imports, since interpreter and libraries are not
the reader's. polars is needed for the benchmark only (pip install polars).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

COSTMATCH = """
import resource, sys
from baselines.analysis.tables.table import RunTable
import pandas, numpy
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
table = RunTable.read([sys.argv[1]], cache=False)  # the parse, not its sidecar
means = table.frame.groupby(["workload", "budget", "arm"], observed=True)["reward"].mean()
assert len(table) > 0 and len(means) > 0
print(base)
"""

POLARS = """
import resource, sys
import polars as pl
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
means = pl.scan_ndjson(sys.argv[1]).group_by(["workload", "arm"]).agg(pl.col("reward").mean()).collect()
assert means.height > 0
print(base)
"""


POLARS_ALL = """
import resource, sys
import polars as pl
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
frame = pl.read_ndjson(sys.argv[1])
means = frame.group_by(["workload", "arm"]).agg(pl.col("reward").mean())
assert means.height > 0
print(base)
"""


def measure(code: str, path: Path) -> tuple[float, float, float]:
    """(CPU seconds, peak RSS MB, peak RSS after imports MB) of one whole process."""
    env = dict(os.environ, PYTHONPATH=str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, env=env)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark process failed with exit {proc.returncode}")
    base_mb = int(out.split()[-1]) / 1024
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, base_mb


def summary(values: list[float], unit: str) -> str:
    return f"{statistics.median(values):.2f} {unit} (min {min(values):.2f}, max {max(values):.2f})"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--arms", type=int, default=100)
    p.add_argument("--seeds", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--runner-fields", action="store_true")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "costmatch-bench"))
    a = p.parse_args()
    try:
        import polars  # noqa: F401
    except ImportError:
        raise SystemExit("this benchmark compares against polars: pip install polars")
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"results-{a.arms}x{a.seeds}{'-runner' if a.runner_fields else ''}.jsonl"
    if not data.exists():
        from make_results import write
        write(str(data), a.arms, a.seeds, runner_fields=a.runner_fields)
    size_mb = data.stat().st_size / 2**20
    print(f"input: {data} ({size_mb:.0f} MiB, {a.arms * a.seeds:,} lines); {a.repeats} interleaved runs per side")
    ours, theirs, whole = [], [], []
    for _ in range(a.repeats):
        ours.append(measure(COSTMATCH, data))
        theirs.append(measure(POLARS, data))
        whole.append(measure(POLARS_ALL, data))
    cpu_a, cpu_b = [r[0] for r in ours], [r[0] for r in theirs]
    print(f"costmatch RunTable.read + group-by: CPU {summary(cpu_a, 's')}, peak RSS "
          f"{summary([r[1] for r in ours], 'MiB')}, after imports {summary([r[1] - r[2] for r in ours], 'MiB')}")
    print(f"polars scan_ndjson + group_by:      CPU {summary(cpu_b, 's')}, peak RSS "
          f"{summary([r[1] for r in theirs], 'MiB')}")
    cpu_c = [r[0] for r in whole]
    print(f"polars read_ndjson (all columns):   CPU {summary(cpu_c, 's')}, peak RSS "
          f"{summary([r[1] for r in whole], 'MiB')}")
    print(f"CPU ratio costmatch/polars read_ndjson (all columns): "
          f"{statistics.median(cpu_a) / statistics.median(cpu_c):.2f}x")
    ratio = statistics.median(cpu_a) / statistics.median(cpu_b)
    peak = statistics.median([r[1] for r in ours]) / size_mb
    net = statistics.median([r[1] - r[2] for r in ours]) / size_mb
    print(f"CPU ratio costmatch/polars scan_ndjson: {ratio:.2f}x (target <= 1.5x)")
    print(f"peak memory / file size: {peak:.2f}x whole process, {net:.2f}x after imports (target <= 1.5x)")


if __name__ == "__main__":
    main()
