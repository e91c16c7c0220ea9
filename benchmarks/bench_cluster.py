"""Cells per second on a Dask cluster: `costmatch run --backend dask` against bare Dask, 2 and 4 workers.

    python benchmarks/bench_cluster.py [--cells 5000] [--workers 2 4] [--repeats 3]

Both sides are whole processes that start their own LocalCluster (one thread
per worker process) and run the same trivial cell function: costmatch through
its execution layer (batches, one validated line per cell, the report), bare
Dask through `client.map` and `as_completed`. Runs alternate (A B A B ...);
the script prints medians with min and max, and cells/s from the median.
Cluster start-up is inside both timings, as a user pays it; on 2 cores, 4
workers oversubscribe the machine, which both sides share.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_runner import SUITE, run_cli, spread, timed  # noqa: E402

BARE = """
import sys
sys.path.insert(0, {root!r})
from distributed import Client, LocalCluster, as_completed
from benchmarks.trivial import work
if __name__ == "__main__":
    with LocalCluster(n_workers={workers}, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \\
            Client(cluster) as client:
        futures = client.map(work, range({cells}), [0] * {cells}, pure=False)
        n = sum(1 for _ in as_completed(futures))
    assert n == {cells}
"""


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cells", type=int, default=5000)
    p.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="costmatch-bench-cluster-"))
    suite = work / "trivial.toml"
    suite.write_text(SUITE.format(seeds=a.cells, spin=0))
    for workers in a.workers:
        script = work / f"bare-{workers}.py"
        script.write_text(BARE.format(root=str(ROOT), workers=workers, cells=a.cells))
        ours, bare = [], []
        for _ in range(a.repeats):
            ours.append(timed(run_cli(suite, work / f"out-{workers}", workers, "--backend", "dask")))
            bare.append(timed([sys.executable, str(script)]))
        mo, mb = statistics.median(ours), statistics.median(bare)
        print(f"{a.cells:,} trivial cells, {workers} Dask workers (whole processes, cluster start-up included):\n"
              f"   costmatch run --backend dask: {spread(ours)} ({a.cells / mo:,.0f} cells/s)\n"
              f"   bare Dask client.map + as_completed: {spread(bare)} ({a.cells / mb:,.0f} cells/s)\n"
              f"   ratio of medians {mo / mb:.2f}x")


if __name__ == "__main__":
    main()
