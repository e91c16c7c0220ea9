"""Slow checks: the benchmark scripts run end to end (figures are read by people, not asserted).

Run with `python3 -m pytest -m slow`; `.ci/run` runs them after the default suite.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def run(*args, timeout=1200):
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_default_suite_runs_and_writes_its_report():
    res = run("benchmarks/bench_default_suite.py")
    assert res.returncode == 0, res.stderr
    assert "built-in suite: 185 cells" in res.stdout and "(exit 0)" in res.stdout
    out = Path(res.stdout.rsplit("output in ", 1)[1].strip())
    report = (out / "report.md").read_text()
    # the ranking heading names its group's budget (two groups of one workload never share a heading)
    assert report.count("## At equal") == 3
    assert re.search(r"^#### search-sim at [^\n]+: ranking at equal spend in each unit", report, re.M), \
        f"no search-sim ranking section in {out / 'report.md'}"
    assert len(list((out / "plots").glob("*.svg"))) >= 6


def test_million_line_compare_benchmark_runs(tmp_path):
    res = run("benchmarks/bench_compare.py", "--no-agentdescent", "--workdir", tmp_path)
    assert res.returncode == 0, res.stderr
    assert "1,000,000 lines" in res.stdout and "peak RSS" in res.stdout and "4,950 paired" in res.stdout


def test_runner_benchmark_runs():
    res = run("benchmarks/bench_runner.py", "--cells", "2000", "--cpu-cells", "4", "--spin", "2000000")
    assert res.returncode == 0, res.stderr
    assert "2,000 trivial cells" in res.stdout and "speed-up" in res.stdout


def test_gate_simulation_script_matches_its_tests():
    res = run("benchmarks/gate_simulation.py")
    assert res.returncode == 0, res.stderr
    rows = {line.split("|")[1].strip(): line for line in res.stdout.splitlines() if line.startswith("| cand")}
    assert "| 0.0% |" in rows["candidate identical to baseline, 10 seeds"]


def test_replay_benchmark_runs_and_the_walk_matches_both_loops():
    res = run("benchmarks/bench_replay.py", "--problems", "60", "--samples", "24", "--draws", "8", "--rerun")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("identical outcomes: True") == 2 and "(exit 0)" in res.stdout
