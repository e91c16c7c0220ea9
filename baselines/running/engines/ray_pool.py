"""The Ray engine (``--backend ray``): a local ``ray.init()``, or a running cluster by ``--address``.

Ray is an optional dependency (the ``ray`` extra), imported when this
engine opens.
"""
from __future__ import annotations

import os
import socket
import time
from typing import Any

from ...core.errors import InputError
from .base import ClusterLost, ExecOptions, Pool, Work, WorkerDied, first_line
from .worker import run_batch


class RayPool(Pool):
    """``ray.remote`` + ``ray.wait``; local ``ray.init()`` or an existing cluster by address."""

    def __init__(self, opts: ExecOptions, work: Work):
        try:  # an optional dependency: imported when this engine opens
            import ray
        except ImportError:
            raise InputError("--backend ray needs ray: pip install 'costmatch[ray]'") from None
        self.ray = ray
        self.work = work
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
                             f"({first_line(exc)}); start a cluster with `ray start --head` or fix the address"
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
        return self.fn.remote(self.work, cells)

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
            raise WorkerDied(first_line(exc)) from None
        except (exceptions.RaySystemError, ConnectionError) as exc:
            raise ClusterLost(f"lost the Ray cluster ({first_line(exc)})") from None

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
    hostport = address.split("://", 1)[-1].rstrip("/")
    if hostport in ("auto", "local") or address.startswith("ray://"):
        return
    host, _, port = hostport.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        raise InputError(f"--address {address}: cannot reach a {what} there ({first_line(exc)}); "
                         f"start one with `{start_hint}` or fix the address") from None
