"""The Dask engine's reading of the scheduler's events, without a cluster (cheap; the real ones are slow tests).

Issue 31: a killer cell came back `timeout` because the overdue clock ran from submission (a batch waiting
behind a stuck cell, or for a restarting worker, looked stuck itself). The pool now hears when a batch starts
and which worker leaves; these tests drive it with the events a scheduler sends, through its public methods.
"""
from __future__ import annotations

import asyncio
import math
import threading
from types import SimpleNamespace

import pytest

from baselines.running.engines import WorkerDied
from baselines.running.engines.dask_pool import DaskPool


class FakeFuture:
    def __init__(self, key: str):
        self.key, self.status, self.cancelled_for = key, "pending", None

    def done(self):
        return self.status != "pending"

    def cancel(self, reason=None):
        self.status, self.cancelled_for = "cancelled", reason


class FakeClient:
    """What the pool calls on a distributed.Client: submit, cancel (awaitable when asynchronous), restart."""

    def __init__(self):
        self.n, self.restarted, self.status = 0, [], "running"

    def submit(self, *args, **kwargs):
        self.n += 1
        return FakeFuture(f"batch-{self.n}")

    def cancel(self, futures, asynchronous=False, reason=None):
        for f in futures:
            f.cancel(reason)

        async def done():
            return None
        return done() if asynchronous else None

    def restart_workers(self, workers, raise_for_error=True):
        self.restarted.extend(workers)


@pytest.fixture
def pool():
    p = DaskPool.__new__(DaskPool)  # no cluster: only the event bookkeeping is under test
    p.client, p.work, p.task, p.topic = FakeClient(), None, None, "costmatch-started-test"
    p.distributed = SimpleNamespace(KilledWorker=type("KilledWorker", (Exception,), {}))
    p._lock, p._live, p._started, p._lost = threading.Lock(), {}, {}, {}
    return p


def test_a_batch_is_not_overdue_until_it_says_it_started_and_then_counts_from_there(pool):
    waiting, running = pool.submit(["a"]), pool.submit(["b"])
    pool._on_started((0.0, {"key": running.key, "worker": "tcp://w1"}))
    assert pool.started(waiting) == math.inf        # queued behind a stuck cell or a restart: not its own time
    assert math.isfinite(pool.started(running))
    assert pool.abandon(waiting) is False           # a batch that never started is not stuck


def test_a_worker_leaving_mid_batch_is_that_batch_s_death_and_spares_the_others(pool):
    dead, elsewhere, queued = pool.submit(["k"]), pool.submit(["g"]), pool.submit(["q"])
    pool._on_started((0.0, {"key": dead.key, "worker": "tcp://w1"}))
    pool._on_started((0.0, {"key": elsewhere.key, "worker": "tcp://w2"}))
    asyncio.run(pool._on_cluster_event((0.0, {"action": "remove-worker", "worker": "tcp://w1"})))
    assert dead.status == "cancelled"               # so the scheduler does not rerun it behind costmatch's back
    assert pool.wait([dead, elsewhere, queued], 0) == [dead]
    with pytest.raises(WorkerDied) as died:
        pool.result(dead)
    assert not died.value.final and "tcp://w1" in str(died.value)  # the scheduling loop counts the death
    assert elsewhere.status == queued.status == "pending"


def test_other_cluster_events_change_nothing(pool):
    batch = pool.submit(["a"])
    pool._on_started((0.0, {"key": batch.key, "worker": "tcp://w1"}))
    for msg in ({"action": "add-worker", "worker": "tcp://w3"}, {"action": "remove-worker", "worker": "tcp://w9"},
                "not a dict"):
        asyncio.run(pool._on_cluster_event((0.0, msg)))
    assert batch.status == "pending" and math.isfinite(pool.started(batch))


def test_an_abandoned_batch_s_worker_restarts_on_a_thread_of_its_own(pool):
    stuck = pool.submit(["s"])
    pool._on_started((0.0, {"key": stuck.key, "worker": "tcp://w1"}))
    before = set(threading.enumerate())
    assert pool.abandon(stuck) is True              # returns at once: the restart runs elsewhere
    for thread in set(threading.enumerate()) - before:
        thread.join(10)
    assert pool.client.restarted == ["tcp://w1"] and stuck.status == "cancelled"
