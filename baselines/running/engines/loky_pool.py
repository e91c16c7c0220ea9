"""The loky engine (``--backend loky``, the default): cells in worker processes.

A dead worker breaks the whole pool, which is rebuilt; workers exit when
this process is gone, ignore the terminal's Ctrl-C, and send what cells
print to stderr.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import signal

from ...core.scoped import scoped_env
from .base import FuturesPool, Work, WorkerDied
from .stdout_guard import STDOUT_GUARD
from .worker import run_batch, watch_parent


def loky_executor_class():
    """loky's ProcessPoolExecutor: the standalone `loky` package, else the copy inside joblib.

    Why the standalone one: a worker started by joblib's copy runs
    ``python -m joblib.externals.loky...``, which imports all of joblib
    (numpy, its memory and pickling modules) in every worker and in loky's
    resource tracker before the first cell; on 2 cores that start-up was
    longer than 10,000 trivial cells. Same code, same semantics.
    """
    try:  # start-up: loky loads when this engine opens, never for --help or the other engines
        from loky.process_executor import ProcessPoolExecutor
    except ImportError:  # an install without the loky wheel: joblib's bundled copy works the same, slower to start
        from joblib.externals.loky.process_executor import ProcessPoolExecutor
    return ProcessPoolExecutor


@contextlib.contextmanager
def _children_ignore_ctrl_c():
    """SIGINT blocked on this thread while loky may start processes from it or start its manager thread.

    Ctrl-C at a terminal goes to the whole process group: a loky worker that
    was starting at that moment (a restart after a worker died) printed
    "Fatal Python error: init_import_site ... KeyboardInterrupt" and a
    traceback. A blocked signal mask is inherited by new threads and through
    fork and exec, so workers, and the replacements loky's manager thread
    starts, never take the terminal's Ctrl-C: the parent takes it and ends
    them (``close(cancel=True)``; :func:`watch_parent` if the parent is
    gone). CPython's resource tracker is started the same way (bpo-33613).
    A Ctrl-C that arrives meanwhile is delivered when the mask is restored.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _start_quiet_resource_tracker() -> None:
    """Start loky's resource trackers (once per process) without their "leaked semlock objects" warning.

    When costmatch is SIGKILLed, the tracker unlinks the pool's semaphores,
    which is its job, and warned about each one on the terminal as if
    something had gone wrong. Only those processes get the filter, through
    PYTHONWARNINGS while they start; workers and this process keep theirs.
    Both trackers (loky's and multiprocessing's, whose descriptor loky hands
    every worker) start here, before any worker: starting one unblocks
    SIGINT on the calling thread, which undid :func:`_children_ignore_ctrl_c`
    for the first workers.
    """
    package = loky_executor_class().__module__.rpartition(".")[0]
    trackers = []
    for name in (f"{package}.backend.resource_tracker", "multiprocessing.resource_tracker"):
        try:
            trackers.append(importlib.import_module(name))
        except ImportError:
            pass
    quiet = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:resource_tracker:UserWarning"]))
    with scoped_env("PYTHONWARNINGS", quiet):
        try:
            for tracker in trackers:
                tracker.ensure_running()
        except Exception:  # noqa: BLE001 - loky starts them itself when it needs them, with the warning
            pass


class LokyPool(FuturesPool):
    """Worker processes through loky's executor; a dead worker breaks the pool, which is rebuilt."""

    breaks_all = True
    cells_elsewhere = True

    def __init__(self, jobs: int, work: Work):
        self.jobs = jobs
        self.work = work
        self._open = True
        STDOUT_GUARD.acquire()
        try:
            _start_quiet_resource_tracker()
            self.executor = self._new()
        except BaseException:
            self._open = False
            STDOUT_GUARD.release()
            raise

    def _new(self):
        with _children_ignore_ctrl_c():
            return loky_executor_class()(max_workers=self.jobs, initializer=watch_parent, initargs=(os.getpid(),))

    def slots(self):
        return self.jobs

    def submit(self, cells):
        from concurrent.futures import Future
        from concurrent.futures.process import BrokenProcessPool

        with _children_ignore_ctrl_c():  # loky starts its workers and its manager thread in here
            try:
                return self.executor.submit(run_batch, self.work, cells)
            except BrokenProcessPool as exc:
                # a worker died since the scheduler last waited (a cell that exits at once, while the next
                # batch is sent): this task fails as the ones in flight do, so its cells rerun as suspects
                # and the pool is rebuilt (before, the traceback ended the run)
                failed = Future()
                failed.set_exception(exc)
                return failed

    def result(self, handle):
        # here, not at the top: it imports multiprocessing, which the other engines never need
        from concurrent.futures.process import BrokenProcessPool

        try:
            return handle.result()
        except BrokenProcessPool as exc:  # loky's TerminatedWorkerError is one
            raise WorkerDied(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None

    def recover(self):
        self.executor.shutdown(wait=False, kill_workers=True)
        self.executor = self._new()

    def abandon(self, handle):
        self.recover()  # loky cannot kill one task: every worker goes, the loop reruns the others
        return True

    def close(self, cancel=False):
        # no wait: every task is done, and the idle workers' exit (their interpreters' teardown,
        # 0.05-0.1 s) overlaps the report; loky joins them at the latest when this process exits
        self.executor.shutdown(wait=False, kill_workers=cancel)
        if self._open:
            self._open = False
            STDOUT_GUARD.release()
