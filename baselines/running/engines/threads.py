"""The threading engine (``--backend threading``): cells on daemon threads of this process."""
from __future__ import annotations

import math
import queue
import threading
import time
from concurrent.futures import Future
from typing import Any

from .base import FuturesPool, Work
from .stdout_guard import STDOUT_GUARD, run_batch_here


class ThreadPool(FuturesPool):
    """Cells on daemon threads of this process (``--backend threading``).

    Not ``concurrent.futures.ThreadPoolExecutor``: its threads are joined at
    interpreter exit and cannot be given up, so one cell blocked in a C call
    (a sleep, a socket read without a timeout) never became a ``timeout``,
    stalled the run, and kept the process alive after Ctrl-C or SIGTERM.
    Here every worker is a daemon thread; :meth:`abandon` gives a stuck one
    up (it ends when its call returns, its line dropped) and starts a
    replacement, so the pool keeps its size and the process can always exit.
    """

    def __init__(self, jobs: int, work: Work):
        self.jobs = jobs
        self.work = work
        self._tasks: Any = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._running: dict[Any, tuple[threading.Thread, float]] = {}
        self._given_up: set[threading.Thread] = set()
        self._threads: list[threading.Thread] = []
        self._open = True
        STDOUT_GUARD.acquire()
        for _ in range(jobs):
            self._spawn()

    def _spawn(self) -> None:
        thread = threading.Thread(target=self._work, name=f"costmatch-cell-{len(self._threads)}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            item = self._tasks.get()
            if item is None:
                return
            future, cells = item
            with self._lock:
                if not future.set_running_or_notify_cancel():
                    continue
                self._running[future] = (me, time.monotonic())
            try:
                value, failure = run_batch_here(self.work, cells), None
            except BaseException as exc:  # noqa: BLE001 - handed to the scheduling loop, as an executor would
                value, failure = None, exc
            with self._lock:
                self._running.pop(future, None)
                if me in self._given_up:  # abandoned: a replacement has this thread's place
                    self._given_up.discard(me)
                    return
            if failure is None:
                future.set_result(value)
            else:
                future.set_exception(failure)

    def slots(self):
        return self.jobs

    def submit(self, cells):
        future: Any = Future()
        self._tasks.put((future, cells))
        return future

    def started(self, handle):
        with self._lock:
            running = self._running.get(handle)
        if running is not None:
            return running[1]
        return math.inf if not handle.done() and not handle.running() else None

    def abandon(self, handle):
        """Give up the thread stuck in this task (a thread cannot be killed) and start a replacement.

        False when the task is not running (still queued: not stuck; or just
        finished: its lines are collected next).
        """
        with self._lock:
            running = self._running.pop(handle, None)
            if running is None:
                return False
            self._given_up.add(running[0])
            if self._open:
                self._spawn()
        return True

    def close(self, cancel=False):
        """End the idle workers; never wait for a running or given-up cell (a daemon thread does not hold
        the process at exit). ``cancel``: drop the queued batches too."""
        if not self._open:
            return
        with self._lock:
            self._open = False
            stuck = bool(self._given_up) or bool(self._running)
        if cancel:
            while True:
                try:
                    future, _ = self._tasks.get_nowait()
                except Exception:  # queue.Empty
                    break
                future.cancel()
        for _ in self._threads:
            self._tasks.put(None)
        STDOUT_GUARD.release(keep=stuck)
