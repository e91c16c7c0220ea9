"""Wall time of the built-in demo suite, as a new user runs it (target: at most 60 s on 2 cores).

    python benchmarks/bench_default_suite.py

Runs `costmatch run --fresh` in a temporary directory (cells, report and
figures included) and prints the wall time of the whole process.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    out = Path(tempfile.mkdtemp(prefix="costmatch-demo-")) / "out"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "baselines.cli", "run", "--out", str(out), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    cells = sum(1 for _ in open(out / "results.jsonl"))
    print(f"built-in suite: {cells} cells, report and figures in {wall:.1f} s wall (exit {proc.returncode}); "
          f"output in {out}")
