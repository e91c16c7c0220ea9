"""Zip archives a user hands us (inspect `.eval` logs) are checked with limits before anything reads them.

Why: a zip's headers are claims. A 1 KB member can declare or inflate to
10 GB, a directory can hold a million entries, and a member named
`../../x` or `/etc/x` is how an extractor writes outside its folder (issue
41). Here the end-of-directory record is read first (a huge entry count is
refused before the directory is parsed), every entry's name and declared
size are checked, and every member is inflated in small chunks, counted,
to its declared size and CRC, and thrown away: nothing is extracted to
disk, memory stays at one chunk, and the reader that follows (inspect_ai)
only ever meets members whose true size is the declared one.
"""
from __future__ import annotations

import os
import re
import struct
import zipfile
from pathlib import Path

from .errors import InputError

MAX_MEMBERS = 50_000               # an inspect log holds one member per (sample, epoch), and a few more
MAX_DIRECTORY_BYTES = 16 << 20     # the central directory of MAX_MEMBERS entries is a few MB
MAX_MEMBER_BYTES = 1 << 30         # one member inflated
MAX_TOTAL_BYTES = 8 << 30          # all members inflated
MAX_RATIO = 1_000                  # inflated / compressed, for members over RATIO_FLOOR (JSON: 5-50x)
RATIO_FLOOR = 1 << 20
CHUNK = 1 << 16                    # bytes inflated at a time

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_DRIVE = re.compile(r"^[A-Za-z]:")


def check_archive(path: str | os.PathLike, what: str = "archive") -> None:
    """Refuse, in one line naming `path` and the member, a zip that breaks a limit above; return when it is sound."""
    path = Path(path)
    entries, directory = _directory_size(path, what)
    if entries > MAX_MEMBERS:
        raise InputError(f"{path}: the {what} lists {entries:,} members, more than the {MAX_MEMBERS:,} a log "
                         "holds; it is not a log costmatch reads (split the evaluation into several logs)")
    if directory > MAX_DIRECTORY_BYTES:
        raise InputError(f"{path}: the {what}'s directory is {directory:,} bytes, over {MAX_DIRECTORY_BYTES:,}; "
                         "it is not a log costmatch reads")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            total = 0
            for info in infos:
                _check_entry(path, info, what)
                total += info.file_size
                if total > MAX_TOTAL_BYTES:
                    raise InputError(f"{path}: the {what}'s members declare more than {MAX_TOTAL_BYTES:,} bytes "
                                     "in all; it is not a log costmatch reads")
            for info in infos:
                _inflate(archive, info, path, what)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, ValueError, OSError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{path}: not a readable zip {what} ({type(exc).__name__}: {' '.join(str(exc).split())[:120]}); "
                         "expected a .eval log written by inspect eval") from None


def _check_entry(path: Path, info: zipfile.ZipInfo, what: str) -> None:
    name = info.filename
    parts = re.split(r"[\\/]", name)
    if "\x00" in name or name.startswith(("/", "\\")) or _DRIVE.match(name) or ".." in parts:
        raise InputError(f"{path}: the {what} has a member named {name!r}, a path outside the archive "
                         "(absolute or with '..'); it is not a log inspect wrote")
    if info.file_size > MAX_MEMBER_BYTES:
        raise InputError(f"{path}: member {name!r} declares {info.file_size:,} bytes, over the "
                         f"{MAX_MEMBER_BYTES:,} one log member may hold; it is not a log costmatch reads")
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise InputError(f"{path}: member {name!r} declares {info.file_size:,} bytes from {info.compress_size:,} "
                         f"compressed (over {MAX_RATIO:,} to 1): a zip bomb, not a log")


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, what: str) -> None:
    """Inflate one member chunk by chunk, never past its declared size; a lying header is one line."""
    if info.is_dir():
        return
    seen = 0
    try:
        with archive.open(info) as member:
            while True:
                chunk = member.read(CHUNK)   # a bounded read: zipfile inflates at most CHUNK bytes for it
                if not chunk:
                    break
                seen += len(chunk)
                if seen > info.file_size:
                    break
    except zipfile.BadZipFile:   # zipfile stops at the declared size, then the CRC does not match
        seen = info.file_size + 1
    if seen != info.file_size:
        raise InputError(f"{path}: member {info.filename!r} does not inflate to the {info.file_size:,} bytes its "
                         f"header declares (a zip bomb or a corrupt {what}); it is not a log costmatch reads")


def _directory_size(path: Path, what: str) -> tuple[int, int]:
    """(entries, directory bytes) from the end-of-directory record (zip64 too), read without parsing the directory."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - (1 << 16) - 22))
            tail = handle.read()
            at = tail.rfind(_EOCD)
            if at < 0 or len(tail) - at < 22:
                raise InputError(f"{path}: not a zip {what} (no end-of-directory record); expected a .eval log "
                                 "written by inspect eval")
            entries, directory = struct.unpack("<H", tail[at + 10:at + 12])[0], struct.unpack("<I", tail[at + 12:at + 16])[0]
            locator = tail[at - 20:at] if at >= 20 else b""
            if locator.startswith(_EOCD64_LOCATOR):
                handle.seek(struct.unpack("<Q", locator[8:16])[0])
                record = handle.read(56)
                if record.startswith(_EOCD64) and len(record) == 56:
                    entries, directory = struct.unpack("<QQ", record[32:48])
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    return entries, directory
