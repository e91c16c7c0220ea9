"""The scheduling loop: cells to an engine in batches and finished lines back, with one failure semantics.

The rules that keep results independent of the engine live here, above
every engine (see the package docstring): suspects rerun alone after a
worker died, batches sized from measured cell time, tasks far past their
time abandoned, and finished lines handed over before an interrupt goes on.
"""
from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from typing import Any, Callable, Iterator

from .base import WORKER_DIED, Pool, WorkerDied


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


def run_cells(cells: list, pool: Pool, retries: int, batch_seconds: float = 0.05,
              on_failure: Callable[[Any, str, dict | None], Any] | None = None,
              grace: float = 10.0, meanwhile: Callable[[], None] | None = None,
              skip: Callable[[Any], bool] | None = None) -> Iterator[tuple[int, Any]]:
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
    generator ends. ``skip(cell)`` true drops a cell as it is about to be sent (fail-fast).

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
            _submit(cells, pool, queue, suspects, inflight, batcher, skip)
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


def _finished_lines(pool: Pool, inflight: dict) -> Iterator[tuple[int, Any]]:
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


def _submit(cells: list, pool: Pool, queue: deque, suspects: deque, inflight: dict, batcher: _Batcher,
            skip: Callable[[Any], bool] | None = None) -> None:
    """Send work: one suspect alone once nothing else runs (a death is then its own), else batches up to 2 x slots."""
    if skip is not None:
        while suspects and skip(cells[suspects[0]]):
            suspects.popleft()
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
            if skip is not None:
                idx = [i for i in idx if not skip(cells[i])]
                if not idx:
                    continue
            handle = pool.submit([cells[i] for i in idx])
            inflight[handle] = (idx, False, time.monotonic())
            sent.append(handle)
        if len(sent) == 1 and len(inflight) == 1 and not queue and len(inflight[sent[0]][0]) == 1:
            # one cell, nothing else in flight and nothing left to send: it runs alone, so a death is
            # its own and counts (else a lone killer ran 2 + retries times, and --retries 0 ran it twice)
            idx, _, sent_at = inflight[sent[0]]
            inflight[sent[0]] = (idx, True, sent_at)


def _collect(cells: list, pool: Pool, inflight: dict, suspects: deque, deaths: Counter, batcher: _Batcher,
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


def _abandon_overdue(cells: list, pool: Pool, inflight: dict, suspects: deque, batcher: _Batcher, limit: float,
                     grace: float, on_failure) -> Iterator[tuple[int, Any]]:
    """Give up tasks far past their time (stuck in C); a cell stuck alone yields its timeout line.

    Where the engine tells when a task began (threads; Dask, whose batches
    say so before their first cell), a batch queued behind a stuck one, or
    waiting for a restarted worker, is not overdue, and a one-cell batch
    overdue since it began is stuck by itself: it is a timeout at once, not
    rerun alone first. Elsewhere (loky, Ray: SIGALRM stops their cells in
    the worker) the clock runs from when the batch was sent.
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
