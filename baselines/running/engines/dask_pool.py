"""The Dask engine (``--backend dask``): a local cluster, or a running scheduler by ``--address``.

Dask is an optional dependency (the ``dask`` extra), imported when this
engine opens.

Why the events: a Dask future tells only "pending" or "done". Each batch
tells the client when and where it started (`dask_worker.py`, on an event
topic of this run), and the scheduler tells every subscriber when a worker
leaves; so time limits count from a batch's start, not from its
submission, and a worker that leaves while running a batch is that batch's
death, reported at once (`WorkerDied`) and counted by the scheduling loop
as on every other engine, instead of a batch that waited behind a stuck
cell or a restarting worker being called overdue (issue 31). A stuck
worker is restarted on a thread of its own, so the client keeps collecting
lines meanwhile.
"""
from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
import uuid
from concurrent.futures import CancelledError

from ...core.errors import InputError
from .base import ClusterLost, ExecOptions, Pool, Work, WorkerDied, first_line
from .stdout_guard import STDOUT_GUARD


class DaskPool(Pool):
    """``distributed.Client.submit`` + FIRST_COMPLETED waits; a LocalCluster when no address is given."""

    def __init__(self, opts: ExecOptions, work: Work):
        try:  # an optional dependency: imported when this engine opens
            import dask
            import distributed
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError("--backend dask needs the dask extra: pip install 'costmatch[dask]'") from None
        # the client logs reconnection attempts as tracebacks; costmatch reports a lost scheduler
        # itself, in one line with the resume hint
        for name in ("distributed", "distributed.client", "distributed.core", "distributed.comm"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        from .dask_worker import run_batch_on_dask  # imports distributed: only once this engine opens

        self.distributed = distributed
        self.task = run_batch_on_dask
        self.work = work
        self.topic = f"costmatch-started-{uuid.uuid4().hex[:16]}"
        self._lock = threading.Lock()
        self._live: dict[str, object] = {}                  # key -> future, for every batch in flight
        self._started: dict[str, tuple[float, str]] = {}    # key -> (time.monotonic() heard here, worker)
        self._lost: dict[str, str] = {}                     # key -> the worker that left while running it
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
                                 f"({first_line(exc)}); start one with `dask scheduler` or fix the address"
                                 ) from None
        else:
            # no rerun by the scheduler itself: the scheduling loop reruns a dead batch's cells alone and
            # counts each death (else a killer ran uncounted times on the second worker)
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                self.cluster = LocalCluster(n_workers=opts.jobs, threads_per_worker=1, processes=True,
                                            dashboard_address=None, silence_logs=50)
            self.client = Client(self.cluster)
        try:
            self.client.wait_for_workers(1, timeout=opts.worker_wait)
        except (TimeoutError, OSError) as exc:
            self.close()
            where = opts.address or "the local cluster"
            raise InputError(f"no Dask worker joined {where} within {opts.worker_wait:g} s "
                             f"({first_line(exc)}); start workers with `dask worker {opts.address or 'ADDRESS'}` "
                             "or raise --worker-wait") from None
        self.client.subscribe_topic(self.topic, self._on_started)
        self.client.subscribe_topic("all", self._on_cluster_event)

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
        future = self.client.submit(self.task, self.work, cells, self.topic, pure=False)
        with self._lock:
            self._live[future.key] = future
        return future

    # -- what the scheduler tells (these run on the client's event loop: quick, and never raise) --
    def _on_started(self, event) -> None:
        msg = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else None
        if isinstance(msg, dict) and isinstance(msg.get("key"), str):
            # kept even before `submit` has noted the key (a race of milliseconds); `result` drops it
            with self._lock:
                self._started[msg["key"]] = (time.monotonic(), str(msg.get("worker")))

    async def _on_cluster_event(self, event) -> None:
        """A worker left: every batch that had started on it died with it; cancel them now, so the scheduler
        does not rerun them itself, and `wait` hands them back at once."""
        msg = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else None
        if not isinstance(msg, dict) or msg.get("action") != "remove-worker":
            return
        gone = msg.get("worker")
        with self._lock:
            dead = [key for key, (_, worker) in self._started.items() if worker == gone]
            for key in dead:
                del self._started[key]
                self._lost[key] = str(gone)
            futures = [self._live[key] for key in dead if key in self._live]
        if futures:
            with contextlib.suppress(Exception):
                await self.client.cancel(futures, asynchronous=True, reason="costmatch: its worker died")

    def started(self, handle):
        """When the client heard that the batch started (``math.inf`` while it waits for a worker)."""
        with self._lock:
            info = self._started.get(handle.key)
        return math.inf if info is None else info[0]

    def wait(self, handles, timeout):
        with self._lock:
            lost = [f for f in handles if f.key in self._lost]
        done = lost + [f for f in handles if f.done() and f.key not in self._lost]
        if done:
            return done
        self._check()
        try:
            self.distributed.wait(handles, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        except (CancelledError, OSError) as exc:  # FuturesCancelledError: ours (a lost batch), or the scheduler's
            with self._lock:
                lost = [f for f in handles if f.key in self._lost]
            if lost:
                return lost
            raise ClusterLost(f"lost the Dask scheduler ({_dask_reason(exc)})") from None
        return [f for f in handles if f.done()]

    def result(self, handle):
        with self._lock:
            self._live.pop(handle.key, None)
            self._started.pop(handle.key, None)
            gone = self._lost.pop(handle.key, None)
        if gone is not None and handle.status != "finished":
            with contextlib.suppress(Exception):  # normally cancelled already, when the scheduler told
                handle.cancel(reason="costmatch: its worker died")
            raise WorkerDied(f"the Dask worker {gone} left the cluster while running this batch")
        try:
            return handle.result()
        except self.distributed.KilledWorker as exc:  # its worker died before it told its start (queued there)
            raise WorkerDied(first_line(exc)) from None
        except (CancelledError, OSError) as exc:
            raise ClusterLost(f"lost the Dask scheduler ({_dask_reason(exc)})") from None

    def abandon(self, handle):
        """A thread cannot be stopped: restart the worker process running the batch (its nanny does), on a
        thread of its own (a restart takes seconds, and the client keeps collecting meanwhile).

        False when the batch has not started (it waits for a worker: not stuck).
        """
        with self._lock:
            info = self._started.pop(handle.key, None)
            if info is None:
                return False
            self._live.pop(handle.key, None)
        threading.Thread(target=self._restart, args=(handle, info[1]), name="costmatch-dask-restart",
                         daemon=True).start()
        return True

    def _restart(self, handle, worker: str) -> None:
        with contextlib.suppress(Exception):  # a closed client: the run is over anyway
            handle.cancel(reason="costmatch: abandoned past its time limit")
        with contextlib.suppress(Exception):  # a worker without a nanny cannot be restarted (Dask removes it)
            self.client.restart_workers([worker], raise_for_error=False)

    def close(self, cancel=False):
        client = getattr(self, "client", None)
        try:
            if client is not None:
                for topic in (self.topic, "all"):  # else the scheduler logs its "remove-client" event failing
                    with contextlib.suppress(Exception):  # to reach this closing client, as a CRITICAL traceback
                        client.unsubscribe_topic(topic)
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

def _dask_reason(exc: BaseException) -> str:
    text = str(exc)
    return "scheduler-connection-lost" if "scheduler-connection-lost" in text else first_line(exc)
