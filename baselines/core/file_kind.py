"""What the bytes of a results file are: JSON Lines, JSON Lines whose last line was cut, or another kind of file.

Why one place: the resume took a gzip header (15 binary bytes, no newline)
for a run killed mid-write, moved it aside decoded with replacement
characters and resumed with exit 0 (issue 41). The rules here are what
every results reader and the resume share: a file that starts like another
format (a compressed archive, a database, binary bytes) is refused with one
line naming what it looks like; only a last line that reads as the start of
a JSON object written by a run is a cut line, and it is set aside as bytes,
never decoded.
"""
from __future__ import annotations

import codecs
import re

import orjson

from .errors import InputError

#: leading bytes of formats a results file is mistaken for, and the fix
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "gzip-compressed data", "decompress it first (gunzip)"),
    (b"PK\x03\x04", "a zip archive", "unzip it and pass the results.jsonl inside"),
    (b"PK\x05\x06", "an empty zip archive", "unzip it and pass the results.jsonl inside"),
    (b"BZh", "bzip2-compressed data", "decompress it first (bunzip2)"),
    (b"\xfd7zXZ\x00", "xz-compressed data", "decompress it first (unxz)"),
    (b"(\xb5/\xfd", "zstd-compressed data", "decompress it first (unzstd)"),
    (b"7z\xbc\xaf'\x1c", "a 7-zip archive", "extract the results.jsonl inside"),
    (b"PAR1", "a Parquet file", "pass the JSON Lines file costmatch wrote"),
    (b"SQLite format 3\x00", "an SQLite database", "pass the JSON Lines file costmatch wrote"),
    (b"%PDF", "a PDF document", "pass the JSON Lines file costmatch wrote"),
    (b"\x89PNG", "a PNG image", "pass the JSON Lines file costmatch wrote"),
    (b"\x80\x04", "a Python pickle", "results are JSON Lines; pickles are never read"),
    (b"\x80\x05", "a Python pickle", "results are JSON Lines; pickles are never read"),
)
#: bytes that never occur in a line a run wrote (JSON text escapes every control character)
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def foreign_kind(head: bytes) -> tuple[str, str] | None:
    """(what the file looks like, the fix) when its first bytes are another format's, else None."""
    for magic, what, fix in _MAGIC:
        if head.startswith(magic):
            return what, fix
    return None


def refuse_foreign(head: bytes, path: object) -> None:
    """Refuse a results file that starts like another format, naming the format and the fix, before any line is read."""
    kind = foreign_kind(head)
    if kind is not None:
        what, fix = kind
        raise InputError(f"{path}: is {what}, not a results file (UTF-8 JSON Lines, one run per line); {fix}")


def is_cut_line(tail: bytes) -> bool:
    """True when `tail` (bytes after the last newline) reads as the start of a line a run was writing.

    A run writes UTF-8 JSON objects, one per line, with every control
    character escaped. So a cut line starts with `{`, is valid UTF-8 up to
    its last bytes (a cut may split one character), holds no raw control
    byte, and is not a complete JSON value (a complete one is a bad record,
    refused with its own error, not set aside).
    """
    text = tail.lstrip(b" \t\r")
    if not text.startswith(b"{") or _CONTROL.search(text) is not None or not _utf8_prefix(text):
        return False
    return not is_complete_json(text)


def is_complete_json(text: bytes) -> bool:
    """True when `text` parses as one whole JSON value."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def not_a_cut_line(tail: bytes, where: str) -> InputError:
    """The one-line refusal of a last line that is neither a record nor a cut one: nothing is moved."""
    kind = foreign_kind(tail)
    what = kind[0] if kind else ("binary bytes" if _CONTROL.search(tail) or not _utf8_prefix(tail)
                                     else "text that is not a JSON object")
    return InputError(f"{where}: the last line (no newline after it) is {what}, not a run cut short; the file is "
                      "not costmatch's results and nothing was changed; move it away, choose another --out, or "
                      "pass --fresh")


def _utf8_prefix(data: bytes) -> bool:
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return False
    return True
