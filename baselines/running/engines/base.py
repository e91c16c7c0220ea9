"""What every engine is and says: the pool interface the scheduler drives, its options and its two failures.

Why one module: the scheduler (`scheduler.py`) and each engine agree on
these few names and nothing else, so an engine is one module that needs
only this one.
"""
from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from typing import Any, Callable

#: the per-cell work an engine runs: a cell in, its finished line (or lines) out
Work = Callable[[Any], Any]

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


class Pool:
    """What the scheduling loop needs from an engine: a pool of workers running `work` over batches of cells."""

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


class Done:
    """A batch that already ran (in this process): its value, as a finished handle."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class FuturesPool(Pool):
    """concurrent.futures executors (threads, loky processes)."""

    executor: Any

    def wait(self, handles, timeout):
        done, _ = wait(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        return list(done)

    def result(self, handle):
        return handle.result()


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
