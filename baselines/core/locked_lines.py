"""Append whole lines to a JSON Lines file that several processes share: read, decide and write under one lock.

Why: the results file has one writer (the run's parent), so a flushed
whole-line write is enough there. A history file is written by every
`check` that names it, and two CI jobs can check at once: both read the
file, both decide what to add (a re-check? an earlier look at the same
reference?) and both append. Without a lock the second decision is made on
a stale file (two "first looks") and two writes can interleave. So:
- the whole read-decide-append runs under an exclusive ``flock`` on the
  file itself (the kernel drops it when the process dies: a SIGKILLed
  check never leaves a stale lock);
- the new lines are written with one ``O_APPEND`` write loop, flushed and
  fsynced; a refused write (a full disk) cuts the file back to where it was;
- a last line without its newline that is not a whole JSON value is what
  a check killed mid-append leaves (a whole one, written by hand, is kept): the next append moves it to a side file
  (``<name>.torn-<time>-<pid>.jsonl``, byte for byte) and cuts it off before adding its
  own, as the results file does, and readers skip it with a warning. So no
  line is ever torn into another, and no finished line is lost.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from typing import Callable

from .fileio import atomic_write_bytes, describe_os_error
from .input_files import read_input

NEWLINE = b"\n"


def split_complete(data: bytes) -> tuple[list[bytes], bytes]:
    """(the complete lines, the torn tail): the tail is whatever follows the last newline (b"" if none)."""
    cut = data.rfind(NEWLINE) + 1
    return data[:cut].split(NEWLINE)[:-1], data[cut:]


def locked_append(path: str | os.PathLike, decide: Callable[[list[bytes]], list[bytes]],
                  what: str = "history file") -> tuple[list[bytes], str | None]:
    """Under an exclusive lock on `path`: read its complete lines, call `decide(lines)`, append what it returns.

    `decide` gets the file's complete lines (without newlines) and returns
    the new lines to append (without newlines; may be empty). Returns (the
    lines appended, a warning sentence when a torn last line was set aside).
    Raises the one-line OutputError/DiskError of `describe_os_error`.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as exc:
        raise describe_os_error(exc, path, what) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)   # blocking: a concurrent check waits its turn
        data = _read_all(fd)
        lines, tail = split_complete(data)
        warning = None
        if tail and _complete_json(tail):   # written by hand or another tool without a final newline: kept
            os.write(fd, NEWLINE)
            lines.append(tail)
        elif tail:
            warning = _set_torn_aside(path, fd, tail, len(data) - len(tail), len(lines) + 1)
        new = decide(lines)
        if new:
            _write_whole(fd, b"".join(line + NEWLINE for line in new), path, what)
        return new, warning
    except OSError as exc:
        raise describe_os_error(exc, path, what) from None
    finally:
        os.close(fd)   # closing drops the lock


def read_complete(path: str | os.PathLike) -> tuple[list[bytes], bool]:
    """The file's complete lines and whether a torn last line (a killed append) was left out; ([], False) if absent."""
    if not os.path.exists(path):
        return [], False
    data = read_input(path, "history file")   # a FIFO, a device or a folder: one line, before it can block
    lines, tail = split_complete(data)
    if tail.strip() and _complete_json(tail):
        return lines + [tail], False
    return lines, bool(tail.strip())


def _complete_json(tail: bytes) -> bool:
    try:
        json.loads(tail)
    except ValueError:
        return False
    return True


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _write_whole(fd: int, data: bytes, path: Path, what: str) -> None:
    """Append `data` whole, flushed and synced, or cut the file back to where it was and raise."""
    start = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise describe_os_error(exc, path, what) from None


def _set_torn_aside(path: Path, fd: int, tail: bytes, cut: int, number: int) -> str:
    side = path.with_name(f"{path.stem}.torn-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.jsonl")
    atomic_write_bytes(side, tail)   # byte for byte, as the results file does (contract 6.41)
    os.ftruncate(fd, cut)
    return (f"{path}:{number}: an incomplete last line (a check was killed while appending) was moved to {side}; "
            "the lines before it are whole")
