"""What runs in a Dask worker for costmatch: the batch entry point that first tells the client it started.

Why a start signal: a Dask future says nothing between "submitted" and
"done", so the overdue rule (see `scheduler.py`) counted the time a batch
waited behind a cell stuck in C, and the time its worker took to restart
after a death, as its own running time: a cell that killed its worker came
back as a timeout. The batch now tells the client, before its first cell
runs, that it started and on which worker; the client counts time limits
from there, and a worker that leaves the cluster while running a batch is
that batch's death (see `dask_pool.py`).

The signal is one round trip to the scheduler (``log_event``) made before
any cell code runs, so it has reached the scheduler even when the cell
kills its process at once; the scheduler forwards it to the client before
its "worker removed" event. Imported only inside Dask workers (the task
function is pickled by reference), so `distributed` is imported here at the
top: no other engine's process loads this module.
"""
from __future__ import annotations

import contextlib
from typing import Any

from distributed import get_worker
from distributed.utils import sync

from .base import Work
from .worker import run_batch, stdout_to_stderr_in_this_process

#: seconds the start signal may take before the batch runs anyway (the worker's own log stream then carries it)
SIGNAL_WAIT = 10.0


def run_batch_on_dask(work: Work, cells: list, topic: str) -> tuple[list[Any], float]:
    """Tell the client (on event `topic`) that this batch started here, then :func:`run_batch` it.

    Costmatch did not start this worker, so no initializer ran: stdout goes
    to stderr first. Ray needs none of this: its workers' output goes to
    Ray's log files (``log_to_driver=False``).
    """
    stdout_to_stderr_in_this_process()
    tell_started(topic)
    return run_batch(work, cells)


def tell_started(topic: str) -> None:
    """Publish ``{"key": this task's key, "worker": this worker's address}`` on `topic`, waiting for the scheduler."""
    try:
        worker = get_worker()
        msg = {"key": str(worker.get_current_task()), "worker": worker.address}
    except Exception:  # noqa: BLE001 - not on a worker's thread (a process-pool executor): the batch runs unannounced
        return
    try:
        sync(worker.loop, worker.scheduler.log_event, topic=topic, msg=msg, callback_timeout=SIGNAL_WAIT)
    except Exception:  # noqa: BLE001 - a slow scheduler: the batched stream still delivers it, later
        with contextlib.suppress(Exception):
            worker.log_event(topic, msg)
