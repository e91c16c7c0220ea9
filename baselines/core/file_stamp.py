"""A results file's stamp (what the file system says) and edge hash, with the standard library only.

Why here: the result cache (`baselines.cli.result_cache`) must decide
"unchanged file" before pandas, numpy or pyarrow load, and the column
sidecar (`baselines.analysis.tables.table_cache`, which imports numpy and
pyarrow) uses the same rule, so both import it from this one module:
device, inode, size, mtime
and ctime all equal, plus a blake2b of the first and last `EDGE` bytes,
mean an unchanged file; a file changed (mtime = ctime) less than `RACY_NS`
ago may change again within the same clock tick, so nothing is kept for
it.

ctime is the strong part: nothing short of changing the system clock sets
it back, so an edit that keeps size and mtime (``os.utime``) still moves it.
"""
from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

RACY_NS = 2_000_000_000   # the sidecar's: a change within this long of the stamp could leave it equal
EDGE = 64 << 10            # bytes hashed at each end of the file


@dataclass(frozen=True)
class FileStamp:
    """What the file system says about a regular file: equal stamps mean an unchanged file (see `racy`)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, path: str | os.PathLike) -> "FileStamp | None":
        """The stamp of a regular file, else None (a pipe, a device, a missing file: never cached)."""
        try:
            info = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)

    def racy(self, now_ns: int) -> bool:
        """Whether a change now could leave every stamp as it is (mtime = ctime, both within RACY_NS)."""
        return self.mtime_ns == self.ctime_ns and now_ns - self.mtime_ns < RACY_NS


def edges(path: str | os.PathLike, nbytes: int, edge: int | None = None) -> str:
    """blake2b (16 bytes, hex) of the first and last `edge` bytes of the file's first `nbytes` bytes."""
    with open(path, "rb") as handle:
        return edges_of(handle, nbytes, edge)


def edges_of(handle: BinaryIO, nbytes: int, edge: int | None = None) -> str:
    """`edges` of an open binary file (the sidecar hashes the results file it already has open)."""
    edge = EDGE if edge is None else edge
    digest = hashlib.blake2b(digest_size=16)
    handle.seek(0)
    digest.update(handle.read(min(edge, nbytes)))
    start = max(0, nbytes - edge)
    handle.seek(start)
    digest.update(handle.read(nbytes - start))
    return digest.hexdigest()
