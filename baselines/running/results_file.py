"""The results file: read back and validated before a resume, appended one whole line per finished cell.

Why it is built this way:
- The parent process is the only writer of ``results.jsonl`` and writes one
  complete, flushed line per finished cell, so a crash, Ctrl-C or SIGKILL
  loses at most the cells still running, and lines never interleave.
- A refused append (a full disk) cuts the file back to its last whole line,
  and an old file set aside by ``--fresh`` is never overwritten.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import gc
import os
import sys
import time
from pathlib import Path
from typing import Callable

import orjson

from ..core.errors import InputError
from ..core.fileio import DiskError, atomic_write_bytes, describe_os_error
from ..core.file_kind import is_complete_json, is_cut_line, not_a_cut_line, refuse_foreign
from ..core.input_files import read_input
from ..core.json_line import quote
from ..core.records import RunRecord, parse_line
from ..core.scoped import gc_paused
from .cell_lines import trusted_record


NEWLINE = b"\n"


def load_existing(path: Path) -> list[RunRecord]:
    """`read_existing`, with a torn last line set aside at once (see there)."""
    records, set_torn_aside = read_existing(path)
    set_torn_aside()
    return records


def read_existing(path: Path) -> tuple[list[RunRecord], Callable[[], None]]:
    """Records already on disk, every line validated, and the change a torn last line needs (not made here).

    A last line without its newline is kept when it is a valid record (a
    file edited by hand, or written by another tool). Only a last line with
    no newline after it that reads as the start of a record (a run killed
    mid-write: `file_kind.is_cut_line`) is moved, its bytes as they are, into
    a side file ``results.torn-<time>.jsonl`` and cut from the results, by
    the returned function: a run calls it once every check has passed and
    the engine is up, so a refused run leaves the file as it was (issue 31).
    Nothing is deleted; a file that is another format (a gzip header, binary
    bytes), whose complete lines are not valid records, or whose last line
    is a complete bad record, is refused without a byte changed (issue 41).
    """
    if not path.exists():
        return [], _nothing
    data = read_input(path, "results file")
    refuse_foreign(data[:16], path)
    cut = data.rfind(b"\n") + 1
    body, tail = data[:cut], data[cut:]
    records, seen = [], {}
    for number, line in enumerate(body.split(b"\n")[:-1], 1):
        if line.strip():
            record = parse_line(line, f"{path}:{number}")
            first = seen.setdefault(record.identity(), number)
            if first != number:  # found now, before any cell runs, not by the report after them
                workload, bkey, arm, seed = record.identity()
                raise InputError(f"{path}:{number}: duplicate run (workload={quote(workload)}, budget={bkey}, "
                                 f"arm={quote(arm)}, seed={seed}) first seen at line {first}; remove one of the "
                                 "two lines, or pass --fresh to start over")
            records.append(record)
    if tail.strip():
        where = f"{path}:{body.count(NEWLINE) + 1}"
        try:
            records.append(parse_line(tail, where))
        except InputError:
            if not is_cut_line(tail):
                if is_complete_json(tail):
                    raise  # a whole line that is a bad record: its own message
                raise not_a_cut_line(tail, where) from None
            return records, functools.partial(_set_torn_aside, path, tail, cut, where)
    return records, _nothing


def _nothing() -> None:
    pass


def _set_torn_aside(path: Path, tail: bytes, cut: int, where: str) -> None:
    side = path.with_name(f"{path.stem}.torn-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.jsonl")
    atomic_write_bytes(side, tail, "set-aside line")  # bytes in, bytes out: never decoded
    with open(path, "r+b") as handle:
        handle.truncate(cut)
    print(f"costmatch: {where}: an incomplete last line (the previous run was killed mid-write) "
          f"was moved to {side}; its cell runs again", file=sys.stderr)


class AppendFailed(Exception):
    """The results file refused a line (`os_error` says why); :func:`run_suite` turns it into one line."""

    def __init__(self, os_error: OSError):
        super().__init__(str(os_error))
        self.os_error = os_error


def append_error(exc: OSError, results: Path, kept: int) -> Exception:
    """A refused append as the CLI's one line: DiskError (exit 1) for a full disk, else an OutputError (exit 2)."""
    described = describe_os_error(exc, results, "results file")
    if not isinstance(described, DiskError):
        return described
    reason = "the disk is full" if exc.errno != errno.EFBIG else "the file is over a size limit"
    kept_text = f"the {kept} finished cell(s) before it are kept whole; " if kept else ""
    return DiskError(f"{results}: cannot append a finished cell: {reason}; {kept_text}free space (or raise the "
                     "limit) and run the same command to resume")


def open_results(path: Path):
    """The results file for appending, unbuffered: a refused write leaves nothing in a buffer for close() to retry."""
    return open(path, "ab", buffering=0)


class LineSink:
    """The parent's whole job per finished cell: write, flush, keep the record (no re-validation).

    Every line is flushed (it survives a killed process); fsync runs at most
    once a second, so a machine crash loses at most a second of cells and
    10,000 tiny cells do not pay 10,000 disk syncs. The records are kept for
    the report, so nothing is read back after the run; kept records are
    moved out of the garbage collector's sight in blocks (``gc.freeze``),
    without which each young collection walks every kept trace and the
    parent slows down as the run goes on. A long line arrives with a
    trace-free head: the parent parses the head now and the trace once,
    after the run (:meth:`finish`), so a trace-heavy run is not capped by
    the parent's parsing while the cluster waits.
    """

    FREEZE_EVERY = 256

    def __init__(self, handle, kept: list[RunRecord], check: Callable[[dict], None] | None = None):
        self.handle, self.kept, self.check = handle, kept, check
        self.pending: list[tuple[RunRecord, bytes]] = []  # records whose trace is still in their line
        self.last_sync = time.monotonic()
        self.size = os.fstat(handle.fileno()).st_size  # where the file ends after the last whole line

    def append(self, data: bytes) -> None:
        """Write `data` whole or not at all: on a refused write (a full disk) the file is cut back.

        Raises AppendFailed with the OSError; the lines before stay, so the
        same command resumes, and no torn line is left for it to set aside.
        An interrupt (Ctrl-C, SIGTERM) landing in it goes on, the data kept
        (and counted by :meth:`take`) only if the file holds all of it.
        """
        try:
            view = memoryview(data)
            while view:
                written = self.handle.write(view)
                view = view[len(view) if written is None else written:]
            self.handle.flush()
            self.size += len(data)  # in the try: an interrupt raised right after len() is settled below
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self.handle.fileno(), self.size)
            raise AppendFailed(exc) from None
        except BaseException:  # Ctrl-C or SIGTERM in the write: keep the data only if the file has it whole
            self._settle(len(data))
            raise

    def _settle(self, length: int) -> None:
        """After an interrupt in a write: the data counts if the file grew by all of it, else it is cut back."""
        with contextlib.suppress(OSError):
            if os.fstat(self.handle.fileno()).st_size == self.size + length:
                self.size += length
            else:
                os.ftruncate(self.handle.fileno(), self.size)

    def take(self, item: bytes | tuple[bytes, bytes]) -> RunRecord:
        line, head = (item, None) if isinstance(item, bytes) else item
        obj = orjson.loads(line if head is None else head)
        if self.check is not None:  # before the write: a refused line (code other than the run's) is never written
            self.check(obj)
        record = trusted_record(obj)
        size = self.size
        try:
            self.append(line + b"\n")
        finally:  # also when an interrupt lands just after the line reached the file: counted as it is kept
            if self.size != size:
                self.kept.append(record)
        if head is not None:
            self.pending.append((record, line))
        now = time.monotonic()
        if now - self.last_sync >= 1.0:
            try:
                os.fsync(self.handle.fileno())
            except OSError as exc:
                raise AppendFailed(exc) from None
            self.last_sync = now
        if len(self.kept) % self.FREEZE_EVERY == 0:
            gc.freeze()
        return record

    def finish(self) -> None:
        """Attach the traces of long lines, in one pass after the run (the report reads them)."""
        with gc_paused():
            for record, line in self.pending:
                record.trace = orjson.loads(line).get("trace")
            self.pending.clear()


def _sync(handle) -> None:
    try:
        handle.flush()
        os.fsync(handle.fileno())
    except (OSError, ValueError):
        pass


def _set_aside(results: Path) -> Path:
    """Move the results file to a name no other file has (`results.<time>[-k].jsonl`) and return it.

    Why never overwrite: two `--fresh` runs within one second gave the same
    name, and `rename` replaced the first backup: the old results were lost.
    A hard link fails instead of replacing, so the name is claimed atomically.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1, 10_000):
        backup = results.with_name(f"results.{stamp}{'' if k == 1 else f'-{k}'}.jsonl")
        try:
            os.link(results, backup)
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links: rename, after checking the name is free
            if backup.exists():
                continue
            results.rename(backup)
            return backup
        results.unlink()
        return backup
    raise InputError(f"{results}: too many earlier results files beside it; move some away and run again")


def set_aside_records(results: Path, records: list[RunRecord], label: str) -> Path:
    """Write `records` to a new file beside `results` (`results.<time>-<label>[-k].jsonl`, never overwritten)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1, 10_000):
        target = results.with_name(f"results.{stamp}-{label}{'' if k == 1 else f'-{k}'}.jsonl")
        try:
            handle = open(target, "x", encoding="utf-8")
        except FileExistsError:
            continue
        with handle:
            for record in records:
                handle.write(record.to_line() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return target
    raise InputError(f"{results}: too many earlier results files beside it; move some away and run again")


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
