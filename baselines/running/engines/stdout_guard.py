"""While cells run in this process (inline and threading engines): what they print goes to stderr.

Why: stdout carries only costmatch's own output (the summary, ``--json``).
An arm's ``print`` on a cell thread, or a C library writing to file
descriptor 1, landed in the middle of it. Worker processes move their own
stdout (`worker.stdout_to_stderr_in_this_process`).
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Any

from .base import Work
from .worker import run_batch


class _CellLocal(threading.local):
    active = False


_IN_CELL = _CellLocal()


class _CellStdout:
    """``sys.stdout`` while cells run in this process: what a cell's thread writes goes to stderr.

    Threading and sequential cells share the process's ``sys.stdout`` with the
    run itself, so an arm's ``print`` mixed into ``--json`` output and the
    summary. ``contextlib.redirect_stdout`` per cell is not thread-safe (two
    cells restoring each other's stream can leave the parent's stdout on
    stderr), so this one proxy routes by thread: cell threads to the current
    ``sys.stderr``, every other thread to the stdout it replaced. What a C
    extension writes to file descriptor 1 is moved by :class:`_StdoutGuard`.
    """

    def __init__(self, original):
        self._original = original

    def _target(self):
        return sys.stderr if _IN_CELL.active else self._original

    def write(self, text):
        return self._target().write(text)

    def writelines(self, lines):
        return self._target().writelines(lines)

    def flush(self):
        return self._target().flush()

    def __getattr__(self, name):
        return getattr(self._target(), name)


class _StdoutGuard:
    """While any pool is open: one :class:`_CellStdout` as ``sys.stdout``, and file descriptor 1
    pointed at stderr (a C library's own output, llama.cpp's say, writes there).

    The costmatch process itself writes nothing to stdout while cells run
    (progress goes to stderr; the summary and ``--json`` come after the pool
    is closed), so moving fd 1 for that time only moves what cells write.
    Worker processes started meanwhile (loky, a local Dask cluster) inherit
    stderr as their stdout from their first instruction, so even their
    start-up messages stay off stdout.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.users = 0
        self.proxy: _CellStdout | None = None
        self.saved_fd: int | None = None

    def acquire(self) -> None:
        with self.lock:
            self.users += 1
            if self.users > 1:
                return
            _flush(sys.stdout)
            try:
                saved = os.dup(1)
            except OSError:  # no stdout at all: nothing to protect at the fd level
                saved = None
            if saved is not None:
                try:
                    os.dup2(2, 1)
                    self.saved_fd = saved
                except OSError:
                    os.close(saved)
            if not isinstance(sys.stdout, _CellStdout):
                self.proxy = _CellStdout(sys.stdout)
                sys.stdout = self.proxy

    def release(self, keep: bool = False) -> None:
        """``keep``: a given-up cell thread may still print, so the proxy stays (it passes other threads through)."""
        with self.lock:
            self.users -= 1
            if self.users > 0:
                return
            _flush(sys.stderr)
            if self.saved_fd is not None:
                try:
                    os.dup2(self.saved_fd, 1)
                finally:
                    os.close(self.saved_fd)
                    self.saved_fd = None
            if not keep and self.proxy is not None:
                if sys.stdout is self.proxy:
                    sys.stdout = self.proxy._original
                self.proxy = None


def _flush(stream) -> None:
    try:
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass


STDOUT_GUARD = _StdoutGuard()


def run_batch_here(work: Work, cells: list) -> tuple[list[Any], float]:
    """:func:`~.worker.run_batch` on a thread of this process, with the cell's stdout sent to stderr."""
    outer = _IN_CELL.active
    _IN_CELL.active = True
    try:
        return run_batch(work, cells)
    finally:
        _IN_CELL.active = outer
