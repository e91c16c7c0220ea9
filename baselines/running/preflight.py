"""Checks and guards before a run touches its output folder: engine, address, the folder's lock.

Why before: a refused command changes nothing (issue 31). A missing engine
or a bad option is refused before any folder is made; a folder this run
made is removed again when the run is refused before its first line; and
one lock per folder stops two runs from writing every record twice.
"""
from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import math
import os
import stat
from pathlib import Path

from ..core.errors import InputError
from ..core.fileio import DiskError, describe_os_error


def _cluster_address(backend: str, address: str | None, worker_wait: float, retries: int) -> str | None:
    """Check the engine options before anything touches the output folder; Dask's address may come from the environment."""
    if worker_wait is None or not math.isfinite(worker_wait) or worker_wait <= 0:
        raise InputError(f"--worker-wait must be a positive number of seconds, got {worker_wait!r}")
    if retries is None or retries < 0:
        raise InputError(f"--retries must be 0 or more, got {retries!r}")
    if backend == "dask" and address is None:
        address = os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address is not None and backend not in ("dask", "ray"):
        raise InputError(f"--address {address}: only --backend dask or ray use a cluster address")
    if backend == "ray" and address == "local":
        return None  # Ray's word for "start a local instance", which no address means too
    return address


_ENGINE_NEEDS = {"dask": (("dask", "distributed"), "the dask extra"), "ray": (("ray",), "ray")}


def check_engine(backend: str) -> None:
    """Refuse a backend whose package is not installed before any folder or file is made (issue 31).

    ``find_spec`` only looks the package up (importing Ray costs about a
    second, paid later only when cells run).
    """
    modules, what = _ENGINE_NEEDS.get(backend, ((), ""))
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise InputError(f"--backend {backend} needs {what}: pip install 'costmatch[{backend}]'")


def check_results_path(results: Path) -> None:
    """Refuse a results path that is not a regular file (a FIFO, a device, a folder) before anything is made.

    Why: reading a FIFO to resume from it blocks until something writes to
    it, so `run` hung with nothing said (issue 31). A symbolic link to a
    regular file is followed, as before.
    """
    try:
        mode = os.stat(results).st_mode
    except OSError:   # not there yet (the usual case), or unreadable: the lock and reader say so
        return
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        raise InputError(f"{results}: the results file is {kind}; move it away or choose another --out")


# -- one run per output folder ------------------------------------------------------
LOCK_NAME = ".costmatch.lock"


@contextlib.contextmanager
def output_lock(out_dir: Path):
    """Hold an advisory lock on the output folder for the whole run.

    Two runs on one ``--out`` would both run every cell and write every record
    twice, after which every later run refuses the file. The second run exits
    2 naming the first one's pid. The lock is released by the kernel when the
    process dies, so a SIGKILLed run never leaves a stale lock behind.
    """
    path = out_dir / LOCK_NAME
    created = not os.path.lexists(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        described = describe_os_error(exc, path, "run lock")
        if isinstance(described, DiskError):
            raise described from None
        raise InputError(f"{path}: cannot create the run lock ({exc.strerror}); choose a writable --out") from None
    taken = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            taken = True
        except OSError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise InputError(f"{out_dir}: another costmatch run (pid {holder}) is writing to this folder; "
                             "wait for it to finish, stop it, or choose another --out") from None
        with contextlib.suppress(OSError):  # the pid only names the holder; a full disk must not stop the run here
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:  # removed while held: no other run can hold it, and a later run makes a new one
            with contextlib.suppress(OSError):
                os.unlink(path)
    except InputError:
        if created and not taken:  # refused before the lock was taken: leave no file behind
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise
    finally:
        os.close(fd)


def _missing_folders(path: Path) -> list[Path]:
    """The folders from `path` up that do not exist yet (the ones `ensure_dir` will make), deepest first."""
    missing = []
    while not os.path.lexists(path) and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


@contextlib.contextmanager
def _undo_folders_on_refusal(made: list[Path]):
    """Remove the folders this run made (and its lock in them) when it is refused before writing a line.

    A refused command leaves nothing behind (issue 31): a bad address found
    while the engine starts must not leave a new ``--out`` holding only
    ``.costmatch.lock``. Only an empty folder this run made is removed.
    """
    try:
        yield
    except InputError:
        if made:
            with contextlib.suppress(OSError):
                if not any(made[0].iterdir()):  # its lock is gone already (output_lock)
                    for folder in made:
                        folder.rmdir()
        raise
