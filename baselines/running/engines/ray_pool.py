"""The Ray engine (``--backend ray``): a fresh local Ray, or a running cluster by ``--address``.

Ray is an optional dependency (the ``ray`` extra), imported when this
engine opens.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

from ...core.errors import InputError
from ...core.scoped import scoped_env
from .base import ClusterLost, ExecOptions, Pool, Work, WorkerDied, first_line
from .worker import run_batch


class RayPool(Pool):
    """``ray.remote`` + ``ray.wait``; a fresh local Ray, or an existing cluster by address.

    The address was checked before (:mod:`.probe`: the right engine, our token
    accepted, the same versions). Without one, Ray is started locally with
    ``address="local"``: a bare ``ray.init()`` attaches to whatever cluster
    RAY_ADDRESS or the last ``ray start --head`` on the machine names, and
    then refused ``num_cpus`` ("When connecting to an existing cluster,
    num_cpus and num_gpus must not be provided"), an option the user never gave.
    """

    def __init__(self, opts: ExecOptions, work: Work):
        try:  # an optional dependency: imported when this engine opens
            import ray
        except ImportError:
            raise InputError("--backend ray needs ray: pip install 'costmatch[ray]'") from None
        self.ray = ray
        self.work = work
        self._slots, self._slots_at = opts.jobs, 0.0
        _start(ray, opts)
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


def _start(ray, opts: ExecOptions) -> None:
    """``ray.init`` by address, or a new local instance that no RAY_ADDRESS or running cluster can redirect."""
    kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        if opts.address:
            ray.init(address=opts.address, **kwargs)
            return
        if os.environ.get("RAY_ADDRESS"):
            print(f"costmatch: RAY_ADDRESS={os.environ['RAY_ADDRESS']} is not used: without --address, --backend ray "
                  "starts its own local Ray (pass --address to run on that cluster)", file=sys.stderr)
        env = {k: os.environ[k] for k in ("PYTHONPATH",) if os.environ.get(k)}
        # Ray warns on every new local instance that it turned token auth on; this one is ours alone
        auth_log = logging.getLogger("ray._private.authentication.authentication_token_setup")
        level = auth_log.level
        auth_log.setLevel(logging.ERROR)
        try:
            with scoped_env("RAY_ADDRESS", None):
                ray.init(address="local", num_cpus=opts.jobs, runtime_env={"env_vars": env} if env else None,
                         **kwargs)
        finally:
            auth_log.setLevel(level)
    except (ConnectionError, ValueError, RuntimeError, TimeoutError, OSError) as exc:
        where = f"reach the Ray cluster at --address {opts.address}" if opts.address else "start a local Ray"
        raise InputError(f"cannot {where} ({first_line(exc)})") from None
