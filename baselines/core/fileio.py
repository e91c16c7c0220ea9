"""Every file costmatch writes goes through here: atomically, with names that cannot escape.

Why one module: a report, a figure, an import or a results file written
straight to its final name is left half-written by a full disk or a kill, and
a file name built from data (an arm called ``../../x`` or ``$x^2$``) can land
outside the output folder or overwrite another arm's figure. These helpers
write to a temporary file in the same folder, rename it into place, remove the
temporary on any failure, and turn the operating system's refusals (missing
folder, a file where a folder is needed, no space, no permission) into one
line that names the path and the fix.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import re
import tempfile
from pathlib import Path
from typing import IO, Iterator

from .errors import InputError


class OutputError(InputError):
    """A place costmatch was asked to write to cannot take the file."""


class DiskError(RuntimeError):
    """The disk refused a write that was otherwise valid (full, or over a size limit).

    Kept apart from InputError because the fix is the machine's, not the
    command's: the CLI prints it as one line with exit code 1.
    """


_DISK_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def describe_os_error(exc: OSError, path: Path, what: str = "file") -> Exception:
    """Turn an OSError about `path` into a one-line error naming the path and the fix."""
    code = exc.errno
    if code in _DISK_ERRNOS:
        reason = "the disk is full" if code in (errno.ENOSPC, errno.EDQUOT) else "the file is over a size limit"
        return DiskError(f"{path}: cannot write the {what}: {reason}; free space (or raise the limit) "
                         "and run the same command again; nothing was left half-written")
    if code == errno.ENOENT:
        return OutputError(f"{path}: cannot write the {what}: the folder {path.parent} does not exist; "
                           "create it first or choose another path")
    if code == errno.ENOTDIR:
        return OutputError(f"{path}: cannot write the {what}: a part of the path is a file, not a folder; "
                           "choose a path inside a folder")
    if code == errno.EISDIR:
        return OutputError(f"{path}: cannot write the {what}: it is a folder; give a file name")
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputError(f"{path}: cannot write the {what}: permission denied or read-only; "
                           "choose a writable place")
    return OutputError(f"{path}: cannot write the {what}: {exc.strerror or exc}; choose another path")


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", what: str = "file",
                fsync: bool = False) -> Iterator[IO]:
    """Open a temporary file beside `path`; rename it to `path` only if the block succeeds.

    A `path` that exists and is not a regular file (`/dev/null`, `/dev/stdout`,
    a pipe) is written to directly: renaming over it replaced the device with
    a file (`--out /dev/null` as root turned /dev/null into a regular file).
    """
    path = Path(path)
    binary = "b" in mode
    if _is_special(path):
        with _open_special(path, binary, what) as handle:
            yield handle
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as exc:
        raise describe_os_error(exc, path, what) from None
    handle = os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""}))
    try:
        try:
            yield handle
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        finally:
            handle.close()
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        _remove_quietly(tmp)
        raise describe_os_error(exc, path, what) from None
    except BaseException:
        _remove_quietly(tmp)
        raise


def _is_special(path: Path) -> bool:
    """An existing path that is a device, a pipe or a socket: never replaced, only written to."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextlib.contextmanager
def _open_special(path: Path, binary: bool, what: str) -> Iterator[IO]:
    try:
        handle = open(path, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""}))
    except OSError as exc:
        raise describe_os_error(exc, path, what) from None
    try:
        with handle:
            yield handle
    except OSError as exc:
        raise describe_os_error(exc, path, what) from None


def _remove_quietly(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def atomic_write_text(path: str | os.PathLike, text: str, what: str = "file") -> None:
    with atomic_open(path, "w", what) as handle:
        handle.write(text)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, what: str = "file") -> None:
    with atomic_open(path, "wb", what) as handle:
        handle.write(data)


def ensure_dir(path: str | os.PathLike, what: str = "output folder") -> Path:
    """Create a folder (and its parents) or say in one line why it cannot be."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{path}: the {what} is a file, not a folder; give a folder path")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise describe_os_error(exc, path, what) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"{path}: the {what} is not writable; choose a writable place")
    return path


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(name: str, max_len: int = 60) -> str:
    """A file-name part for `name` that stays inside its folder and keeps distinct names distinct.

    Plain names (letters, digits, ``. _ -``) are kept as they are; anything
    else is replaced and a short hash of the original is appended, so
    ``search-sim``, ``search_sim`` and ``search sim`` get three different
    names and ``../x`` cannot climb out of the folder.
    """
    text = str(name)
    clean = _UNSAFE.sub("_", text).strip("._") or "x"
    if clean == text and len(clean) <= max_len and not clean.startswith("."):
        return clean
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{clean[:max_len]}-{digest}"


def check_output_target(output: str | os.PathLike, inputs: "list[str | os.PathLike]" = (),
                        what: str = "output file") -> None:
    """Refuse, before any work, an output that is one of the command's inputs or a dangling link.

    Why one rule here: `import csv in.csv -o in.csv` replaced its own source
    (issue 31); a symbolic or hard link to an input is the same file, so
    files are compared by (device, inode), not by name. A dangling symbolic
    link would be replaced by a plain file, which a command promising never
    to overwrite must not do: it is refused too.
    """
    out = Path(output)
    if out.is_symlink() and not out.exists():
        raise OutputError(f"{out}: the {what} is a symbolic link to a missing file ({os.readlink(out)}); "
                          "remove the link or choose another path")
    try:
        target = os.stat(out)
    except OSError:
        return
    for source in inputs:
        try:
            info = os.stat(source)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
            same = "" if str(source) == str(output) else f" (it is {source} under another name)"
            raise OutputError(f"{out}: the {what} is also an input of this command{same}; "
                              "write to another path")
