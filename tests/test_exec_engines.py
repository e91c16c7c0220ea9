"""Execution engines keep the promises of docs/suite.md: a stuck thread is a timeout, Ctrl-C/SIGTERM end the run
and keep finished lines, cells never write to stdout, and a cell that kills its worker runs 1 + retries times.

Waits are bounded by generous timeouts that only fail a hung test; nothing asserts how long anything took.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import pytest

from baselines import read_records
from baselines.cli import main
from baselines.running.engines import ThreadPool, WorkerDied, run_cells
from tests.helpers import SubmitRecorder

from .test_runner import REPO, write_suite

HUNG = 120  # seconds after which a wait means the code under test hung


class Chatty:
    """Writes to stdout from Python and straight to file descriptor 1 (as a C library would), then guesses."""

    def run(self, instance, meter, rng):
        print("chatty: python print")
        sys.stdout.flush()
        os.write(1, b"chatty: fd 1 write\n")
        meter.rollouts(1)
        return 0.5


class DieAndLog:
    """Appends its pid to a log file, then ends its process: how often a killer cell ran, counted outside."""

    def __init__(self, log: str = ""):
        self.log = log

    def run(self, instance, meter, rng):
        with open(self.log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        os._exit(13)


CHATTY = '[arms.chatty]\npath = "tests.test_exec_engines:Chatty"\n'
STUCK = '[arms.stuck]\npath = "tests.runner_arms:StuckInC"\n'


def wait_until(predicate, what: str):
    deadline = time.monotonic() + HUNG
    while not predicate():
        assert time.monotonic() < deadline, f"hung: {what}"
        time.sleep(0.02)


@contextlib.contextmanager
def sigint_ignored():
    """SIGINT ignored in this process for a moment: a shell starts a background job (``pytest ... &`` in a
    script, a CI step) that way, and a child started meanwhile inherits it through exec."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ctrl_c_reaches_it() -> None:
    """In a started costmatch before it runs: SIGINT back to its default, whatever this process inherited.

    Why: exec keeps an ignored SIGINT, and Python then leaves it ignored (as a background job should), so
    under a backgrounded pytest the run never saw the test's SIGINT and the test hung for 120 s (issue 31:
    "hung after SIGINT at load 9", passing when rerun in the foreground).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def drain(gen, into: dict, box: dict):
    try:
        for i, line in gen:
            into[i] = line
    except BaseException as exc:  # noqa: BLE001 - handed to the test thread
        box["raised"] = exc


# -- 1. threading: a thread stuck in C is given up --------------------------------------------------
@pytest.fixture
def blocking_batches():
    """The cell's work: the cell 'stuck' blocks in one C call (a lock wait) until released."""
    release = threading.Event()

    def work(cell):
        name = getattr(cell, "name", cell)
        if name == "stuck":
            release.wait()
            return b"late"
        return f"ok {name}".encode()

    yield SimpleNamespace(release=release, work=work)
    release.set()


def test_abandon_gives_up_a_stuck_thread_and_a_replacement_keeps_the_pool_running(blocking_batches):
    pool = ThreadPool(1, blocking_batches.work)
    try:
        stuck = pool.submit(["stuck"])
        queued = pool.submit(["next"])
        wait_until(lambda: pool.started(stuck) not in (None, float("inf")), "the stuck batch never started")
        assert pool.started(queued) == float("inf")  # waiting behind the stuck one: not overdue itself
        assert pool.abandon(queued) is False  # a queued batch is not stuck
        assert pool.abandon(stuck) is True
        assert pool.wait([queued], HUNG) == [queued]  # the replacement thread ran it
        assert pool.result(queued)[0] == [b"ok next"]
        assert not stuck.done()
        assert all(t.daemon for t in pool._threads)  # none of them holds the process at exit
    finally:
        pool.close(cancel=True)


def test_a_cell_stuck_in_c_on_a_thread_becomes_a_timeout_and_the_others_finish(blocking_batches):
    cells = [SimpleNamespace(name=n, timeout=0.01) for n in ("a", "stuck", "b", "c")]
    out, box = {}, {}
    pool = ThreadPool(1, blocking_batches.work)  # one thread: before, the stuck cell stalled every other cell for ever
    runner = threading.Thread(target=drain, daemon=True, args=(
        run_cells(cells, pool, retries=2, grace=0.05,
                  on_failure=lambda c, reason, err: f"{reason} {c.name}".encode()), out, box))
    runner.start()
    runner.join(HUNG)
    pool.close()
    assert not runner.is_alive(), "the run hung on the stuck cell"
    assert "raised" not in box
    assert out == {0: b"ok a", 1: b"timeout stuck", 2: b"ok b", 3: b"ok c"}


@pytest.mark.process
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_a_threading_run_with_a_cell_stuck_in_c_and_keeps_finished_lines(tmp_path, sig):
    suite = write_suite(tmp_path, seeds=2, jobs=2, timeout=300, extra_arms=STUCK, arms='"guess", "stuck"')
    out = tmp_path / "out"
    with sigint_ignored():  # as when pytest runs as a shell's background job: the same test either way
        proc = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                                 "--quiet", "--no-plots", "--backend", "threading"], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=ctrl_c_reaches_it)
    results = out / "results.jsonl"
    try:
        # both threads end up stuck in time.sleep(600); the two guess cells finish first
        wait_until(lambda: results.exists() and results.read_text().count("\n") >= 2, "no guess cell finished")
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=HUNG)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted; 2 finished cell(s) are kept" in stderr
    assert sorted(r.arm for r in read_records(results)) == ["guess", "guess"]


class InterruptedWait(SubmitRecorder):
    """Two batches done, a third running; Ctrl-C lands while the loop waits (where it spends its time)."""

    breaks_all = False

    def __init__(self):
        self.submitted = []

    def wait(self, handles, timeout):
        if timeout:
            raise KeyboardInterrupt
        return [h for h in handles if h < 2]

    def result(self, handle):
        return [f"ok {c}".encode() for c in self.submitted[handle]], 0.001


def test_lines_finished_before_an_interrupt_are_handed_over_before_it_goes_on():
    out = {}
    with pytest.raises(KeyboardInterrupt):
        for i, line in run_cells([0, 1, 2], InterruptedWait(), retries=0):
            out[i] = line
    assert out == {0: b"ok 0", 1: b"ok 1"}  # before: nothing, and the runner said "0 finished cell(s)"


class AllDone(InterruptedWait):
    def wait(self, handles, timeout):
        return list(handles)


def test_an_interrupt_thrown_in_by_the_caller_also_hands_over_the_finished_lines():
    """Ctrl-C can land in the caller's loop body instead of the engine's wait: ``throw`` it in, take the rest."""
    lines = run_cells([0, 1, 2], AllDone(), retries=0)
    first = next(lines)
    rest = [lines.throw(KeyboardInterrupt)]
    with pytest.raises(KeyboardInterrupt):
        while True:
            rest.append(next(lines))
    assert dict([first, *rest]) == {0: b"ok 0", 1: b"ok 1", 2: b"ok 2"}


@pytest.mark.slow
@pytest.mark.process
def test_threading_records_a_cell_stuck_in_c_as_timeout_and_exits_1(tmp_path):
    suite = write_suite(tmp_path, seeds=1, timeout=0.5, extra_arms=STUCK, arms='"guess", "stuck"')
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out), "--quiet",
                          "--no-plots", "--backend", "threading"], cwd=REPO, capture_output=True, text=True,
                         timeout=HUNG)
    assert res.returncode == 1, res.stderr
    by_arm = {r.arm: r for r in read_records(out / "results.jsonl")}
    assert by_arm["stuck"].stop_reason == "timeout"
    assert by_arm["stuck"].error["message"] == "cell ran past its time limit (0.5 s)"
    assert by_arm["guess"].error is None


# -- 2. stdout carries only what costmatch prints ---------------------------------------------------
# loky here is the default run's one loky pool (smoke): worker processes' fd 1 is where cell output escaped
@pytest.mark.parametrize("backend", ["sequential", "threading",
                                     pytest.param("loky", marks=[pytest.mark.process, pytest.mark.smoke])])
def test_cell_output_never_reaches_stdout_so_json_stays_json(tmp_path, capfd, backend):
    suite = write_suite(tmp_path, seeds=2, jobs=2, extra_arms=CHATTY, arms='"guess", "chatty"')
    code = main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet", "--no-plots", "--backend", backend,
                 "--looks", "2,3", "--gate", "guess:chatty", "--margin", "0.05", "--json"])
    captured = capfd.readouterr()
    assert code in (0, 1), captured.err
    assert json.loads(captured.out)["baseline"] == "guess"  # before: "chatty: ..." lines broke the JSON
    ran = sum(r.arm == "chatty" for r in read_records(tmp_path / "out" / "results.jsonl"))
    assert ran >= 2
    assert captured.err.count("chatty: python print") == ran  # said on stderr instead: nothing is lost
    assert captured.err.count("chatty: fd 1 write") == ran


def test_the_run_summary_on_stdout_has_no_cell_output_and_stdout_works_after_the_run(tmp_path, capfd):
    suite = write_suite(tmp_path, seeds=2, extra_arms=CHATTY, arms='"guess", "chatty"')
    assert main(["run", str(suite), "--out", str(tmp_path / "out"), "--no-plots", "--backend", "threading"]) == 0
    print("after the run")
    os.write(1, b"fd 1 after the run\n")
    captured = capfd.readouterr()
    assert "chatty: " not in captured.out  # the arm's name may be in the summary, its output may not
    assert "full report:" in captured.out
    assert "after the run" in captured.out and "fd 1 after the run" in captured.out  # both given back
    assert sys.stdout is not None and type(sys.stdout).__name__ != "_CellStdout"


# -- 3. a cell that kills its worker runs 1 + retries times -----------------------------------------
class DiesAlways(SubmitRecorder):
    """Every batch holding cell 0 dies; a batch never waits (like loky, a death breaks the pool)."""

    def __init__(self, breaks_all: bool):
        self.breaks_all, self.submitted = breaks_all, []

    def wait(self, handles, timeout):
        return list(handles)

    def result(self, handle):
        if 0 in self.submitted[handle]:
            raise WorkerDied("a worker died")
        return [f"ok {c}".encode() for c in self.submitted[handle]], 0.001

    def recover(self):
        pass


@pytest.mark.parametrize("breaks_all", [True, False])
@pytest.mark.parametrize("retries", [0, 1, 3])
def test_a_lone_cell_that_kills_its_worker_runs_exactly_1_plus_retries_times(retries, breaks_all):
    pool = DiesAlways(breaks_all)
    out = dict(run_cells([0], pool, retries=retries, on_failure=lambda c, reason, err: reason.encode()))
    assert out == {0: b"worker-died"}
    assert pool.submitted == [[0]] * (1 + retries)  # before: 2 + retries (--retries 0 ran it twice)


def test_cells_sent_together_are_not_alone_so_a_shared_death_is_not_pinned_on_one():
    pool = DiesAlways(breaks_all=True)
    out = dict(run_cells([0, 1], pool, retries=0, on_failure=lambda c, reason, err: reason.encode()))
    assert out == {0: b"worker-died", 1: b"ok 1"}
    assert pool.submitted == [[0], [1], [0], [1]]  # 1 was in flight when 0's batch died: rerun, not recorded


@pytest.mark.process
@pytest.mark.parametrize("retries", [0, 1])
def test_loky_runs_a_worker_killing_cell_1_plus_retries_times(tmp_path, retries):
    log = tmp_path / "runs.log"
    suite = write_suite(tmp_path, seeds=1, arms='"die"',
                        extra_arms=f'[arms.die]\npath = "tests.test_exec_engines:DieAndLog"\n'
                                   f'params = {{ log = "{log}" }}\n')
    code = main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet", "--no-plots", "--backend", "loky",
                 "--retries", str(retries)])
    assert code == 1
    assert len(log.read_text().splitlines()) == 1 + retries
    [record] = read_records(tmp_path / "out" / "results.jsonl")
    assert record.stop_reason == "worker-died"


# -- 4. loky's own noise ------------------------------------------------------------------------------
def _status(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    raise AssertionError(f"no {field} in /proc/{pid}/status")


@pytest.mark.process
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads signal masks from /proc")
def test_loky_workers_do_not_take_the_terminals_ctrl_c_and_a_sigkill_leaves_no_leak_warning(tmp_path):
    psutil = pytest.importorskip("psutil")
    suite = write_suite(tmp_path, seeds=40, jobs=2, sleep=0.05)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                             "--quiet", "--no-plots"], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    try:
        wait_until(lambda: results.exists() and results.read_text().count("\n") >= 2, "no cell finished")
        children = psutil.Process(proc.pid).children(recursive=True)
        workers = [c for c in children if "popen_loky" in " ".join(c.cmdline())]
        assert workers, "the run should have loky workers"
        sigint = 1 << (signal.SIGINT - 1)
        # a worker starting when Ctrl-C hit the process group died with "Fatal Python error: init_import_site"
        assert all(_status(w.pid, "SigBlk") & sigint for w in workers)
        assert not _status(proc.pid, "SigBlk") & sigint  # the parent still takes Ctrl-C
        os.kill(proc.pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=HUNG)
        _, alive = psutil.wait_procs(children, timeout=HUNG)  # workers and resource trackers
        assert not alive
    finally:
        proc.kill()
    assert "leaked" not in stderr, stderr  # loky's resource tracker cleans up, silently


# -- clusters (slow) ---------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.process
def test_a_local_dask_cluster_keeps_cell_output_off_stdout_and_runs_a_lone_killer_1_plus_retries_times(tmp_path):
    pytest.importorskip("distributed")
    log = tmp_path / "runs.log"
    die = f'[arms.die]\npath = "tests.test_exec_engines:DieAndLog"\nparams = {{ log = "{log}" }}\n'
    chatty = write_suite(tmp_path, name="chatty.toml", seeds=2, jobs=1, arms='"guess", "chatty"', extra_arms=CHATTY)
    killer = write_suite(tmp_path, name="die.toml", seeds=1, jobs=1, arms='"die"', extra_arms=die)

    def run(suite, out, *args):
        return subprocess.run([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(tmp_path / out),
                               "--no-plots", "--backend", "dask", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=600)

    res = run(chatty, "chatty")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "chatty: " not in res.stdout and res.stderr.count("chatty: python print") == 2
    assert "full report:" in res.stdout
    res = run(killer, "die", "--retries", "1")
    assert res.returncode == 1, res.stderr[-2000:]
    assert len(log.read_text().splitlines()) == 2  # the scheduler's allowed-failures is --retries
    [record] = read_records(tmp_path / "die" / "results.jsonl")
    assert record.stop_reason == "worker-died"


def test_an_interrupt_between_two_lines_still_keeps_the_lines_that_finished():
    """Ctrl-C landing in the runner's loop (not in the engine's wait): thrown into the engine, which hands over
    what had finished; every such line is kept, then the interrupt goes on."""
    from baselines.running.runner import _take_all

    def engine():
        try:
            yield 0, "a"
            yield 1, "b"
        except KeyboardInterrupt:
            yield 2, "c"      # finished while the first interrupt was on its way
            yield 3, "d"
            raise

    kept = []

    def keep(item):
        kept.append(item)
        if item == "b":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _take_all(engine(), keep)
    assert kept == ["a", "b", "c", "d"]


def test_a_submit_to_a_pool_a_worker_just_broke_fails_like_the_tasks_in_flight():
    """A cell that exits at once breaks loky's executor while the scheduler is still sending batches: the
    next `submit` raised TerminatedWorkerError, and the traceback ended the run (a resume after an in-process
    death: `costmatch run suite.toml --backend sequential` twice with an arm calling os._exit). Now the
    handle fails as a died task does, so the scheduler reruns its cells as suspects and rebuilds the pool."""
    from loky.process_executor import TerminatedWorkerError

    from baselines.running.engines.base import WorkerDied
    from baselines.running.engines.loky_pool import LokyPool

    class Broken:
        def submit(self, *args):
            raise TerminatedWorkerError("A worker process managed by the executor was unexpectedly terminated.")

    pool = LokyPool.__new__(LokyPool)   # no processes: only the executor's broken state matters here
    pool.executor, pool.work = Broken(), None
    handle = pool.submit(["cell"])
    assert handle.done()
    with pytest.raises(WorkerDied, match="unexpectedly terminated"):
        pool.result(handle)
