"""Real clusters (slow): a hand-started Dask scheduler and workers on 127.0.0.1, and Ray.

Each test compares records with a `--jobs 1` (or loky) run of the same suite:
results must not depend on where the cells ran, nor on a worker dying mid-run.
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from baselines import read_records

from .ray_head import ray_head
from .test_runner import REPO, comparable, costmatch, write_suite

pytestmark = [pytest.mark.slow, pytest.mark.process]

KILLER = '[arms.killer]\npath = "tests.runner_arms:KillWorker"\n'
SLEEPER = '[arms.sleeper]\npath = "tests.runner_arms:SleepAfterCharge"\n'
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(*cmd) -> subprocess.Popen:
    return subprocess.Popen(list(cmd), cwd=REPO, env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def wait_for_lines(path, n, timeout=120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path}: fewer than {n} lines after {timeout} s")


def listening(port: int, timeout: float = 120) -> None:
    """Wait until something accepts connections on 127.0.0.1:`port` (the scheduler has started)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on port {port} after {timeout} s"
            time.sleep(0.1)


@contextlib.contextmanager
def dask_cluster(workers=2):
    pytest.importorskip("distributed")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = start(sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                      "--port", str(port), "--dashboard-address", ":0")
    procs = [start(sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                   "--nworkers", "1", "--dashboard-address", ":0", "--host", "127.0.0.1")
             for _ in range(workers)]
    try:
        listening(port)  # a user starts the scheduler first; costmatch's address probe does not wait for one
        yield address, scheduler, procs
    finally:
        for proc in procs + [scheduler]:
            stop(proc)


def reference(tmp_path, suite, *args):
    ref = tmp_path / "ref"
    res = costmatch("run", suite, "--out", ref, "--quiet", "--no-plots", "--jobs", "1", *args, timeout=600)
    assert res.returncode in (0, 1), res.stderr[-2000:]
    return comparable(read_records(ref / "results.jsonl"))


def test_dask_cluster_losing_a_worker_mid_run_gives_the_jobs_1_records(tmp_path):
    suite = write_suite(tmp_path, seeds=12, sleep=0.02)
    out = tmp_path / "dask"
    with dask_cluster(2) as (address, _, workers):
        run = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                                "--quiet", "--no-plots", "--backend", "dask", "--address", address],
                               cwd=REPO, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for_lines(out / "results.jsonl", 5)
        stop(workers[0])  # one worker (and its nanny) dies mid-run
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err[-2000:]
    records = read_records(out / "results.jsonl")
    assert len(records) == 36
    assert comparable(records) == reference(tmp_path, suite)


def assert_deaths_and_timeouts_like_loky(results, suite, tmp_path) -> None:
    """The killer cell is `worker-died`, the sleeper `timeout`, and every record equals a loky run's."""
    records = read_records(results)
    assert {r.stop_reason for r in records if r.arm == "killer"} == {"worker-died"}
    assert {r.stop_reason for r in records if r.arm == "sleeper"} == {"timeout"}
    loky = tmp_path / "loky"
    assert costmatch("run", suite, "--out", loky, "--quiet", "--no-plots", "--jobs", "2",
                     timeout=600).returncode == 1
    assert comparable(records) == comparable(read_records(loky / "results.jsonl"))


def test_dask_cluster_worker_deaths_and_timeouts_are_records_like_loky(tmp_path):
    suite = write_suite(tmp_path, seeds=2, timeout=1, extra_arms=KILLER + SLEEPER,
                        arms='"guess", "once", "killer", "sleeper"')
    with dask_cluster(2) as (address, _, _):
        res = costmatch("run", suite, "--out", tmp_path / "dask", "--quiet", "--no-plots", "--backend", "dask",
                        "--address", address, env=ENV, timeout=600)
    assert res.returncode == 1, res.stderr[-2000:]
    assert_deaths_and_timeouts_like_loky(tmp_path / "dask" / "results.jsonl", suite, tmp_path)


def test_dask_local_cluster_gives_worker_died_records(tmp_path):
    suite = write_suite(tmp_path, seeds=1, extra_arms=KILLER, arms='"guess", "killer"')
    res = costmatch("run", suite, "--out", tmp_path / "out", "--quiet", "--no-plots", "--backend", "dask",
                    "--jobs", "2", timeout=600)
    assert res.returncode == 1, res.stderr[-2000:]
    by_arm = {r.arm: r for r in read_records(tmp_path / "out" / "results.jsonl")}
    assert by_arm["killer"].stop_reason == "worker-died" and by_arm["guess"].error is None


def test_a_lost_dask_scheduler_is_exit_1_with_a_resume_hint_and_resume_completes(tmp_path):
    suite = write_suite(tmp_path, seeds=30, sleep=0.02)
    out = tmp_path / "out"
    with dask_cluster(1) as (address, scheduler, _):
        run = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                                "--quiet", "--no-plots", "--backend", "dask", "--address", address],
                               cwd=REPO, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for_lines(out / "results.jsonl", 5)
        stop(scheduler)
        _, err = run.communicate(timeout=300)
    assert run.returncode == 1, err[-2000:]
    last = err.strip().splitlines()[-1]
    assert "run the same command to resume" in last and "Traceback" not in err
    kept = len(read_records(out / "results.jsonl"))
    assert 5 <= kept < 90
    with dask_cluster(2) as (address, _, _):
        res = costmatch("run", suite, "--out", out, "--quiet", "--no-plots", "--backend", "dask",
                        "--address", address, env=ENV, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert comparable(read_records(out / "results.jsonl")) == reference(tmp_path, suite)


def test_dask_scheduler_without_workers_is_exit_2_after_the_wait(tmp_path):
    with dask_cluster(0) as (address, _, _):
        time.sleep(2)
        res = costmatch("run", write_suite(tmp_path, seeds=1), "--out", tmp_path / "out", "--quiet",
                        "--backend", "dask", "--address", address, "--worker-wait", "3", env=ENV, timeout=300)
    assert res.returncode == 2 and "no Dask worker joined" in res.stderr and res.stderr.count("\n") == 1


KILL_ON_2 = '[arms.killer]\npath = "tests.runner_arms:KillOnSeed"\nparams = { seed = 2 }\n'
STUCK_ON_1 = '[arms.sleeper]\npath = "tests.runner_arms:SleepOnSeed"\nparams = { seed = 1, sleep = 30.0 }\n'


@pytest.mark.parametrize("where", ["address", "local"])
def test_dask_a_killer_beside_a_cell_stuck_in_c_is_worker_died_and_nothing_else_is_touched(tmp_path, where):
    """Issue 31: the killer's cell came back `timeout` (its wait behind the stuck cell and the worker restarts
    counted as its running time), once an innocent 0.05 s cell too. Time limits count from a batch's start now."""
    suite = write_suite(tmp_path, seeds=4, timeout=3, sleep=0.0025, extra_arms=KILL_ON_2 + STUCK_ON_1,
                        arms='"guess", "killer", "sleeper"')
    out = tmp_path / "out"
    with dask_cluster(2) if where == "address" else contextlib.nullcontext((None, None, None)) as (address, _, _):
        engine = ["--address", address] if address else ["--jobs", "2"]
        began = time.monotonic()
        res = costmatch("run", suite, "--out", out, "--quiet", "--no-plots", "--backend", "dask", *engine,
                        env=ENV, timeout=600)
        print(f"dask ({where}): kill + stuck suite ran in {time.monotonic() - began:.1f} s")  # reported, not asserted
    assert res.returncode == 1, res.stderr[-2000:]
    assert "Traceback" not in res.stderr, res.stderr[-2000:]
    cells = {(r.arm, r.seed): r for r in read_records(out / "results.jsonl")}
    assert len(cells) == 12
    killer, stuck = cells.pop(("killer", 2)), cells.pop(("sleeper", 1))
    assert (killer.stop_reason, killer.error["type"]) == ("worker-died", "WorkerDied")
    assert (stuck.stop_reason, stuck.error["type"]) == ("timeout", "CellTimeout")
    for (arm, seed), r in cells.items():  # no innocent cell touched: each ran to its end, as on any engine
        assert r.error is None and r.reward is not None, (arm, seed, r.stop_reason, r.error)
        assert r.stop_reason == ("budget:rollouts" if arm == "guess" else "done"), (arm, seed, r.stop_reason)


def test_ray_local_gives_the_same_records_as_loky_including_deaths_and_timeouts(tmp_path):
    pytest.importorskip("ray")
    suite = write_suite(tmp_path, seeds=2, timeout=1, extra_arms=KILLER + SLEEPER,
                        arms='"guess", "guess-b", "once", "killer", "sleeper"')
    res = costmatch("run", suite, "--out", tmp_path / "ray", "--quiet", "--no-plots", "--backend", "ray",
                    "--jobs", "2", env=ENV, timeout=600)
    assert res.returncode == 1, res.stderr[-2000:]
    assert_deaths_and_timeouts_like_loky(tmp_path / "ray" / "results.jsonl", suite, tmp_path)


def test_ray_cluster_by_address_gives_the_jobs_1_records(tmp_path):
    pytest.importorskip("ray")
    # a throwaway head with token auth, stopped by pid (never `ray stop`: it kills every Ray on the machine)
    with ray_head(ENV, auth=True) as head:
        suite = write_suite(tmp_path, seeds=4)
        res = costmatch("run", suite, "--out", tmp_path / "ray", "--quiet", "--no-plots", "--backend", "ray",
                        "--address", head.address, env=head.env, timeout=600)
        assert res.returncode == 0, res.stderr[-2000:]
        assert comparable(read_records(tmp_path / "ray" / "results.jsonl")) == reference(tmp_path, suite)


def test_dask_cell_stuck_in_a_c_call_becomes_a_timeout_and_the_run_finishes(tmp_path):
    suite = write_suite(tmp_path, seeds=2, timeout=1, arms='"guess", "stuck"',
                        extra_arms='[arms.stuck]\npath = "tests.runner_arms:StuckInC"\n')
    with dask_cluster(2) as (address, _, _):
        res = costmatch("run", suite, "--out", tmp_path / "out", "--quiet", "--no-plots", "--backend", "dask",
                        "--address", address, env=ENV, timeout=600)
    assert res.returncode == 1, res.stderr[-2000:]
    by_arm = {}
    for r in read_records(tmp_path / "out" / "results.jsonl"):
        by_arm.setdefault(r.arm, []).append(r)
    assert len(by_arm["stuck"]) == 2 and len(by_arm["guess"]) == 2
    for r in by_arm["stuck"]:
        assert r.stop_reason == "timeout" and r.error["message"] == "cell ran past its time limit (1 s)"
    assert all(r.error is None for r in by_arm["guess"])
