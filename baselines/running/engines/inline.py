"""The sequential engine (``--backend sequential``): cells in this process, one at a time, for debugging and pdb."""
from __future__ import annotations

from .base import Done, Pool, Work
from .stdout_guard import STDOUT_GUARD, run_batch_here


class InlinePool(Pool):
    """Cells in this process, one at a time (``--backend sequential``): for debugging and pdb."""

    def __init__(self, work: Work):
        self.work = work
        STDOUT_GUARD.acquire()
        self._open = True

    def slots(self) -> int:
        return 1

    def submit(self, cells):
        return Done(run_batch_here(self.work, cells))

    def wait(self, handles, timeout):
        return list(handles)

    def result(self, handle):
        return handle.value

    def close(self, cancel=False):
        if self._open:
            self._open = False
            STDOUT_GUARD.release()
