"""A results file's parsed columns kept beside it, so the second read of a file costs a fraction of a parse.

Why: results files only grow (the runner appends), yet every `compare`
and `check` parsed and checked the whole file again. The sidecar
``.<name>.costmatch-cache.arrow`` beside ``<name>`` holds the columns of
the file's complete lines as an Arrow IPC stream (never a pickle: a
sidecar is data, read by pyarrow, checked before use). The rules, each
named by the mistake it prevents:

- **Stale after an edit**: the sidecar records the file's device, inode,
  size, mtime and ctime, and a hash of the first and last 64 KiB of the
  part it holds, and a digest of that whole part (`hasher`). Equal stamps
  and edges: the file is unchanged. A larger file on the same inode whose
  held part has the same digest: lines were appended, and only the bytes
  after the held part are parsed. Anything else (truncated, replaced,
  edited, touched) is parsed whole and the sidecar rebuilt.
- **An append costing more than a parse**: the sidecar holds its rows in
  the table's order (`table_order`: what `compare`'s group split needs),
  and appended rows are merged into them, not sorted with all
  (`table_store.ColumnStore.merged`); the sidecar is rewritten with them
  only once they reach 1/`REWRITE_AFTER` of what it holds
  (`worth_rewriting`). Until then their rows go to the tail sidecar
  ``.<name>.costmatch-cache.tail.arrow`` (in line order), which names the
  sidecar it continues (its digest and part) and holds the stamp, edges and
  digest of the whole part up to its end: a read of the file as it is then
  needs neither a parse nor a pass over the part; a tail sidecar that does
  not pair, is unsound or stale is ignored (the lines after the sidecar are
  parsed).
- **NaN written back as null**: rows read from a sidecar whose traces only
  the standard library could read (NaN, integers past 64 bits) are written
  again by it (`Held.exact`), never by orjson.
- **Stale within one timestamp tick**: a change in the same clock tick as
  the stamps recorded would leave them equal, so no sidecar is written for
  a file changed (mtime = ctime) less than `RACY_NS` before the read ends;
  the next read writes it.
- **A corrupt sidecar trusted**: a digest covers the header and the Arrow
  bytes, pyarrow validates the table in full, and every column must have
  the type its name implies; any failure is a miss (parse, rewrite).
- **A cache that breaks reading**: any error while writing (a read-only
  folder, a full disk) or reading the sidecar only costs speed.
- **Old columns after an upgrade**: the sidecar names the hash of the
  costmatch sources and the pyarrow version that made it.

Only complete lines are held (the part up to the last line end); an
unterminated last line is parsed on every read, by the same rules as
before. Files under `MIN_BYTES` are not cached (they parse in
milliseconds). ``COSTMATCH_CACHE=off`` or ``--no-cache`` turns it off.
"""
from __future__ import annotations

import functools
import json
import mmap
import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import xxhash

try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _orjson = None

from ...core.file_stamp import EDGE, RACY_NS, edges_of  # noqa: F401 (EDGE, RACY_NS: the rule, named here too)
from ...core.file_stamp import FileStamp as Stamp
from . import table_order
from .table_arrow_columns import object_column
from .table_store import CATEGORICAL, default_value

ENV = "COSTMATCH_CACHE"          # "off" (or 0, no, false) turns the sidecar off
SUFFIX = ".costmatch-cache.arrow"
TAIL_SUFFIX = ".costmatch-cache.tail.arrow"
MIN_BYTES = 1 << 20              # smaller files are parsed every time (a few milliseconds)
REWRITE_AFTER = 16               # appended lines are kept in the sidecar once they reach 1/16 of what it holds
FORMAT = 5                       # bump when the columns or their meaning change (5: XXH3-128, `hasher`)
_MAGIC = b"CMCACHE\x03"
_HEAD = struct.Struct("<8sI4xQQQ")  # magic, meta length, digest of meta + payload (two halves), payload length
_JSON_COLUMNS = ("items",)       # object columns of lists of dicts: kept as JSON text
TRACE, LINE = "__trace__", "__line__"


@dataclass
class Held:
    """The columns a sidecar holds: the first `prefix_bytes` bytes (`prefix_lines` lines, `digest`) of the file.

    Its number and code arrays are views of the mapped sidecar where Arrow allows (the reader copies them
    once, into the table): a sidecar is only ever replaced (`save`), never rewritten in place, so the
    mapping stays valid while they live."""

    prefix_bytes: int
    prefix_lines: int
    digest: int
    frame: dict
    budgets: dict
    traces: list | None
    numbers: np.ndarray | None   # line number of each row (None: row i is line i + 1)
    token: int = 0               # the sidecar's own digest (header): what a tail sidecar names as its base
    hasher: object = None        # `hasher` fed the file up to where these rows (and a tail's) end, when this
                                 # read's check hashed it (a grown file); None when the stamps proved it unchanged
    tail: "Held | None" = None   # the rows of the lines after these, from the tail sidecar (see `load`)
    exact: bool = False          # some trace holds what orjson would not write back (NaN, a long integer)
    ordered: bool = False        # rows in strictly increasing table order: later rows are merged in, not sorted


def enabled(cache: bool = True) -> bool:
    """False when the caller (--no-cache) or the environment (COSTMATCH_CACHE=off) turns the sidecar off."""
    return cache and os.environ.get(ENV, "").strip().lower() not in ("off", "0", "no", "false")


def sidecar_path(path: Path) -> Path:
    real = Path(os.path.realpath(path))
    return real.parent / f".{real.name}{SUFFIX}"


def tail_path(path: Path) -> Path:
    """The tail sidecar: the rows of lines appended after the sidecar's part, until a rewrite takes them in."""
    real = Path(os.path.realpath(path))
    return real.parent / f".{real.name}{TAIL_SUFFIX}"


@functools.lru_cache(maxsize=1)
def _maker() -> str:
    """The code that made a sidecar: costmatch's sources and pyarrow's version (another one re-parses)."""
    from ...core.code_identity import _PACKAGE, package_hash
    return f"{package_hash(_PACKAGE)}/pyarrow-{pa.__version__}/format-{FORMAT}"


def _edges(handle, prefix_bytes: int) -> str:
    """blake2b of the first and last EDGE bytes of the held part (read from the open results file)."""
    return edges_of(handle, prefix_bytes)


# -- reading ---------------------------------------------------------------------------------------------------
def load(path: Path, stamp: Stamp) -> Held | None:
    """The held columns when the sidecar is sound and the file still starts with the part it holds, else None."""
    try:
        return _load(path, stamp)
    except Exception:  # noqa: BLE001 - a sidecar that cannot be read is a miss, never an error
        return None


def _load(path: Path, stamp: Stamp) -> Held | None:
    base = _open(sidecar_path(path))
    if base is None:
        return None
    meta, token, table = base
    try:
        tail = _open(tail_path(path))
    except Exception:  # noqa: BLE001 - a tail sidecar that cannot be read: the sidecar alone
        tail = None
    if tail is not None and _pairs(meta, token, tail[0]):
        current, state = _current(path, stamp, tail[0])
        if current:
            held, rest = _held(table, meta, token), _held(tail[2], tail[0], tail[1])
            if held is not None and rest is not None and rest.numbers is not None:
                held.tail, held.hasher = rest, state
                return held
    current, state = _current(path, stamp, meta)
    if not current:
        return None
    held = _held(table, meta, token)
    if held is not None:
        held.hasher = state
    return held


def _open(where: Path) -> tuple[dict, int, pa.Table] | None:
    """(meta, header digest, table) of a sound sidecar file, else None (missing, cut short, a byte changed, ...)."""
    try:
        handle = open(where, "rb")
    except OSError:
        return None
    with handle:
        head = handle.read(_HEAD.size)
        if len(head) != _HEAD.size:
            return None
        magic, meta_len, high, low, payload_len = _HEAD.unpack(head)
        if magic != _MAGIC or meta_len > 1 << 24:
            return None
        meta_bytes = handle.read(meta_len)
        meta = json.loads(meta_bytes)
        if meta.get("maker") != _maker():
            return None
        start = _HEAD.size + meta_len
        if os.fstat(handle.fileno()).st_size != start + payload_len:
            return None
        # mapped, not read: the columns are copied once, into the table (the mapping closes with its last user)
        payload = pa.py_buffer(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)).slice(start)
    state = hasher()
    state.update(meta_bytes)
    state.update(payload)
    token = digest_of(state)
    if token != high << 64 | low:
        return None
    table = pa.ipc.open_stream(payload).read_all()
    table.validate(full=True)
    return meta, token, table


def _pairs(meta: dict, token: int, tail: dict) -> bool:
    """Whether a tail sidecar continues this sidecar (made after it, from the lines right after its part)."""
    return tail.get("base") == [token, int(meta["prefix_bytes"]), int(meta["prefix_lines"])]


def _current(path: Path, stamp: Stamp, meta: dict) -> tuple[bool, object]:
    """Whether the file is the one the sidecar was made from, unchanged or only appended to, and the
    `hasher` fed its held part when that was read (a grown file; None otherwise), for the parse to continue.

    Unchanged stamps prove an unchanged file (`Stamp.racy` sidecars are never
    written); the edges are checked too, as they cost two small reads. A
    file that grew is checked in full (the digest of the held part, about a
    hundredth of a parse): an in-place edit plus an append leaves the edges
    as they were.
    """
    was = Stamp(**meta["stamp"])
    prefix = int(meta["prefix_bytes"])
    if (was.dev, was.ino) != (stamp.dev, stamp.ino) or not 0 < prefix <= was.size:
        return False, None
    with open(path, "rb") as handle:
        if stamp == was:
            return _edges(handle, prefix) == meta["edges"], None
        if stamp.size <= was.size:  # edited in place at equal size, truncated, touched
            return False, None
        state = prefix_hasher(handle, prefix)
        return digest_of(state) == meta["digest"], state


def prefix_hasher(handle, nbytes: int) -> "xxhash.xxh3_128":
    """The `hasher` fed the first `nbytes` bytes of an open file (fewer if it is shorter), read into one buffer.

    Why one reused buffer: a new 4 MiB bytes object per read paid the page
    faults of fresh memory in a fresh process. Why not mmap: a file truncated
    while it is hashed would kill the process with SIGBUS; a read just ends short.
    """
    handle.seek(0)
    raw = getattr(handle, "raw", handle)   # unbuffered: the bytes go straight into the buffer
    state = hasher()
    buffer = bytearray(min(nbytes, _READ))
    view = memoryview(buffer)
    done = 0
    while done < nbytes:
        got = raw.readinto(view[:min(nbytes - done, len(buffer))])
        if not got:
            break
        state.update(view[:got])
        done += got
    return state


def hasher() -> "xxhash.xxh3_128":
    """A fresh streaming digest: XXH3-128 (xxhash), fed the held part (or a sidecar's bytes) in order.

    Why XXH3: the pass over the held part is most of a read after an append.
    Over 178 MB in memory it took 0.009 s CPU where zlib's CRC-32 (formats
    1-3) took 0.048 s and a hand-made pair of word sums (format 4) 0.036 s
    (2026-12-06, best of 3, one process). Any change is missed with a chance
    of about 2**-128 (CRC-32's was 2**-32 past 32-bit bursts). Streaming,
    not additive: a read that continues a part is handed the state its check
    ended with (`Held.hasher`), or hashes the part again (`_parse`).
    """
    return xxhash.xxh3_128()


def digest_of(state: "xxhash.xxh3_128") -> int:
    """The 128-bit digest a sidecar records (a JSON integer; the header's two 64-bit halves)."""
    return state.intdigest()


_READ = 1 << 20         # bytes per read of the held part
_MASK = (1 << 64) - 1


def _held(table: pa.Table, meta: dict, token: int = 0) -> Held | None:
    """The table as `RunTable` block columns, or None when a column is not what its name implies."""
    n = table.num_rows
    if n != int(meta["rows"]):
        return None
    frame: dict = {}
    traces = numbers = None
    exact: list = []   # a trace that only the standard library reads (NaN, a long integer): all rewritten by it
    for name in table.column_names:
        col = table.column(name)
        # one chunk: its buffers as they are (combine_chunks copied each column once more)
        col = col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
        if name in CATEGORICAL:
            if not (pa.types.is_dictionary(col.type) and _text(col.type.value_type)) or col.null_count:
                return None
            frame[name] = (col.indices.to_numpy(zero_copy_only=False), col.dictionary.to_pylist())
        elif name == LINE:
            if col.type != pa.int64() or col.null_count:
                return None
            numbers = col.to_numpy()
        elif name in _JSON_COLUMNS or name == TRACE:
            if not _text(col.type):
                return None
            values = _from_json(col, exact if name == TRACE else None)
            if name == TRACE:
                traces = list(values)
            else:
                frame[name] = values
        else:
            values = _plain(name, col)
            if values is None:
                return None
            frame[name] = values
    if not set(CATEGORICAL) <= set(frame) or "seed" not in frame:
        return None
    budgets = meta["budgets"]  # as the reader made them (an integral amount stays an int, as in a parse)
    if set(frame["budget"][1]) - set(budgets) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for b in budgets.values() for v in b.values()):
        return None
    return Held(int(meta["prefix_bytes"]), int(meta["prefix_lines"]), int(meta["digest"]), frame, budgets, traces,
                numbers, token, exact=bool(exact), ordered=meta.get("ordered") is True)


def _plain(name: str, col) -> np.ndarray | None:
    """A numeric, flag or text column as the numpy array the table holds; None for a wrong type."""
    default = default_value(name)
    if name == "seed":
        ok = col.type in _SEED_TYPES
    elif default is False:
        ok = pa.types.is_boolean(col.type)
    elif default is None:
        ok = _text(col.type) or pa.types.is_null(col.type)
    else:
        ok = col.type in (pa.float64(), pa.int32())   # int32: every value an integer (`_narrow`)
    if not ok or (default is not None and col.null_count):
        return None
    if default is None:
        return object_column(col)
    return col.to_numpy(zero_copy_only=False)   # a narrow column widens as the table's store copies it in


_SEED_TYPES = (pa.int8(), pa.int16(), pa.int32(), pa.int64())
_CHUNK = 1 << 16


def _narrow(name: str, values: np.ndarray) -> np.ndarray:
    """A number column in the narrowest type that holds every value exactly: seeds in the smallest signed
    integer type, a float column whose values are all integers in int32 (the read widens them back to the
    same floats, bit for bit: -0.0 and NaN stay float64); else the column as it is.

    Why: a first read writes the whole sidecar, and on a 1M-run file its 51 MB
    cost about 0.09 s of system time (the file's new page-cache pages); seeds
    and the integer units (tokens, calls, rollouts) are most of its bytes.
    The float check goes 65,536 values at a time (no column-sized temporaries)
    and stops at the first chunk that is not exact (a reward column: one chunk).
    """
    if name == "seed":
        if values.dtype != np.int64 or not values.size:
            return values
        lo, hi = int(values.min()), int(values.max())
        for kind in (np.int8, np.int16, np.int32):
            if np.iinfo(kind).min <= lo and hi <= np.iinfo(kind).max:
                return values.astype(kind)
        return values
    if values.dtype != np.float64 or values.ndim != 1 or not values.size or values.strides[0] == 0:
        return values
    out = np.empty(values.size, dtype=np.int32)
    back = np.empty(min(values.size, _CHUNK), dtype=np.float64)
    with np.errstate(invalid="ignore"):   # NaN, inf and values past int32 cast to garbage: the check sees it
        for i in range(0, values.size, _CHUNK):
            part = values[i:i + _CHUNK]
            ints = out[i:i + _CHUNK]
            np.copyto(ints, part, casting="unsafe")
            np.copyto(back[:part.size], ints)
            if not np.array_equal(back[:part.size].view(np.int64), part.view(np.int64)):
                return values
    return out


def _text(kind) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _from_json(col, exact: list | None = None) -> np.ndarray:
    """The values of a JSON text column; `exact` (a list) gets True appended if any needed the standard library."""
    out = np.full(len(col), None, dtype=object)
    valid = np.flatnonzero(np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=bool))
    slow = False
    for i, text in zip(valid.tolist(), col.take(valid).to_pylist()):
        out[i], by_stdlib = _loads(text)
        slow = slow or by_stdlib
    if exact is not None and slow:
        exact.append(True)
    return out


def _loads(text: str):
    """(value, whether the standard library parsed it): orjson's parse, or the standard library's for what
    orjson refuses (NaN, integers past 64 bits)."""
    if _orjson is not None:
        try:
            return _orjson.loads(text), False
        except _orjson.JSONDecodeError:
            pass
    return json.loads(text), True


# -- writing ---------------------------------------------------------------------------------------------------
def wanted(path: Path, stamp: Stamp | None, cache: bool) -> bool:
    """Whether this file's columns are looked up in (and kept in) a sidecar at all."""
    return stamp is not None and stamp.size >= MIN_BYTES and enabled(cache)


def worth_rewriting(held: Held, complete_bytes: int) -> bool:
    """Whether a sidecar holding `held` is rewritten now that the file's complete lines end at `complete_bytes`.

    Why not after every append: a rewrite holds and writes every column
    again (a 1M-line file: about 0.4 s and 110 MiB above the read, against
    a few milliseconds to parse 1,000 new lines), so the first `compare`
    after a runner appended a few lines cost more than a parse. The sidecar
    stays as it is (still the file's prefix, so never stale) until the lines
    after it reach 1/`REWRITE_AFTER` of what it holds; each read until then
    parses those lines (every check applies) and merges their rows in.
    """
    return (complete_bytes - held.prefix_bytes) * REWRITE_AFTER >= held.prefix_bytes


def settled(path: Path, stamp: Stamp) -> bool:
    """Whether a sidecar of what was read at `stamp` may be written: the file did not change during the read,
    nor too recently to tell a change to come from it (see `Stamp.racy`)."""
    return Stamp.of(path) == stamp and not stamp.racy(time.time_ns())


def save(path: Path, stamp: Stamp, prefix_bytes: int, prefix_lines: int, digest: int, columns: dict, budgets: dict,
         traces: list | None, numbers: np.ndarray | None, exact: list[bool] | None = None,
         rows: np.ndarray | None = None, base: Held | None = None, ordered: bool = False) -> bool:
    """Write the sidecar for the first `prefix_bytes` bytes of `path` (read at `stamp`, their `digest`);
    False when not written. `exact` marks the rows whose trace the line reader made (they are written by
    the standard library, which keeps NaN and long integers as read; orjson writes the rest). `rows`, when
    given, puts the columns in that order as they are written (`traces`, `exact` and `numbers` are in it
    already): the table's order (`table_order`), so a later read and a merge of appended rows need no sort;
    `ordered` says the rows so written are in strictly increasing table order (no run twice), which the
    merge relies on (held rows not so marked are sorted with the rest).

    With `base` (the sidecar as read) the columns are those of the lines after
    its part, and they go to the tail sidecar, which names `base` (its digest and
    part) and holds the whole part's stamp, edges and digest: a read of the
    file as it is now then needs no pass over the part either. Without it the
    sidecar itself is written and any tail sidecar removed.

    Not written when the file changed during the read or too recently to be
    told apart from a change to come (see `Stamp.racy`); any OS error is
    swallowed: a folder that cannot take the sidecar only costs speed.
    """
    if prefix_bytes <= 0 or not settled(path, stamp):
        return False
    try:
        table = _table(columns, traces, numbers, exact, rows)
        with open(path, "rb") as handle:
            edges = _edges(handle, prefix_bytes)
    except Exception:  # noqa: BLE001 - a column that cannot be kept (an unexpected type): no sidecar
        return False
    fields = {"maker": _maker(), "stamp": stamp.__dict__, "prefix_bytes": prefix_bytes,
              "prefix_lines": prefix_lines, "rows": table.num_rows, "edges": edges, "digest": digest,
              "budgets": budgets, "ordered": bool(ordered and base is None)}
    if base is not None:
        fields["base"] = [base.token, base.prefix_bytes, base.prefix_lines]
    meta = json.dumps(fields, sort_keys=True).encode()
    target = sidecar_path(path) if base is None else tail_path(path)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        _write(tmp, meta, table)
        os.replace(tmp, target)
    except Exception:  # noqa: BLE001 - read-only folder, full disk, ...
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    if base is None:
        try:   # it named the sidecar just replaced (it would no longer pair); gone, it costs no read
            os.unlink(tail_path(path))
        except OSError:
            pass
    return True


def _write(tmp: Path, meta: bytes, table: pa.Table) -> None:
    """Header, meta and the Arrow stream; the digest is filled in once the stream is written."""
    with open(tmp, "wb") as raw:
        raw.write(_HEAD.pack(_MAGIC, len(meta), 0, 0, 0))
        raw.write(meta)
        state = hasher()
        state.update(meta)
        sink = _Digest(raw, state)
        with pa.ipc.new_stream(pa.PythonFile(sink, mode="w"), table.schema) as writer:
            writer.write_table(table, max_chunksize=1 << 20)
        raw.seek(0)
        token = digest_of(sink.state)
        raw.write(_HEAD.pack(_MAGIC, len(meta), token >> 64, token & _MASK, sink.size))


class _Digest:
    """A write-only file that passes bytes on and feeds them to `state` (a `hasher` fed the meta already):
    the stream is never held whole."""

    def __init__(self, raw, state):
        self.raw, self.state, self.size, self.closed = raw, state, 0, False

    def write(self, data) -> int:
        self.state.update(data)
        self.size += len(memoryview(data))
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()

    def close(self) -> None:
        self.closed = True

    def writable(self) -> bool:
        return True


def _table(columns: dict, traces: list | None, numbers: np.ndarray | None, exact: list[bool] | None = None,
           rows: np.ndarray | None = None) -> pa.Table:
    arrays, names = [], []
    for name, values in columns.items():
        if name.startswith("partial:") and not values.any():
            continue  # no run of the file reported this unit in part: the table's default (False) stands
        if rows is not None:  # one column at a time: the reordered copy lives only until Arrow has it
            one = {name: values}
            table_order.take(one, rows)
            values = one[name]
        if name in CATEGORICAL:
            arrays.append(pa.array(values))
        elif name in _JSON_COLUMNS:
            arrays.append(_to_json(values))
        elif default_value(name) is None:
            arrays.append(pa.array(values, type=pa.string()))
        else:
            arrays.append(pa.array(_narrow(name, values)))
        names.append(name)
    if traces is not None:
        arrays.append(_to_json(traces, exact))
        names.append(TRACE)
    if numbers is not None:
        arrays.append(pa.array(numbers, type=pa.int64()))
        names.append(LINE)
    return pa.Table.from_arrays(arrays, names=names)


def _to_json(values, exact: list[bool] | None = None) -> pa.Array:
    """JSON text per value: orjson's, or the standard library's for `exact` rows (orjson writes NaN as null)."""
    fast = (lambda v: _orjson.dumps(v).decode()) if _orjson is not None else json.dumps
    if exact is None:
        exact = [False] * len(values)
    return pa.array([None if v is None else json.dumps(v) if slow else fast(v) for v, slow in zip(values, exact)],
                    type=pa.string())
