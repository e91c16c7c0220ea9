"""Records the parent writes (worker-died, an abandoned timeout) carry the same fields as a worker's, on every engine.

Why: they lacked `reward_range` and `trace`, and a timeout's spend was null
where the parent wrote it (threading, Dask) but measured where SIGALRM let
the worker write it (loky, Ray, sequential), although records must not
depend on the backend. The rule now: every spend unit of a `timeout` or
`worker-died` record is unknown, trace and dev_reward null, and the
workload's declarations present, whoever writes the line.
"""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import orjson
import pytest

from baselines.core.budget import Budget
from baselines.core.records import read_records
from baselines.running.cell_lines import failure_line
from baselines.running.execute import execute_record
from baselines.running.suite import ArmSpec, Cell, WorkloadSpec

from .test_runner import REPO

RANGED = WorkloadSpec("toy", "tests.helpers:RangedToy", {}, "rollouts", (Budget(rollouts=20),), ("spin",), (), 0.1)


def _cell(arm_path: str, timeout: float | None = 0.2) -> Cell:
    return Cell(RANGED, ArmSpec("spin", arm_path, {}), Budget(rollouts=20), 0, timeout)


def _without_where(record: dict) -> dict:
    record = dict(record)
    record["provenance"] = {k: v for k, v in record["provenance"].items() if k not in ("worker", "host", "backend")}
    return record


def test_a_timeout_the_parent_writes_equals_the_one_the_worker_writes():
    cell = _cell("tests.runner_arms:SpinForever", timeout=0.05)
    by_worker = execute_record(cell).to_json()                 # SIGALRM on this (main) thread stops the loop
    by_parent = orjson.loads(failure_line(cell, "timeout", None))
    assert by_worker["stop_reason"] == "timeout"
    assert _without_where(by_parent) == _without_where(by_worker)
    assert by_parent["reward_range"] == [0.0, 1.0] and by_parent["unit_nouns"] == {"rollouts": "noisy guesses"}
    assert "trace" not in by_parent and by_parent["dev_reward"] is None   # no anytime record: absent (optional)
    assert set(by_parent["spend"]) >= {"calls", "seconds", "rollouts", "tokens", "usd"}
    assert all(v is None for v in by_parent["spend"].values())


def test_a_worker_died_record_carries_the_declarations():
    error = {"type": "WorkerDied", "stage": "worker", "where": "", "traceback": "", "message": "died"}
    line = orjson.loads(failure_line(_cell("tests.runner_arms:KillWorker"), "worker-died", error))
    assert line["reward_range"] == [0.0, 1.0] and "trace" not in line and line["reward"] is None
    plain = dataclasses.replace(RANGED, path="tests.helpers:Toy")
    bare = orjson.loads(failure_line(Cell(plain, ArmSpec("x", "tests.helpers:Guess", {}), Budget(rollouts=20), 0,
                                          None), "worker-died", error))
    assert "reward_range" not in bare                            # declared only where the workload declares it


SUITE = """
seeds = 1
jobs = 2
timeout = 0.5

[arms.guess]
path = "tests.helpers:Guess"

[arms.killer]
path = "tests.runner_arms:KillWorker"

[arms.stuck]
path = "tests.runner_arms:StuckInC"

[[workloads]]
name = "toy"
path = "tests.helpers:RangedToy"
fixed = "rollouts"
budget = { rollouts = 20 }
arms = ["guess", "killer", "stuck"]
"""


def _records(tmp_path, backend: str) -> dict[str, dict]:
    """Run the suite on `backend` (resuming after an in-process death) and return the failed records by arm."""
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE)
    out = tmp_path / backend
    for _ in range(3):
        res = subprocess.run([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out), "--quiet",
                              "--no-plots", "--backend", backend, "--retries", "0"], cwd=REPO, capture_output=True,
                             text=True, timeout=600)
        if res.returncode == 1:
            break
    assert res.returncode == 1, res.stderr
    return {r.arm: _without_where(r.to_json()) for r in read_records(out / "results.jsonl") if r.arm != "guess"}


@pytest.mark.slow
@pytest.mark.process
def test_parent_written_records_are_the_same_on_sequential_threading_and_loky(tmp_path):
    ref = _records(tmp_path, "loky")
    assert ref["killer"]["stop_reason"] == "worker-died" and ref["stuck"]["stop_reason"] == "timeout"
    assert ref["killer"]["reward_range"] == [0.0, 1.0] and "trace" not in ref["stuck"]
    for backend in ("sequential", "threading"):   # threading: the stuck cell is abandoned, the parent writes it
        assert _records(tmp_path, backend) == ref, backend


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("backend", ["dask", "ray"])
def test_parent_written_records_are_the_same_on_local_dask_and_ray(tmp_path, backend):
    pytest.importorskip("distributed" if backend == "dask" else "ray")
    assert _records(tmp_path, backend) == _records(tmp_path, "loky")
