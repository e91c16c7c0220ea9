"""A results file as blocks of whole lines, and what a block's bytes allow.

Why apart from the Arrow checks: these are byte rules (where lines end,
which lines are objects, whether pyarrow may parse a block at all) that
hold before any JSON is parsed; the reader reads a file block by block so
its peak memory follows the columns, not the file.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

try:  # the null rows' lines are parsed again (see table_arrow._null_rows_keyed)
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _orjson = None

from ...core.errors import InputError
from ...core.file_kind import refuse_foreign
from ...core.input_files import open_input
from ...core.json_line import MAX_DEPTH, json_depth



BLOCK_BYTES = 4 << 20      # the bulk reader parses a file this many bytes at a time
_SAFE_OPENS = 1000         # pyarrow's parser recurses: a line it gets never opens more brackets than this


def read_blocks(path: Path, offset: int = 0):
    """Bytes ending at a line end (the last may not), about BLOCK_BYTES each, from byte `offset` on.

    Reading block by block keeps the peak memory near the size of the columns,
    not of the file (a whole-file read held the bytes, pyarrow's table and the
    frame at once: 3x the file).

    Each block is a bytearray, and the next block is read into the same one:
    a block is the caller's only until it asks for the next. Why: a fresh
    4 MiB object per block, and joining the start of a line cut at a block's
    end onto the next block, were two fresh allocations per block (glibc maps
    and unmaps each), about 30,000 page faults per 186 MB read, a quarter of
    a first read's system time (issue 38). A block still viewed when the next
    is asked for (a memoryview, np.frombuffer, a pyarrow buffer) is never
    written over: the next block then comes in a new buffer.
    """
    handle = open_input(path, "results file", pipes=True)
    with handle:
        first = not offset  # the start of a file read after its sidecar was checked when it was kept
        if offset:  # a pipe cannot seek (and is never cached)
            handle.seek(offset)
        buf, held, cut_line = bytearray(BLOCK_BYTES), 0, b""   # held: bytes at buf's start read but not handed out
        while True:
            buf = _room(buf, held + len(cut_line) + BLOCK_BYTES, held)
            if cut_line:  # the start of the line the last block's end cut (held is 0 after a block)
                buf[:len(cut_line)] = cut_line
                held, cut_line = len(cut_line), b""
            try:
                with memoryview(buf)[held:] as view:
                    got = handle.readinto(view)
            except OSError as exc:  # a folder, a device that fails mid-read
                raise InputError(f"{path}: cannot read results file ({exc.strerror or exc})") from None
            if first:
                refuse_foreign(bytes(buf[:min(16, got)]), path)
                first = False
            if not got:
                if held:
                    del buf[held:]
                    yield buf
                return
            end = held + got
            cut = buf.rfind(b"\n", held, end) + 1
            if cut == 0:
                held = end  # no line end yet: read on after it
                continue
            cut_line = buf[cut:end]
            del buf[cut:]
            yield buf
            held = 0


def _room(buf: bytearray, size: int, keep: int) -> bytearray:
    """`buf` resized to `size` bytes (its first `keep` kept), or a new buffer holding them when a view of
    `buf` is still alive (resizing a viewed bytearray raises BufferError: the check that it is free).

    The append forces that check even when the size is unchanged; within the
    bytearray's allocation neither it nor the resize moves or copies a byte.
    """
    try:
        buf.append(0)
    except BufferError:
        fresh = bytearray(size)
        fresh[:keep] = buf[:keep]
        return fresh
    if size < len(buf):
        del buf[size:]
    elif size > len(buf):
        buf.extend(bytes(size - len(buf)))
    return buf


def line_ends(block: bytes, scratch: list | None = None) -> np.ndarray:
    """Offsets of the block's "\\n" bytes. `scratch` (a list the caller keeps, empty at first) holds the
    comparison's boolean array from block to block, so a read makes one, not one of 4 MiB per block."""
    codes = np.frombuffer(block, dtype=np.uint8)
    if scratch is None:
        return np.flatnonzero(codes == 10)
    if not scratch or len(scratch[0]) < len(codes):
        scratch[:] = [np.empty(len(codes), dtype=bool)]
    return np.flatnonzero(np.equal(codes, 10, out=scratch[0][:len(codes)]))


def line_bounds(block: bytes, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, stop) byte offsets of every line of a block, the line end excluded; a final line without one too."""
    stops = ends if block.endswith(b"\n") else np.append(ends, len(block))
    starts = np.empty(len(stops), dtype=np.int64)
    if len(stops):
        starts[0] = 0
        starts[1:] = stops[:-1] + 1
    return starts, stops


_OPEN, _CLOSE, _CR = ord("{"), ord("}"), ord("\r")


def object_lines(block: bytes, ends: np.ndarray) -> np.ndarray | None | bool:
    """The lines pyarrow's rows must come from: None when every line is a row (row i is line i),
    else the 1-based numbers of the non-blank lines; False when a non-blank line is not "{...}".

    Why not "rows == lines" alone: pyarrow parses a block as a stream of JSON
    values, so two runs joined on one line (`cat a b` where a has no final
    newline) and one run wrapped over two lines are both accepted, and a blank
    line or a second such accident cancels the count. The rule: every
    non-blank line starts with "{" and ends with "}" (JSON whitespace and a CR
    aside), and there are as many rows as non-blank lines (`_arrow_read`). A
    line that ends with "}" cannot continue on a next line that starts with
    "{" in valid JSON, so each line holds at least one row, and the count
    makes it exactly one. Checked before pyarrow sees the block (a block whose
    first value is `null` crashed pyarrow 26), on the first and last byte of
    each line (array work); the few other lines (blank, indented) one by one.
    """
    starts, stops = line_bounds(block, ends)
    buf = np.frombuffer(block, dtype=np.uint8)
    last = stops - 1
    if len(buf):
        last = last - (buf[np.maximum(last, 0)] == _CR)  # a CRLF line end: its "}" is one byte earlier
        first = buf[np.minimum(starts, len(buf) - 1)]
        plain = (last > starts) & (first == _OPEN) & (buf[np.maximum(last, 0)] == _CLOSE)
    else:
        plain = np.zeros(len(starts), dtype=bool)
    if plain.all():
        return None
    keep = plain.copy()
    for i in np.flatnonzero(~plain).tolist():
        line = block[int(starts[i]):int(stops[i])]
        if not line or line.isspace():  # blank, as the line reader skips it
            continue
        text = line.strip(b" \t\r")
        if not (text.startswith(b"{") and text.endswith(b"}")):
            return False
        keep[i] = True
    return np.flatnonzero(keep) + 1


def nonblank_lines(data: bytes) -> tuple[list[bytes], list[int]]:
    """Lines split at "\\n" only (as the line reader splits), with their 1-based numbers."""
    raw = data.split(b"\n")
    numbered = [(i + 1, line) for i, line in enumerate(raw) if line and not line.isspace()]
    return [line for _, line in numbered], [n for n, _ in numbered]


def safe_for_arrow(block: bytes, ends: np.ndarray) -> bool:
    """True when pyarrow may parse the block: UTF-8, no bare CR or BOM, no line nested past the rule.

    pyarrow does not validate UTF-8, splits lines at a bare CR and skips a
    byte order mark (the line reader does neither), and overflows its stack
    on deep nesting (a segfault), so these are decided here, conservatively;
    a block that fails any goes to the line reader, which applies the exact
    rule. Only lines longer than _SAFE_OPENS bytes can open that many
    brackets, so only those are counted.
    """
    if not block.isascii():  # only then can it hold a byte order mark
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            return False
        if b"\xef\xbb\xbf" in block:
            return False
    if b"\r" in block and b"\r" in block.replace(b"\r\n", b""):
        return False
    starts, stops = line_bounds(block, ends)
    for i in np.flatnonzero(stops - starts > _SAFE_OPENS):
        a, z = int(starts[i]), int(stops[i])
        if block.count(b"{", a, z) + block.count(b"[", a, z) > _SAFE_OPENS and json_depth(block[a:z]) > MAX_DEPTH:
            return False
    return True


def load_line(line: bytes):
    if _orjson is not None:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            pass  # NaN literals, integers past 64 bits: the stdlib
    return json.loads(line)
