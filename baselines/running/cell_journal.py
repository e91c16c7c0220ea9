"""Cells that run inside costmatch's own process (``sequential``, ``threading``), journaled while they run.

Why: such a cell can end the process itself (``os._exit``, a SIGKILL of
its own pid, a segfault in a C extension), and then nothing of costmatch
runs any more: no ``except``, no ``finally``, no ``atexit``. So, before a
cell starts, the file ``.costmatch.running`` in the output folder is
rewritten to name the cells running now (and after it finishes, again).
Two things read it after such an end:

- a watcher, a tiny ``/bin/sh`` started with the run, which waits for this
  process to end and, if the journal is still there (a clean end removes
  it first), prints its first line: one line naming the cell(s) that were
  running;
- the next run in the folder (`unfinished`): those cells, and every other
  cell of the same workload and arm still to run, go *first*, in worker
  processes (loky), where the engine's worker-died rule applies: a cell
  that ends its process is rerun alone, then recorded as ``worker-died``;
  one that does not (the process was killed from outside, or the cell was
  only running beside the culprit on threading) gets its ordinary record.
  The resume does not die on those cells again.

The journal is kept small (only the cells running now) and written with
plain ``pwrite`` calls: a few microseconds a cell, no fsync (it has to
survive the process, not the machine; after a machine crash the cells just
run again).
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any, Callable

from ..core.json_line import quote
from ..core.records import budget_key

JOURNAL_NAME = ".costmatch.running"

#: the engines whose cells run in costmatch's own process
IN_PROCESS = ("sequential", "threading")

# Waits (builtins only: no exec) until costmatch's end closes the pipe, then prints the journal's
# message line, if the journal is still there. $1 is the journal's path.
_WATCHER = ('while read -r _; do :; done; '
            '[ -f "$1" ] && { IFS= read -r line < "$1" && case $line in "costmatch: "*) '
            'printf "%s\\n" "$line" >&2;; esac; }; exit 0')


def describe(identity: tuple[str, str, str, int]) -> str:
    """A cell as a message names it: workload, arm, seed and budget."""
    workload, bkey, arm, seed = identity
    return f"(workload={quote(workload)}, arm={quote(arm)}, seed={seed}, budget={bkey})"


def death_message(identities: list[tuple[str, str, str, int]], backend: str) -> str:
    """The one line printed when the process ended inside a cell (or one of several, on threading)."""
    return _message([describe(i) for i in identities], backend)


def _message(shown: list[str], backend: str) -> str:
    if len(shown) == 1:
        which = f"the run ended inside the cell {shown[0]}"
    else:
        which = f"the run ended while {len(shown)} cells ran, one of which ended it: " + ", ".join(shown)
    return (f"costmatch: {which} (--backend {backend} runs cells in this process: the cell may have called "
            "os._exit, killed its process or crashed, or the process was killed); run the same command to resume: "
            "its arm's cells then run first in worker processes, and a cell that ends one of those is recorded as "
            "worker-died")


class CellJournal:
    """The cells running now in this process, on disk (see the module docstring)."""

    def __init__(self, out_dir: Path, backend: str):
        self.path = Path(out_dir) / JOURNAL_NAME
        self.backend = backend
        self._lock = threading.Lock()
        self._running: dict[int, tuple[str, str]] = {}
        self._budgets: dict[int, tuple[Any, str, str]] = {}
        self._names: dict[str, tuple[str, str]] = {}
        self._fd: int | None = None   # opened by the first cell: an older journal stays until then
        self._watcher: subprocess.Popen | None = None

    def started(self, cell: Any) -> int:
        """Record that `cell` starts; returns the token `finished` takes."""
        entry = self._entry(cell)
        with self._lock:
            token = id(entry)
            self._running[token] = entry
            self._write()
        return token

    def finished(self, token: int) -> None:
        with self._lock:
            self._running.pop(token, None)
            self._write()

    def _entry(self, cell: Any) -> tuple[str, str]:
        """(the cell as the message names it, its JSON line): names and budget keys made once per run.

        Why cached: the journal is written twice per cell, and formatting was
        most of its cost (tens of microseconds against a trivial cell's 100).
        """
        budget = self._budgets.get(id(cell.budget))
        if budget is None or budget[0] is not cell.budget:
            key = budget_key(cell.budget.to_dict())
            budget = self._budgets[id(cell.budget)] = (cell.budget, key, json.dumps(key))
        workload, arm = self._name(cell.workload.name), self._name(cell.arm.name)
        return (f"(workload={workload[0]}, arm={arm[0]}, seed={cell.seed}, budget={budget[1]})",
                f"[{workload[1]}, {budget[2]}, {arm[1]}, {cell.seed}]")

    def _name(self, name: str) -> tuple[str, str]:
        found = self._names.get(name)
        if found is None:
            found = self._names[name] = (quote(name), json.dumps(name))
        return found

    def _write(self) -> None:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
            except OSError:  # an unwritable folder: the results file will say so; the journal is a courtesy
                self._fd = -1
            self._watcher = _start_watcher(self.path)
        running = list(self._running.values())
        text = "" if not running else "\n".join(
            [_message([shown for shown, _ in running], self.backend)] + [line for _, line in running]) + "\n"
        data = text.encode("utf-8")
        with contextlib.suppress(OSError):  # a full disk must not stop the cell: the journal is a courtesy
            os.pwrite(self._fd, data, 0)
            os.ftruncate(self._fd, len(data))

    def close(self) -> None:
        """A clean end (also an interrupt or an error costmatch caught): the journal goes, the watcher ends quietly."""
        with self._lock:
            fd, self._fd = self._fd, -1
        if fd is not None and fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        if self._watcher is not None:
            with contextlib.suppress(OSError):
                self._watcher.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                self._watcher.wait(timeout=5)


def _start_watcher(path: Path) -> subprocess.Popen | None:
    """The shell that prints the journal's line after this process ended inside a cell (None without /bin/sh)."""
    try:
        return subprocess.Popen(["/bin/sh", "-c", _WATCHER, "costmatch-watch", str(path)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, close_fds=True)
    except OSError:
        return None


def journaled(journal: CellJournal, work: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`work` (the runner's `cell_line`) with the cell journaled while it runs (in-process engines only)."""
    def run(cell: Any) -> Any:
        token = journal.started(cell)
        line = work(cell)
        journal.finished(token)
        return line
    return run


def unfinished(out_dir: Path) -> set[tuple[str, str, str, int]]:
    """The cells the journal names: they were running when the last run in this folder ended inside one.

    An unreadable or torn journal names what it can: a line that does not
    parse is skipped (the worst case is a cell that runs once more, alone).
    """
    try:
        data = (Path(out_dir) / JOURNAL_NAME).read_bytes()
    except OSError:
        return set()
    found = set()
    for line in data.splitlines():
        with contextlib.suppress(ValueError, TypeError):
            workload, bkey, arm, seed = json.loads(line)
            if all(isinstance(v, str) for v in (workload, bkey, arm)) and isinstance(seed, int):
                found.add((workload, bkey, arm, seed))
    return found


def resume_message(named: list[tuple[str, str, str, int]], cells: int) -> str:
    """The one line a resume prints about the cells it runs first in worker processes."""
    shown = ", ".join(describe(i) for i in named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    return (f"costmatch: the last run in this folder ended inside {shown}; the {cells} cell(s) of the same workload "
            "and arm still to run go first, in worker processes (a cell that ends one is rerun alone, then "
            "recorded as worker-died)")


def forget(out_dir: Path) -> None:
    """Remove a journal an earlier run left, once its cells have run (a run that finished)."""
    with contextlib.suppress(OSError):
        os.unlink(Path(out_dir) / JOURNAL_NAME)
