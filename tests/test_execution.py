"""The execution layer: dead workers, time limits, locks, torn lines, orphans and provenance,
with the same records on every backend."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baselines import read_records
from baselines.cli import main
from baselines.running.engines import WorkerDied, run_cells
from baselines.core.provenance import provenance_warnings
from baselines.running.runner import output_lock
from tests.helpers import SubmitRecorder

from .test_runner import REPO, comparable, costmatch, write_suite

KILLER = '[arms.killer]\npath = "tests.runner_arms:KillWorker"\n'
SLEEPER = '[arms.sleeper]\npath = "tests.runner_arms:SleepAfterCharge"\n'


def run_in_process(suite, out, *args):
    return main(["run", str(suite), "--out", str(out), "--quiet", "--no-plots", *map(str, args)])


# -- the scheduling loop, with a fake engine ---------------------------------------
class FakePool(SubmitRecorder):
    """Runs batches at once; any batch holding a 'bad' cell dies, and (like loky) takes the others with it."""

    breaks_all = True

    def __init__(self, bad: set[int], flaky: set[int] = frozenset()):
        self.bad, self.flaky, self.submitted, self.recovered = bad, set(flaky), [], 0

    def wait(self, handles, timeout):
        return list(handles)

    def result(self, handle):
        cells = self.submitted[handle]
        if any(c in self.bad for c in cells) or any(c in self.flaky for c in cells):
            self.flaky -= set(cells)  # a flaky cell dies once only
            raise WorkerDied("a worker died")
        return [f"ok {c}".encode() for c in cells], 0.001

    def recover(self):
        self.recovered += 1


def test_a_cell_that_kills_its_worker_is_pinned_and_bystanders_finish():
    cells = list(range(10))
    pool = FakePool(bad={3})
    out = dict(run_cells(cells, pool, retries=2, on_failure=lambda c, reason, err: f"{reason} {c}".encode()))
    assert out == {i: (b"worker-died 3" if i == 3 else f"ok {i}".encode()) for i in cells}
    alone = [b for b in pool.submitted if b == [3]]
    assert len(alone) == 4  # its own batch of one (small batches at the end), then 1 + 2 retries alone


def test_a_cell_that_dies_once_is_retried_and_kept():
    pool = FakePool(bad=set(), flaky={5})
    out = dict(run_cells(list(range(8)), pool, retries=2, on_failure=lambda c, r, e: b"died"))
    assert out == {i: f"ok {i}".encode() for i in range(8)}


def test_zero_retries_records_the_first_death_alone():
    pool = FakePool(bad={0})
    out = dict(run_cells([0, 1], pool, retries=0, on_failure=lambda c, r, e: r.encode()))
    assert out == {0: b"worker-died", 1: b"ok 1"}
    assert pool.submitted == [[0], [1], [0], [1]]  # both suspects after the first death; 0 alone dies: recorded


class HangPool(FakePool):
    """Cell 2 never returns (stuck in a C call): its batch never completes until abandoned."""

    breaks_all = False

    def __init__(self):
        super().__init__(bad=set())
        self.abandoned = []

    def submit(self, cells):
        return super().submit([c.i for c in cells])

    def wait(self, handles, timeout):
        time.sleep(0.005)
        return [h for h in handles if 2 not in self.submitted[h]]

    def abandon(self, handle):
        self.abandoned.append(self.submitted[handle])
        return True


def test_a_cell_stuck_past_its_limit_is_abandoned_and_recorded_as_timeout():
    from types import SimpleNamespace

    cells = [SimpleNamespace(i=k, timeout=0.01) for k in range(6)]
    pool = HangPool()
    out = dict(run_cells(cells, pool, retries=2, grace=0.05,
                         on_failure=lambda c, reason, err: f"{reason} {c.i}".encode()))
    assert out == {k: (b"timeout 2" if k == 2 else f"ok {k}".encode()) for k in range(6)}
    assert pool.abandoned[-1] == [2]  # pinned alone before it is recorded


def test_no_time_limit_means_nothing_is_abandoned():
    from types import SimpleNamespace

    pool = FakePool(bad=set())
    cells = [SimpleNamespace(i=k, timeout=None) for k in range(3)]
    pool.submit = lambda batch, _submit=pool.submit: _submit([c.i for c in batch])
    assert dict(run_cells(cells, pool, retries=0, on_failure=None)) == {k: f"ok {k}".encode() for k in range(3)}


def test_meanwhile_runs_once_before_any_cell_when_cells_run_in_this_process():
    pool = FakePool(bad=set())
    events = []
    pool.submit = lambda batch, _submit=pool.submit: events.append(("submit", list(batch))) or _submit(batch)
    out = {}
    for i, line in run_cells(list(range(6)), pool, retries=0, meanwhile=lambda: events.append(("meanwhile",))):
        events.append(("result", i))
        out[i] = line
    assert out == {i: f"ok {i}".encode() for i in range(6)}
    kinds = [e[0] for e in events]
    assert kinds.count("meanwhile") == 1 and kinds[0] == "meanwhile"  # no cell runs beside the set-up


def test_meanwhile_runs_on_a_thread_when_cells_run_elsewhere_and_has_finished_when_the_run_ends():
    import threading

    pool = FakePool(bad=set())
    pool.cells_elsewhere = True
    submitted = []
    pool.submit = lambda batch, _submit=pool.submit: submitted.append(list(batch)) or _submit(batch)
    started, release, seen = threading.Event(), threading.Event(), []

    def slow_setup():
        seen.append((threading.current_thread().name, len(submitted)))
        started.set()
        release.wait(10)
        seen.append("done")

    results = run_cells(list(range(4)), pool, retries=0, meanwhile=slow_setup)
    first = next(results)  # results flow while the set-up is still running
    assert started.wait(10) and first[1] == f"ok {first[0]}".encode()
    name, sent_before = seen[0]
    assert name == "costmatch-meanwhile" and sent_before >= 1  # the workers had cells before it began
    release.set()
    assert len(list(results)) == 3
    assert seen[-1] == "done"  # joined before the generator ended


def test_meanwhile_is_not_called_without_cells():
    called = []
    assert list(run_cells([], FakePool(bad=set()), retries=0, meanwhile=lambda: called.append(1))) == []
    assert called == []


def test_loky_workers_come_from_the_standalone_package_when_installed():
    """joblib's bundled copy starts each worker through `import joblib` (numpy and all); the standalone
    package starts them without it, and raises the same BrokenProcessPool family on a death."""
    from concurrent.futures.process import BrokenProcessPool

    from baselines.running.engines.loky_pool import loky_executor_class

    loky = pytest.importorskip("loky")
    cls = loky_executor_class()
    assert cls.__module__.startswith("loky.")
    assert issubclass(loky.process_executor.TerminatedWorkerError, BrokenProcessPool)


# -- real engines ----------------------------------------------------------------------
@pytest.mark.process
def test_worker_death_under_loky_is_a_record_and_the_run_finishes(tmp_path):
    suite = write_suite(tmp_path, seeds=2, jobs=2, extra_arms=KILLER, arms='"guess", "killer"')
    out = tmp_path / "out"
    assert run_in_process(suite, out, "--retries", "1") == 1
    records = read_records(out / "results.jsonl")
    assert len(records) == 4
    died = [r for r in records if r.arm == "killer"]
    assert {r.stop_reason for r in died} == {"worker-died"}
    assert all(r.error["type"] == "WorkerDied" and r.reward is None for r in died)
    assert all(r.spend["rollouts"] is None for r in died)  # its spend is unknown, never 0
    ref = tmp_path / "ref"
    plain = write_suite(tmp_path, name="plain.toml", seeds=2, arms='"guess"')
    assert run_in_process(plain, ref, "--backend", "sequential") == 0
    assert comparable([r for r in records if r.arm == "guess"]) == comparable(read_records(ref / "results.jsonl"))


@pytest.mark.process
def test_a_worker_killed_once_is_retried_into_a_normal_record(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    suite = write_suite(tmp_path, seeds=2, jobs=2, arms='"guess", "once-killer"',
                        extra_arms=f'[arms.once-killer]\npath = "tests.runner_arms:KillOnce"\n'
                                   f'params = {{ marker_dir = "{markers}" }}\n')
    assert run_in_process(suite, tmp_path / "out") == 0
    records = read_records(tmp_path / "out" / "results.jsonl")
    assert len(records) == 4 and all(r.error is None for r in records)
    assert sorted(p.name for p in markers.iterdir()) == ["killed-0", "killed-1"]


@pytest.mark.parametrize("backend", ["sequential", "threading", pytest.param("loky", marks=pytest.mark.process)])
def test_a_cell_over_its_time_is_a_timeout_on_every_local_backend(tmp_path, backend):
    suite = write_suite(tmp_path, seeds=1, timeout=0.5, extra_arms=SLEEPER, arms='"sleeper", "once"')
    out = tmp_path / backend
    assert run_in_process(suite, out, "--backend", backend, "--jobs", 2) == 1
    by_arm = {r.arm: r for r in read_records(out / "results.jsonl")}
    slept = by_arm["sleeper"]
    assert slept.stop_reason == "timeout" and slept.reward is None
    assert slept.error["type"] == "CellTimeout" and slept.error["message"] == "cell ran past its time limit (0.5 s)"
    assert by_arm["once"].error is None


def test_threads_stop_a_pure_python_loop_at_its_time_limit(tmp_path):
    suite = write_suite(tmp_path, seeds=1, timeout=0.5, arms='"spin"',
                        extra_arms='[arms.spin]\npath = "tests.runner_arms:SpinForever"\n')
    assert run_in_process(suite, tmp_path / "out", "--backend", "threading") == 1
    [r] = read_records(tmp_path / "out" / "results.jsonl")
    assert r.stop_reason == "timeout" and r.error["type"] == "CellTimeout"


def test_errors_keep_the_full_traceback_and_the_first_error_of_each_arm_is_printed_once(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=3, extra_arms='[arms.crash]\npath = "tests.helpers:Crash"\n',
                        arms='"guess", "crash"')
    assert run_in_process(suite, tmp_path / "out", "--backend", "sequential") == 1
    err = capsys.readouterr().err
    assert err.count("failed (first error of this arm)") == 1
    assert "arm 'crash'" in err and "RuntimeError: arm exploded on purpose" in err and "helpers.py" in err
    crashed = [r for r in read_records(tmp_path / "out" / "results.jsonl") if r.arm == "crash"]
    assert all("Traceback (most recent call last)" in r.error["traceback"] for r in crashed)
    assert all('raise RuntimeError("arm exploded on purpose")' in r.error["traceback"] for r in crashed)


def test_jobs_are_capped_at_the_number_of_cells(tmp_path, monkeypatch):
    from baselines.running import runner

    seen = []
    real = runner.open_pool
    monkeypatch.setattr(runner, "open_pool", lambda opts, work: seen.append(opts) or real(opts, work))
    suite = write_suite(tmp_path, seeds=1, arms='"guess"')
    assert run_in_process(suite, tmp_path / "out", "--jobs", 64, "--backend", "threading") == 0
    assert [o.jobs for o in seen] == [1]


# -- the output folder --------------------------------------------------------------------
def test_a_second_run_on_the_same_folder_exits_2_naming_the_holder(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=1)
    out = tmp_path / "out"
    out.mkdir()
    with output_lock(out):
        code = run_in_process(suite, out)
    err = capsys.readouterr().err
    assert code == 2 and f"pid {os.getpid()}" in err and err.count("\n") == 1
    assert not (out / "results.jsonl").exists()
    assert run_in_process(suite, out, "--backend", "sequential") == 0  # released with the first run


def test_torn_last_line_is_set_aside_not_deleted(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=2)
    out = tmp_path / "out"
    assert run_in_process(suite, out, "--backend", "sequential") == 0
    results = out / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    torn = lines[-1][: len(lines[-1]) // 2]
    results.write_text("".join(lines[:-1]) + torn)
    capsys.readouterr()
    assert run_in_process(suite, out, "--backend", "sequential") == 0
    assert "incomplete last line" in capsys.readouterr().err
    [side] = out.glob("results.torn-*.jsonl")
    assert side.read_bytes() == torn.encode()  # byte for byte: the bytes cut from the results, nothing added
    assert len(read_records(results)) == 6


def test_a_refused_resume_leaves_a_torn_last_line_where_it_was(tmp_path, capsys):
    """The torn line was moved aside (and said so) before a later check refused the run: two lines, a changed file."""
    suite = write_suite(tmp_path, seeds=2)
    out = tmp_path / "out"
    assert run_in_process(suite, out, "--backend", "sequential") == 0
    results = out / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    before = results.read_bytes()
    suite.write_text(suite.read_text().replace("spin = 10", "spin = 11"))   # refused: changed params
    capsys.readouterr()
    assert run_in_process(suite, out, "--backend", "sequential") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ran with params" in err, err
    assert results.read_bytes() == before and not list(out.glob("results.torn-*"))


def test_a_valid_last_line_without_newline_is_kept(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=2)
    out = tmp_path / "out"
    assert run_in_process(suite, out, "--backend", "sequential") == 0
    results = out / "results.jsonl"
    text = results.read_text()
    last = text.splitlines()[-1]
    results.write_text(text.rstrip("\n"))
    capsys.readouterr()
    assert run_in_process(suite, out, "--backend", "sequential") == 0
    assert "incomplete" not in capsys.readouterr().err and not list(out.glob("results.torn-*"))
    assert results.read_text() == text  # nothing rerun; the newline is restored before any append
    assert results.read_text().splitlines()[-1] == last


def test_a_file_that_is_not_results_is_refused_untouched(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=1)
    out = tmp_path / "out"
    out.mkdir()
    junk = b"not json\n" * 100 + b"half a line"
    (out / "results.jsonl").write_bytes(junk)
    assert run_in_process(suite, out) == 2
    assert (out / "results.jsonl").read_bytes() == junk and not list(out.glob("results.torn-*"))


# -- provenance ---------------------------------------------------------------------------
@pytest.mark.process
def test_every_record_says_which_code_produced_it(tmp_path):
    suite = write_suite(tmp_path, seeds=1, extra_arms=KILLER, arms='"guess", "killer"')
    run_in_process(suite, tmp_path / "out", "--retries", "0")
    records = read_records(tmp_path / "out" / "results.jsonl")
    import hashlib

    helpers = hashlib.sha256((REPO / "tests" / "helpers.py").read_bytes()).hexdigest()[:16]
    for r in records:
        prov = r.extra["provenance"]
        assert prov["costmatch"] and prov["host"] and prov["workload_module"] == helpers
    guess = next(r for r in records if r.arm == "guess")
    assert guess.extra["provenance"]["arm_module"] == helpers and guess.extra["provenance"]["worker"]
    assert provenance_warnings(records) == []


def test_provenance_warnings_name_the_arm_with_two_code_versions(tmp_path):
    suite = write_suite(tmp_path, seeds=2, arms='"guess"')
    run_in_process(suite, tmp_path / "out", "--backend", "sequential")
    records = read_records(tmp_path / "out" / "results.jsonl")
    records[1].extra["provenance"] = dict(records[1].extra["provenance"], arm_code="0" * 16)
    [warning] = provenance_warnings(records)
    assert "arm 'guess' on workload 'toy'" in warning and "0" * 16 in warning and "1 run(s)" in warning


# -- processes ------------------------------------------------------------------------------
@pytest.mark.process
def test_workers_end_with_the_parent_after_sigkill(tmp_path):
    psutil = pytest.importorskip("psutil")
    suite = write_suite(tmp_path, seeds=40, jobs=2, sleep=0.05)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                             "--quiet", "--no-plots"], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 2):
        time.sleep(0.02)
    children = psutil.Process(proc.pid).children(recursive=True)
    assert children, "the run should have worker processes"
    os.kill(proc.pid, signal.SIGKILL)  # the main process only, not its group
    proc.wait()
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, f"orphans: {[p.pid for p in alive]}"


@pytest.mark.parametrize("backend, module, address, words", [
    ("dask", "distributed", "tcp://127.0.0.1:9", "cannot reach a Dask scheduler"),
    ("ray", "ray", "127.0.0.1:9", "cannot reach a Ray cluster"),
])
def test_a_bad_cluster_address_is_one_line_and_exit_2(tmp_path, capsys, backend, module, address, words):
    pytest.importorskip(module)
    suite = write_suite(tmp_path, seeds=1)
    code = run_in_process(suite, tmp_path / "out", "--backend", backend, "--address", address, "--worker-wait", "2")
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_an_address_without_a_cluster_backend_is_refused(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=1)
    assert run_in_process(suite, tmp_path / "out", "--address", "tcp://127.0.0.1:9") == 2
    assert "only --backend dask or ray" in capsys.readouterr().err


def test_records_kept_in_memory_equal_the_file_read_back(tmp_path, monkeypatch):
    import baselines.running.runner as runner
    from baselines.running import cell_lines
    from baselines.running.suite import load_suite

    monkeypatch.setattr(cell_lines, "HEAD_OVER", 1000)  # threads share this module: long lines go by head
    suite = write_suite(tmp_path, seeds=3, timeout=0.5, extra_arms=SLEEPER, arms='"guess", "once", "sleeper"')
    out = tmp_path / "out"
    outcome = runner.run_suite(load_suite(suite), out, jobs=2, backend="threading")
    lines = (out / "results.jsonl").read_bytes().splitlines()
    assert max(len(line) for line in lines) > 1000 > min(len(line) for line in lines)
    on_disk = sorted(json.dumps(r.to_json(), sort_keys=True) for r in read_records(out / "results.jsonl"))
    in_memory = sorted(json.dumps(r.to_json(), sort_keys=True) for r in outcome.records)
    assert in_memory == on_disk and len(on_disk) == 9
    assert any(r.trace for r in outcome.records)


def test_an_outer_alarm_survives_cells_run_in_this_process(tmp_path):
    previous = signal.signal(signal.SIGALRM, lambda *a: None)
    signal.setitimer(signal.ITIMER_REAL, 500)
    try:
        suite = write_suite(tmp_path, seeds=1, timeout=30, arms='"guess"')
        assert run_in_process(suite, tmp_path / "out", "--backend", "sequential") == 0
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < remaining <= 500
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
