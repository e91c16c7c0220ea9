"""Every file costmatch reads is opened here: what would block, or is no file, is refused in one line first.

Why one helper: a suite that was a FIFO with no writer hung `plan` and
`run` (blocked in open, killed after 60 s, issue 41) while results FIFOs
were already refused, one reader at a time. Here every reader asks the
same question before it reads: a regular file is opened; a folder, a
device (`/dev/zero` never ends, `/dev/tty` waits for a keyboard) or a
socket is refused; a pipe is read only where a pipe is wanted (results
arguments: `cat r.jsonl | costmatch compare /dev/stdin`, `<(cmd)`), and a
named FIFO is opened without blocking and given `PIPE_WAIT` seconds for a
writer to appear, then refused.
"""
from __future__ import annotations

import fcntl
import os
import select
import stat
from pathlib import Path
from typing import BinaryIO

from .errors import InputError

#: seconds a named FIFO is given for a writer before it is refused (an anonymous pipe has its writer already)
PIPE_WAIT = 5.0


def input_kind(mode: int) -> str:
    """The words for a path's type in a refusal ("a folder", "a device", ...)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_input(path: str | os.PathLike, what: str, *, pipes: bool = False) -> os.stat_result:
    """The path's status when it can be read as `what` without blocking, else one-line InputError.

    Raises before any open: a missing path, a folder, a device, a socket,
    and a pipe where `pipes` is False (the reader needs a file it can read
    twice, or a folder beside it).
    """
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what}; check the path") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    mode = info.st_mode
    if stat.S_ISREG(mode) or (pipes and stat.S_ISFIFO(mode)):
        return info
    fix = "pass the file itself" if stat.S_ISDIR(mode) else \
        "save it to a regular file first" if stat.S_ISFIFO(mode) else "pass a regular file"
    raise InputError(f"{path}: the {what} is {input_kind(mode)}, not a file; {fix}")


def open_input(path: str | os.PathLike, what: str, *, pipes: bool = False) -> BinaryIO:
    """`path` opened for reading bytes, checked by `check_input`; a named FIFO only once a writer has it open."""
    info = check_input(path, what, pipes=pipes)
    path = Path(path)
    try:
        if not stat.S_ISFIFO(info.st_mode):
            return open(path, "rb")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        _await_writer(fd, path, what)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_input(path: str | os.PathLike, what: str, *, pipes: bool = False) -> bytes:
    """The whole of `path` as bytes (see `open_input`); a read error is one line naming the path."""
    with open_input(path, what, pipes=pipes) as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None


def _await_writer(fd: int, path: Path, what: str) -> None:
    """Return once the pipe has data or has been closed by a writer; refuse after PIPE_WAIT seconds of neither.

    An anonymous pipe (`/dev/stdin`, `<(cmd)`) has its writer from the start:
    it is not timed. On Linux a FIFO opened without blocking reports nothing
    to poll until a writer opens it, so the wait ends at once when one does.
    """
    if _anonymous(path):
        return
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    if not poller.poll(PIPE_WAIT * 1000):
        raise InputError(f"{path}: the {what} is a named pipe (FIFO) that nothing wrote to within {PIPE_WAIT:g} s; "
                         "start its writer first, or save it to a regular file")


def _anonymous(path: Path) -> bool:
    """True for a pipe reached through /dev/fd or /proc (its link reads `pipe:[inode]`), not a FIFO on disk."""
    try:
        return os.path.basename(os.path.realpath(path)).startswith("pipe:[")
    except OSError:
        return False
