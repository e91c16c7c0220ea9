"""The execution layer: cells to workers and finished lines back, with one failure semantics everywhere.

Why this is not joblib: joblib gives one finished cell at a time only on
loky (``return_as="generator_unordered"``; Ray's joblib backend has no such
mode), aborts the whole run when a worker process dies, and hangs on Dask when
a task kills its worker. Results must not depend on the backend, so the rules
live here, above every engine:

- A cell whose worker process dies is a *suspect*; suspects are rerun one at a
  time with nothing else in flight, so a death is pinned on the cell that
  caused it. A cell that kills its worker ``1 + retries`` times alone becomes
  an error record (``stop_reason = "worker-died"``); the run goes on. On Dask
  the scheduler's own retry count (``allowed-failures``) decides instead.
- The per-cell time limit is enforced in the worker, the same way on every
  engine (see :mod:`baselines.running.runner`): SIGALRM on a worker's main thread,
  an asynchronous exception on other threads, and a final check of the elapsed
  time, so a cell over its time is ``timeout`` on loky, threading, Dask and Ray.
- Cells travel in small batches sized from measured cell time (about 50 ms a
  batch), so tiny cells do not pay one round trip each.
- Losing the cluster (scheduler gone) raises :class:`ClusterLost`; the runner
  keeps every finished line and tells the user how to resume.
- What cells print goes to stderr on every engine (worker processes' fd 1,
  and in this process ``sys.stdout`` of cell threads and fd 1 while a pool is
  open): stdout carries only costmatch's own output (the summary, ``--json``).
"""
from __future__ import annotations

import contextlib
import ctypes
import math
import os
import signal
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..core.scoped import scoped_env
from ..core.errors import InputError

WORKER_DIED = "worker-died"


class WorkerDied(Exception):
    """The process running a batch died (the engine said so). ``final``: the engine already retried."""

    def __init__(self, message: str, final: bool = False):
        super().__init__(message)
        self.final = final


class ClusterLost(Exception):
    """The scheduler or the connection to it is gone; finished lines are kept, the run can resume."""


@dataclass(frozen=True)
class ExecOptions:
    backend: str = "loky"
    jobs: int = 1
    address: str | None = None     # a Dask scheduler or Ray cluster address; None = start one locally
    worker_wait: float = 60.0      # seconds to wait for the first worker before giving up (exit 2)
    retries: int = 2               # reruns of a cell alone after its worker died, before worker-died
    batch_seconds: float = 0.05    # target wall time of one batch of cells


# -- in the worker ---------------------------------------------------------------
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


def run_batch(cells: list) -> tuple[list[bytes], float]:
    """Worker entry point: the finished lines of these cells, and the seconds they took."""
    from .runner import cell_line

    start = time.perf_counter()
    lines = [cell_line(cell) for cell in cells]
    return lines, time.perf_counter() - start


def run_batch_elsewhere(cells: list) -> tuple[list[bytes], float]:
    """:func:`run_batch` in a Dask worker (costmatch did not start it, so no initializer ran): stdout to stderr
    first. Ray needs none: its workers' output goes to Ray's log files (``log_to_driver=False``)."""
    stdout_to_stderr_in_this_process()
    return run_batch(cells)


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
    import sys
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        os.dup2(2, 1)
    except OSError:  # no fd 2 (a daemonised worker): leave fd 1 alone, Python's stdout still moves
        pass
    sys.stdout = sys.stderr


class _CellLocal(threading.local):
    active = False


_IN_CELL = _CellLocal()


class _CellStdout:
    """``sys.stdout`` while cells run in this process: what a cell's thread writes goes to stderr.

    Threading and sequential cells share the process's ``sys.stdout`` with the
    run itself, so an arm's ``print`` mixed into ``--json`` output and the
    summary. ``contextlib.redirect_stdout`` per cell is not thread-safe (two
    cells restoring each other's stream can leave the parent's stdout on
    stderr), so this one proxy routes by thread: cell threads to the current
    ``sys.stderr``, every other thread to the stdout it replaced. What a C
    extension writes to file descriptor 1 is moved by :class:`_StdoutGuard`.
    """

    def __init__(self, original):
        self._original = original

    def _target(self):
        import sys
        return sys.stderr if _IN_CELL.active else self._original

    def write(self, text):
        return self._target().write(text)

    def writelines(self, lines):
        return self._target().writelines(lines)

    def flush(self):
        return self._target().flush()

    def __getattr__(self, name):
        return getattr(self._target(), name)


class _StdoutGuard:
    """While any pool is open: one :class:`_CellStdout` as ``sys.stdout``, and file descriptor 1
    pointed at stderr (a C library's own output, llama.cpp's say, writes there).

    The costmatch process itself writes nothing to stdout while cells run
    (progress goes to stderr; the summary and ``--json`` come after the pool
    is closed), so moving fd 1 for that time only moves what cells write.
    Worker processes started meanwhile (loky, a local Dask cluster) inherit
    stderr as their stdout from their first instruction, so even their
    start-up messages stay off stdout.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.users = 0
        self.proxy: _CellStdout | None = None
        self.saved_fd: int | None = None

    def acquire(self) -> None:
        import sys
        with self.lock:
            self.users += 1
            if self.users > 1:
                return
            _flush(sys.stdout)
            try:
                saved = os.dup(1)
            except OSError:  # no stdout at all: nothing to protect at the fd level
                saved = None
            if saved is not None:
                try:
                    os.dup2(2, 1)
                    self.saved_fd = saved
                except OSError:
                    os.close(saved)
            if not isinstance(sys.stdout, _CellStdout):
                self.proxy = _CellStdout(sys.stdout)
                sys.stdout = self.proxy

    def release(self, keep: bool = False) -> None:
        """``keep``: a given-up cell thread may still print, so the proxy stays (it passes other threads through)."""
        import sys
        with self.lock:
            self.users -= 1
            if self.users > 0:
                return
            _flush(sys.stderr)
            if self.saved_fd is not None:
                try:
                    os.dup2(self.saved_fd, 1)
                finally:
                    os.close(self.saved_fd)
                    self.saved_fd = None
            if not keep and self.proxy is not None:
                if sys.stdout is self.proxy:
                    sys.stdout = self.proxy._original
                self.proxy = None


def _flush(stream) -> None:
    try:
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass


STDOUT_GUARD = _StdoutGuard()


def _run_batch_here(cells: list) -> tuple[list[bytes], float]:
    """:func:`run_batch` on a thread of this process, with the cell's stdout sent to stderr."""
    outer = _IN_CELL.active
    _IN_CELL.active = True
    try:
        return run_batch(cells)
    finally:
        _IN_CELL.active = outer


# -- the engines -----------------------------------------------------------------
class _Pool:
    """What the scheduling loop needs from an engine."""

    breaks_all = False  # a worker death fails every task in flight (loky)
    cells_elsewhere = False  # cells run in other processes, and this process only waits and writes (loky)

    def slots(self) -> int:
        raise NotImplementedError

    def submit(self, cells: list) -> Any:
        raise NotImplementedError

    def wait(self, handles: list, timeout: float) -> list:
        raise NotImplementedError

    def result(self, handle) -> tuple[list[bytes], float]:
        raise NotImplementedError

    def recover(self) -> None:
        pass

    def abandon(self, handle) -> bool:
        """Stop a task that ran far past its time limit (kill its worker); False if the engine cannot."""
        return False

    def started(self, handle) -> float | None:
        """When the task began to run (``time.monotonic``), ``math.inf`` while it waits for a worker;
        None if the engine cannot tell (its submission time is used)."""
        return None

    def close(self, cancel: bool = False) -> None:
        pass


class _Done:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class InlinePool(_Pool):
    """Cells in this process, one at a time (``--backend sequential``): for debugging and pdb."""

    def __init__(self):
        STDOUT_GUARD.acquire()
        self._open = True

    def slots(self) -> int:
        return 1

    def submit(self, cells):
        return _Done(_run_batch_here(cells))

    def wait(self, handles, timeout):
        return list(handles)

    def result(self, handle):
        return handle.value

    def close(self, cancel=False):
        if self._open:
            self._open = False
            STDOUT_GUARD.release()


class _FuturesPool(_Pool):
    """concurrent.futures executors (threads, loky processes)."""

    executor: Any

    def wait(self, handles, timeout):
        from concurrent.futures import FIRST_COMPLETED, wait
        done, _ = wait(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        return list(done)

    def result(self, handle):
        return handle.result()


class ThreadPool(_FuturesPool):
    """Cells on daemon threads of this process (``--backend threading``).

    Not ``concurrent.futures.ThreadPoolExecutor``: its threads are joined at
    interpreter exit and cannot be given up, so one cell blocked in a C call
    (a sleep, a socket read without a timeout) never became a ``timeout``,
    stalled the run, and kept the process alive after Ctrl-C or SIGTERM.
    Here every worker is a daemon thread; :meth:`abandon` gives a stuck one
    up (it ends when its call returns, its line dropped) and starts a
    replacement, so the pool keeps its size and the process can always exit.
    """

    def __init__(self, jobs: int):
        import queue

        self.jobs = jobs
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
                value, failure = _run_batch_here(cells), None
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
        from concurrent.futures import Future

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


def loky_executor_class():
    """loky's ProcessPoolExecutor: the standalone `loky` package, else the copy inside joblib.

    Why the standalone one: a worker started by joblib's copy runs
    ``python -m joblib.externals.loky...``, which imports all of joblib
    (numpy, its memory and pickling modules) in every worker and in loky's
    resource tracker before the first cell; on 2 cores that start-up was
    longer than 10,000 trivial cells. Same code, same semantics.
    """
    try:
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
    import importlib

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


class LokyPool(_FuturesPool):
    """Worker processes through loky's executor; a dead worker breaks the pool, which is rebuilt."""

    breaks_all = True
    cells_elsewhere = True

    def __init__(self, jobs: int):
        self.jobs = jobs
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
        with _children_ignore_ctrl_c():  # loky starts its workers and its manager thread in here
            return self.executor.submit(run_batch, cells)

    def result(self, handle):
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


class DaskPool(_Pool):
    """``distributed.Client.submit`` + FIRST_COMPLETED waits; a LocalCluster when no address is given."""

    def __init__(self, opts: ExecOptions):
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError("--backend dask needs the dask extra: pip install 'costmatch[dask]'") from None
        import logging
        # the client logs reconnection attempts as tracebacks; costmatch reports a lost scheduler
        # itself, in one line with the resume hint
        for name in ("distributed", "distributed.client", "distributed.core", "distributed.comm"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        self.cluster = None
        self.address = opts.address
        self._slots, self._slots_at = opts.jobs, 0.0
        self._open = True
        STDOUT_GUARD.acquire()  # before the local cluster starts its worker processes: they inherit it
        try:
            self._connect(opts, dask, Client, LocalCluster)
        except BaseException:
            self.close()
            raise

    def _connect(self, opts: ExecOptions, dask, Client, LocalCluster) -> None:
        if opts.address:
            try:
                self.client = Client(opts.address, timeout=min(opts.worker_wait, 10.0))
            except (OSError, ValueError, TypeError, TimeoutError) as exc:
                raise InputError(f"--address {opts.address}: cannot reach a Dask scheduler there "
                                 f"({_first_line(exc)}); start one with `dask scheduler` or fix the address"
                                 ) from None
        else:
            with dask.config.set({"distributed.scheduler.allowed-failures": opts.retries}):
                self.cluster = LocalCluster(n_workers=opts.jobs, threads_per_worker=1, processes=True,
                                            dashboard_address=None, silence_logs=50)
            self.client = Client(self.cluster)
        try:
            self.client.wait_for_workers(1, timeout=opts.worker_wait)
        except (TimeoutError, OSError) as exc:
            self.close()
            where = opts.address or "the local cluster"
            raise InputError(f"no Dask worker joined {where} within {opts.worker_wait:g} s "
                             f"({_first_line(exc)}); start workers with `dask worker {opts.address or 'ADDRESS'}` "
                             "or raise --worker-wait") from None

    def slots(self):
        now = time.monotonic()
        if now - self._slots_at > 2.0:
            try:
                self._slots = max(1, sum(self.client.nthreads().values()))
            except Exception:
                self._check()
            self._slots_at = now
        return self._slots

    def _check(self) -> None:
        if self.client.status in ("closing", "closed", "connecting"):
            raise ClusterLost(f"lost the connection to the Dask scheduler {self.client.scheduler.address}")

    def submit(self, cells):
        self._check()
        return self.client.submit(run_batch_elsewhere, cells, pure=False)

    def wait(self, handles, timeout):
        from distributed import wait
        done = [f for f in handles if f.done()]
        if done:
            return done
        from concurrent.futures import CancelledError
        self._check()
        try:
            wait(handles, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        except (CancelledError, OSError) as exc:  # FuturesCancelledError: scheduler-connection-lost
            raise ClusterLost(f"lost the Dask scheduler ({_dask_reason(exc)})") from None
        return [f for f in handles if f.done()]

    def result(self, handle):
        from concurrent.futures import CancelledError

        from distributed import KilledWorker
        try:
            return handle.result()
        except KilledWorker as exc:
            raise WorkerDied(_first_line(exc), final=True) from None
        except (CancelledError, OSError) as exc:
            raise ClusterLost(f"lost the Dask scheduler ({_dask_reason(exc)})") from None

    def abandon(self, handle):
        """A thread cannot be stopped: restart the worker process holding the task (its nanny does)."""
        try:
            for worker, keys in self.client.processing().items():
                if handle.key in keys:
                    self.client.restart_workers([worker], raise_for_error=False)
            handle.cancel()
        except Exception:  # a worker without a nanny cannot be restarted; the task is dropped anyway
            pass
        return True

    def close(self, cancel=False):
        client = getattr(self, "client", None)
        try:
            if client is not None:
                client.close(timeout=5)
        except Exception:
            pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception:
                pass
        if self._open:
            self._open = False
            STDOUT_GUARD.release()


class RayPool(_Pool):
    """``ray.remote`` + ``ray.wait``; local ``ray.init()`` or an existing cluster by address."""

    def __init__(self, opts: ExecOptions):
        try:
            import ray
        except ImportError:
            raise InputError("--backend ray needs ray: pip install 'costmatch[ray]'") from None
        self.ray = ray
        self._slots, self._slots_at = opts.jobs, 0.0
        kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
        if opts.address:
            _probe(opts.address, min(opts.worker_wait, 10.0), "Ray cluster", "ray start --head")
        try:
            if opts.address:
                ray.init(address=opts.address, **kwargs)
            else:
                env = {k: os.environ[k] for k in ("PYTHONPATH",) if os.environ.get(k)}
                ray.init(num_cpus=opts.jobs, runtime_env={"env_vars": env} if env else None, **kwargs)
        except (ConnectionError, ValueError, RuntimeError, TimeoutError, OSError) as exc:
            raise InputError(f"--address {opts.address or 'local'}: cannot start or reach Ray "
                             f"({_first_line(exc)}); start a cluster with `ray start --head` or fix the address"
                             ) from None
        self.fn = ray.remote(max_retries=0, num_cpus=1)(run_batch)
        deadline = time.monotonic() + opts.worker_wait
        while ray.cluster_resources().get("CPU", 0) < 1:
            if time.monotonic() > deadline:
                self.close()
                raise InputError(f"no Ray worker with a CPU joined within {opts.worker_wait:g} s; "
                                 "start workers with `ray start --address ...` or raise --worker-wait")
            time.sleep(0.2)

    def slots(self):
        now = time.monotonic()
        if now - self._slots_at > 2.0:
            self._slots = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
            self._slots_at = now
        return self._slots

    def submit(self, cells):
        return self.fn.remote(cells)

    def wait(self, handles, timeout):
        ready, _ = self.ray.wait(handles, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = self.ray.wait(handles, num_returns=len(handles), timeout=0)
        return ready

    def result(self, handle):
        exceptions = self.ray.exceptions
        try:
            return self.ray.get(handle)
        except (exceptions.WorkerCrashedError, exceptions.NodeDiedError,
                getattr(exceptions, "OutOfMemoryError", exceptions.WorkerCrashedError)) as exc:
            raise WorkerDied(_first_line(exc)) from None
        except (exceptions.RaySystemError, ConnectionError) as exc:
            raise ClusterLost(f"lost the Ray cluster ({_first_line(exc)})") from None

    def abandon(self, handle):
        try:
            self.ray.cancel(handle, force=True)  # kills the worker process running it
        except Exception:
            pass
        return True

    def close(self, cancel=False):
        try:
            self.ray.shutdown()
        except Exception:
            pass


def _probe(address: str, timeout: float, what: str, start_hint: str) -> None:
    """A plain TCP connect first: Ray retries an address where nothing listens for minutes."""
    import socket

    hostport = address.split("://", 1)[-1].rstrip("/")
    if hostport in ("auto", "local") or address.startswith("ray://"):
        return
    host, _, port = hostport.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        raise InputError(f"--address {address}: cannot reach a {what} there ({_first_line(exc)}); "
                         f"start one with `{start_hint}` or fix the address") from None


def _dask_reason(exc: BaseException) -> str:
    text = str(exc)
    return "scheduler-connection-lost" if "scheduler-connection-lost" in text else _first_line(exc)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def open_pool(opts: ExecOptions) -> _Pool:
    if opts.backend == "sequential":
        return InlinePool()
    if opts.backend == "threading":
        return ThreadPool(opts.jobs)
    if opts.backend == "loky":
        return LokyPool(opts.jobs)
    if opts.backend == "dask":
        return DaskPool(opts)
    if opts.backend == "ray":
        return RayPool(opts)
    raise InputError(f"--backend {opts.backend!r}: choose one of sequential, threading, loky, dask, ray")


# -- the scheduling loop ---------------------------------------------------------
class _Batcher:
    """Batch size from the measured time per cell: about `target` seconds a batch, and never so large
    that the last batches leave workers idle."""

    def __init__(self, target: float):
        self.target = target
        self.per_cell: float | None = None

    def observe(self, cells: int, seconds: float) -> None:
        per = seconds / max(1, cells)
        self.per_cell = per if self.per_cell is None else 0.7 * self.per_cell + 0.3 * per

    def size(self, remaining: int, slots: int) -> int:
        if self.per_cell is None:
            return 1
        wanted = int(self.target / max(self.per_cell, 1e-6))
        fair = math.ceil(remaining / (4 * slots))
        return max(1, min(wanted, fair, 1000))


def run_cells(cells: list, pool: _Pool, retries: int, batch_seconds: float = 0.05,
              on_failure: Callable[[Any, str, dict | None], Any] | None = None,
              grace: float = 10.0, meanwhile: Callable[[], None] | None = None) -> Iterator[tuple[int, Any]]:
    """Yield (cell index, finished line) in completion order.

    A cell that keeps killing its worker yields ``on_failure(cell,
    "worker-died", error)``. With a per-cell time limit, a task far past its
    time (``2 x`` its expected time ``+ 2 x limit + grace``: a cell stuck in
    a C call that neither SIGALRM nor the thread watchdog can stop) is
    abandoned, its worker killed where the engine allows, its cells rerun
    alone, and a cell stuck alone yields ``on_failure(cell, "timeout", None)``.
    ``meanwhile`` (which must not raise) is the caller's own set-up (the
    report's imports), run once when there are cells: when they run in
    other processes, on a thread of its own right after the first cells are
    sent, so it is done while the workers start and run cells instead of
    after the last cell; otherwise before any cell starts, since an import on
    one thread while an arm imports the same module on another could hand
    one of them a half-initialised module. It has finished when this
    generator ends.

    A KeyboardInterrupt (Ctrl-C; the runner turns SIGTERM into one) raised
    while this generator waits, or thrown into it by the caller with
    ``throw`` when it landed in the caller's loop, first hands over every
    line that already finished, then goes on: finished cells are kept.
    """
    queue = deque(range(len(cells)))
    suspects: deque[int] = deque()
    deaths: Counter[int] = Counter()
    inflight: dict[Any, tuple[list[int], bool, float]] = {}
    batcher = _Batcher(batch_seconds)
    limits = [getattr(c, "timeout", None) for c in cells]
    limit = None if not cells or any(t is None for t in limits) else max(limits)
    helper = None
    if meanwhile is not None and cells and not getattr(pool, "cells_elsewhere", False):
        meanwhile, call = None, meanwhile
        call()
    ready: deque[tuple[int, Any]] = deque()  # finished lines not yet handed over
    try:
        while queue or suspects or inflight or ready:
            while ready:
                yield ready.popleft()
            if not (queue or suspects or inflight):
                break
            _submit(cells, pool, queue, suspects, inflight, batcher)
            if meanwhile is not None:
                helper = threading.Thread(target=meanwhile, name="costmatch-meanwhile")
                helper.start()
                meanwhile = None
            ready.extend(_collect(cells, pool, inflight, suspects, deaths, batcher, retries, on_failure))
            if limit is not None:
                ready.extend(_abandon_overdue(cells, pool, inflight, suspects, batcher, limit, grace, on_failure))
    except KeyboardInterrupt:  # lines that finished before it are handed over (so kept), then it goes on
        ready.extend(_finished_lines(pool, inflight))
        while ready:
            yield ready.popleft()
        raise
    finally:
        if helper is not None:
            helper.join()


def _finished_lines(pool: _Pool, inflight: dict) -> Iterator[tuple[int, Any]]:
    """The lines of tasks that are already done, without waiting for any other (after an interrupt)."""
    try:
        done = pool.wait(list(inflight), 0) if inflight else []
    except Exception:  # noqa: BLE001 - a broken engine after Ctrl-C: nothing more to keep
        return
    for handle in done:
        idx, _, _ = inflight.pop(handle, ([], False, 0.0))
        try:
            lines, _ = pool.result(handle)
        except Exception:  # noqa: BLE001 - a died or cancelled task has no line; its cells run on resume
            continue
        yield from zip(idx, lines)


def _submit(cells: list, pool: _Pool, queue: deque, suspects: deque, inflight: dict, batcher: _Batcher) -> None:
    """Send work: one suspect alone once nothing else runs (a death is then its own), else batches up to 2 x slots."""
    if suspects:
        if not inflight:  # a suspect runs alone, so a death is its own
            i = suspects.popleft()
            inflight[pool.submit([cells[i]])] = ([i], True, time.monotonic())
    else:
        slots = pool.slots()
        sent = []
        while queue and len(inflight) < 2 * slots:
            k = min(batcher.size(len(queue), slots), len(queue))
            idx = [queue.popleft() for _ in range(k)]
            handle = pool.submit([cells[i] for i in idx])
            inflight[handle] = (idx, False, time.monotonic())
            sent.append(handle)
        if len(sent) == 1 and len(inflight) == 1 and not queue and len(inflight[sent[0]][0]) == 1:
            # one cell, nothing else in flight and nothing left to send: it runs alone, so a death is
            # its own and counts (else a lone killer ran 2 + retries times, and --retries 0 ran it twice)
            idx, _, sent_at = inflight[sent[0]]
            inflight[sent[0]] = (idx, True, sent_at)


def _collect(cells: list, pool: _Pool, inflight: dict, suspects: deque, deaths: Counter, batcher: _Batcher,
             retries: int, on_failure) -> Iterator[tuple[int, Any]]:
    """Yield the lines of tasks that finished within half a second; a died task's cells become suspects."""
    for handle in pool.wait(list(inflight), 0.5):
        if handle not in inflight:
            continue
        idx, alone, _ = inflight.pop(handle)
        try:
            lines, seconds = pool.result(handle)
        except WorkerDied as exc:
            if alone:
                i = idx[0]
                deaths[i] += 1
                if exc.final or deaths[i] > retries:
                    # the same text on every engine: records must not depend on the backend
                    error = {"type": "WorkerDied", "stage": "worker", "where": "", "traceback": "",
                             "message": "the process running this cell died each time it ran alone "
                                        "(the arm or workload may exit the process, crash or run out of memory)"}
                    yield i, on_failure(cells[i], WORKER_DIED, error)
                else:
                    suspects.appendleft(i)
            else:
                suspects.extend(idx)
            if pool.breaks_all:
                _requeue_inflight(inflight, suspects)
                pool.recover()
            break  # handles from a broken pool are stale: wait again
        batcher.observe(len(idx), seconds)
        for i, line in zip(idx, lines):
            yield i, line


def _abandon_overdue(cells: list, pool: _Pool, inflight: dict, suspects: deque, batcher: _Batcher, limit: float,
                     grace: float, on_failure) -> Iterator[tuple[int, Any]]:
    """Give up tasks far past their time (stuck in C); a cell stuck alone yields its timeout line.

    Where the engine tells when a task began (threads), a batch queued behind
    a stuck one is not overdue, and a one-cell batch overdue since it began
    is stuck by itself: it is a timeout at once, not rerun alone first.
    """
    now = time.monotonic()
    for handle, (idx, alone, sent_at) in list(inflight.items()):
        expected = len(idx) * min(batcher.per_cell or limit, limit)
        if handle not in inflight:
            continue
        started = getattr(pool, "started", lambda h: None)(handle)
        if now - (sent_at if started is None else max(sent_at, started)) <= 2 * expected + 2 * limit + grace:
            continue
        if not pool.abandon(handle):
            continue
        inflight.pop(handle, None)
        if alone or (len(idx) == 1 and started is not None and not pool.breaks_all):
            yield idx[0], on_failure(cells[idx[0]], "timeout", None)
        else:
            suspects.extend(idx)
        if pool.breaks_all:
            _requeue_inflight(inflight, suspects)


def _requeue_inflight(inflight: dict, suspects: deque) -> None:
    """After a pool broke, every task still in flight is lost: its cells become suspects."""
    for other, _, _ in inflight.values():
        suspects.extend(other)
    inflight.clear()
