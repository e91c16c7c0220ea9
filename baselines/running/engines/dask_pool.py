"""The Dask engine (``--backend dask``): a local cluster, or a running scheduler by ``--address``.

Dask is an optional dependency (the ``dask`` extra), imported when this
engine opens.
"""
from __future__ import annotations

import logging
import time
from concurrent.futures import CancelledError

from ...core.errors import InputError
from .base import ClusterLost, ExecOptions, Pool, Work, WorkerDied, first_line
from .stdout_guard import STDOUT_GUARD
from .worker import run_batch_elsewhere


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
        self.distributed = distributed
        self.work = work
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
                             f"({first_line(exc)}); start workers with `dask worker {opts.address or 'ADDRESS'}` "
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
        return self.client.submit(run_batch_elsewhere, self.work, cells, pure=False)

    def wait(self, handles, timeout):
        done = [f for f in handles if f.done()]
        if done:
            return done
        self._check()
        try:
            self.distributed.wait(handles, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        except (CancelledError, OSError) as exc:  # FuturesCancelledError: scheduler-connection-lost
            raise ClusterLost(f"lost the Dask scheduler ({_dask_reason(exc)})") from None
        return [f for f in handles if f.done()]

    def result(self, handle):
        try:
            return handle.result()
        except self.distributed.KilledWorker as exc:
            raise WorkerDied(first_line(exc), final=True) from None
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

def _dask_reason(exc: BaseException) -> str:
    text = str(exc)
    return "scheduler-connection-lost" if "scheduler-connection-lost" in text else first_line(exc)
