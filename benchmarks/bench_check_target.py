"""`check` and `compare --target` on a million runs against `compare` (issue 18 item 12).

    python benchmarks/make_results.py /tmp/1m.jsonl --arms 100 --seeds 10000
    python benchmarks/bench_check_target.py /tmp/1m.jsonl [--repeats 3] [--records]

Each step is timed in this process from reading the file to the finished
result (CPU and wall, median of --repeats, interleaved): compare (columnar
reader + compare), check (columnar reader + gate.run_gate on the table),
--target (columnar reader + compare + anytime.cost_tables). --records also
times the old per-record route of check (read_records + run_gate).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baselines.analysis.curves import anytime  # noqa: E402

from baselines.analysis.gating import gate
from baselines import compare  # noqa: E402
from baselines.core.records import read_records  # noqa: E402
from baselines.analysis.tables.table import RunTable  # noqa: E402


def do_compare(path):
    compare(RunTable.read([path], cache=False), fixed="tokens")


def do_check(path):
    gate.run_gate(RunTable.read([path], cache=False), "tokens", "arm-000", "arm-001", 0.05)


def do_target(path):
    table = RunTable.read([path], cache=False)
    compare(table, fixed="tokens")
    anytime.cost_tables(table, "tokens", 0.5, baseline="arm-000")


def do_check_records(path):
    gate.run_gate(read_records([path]), "tokens", "arm-000", "arm-001", 0.05)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--records", action="store_true")
    a = p.parse_args()
    steps = [("compare", do_compare), ("check (columns)", do_check), ("compare --target (columns)", do_target)]
    if a.records:
        steps.append(("check (per-record objects, old route)", do_check_records))
    times = {name: ([], []) for name, _ in steps}
    for _ in range(a.repeats):
        for name, fn in steps:   # interleaved
            c0, w0 = time.process_time(), time.perf_counter()
            fn(a.path)
            times[name][0].append(time.process_time() - c0)
            times[name][1].append(time.perf_counter() - w0)
    base = statistics.median(times["compare"][1])
    print("| step | CPU s (median) | wall s (median) | wall / compare |")
    print("|---|---|---|---|")
    for name, (cpu, wall) in times.items():
        print(f"| {name} | {statistics.median(cpu):.2f} | {statistics.median(wall):.2f} | "
              f"{statistics.median(wall) / base:.2f}x |")
