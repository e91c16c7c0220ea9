"""The engines: cells to workers and finished lines back, with one failure semantics everywhere.

Why this is not joblib: joblib gives one finished cell at a time only on
loky (``return_as="generator_unordered"``; Ray's joblib backend has no such
mode), aborts the whole run when a worker process dies, and hangs on Dask when
a task kills its worker. Results must not depend on the backend, so the rules
live here, above every engine:

- A cell whose worker process dies is a *suspect*; suspects are rerun one at a
  time with nothing else in flight, so a death is pinned on the cell that
  caused it. A cell that kills its worker ``1 + retries`` times alone becomes
  an error record (``stop_reason = "worker-died"``); the run goes on. On Dask
  too: a worker that leaves while running a batch is that batch's death
  (the batch told the client where it started), not a task for the
  scheduler to rerun by itself.
- Time limits count from when a batch *started* where the engine tells
  (threads, Dask), so waiting behind a stuck cell or a restarting worker is
  never a timeout; elsewhere from when it was sent.
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

One module per job: `base` (the pool interface, options, failures),
`worker` (what runs in a worker: the batch entry point, the thread
watchdog), `stdout_guard`, one module per engine (`inline`, `threads`,
`loky_pool`, `dask_pool`, `ray_pool`) and `scheduler` (the loop above
them). The cell's work is handed in (`open_pool(opts, work)`), so the
engines never import the runner.
"""
from __future__ import annotations

from ...core.errors import InputError
from .base import WORKER_DIED, ClusterLost, ExecOptions, Pool, Work, WorkerDied
from .dask_pool import DaskPool
from .inline import InlinePool
from .loky_pool import LokyPool
from .ray_pool import RayPool
from .scheduler import run_cells
from .threads import ThreadPool
from .worker import WATCHDOG

__all__ = ["WATCHDOG", "WORKER_DIED", "ClusterLost", "ExecOptions", "Pool", "ThreadPool", "Work", "WorkerDied",
           "open_pool", "run_cells"]


def open_pool(opts: ExecOptions, work: Work) -> Pool:
    """The engine `opts.backend` names, running `work` (a picklable module-level function) on each cell."""
    if opts.backend == "sequential":
        return InlinePool(work)
    if opts.backend == "threading":
        return ThreadPool(opts.jobs, work)
    if opts.backend == "loky":
        return LokyPool(opts.jobs, work)
    if opts.backend == "dask":
        return DaskPool(opts, work)
    if opts.backend == "ray":
        return RayPool(opts, work)
    raise InputError(f"--backend {opts.backend!r}: choose one of sequential, threading, loky, dask, ray")
