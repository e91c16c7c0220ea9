"""What runs inside a worker, whichever engine started it: the batch entry point, the thread watchdog,
the parent watch and stdout sent to stderr.

Why apart from the engines: this is the code a worker process imports (the
batch function is pickled by reference), so it stays small and imports
nothing of the parent's scheduling. The cell's work itself is handed in
(`run_batch(work, cells)`: the runner's `cell_line`), so the engines never
import the runner, which imports them.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from typing import Any

from .base import Work


class _Watchdog:
    """One thread per process that raises CellTimeout in a thread past its deadline.

    Used where SIGALRM cannot reach (threads: the threading backend, Dask
    workers). The exception lands at the next Python bytecode, so pure-Python
    loops and short sleeps are stopped; a single blocking C call is stopped
    when it returns, and the runner's elapsed-time check still records the
    cell as ``timeout``.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.deadlines: dict[int, tuple[float, type]] = {}
        self.thread: threading.Thread | None = None

    def arm(self, deadline: float, exc_type: type) -> None:
        with self.lock:
            self.deadlines[threading.get_ident()] = (deadline, exc_type)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="costmatch-timeouts", daemon=True)
                self.thread.start()

    def disarm(self) -> None:
        tid = threading.get_ident()
        with self.lock:
            self.deadlines.pop(tid, None)
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), None)  # drop one not yet raised

    def _loop(self) -> None:
        while True:
            time.sleep(0.02)
            now = time.perf_counter()
            with self.lock:
                for tid, (deadline, exc_type) in list(self.deadlines.items()):
                    if now >= deadline:
                        del self.deadlines[tid]  # fire once
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), ctypes.py_object(exc_type))


WATCHDOG = _Watchdog()


def watch_parent(parent_pid: int) -> None:
    """Worker initializer: exit when the parent is gone (no orphans after a SIGKILL of costmatch).

    loky keeps idle workers for minutes; a killed parent would otherwise leave
    them (and their resource tracker) running. It also sends the worker's
    stdout to stderr (see :func:`stdout_to_stderr_in_this_process`).
    """
    stdout_to_stderr_in_this_process()

    def loop():
        while os.getppid() == parent_pid:
            time.sleep(0.25)
        os._exit(70)

    threading.Thread(target=loop, name="costmatch-parent-watch", daemon=True).start()


def run_batch(work: Work, cells: list) -> tuple[list[Any], float]:
    """Worker entry point: the finished lines of these cells (``work`` of each), and the seconds they took."""
    start = time.perf_counter()
    lines = [work(cell) for cell in cells]
    return lines, time.perf_counter() - start


_STDOUT_MOVED = False


def stdout_to_stderr_in_this_process() -> None:
    """In a worker process: file descriptor 1 and ``sys.stdout`` become stderr (once per process).

    A worker inherits the parent's stdout, so an arm's ``print`` (or a
    library's log line) landed in the middle of ``costmatch run --json``'s
    JSON and of the run summary. stdout is the parent's channel for results;
    what cells say goes to stderr, where the progress lines are. Only ever
    called in worker processes, never in the costmatch process itself.
    """
    global _STDOUT_MOVED
    if _STDOUT_MOVED:
        return
    _STDOUT_MOVED = True
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        os.dup2(2, 1)
    except OSError:  # no fd 2 (a daemonised worker): leave fd 1 alone, Python's stdout still moves
        pass
    sys.stdout = sys.stderr
