"""Records as columns, so a million-line comparison is array work.

Why not a list of dicts: per-record Python objects for 10^6 runs cost
gigabytes; one float column per unit costs 8 MB. NaN in a spend column
means *unreported*: it stays NaN through every aggregate (medians over
reporting runs only) and is never filled with 0.

Reading has two paths that must agree (a test checks they do): a fast one
that validates whole chunks of lines with list comprehensions and numpy, and
the line-by-line validator of `records.py`. Whenever a chunk does not pass
the fast checks, it is read again line by line, which either raises the
precise ``path:line: problem`` error or accepts what the fast path was too
strict for.
"""
from __future__ import annotations

import json
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

try:  # the null rows' lines are parsed again (see _null_rows_keyed)
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _orjson = None

from . import degradation
from ..core.errors import InputError
from ..core.provenance import code_key
from ..core.records import (MAX_AMOUNT, MAX_DEPTH, MAX_REWARD, NAME_MAX, SCHEMA, RunRecord, _trace, budget_key,
                            canonical_budget, declared_range, duplicate_error, items_from_json, json_depth,
                            parse_line)
from ..core.scoped import gc_paused
from .table_store import ColumnStore
from ..core.units import ordered_units





def error_summary(error) -> str | None:
    """One line saying what went wrong in a run (type and message), for headlines; None without an error.

    Only a string error or the `type`/`message` of an object are shown, so the
    bulk reader (which fills absent object fields with null) and the line
    reader always agree on the summary.
    """
    if error is None:
        return None
    if isinstance(error, dict):
        kind, message = error.get("type"), error.get("message")
        kind = kind if isinstance(kind, str) and kind else None
        message = message if isinstance(message, str) and message else None
        if kind and message and not message.startswith(kind):
            text = f"{kind}: {message}"
        else:
            text = message or kind or "an error without a message"
    elif isinstance(error, str):
        text = error or "an error without a message"
    else:
        text = "an error without a message"
    lines = text.strip().splitlines()
    return (lines[0] if lines else text)[:300]


@dataclass
class RunTable:
    """Columns: workload, budget, arm, seed, reward, dev_reward, stop_reason,
    failed (error is set), and per unit `spend:<unit>` (float, NaN =
    unreported) with `partial:<unit>` (bool)."""

    frame: pd.DataFrame
    budgets: dict[str, dict[str, float]]
    units: list[str]
    traces: list | None = None

    def __len__(self) -> int:
        return len(self.frame)

    @classmethod
    def from_records(cls, records: Iterable[RunRecord], keep_last: bool = False) -> "RunTable":
        builder = _Builder()
        builder.add_records([(f"record {i + 1}", r) for i, r in enumerate(records)])
        return builder.build(keep_last)

    @classmethod
    def read(cls, paths: Iterable[str | os.PathLike] | str | os.PathLike, keep_last: bool = False) -> "RunTable":
        """Read and validate JSON Lines files straight into columns.

        One path (a str or Path) is one file, as in `read_records`: iterating
        a str would read the files "r", "e", "s", ... one character each.
        The cyclic garbage collector is paused while reading: parsing creates
        millions of short-lived dicts without cycles, and collector passes
        over them more than doubled the read time of a million-line file.
        """
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        paths = [Path(p) for p in paths]
        builder = _Builder(expected_bytes=sum(_size(p) for p in paths))
        with gc_paused(), _returning_arrow_pool():
            for path in paths:
                _read_file(path, builder)
            return builder.build(keep_last)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # the read itself reports it


BLOCK_BYTES = 4 << 20      # the bulk reader parses a file this many bytes at a time
_RELEASE_BYTES = 16 << 20  # freed parse memory is handed back after this much input (each time cost 5 ms)
_ARROW_BLOCK = 2 << 20     # pyarrow's own parallel block (two per read block); a longer line is read line by line
_SAFE_OPENS = 1000         # pyarrow's parser recurses: a line it gets never opens more brackets than this


def _blocks(path: Path):
    """Bytes ending at a line end (the last may not), about BLOCK_BYTES each.

    Reading block by block keeps the peak memory near the size of the columns,
    not of the file (a whole-file read held the bytes, pyarrow's table and the
    frame at once: 3x the file).
    """
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read results file ({exc.strerror})") from None
    with handle:
        carry = b""
        while True:
            try:
                chunk = handle.read(BLOCK_BYTES)
            except OSError as exc:  # a folder, a device that fails mid-read
                raise InputError(f"{path}: cannot read results file ({exc.strerror or exc})") from None
            if not chunk:
                if carry:
                    yield carry
                return
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                carry += chunk
                continue
            block = b"".join((carry, memoryview(chunk)[:cut])) if carry or cut < len(chunk) else chunk
            carry = chunk[cut:]
            yield block


def _line_ends(block: bytes) -> np.ndarray:
    return np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)


def _line_bounds(block: bytes, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, stop) byte offsets of every line of a block, the line end excluded; a final line without one too."""
    stops = ends if block.endswith(b"\n") else np.append(ends, len(block))
    starts = np.empty(len(stops), dtype=np.int64)
    if len(stops):
        starts[0] = 0
        starts[1:] = stops[:-1] + 1
    return starts, stops


_OPEN, _CLOSE, _CR = ord("{"), ord("}"), ord("\r")


def _object_lines(block: bytes, ends: np.ndarray) -> np.ndarray | None | bool:
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
    starts, stops = _line_bounds(block, ends)
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


def _read_file(path: Path, builder: "_Builder") -> None:
    first, since_release = 1, 0
    for block in _blocks(path):
        ends = _line_ends(block)
        if block and not block.isspace():
            chunk = _arrow_chunk(block, ends)
            if chunk is not None:
                frame, budgets, traces, numbers = chunk
                builder.add_frame(frame, budgets, traces, where=(path, first, numbers), nbytes=len(block))
            else:
                # read again line by line: the exact error, or what the bulk checks were too strict for
                lines, numbers = _nonblank_lines(block)
                builder.add_records(_slow_chunk(path, lines, [n + first - 1 for n in numbers]))
        first += len(ends)
        since_release += len(block)
        if since_release >= _RELEASE_BYTES:
            _release_arrow_memory()
            since_release = 0


@contextmanager
def _returning_arrow_pool():
    """pyarrow allocates from the system allocator while a file is read.

    Why: its default pool (mimalloc) keeps the pages of each block's parse
    cached, so a million-line read peaked about 35 MB higher (248-260 MB
    against 214-218 MB, in-process, four runs each) for about 0.05 s less
    CPU. The previous pool is restored afterwards.
    """
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is a declared dependency
        yield
        return
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def _release_arrow_memory() -> None:
    """Hand pyarrow's freed block buffers back (its allocator keeps them cached otherwise)."""
    try:
        import pyarrow as pa
        pa.default_memory_pool().release_unused()
    except Exception:  # noqa: BLE001 - an optimisation only
        pass


def _nonblank_lines(data: bytes) -> tuple[list[bytes], list[int]]:
    """Lines split at "\\n" only (as the line reader splits), with their 1-based numbers."""
    raw = data.split(b"\n")
    numbered = [(i + 1, line) for i, line in enumerate(raw) if line and not line.isspace()]
    return [line for _, line in numbered], [n for n, _ in numbered]


def _slow_chunk(path: Path, lines: list[bytes], numbers) -> list[tuple[str, RunRecord]]:
    return [(f"{path}:{n}", parse_line(line, f"{path}:{n}")) for line, n in zip(lines, numbers)]


def _numeric(col, nonneg: bool = False) -> np.ndarray | None:
    """A float column (null -> NaN), or None when a value breaks the shared number rule."""
    import pyarrow as pa

    if pa.types.is_null(col.type):
        return np.full(len(col), np.nan)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        return None
    arr = col.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False)
    valid = ~np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    values = arr[valid]
    limit = MAX_AMOUNT if nonneg else MAX_REWARD
    if not np.isfinite(values).all() or (np.abs(values) > limit).any() or (nonneg and (values < 0).any()):
        return None
    return arr


def _safe_for_arrow(block: bytes, ends: np.ndarray) -> bool:
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
    starts, stops = _line_bounds(block, ends)
    for i in np.flatnonzero(stops - starts > _SAFE_OPENS):
        a, z = int(starts[i]), int(stops[i])
        if block.count(b"{", a, z) + block.count(b"[", a, z) > _SAFE_OPENS and json_depth(block[a:z]) > MAX_DEPTH:
            return False
    return True


def _has_temporal(t) -> bool:
    """Whether a type is, or holds (inside structs and lists), a timestamp, date, time or duration.

    Why: pyarrow reads strings that look like ISO dates ("2024-06-01",
    "12:00:00") as timestamps, so an error message, a unit word or a
    provenance field would come back as a datetime, not the text the line
    reader keeps. Such a block is read line by line.
    """
    import pyarrow as pa

    if pa.types.is_temporal(t):
        return True
    if pa.types.is_struct(t):
        return any(_has_temporal(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _has_temporal(t.value_type)
    if pa.types.is_map(t):
        return _has_temporal(t.key_type) or _has_temporal(t.item_type)
    return False


def _type_depth(t) -> int:
    import pyarrow as pa

    if pa.types.is_struct(t):
        return 1 + max((_type_depth(t.field(i).type) for i in range(t.num_fields)), default=0)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return 1 + _type_depth(t.value_type)
    return 0


def _parse_json(pa, pj, data: bytes):
    return pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(block_size=_ARROW_BLOCK))


def _arrow_chunk(data: bytes, ends: np.ndarray):
    """(frame, budgets, traces, line numbers) for a block checked in bulk, or None to fall back.

    Any surprise inside pyarrow (it has raised IndexError on odd input) is a
    fall back too: the line reader is total and decides.
    """
    if not _safe_for_arrow(data, ends):
        return None
    try:
        return _arrow_columns(data, ends)
    except Exception:  # noqa: BLE001
        return None


def _arrow_columns(data: bytes, ends: np.ndarray):
    """The bulk checks of `_arrow_chunk`.

    pyarrow parses JSON Lines into typed columns in C++; the checks below are
    whole-column operations. Anything unusual (a type conflict between lines,
    NaN, a missing required field, a non-object line) returns None and the
    file is read again line by line, so errors still name the line.
    """
    try:
        import pyarrow as pa
        import pyarrow.json as pj
    except ImportError:  # pragma: no cover - pyarrow is a declared dependency
        return None
    lines = _object_lines(data, ends)
    if lines is False:
        return None
    read = _arrow_read(pa, data, ends, lines, _parse_json(pa, pj, data))
    if read is None or not _arrow_types_ok(pa, read[0]):
        return None
    cols, n, numbers = read
    if "schema" in cols and not _schema_nulls_absent(data, cols["schema"]):
        return None
    measured = _arrow_measures(pa, data, cols, n)
    if measured is None:
        return None
    reward, dev, spend = measured
    frame = {"workload": _labels(cols["workload"]), "arm": _labels(cols["arm"]),
             "seed": cols["seed"].to_numpy().astype(np.int64), "reward": reward}
    if "dev_reward" in cols:  # absent: the table's NaN stands
        frame["dev_reward"] = dev
    budgets, budget_keys = _budget_keys(cols.get("budget"), n)
    if budgets is None:
        return None
    frame["budget"] = budget_keys
    if not _arrow_labels(pa, cols, n, frame):
        return None
    partial = _arrow_partial(pa, cols, n)
    if partial is None:
        return None
    traces = _arrow_traces(pa, cols, n)
    if traces is False:
        return None
    items = _arrow_items(pa, cols, n)
    if items is False:
        return None
    if items is not None:
        frame["items"] = items
    for unit in set(spend) | set(partial):
        frame[f"spend:{unit}"] = spend.get(unit, np.full(n, np.nan))
        frame[f"partial:{unit}"] = partial.get(unit, np.zeros(n, dtype=bool))
    return frame, budgets, traces, numbers


def _arrow_read(pa, data: bytes, ends: np.ndarray, lines, table):
    """(columns, rows, line numbers) of Arrow's parse, or None when the shape alone rules the bulk path out."""
    n = table.num_rows
    names = set(table.column_names)
    if not {"workload", "arm", "seed", "spend", "reward"} <= names:
        return None
    if 1 + max((_type_depth(f.type) for f in table.schema), default=0) > MAX_DEPTH or "" in names:
        return None
    # each non-blank line is "{...}" (`_object_lines`): one row per such line, or a line held two runs
    expected = len(ends) + (not data.endswith(b"\n")) if lines is None else len(lines)
    if n != expected:
        return None
    cols = {n: table.column(n).combine_chunks() for n in
            ("workload", "arm", "seed", "spend", "reward", "dev_reward", "budget", "schema",
             "stop_reason", "error", "partial", "trace", "params", "reward_range", "provenance", "unit_nouns",
             "instance", "items", degradation.STOP_KIND, degradation.DEGRADED)
            if n in names}
    # params only needs to be an object (its values are not read here): a date in it changes nothing
    if any(_has_temporal(c.type) for name, c in cols.items() if name != "params"):
        return None
    return cols, n, lines


def _arrow_types_ok(pa, cols: dict) -> bool:
    """Whether the label columns have the types the line reader would accept (names non-empty, one schema)."""
    for name in ("workload", "arm"):
        c = cols[name]
        if not pa.types.is_string(c.type) or c.null_count:
            return False
        lengths = np.asarray(pa.compute.utf8_length(c))
        if lengths.size and (lengths.min() == 0 or lengths.max() > NAME_MAX):  # the line reader names the line
            return False
    if cols["seed"].type != pa.int64() or cols["seed"].null_count:
        return False
    if "schema" in cols and (not pa.types.is_string(cols["schema"].type) or
                             set(cols["schema"].drop_null().unique().to_pylist()) - {SCHEMA}):
        return False
    if "stop_reason" in cols and not (pa.types.is_string(cols["stop_reason"].type) or
                                      pa.types.is_null(cols["stop_reason"].type)):
        return False
    for name in ("params", "budget"):
        if name in cols and not (pa.types.is_struct(cols[name].type) or pa.types.is_null(cols[name].type)):
            return False
    return True


def _arrow_measures(pa, data: bytes, cols: dict, n: int):
    """(reward, dev_reward, spend by unit) as float arrays, tokens derived as the line reader does; None to fall back."""
    if cols["reward"].null_count and not _rewards_present(data, cols["reward"]):
        return None  # a null reward must be written out; a missing one is an error (line by line)
    reward = _numeric(cols["reward"])
    dev = _numeric(cols["dev_reward"]) if "dev_reward" in cols else np.full(n, np.nan)
    spend_col = cols["spend"]
    if reward is None or dev is None or not pa.types.is_struct(spend_col.type) or spend_col.null_count:
        return None
    if any(not spend_col.type.field(i).name for i in range(spend_col.type.num_fields)):
        return None
    spend = {}
    for i in range(spend_col.type.num_fields):
        unit = spend_col.type.field(i).name
        values = _numeric(spend_col.field(i), nonneg=True)
        if values is None:
            return None
        spend[unit] = values
    if "prompt_tokens" in spend and "completion_tokens" in spend:
        derived = spend["prompt_tokens"] + spend["completion_tokens"]
        if "tokens" in spend:
            spend["tokens"] = np.where(np.isnan(spend["tokens"]), derived, spend["tokens"])
        elif not np.isnan(derived).all():  # the line reader adds tokens only where both parts are reported
            spend["tokens"] = derived
    return reward, dev, spend


def _arrow_labels(pa, cols: dict, n: int, frame: dict) -> bool:
    """Add stop_reason, failed/error, code and reward range columns to `frame`; False to fall back."""
    # a column no row of the block has is left out: the table's default (None, False) stands
    if "stop_reason" in cols and cols["stop_reason"].null_count < n:
        frame["stop_reason"] = _object_column(cols["stop_reason"])
    if "error" in cols and cols["error"].null_count < n:
        frame["failed"] = np.asarray(cols["error"].is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        frame["error"] = np.full(n, None, dtype=object)
        failed_rows = np.flatnonzero(frame["failed"])
        frame["error"][failed_rows] = [error_summary(e) for e in cols["error"].take(failed_rows).to_pylist()]
    if "provenance" in cols and cols["provenance"].null_count < n:
        if not _code_fields_as_written(pa, cols["provenance"]):
            return False
        frame["code"] = _per_distinct(cols["provenance"], code_column)
    if "reward_range" in cols and cols["reward_range"].null_count < n:
        frame["reward_lo"], frame["reward_hi"] = lo, hi = _arrow_reward_range(pa, cols["reward_range"])
        reward = frame["reward"]
        if ((reward < lo) | (reward > hi)).any():  # NaN (no score, no range) compares False
            return False  # a reward outside its own line's range: the line reader words the error
    if "unit_nouns" in cols and cols["unit_nouns"].null_count < n:
        frame["nouns"] = _per_distinct(cols["unit_nouns"], nouns_column)
    if "instance" in cols and cols["instance"].null_count < n:
        kind = cols["instance"].type
        if not (pa.types.is_string(kind) or pa.types.is_integer(kind)):
            return False  # a float or object instance: the line reader words it exactly
        frame["instance"] = _object_column(cols["instance"].cast(pa.string()))
    frame.update(degradation.arrow_columns(pa, cols, n))  # a governed run's stop kind and dropped stages
    return True


def _code_fields_as_written(pa, col) -> bool:
    """Whether the provenance fields `code_key` prints read back as the line reader reads them.

    pyarrow makes a field that is 1 on one line and 1.5 on another a float
    column, so the 1 would print as "1.0"; a nested value gains the keys of
    other lines as nulls. Either way the code text would differ: such a block
    is read line by line. Strings, integers, booleans and non-integral floats
    print alike.
    """
    if not pa.types.is_struct(col.type):
        return False
    for name in ("costmatch", "arm_module", "workload_module"):
        index = col.type.get_field_index(name)
        if index < 0:
            continue
        kind = col.type.field(index).type
        if pa.types.is_nested(kind):
            return False
        if pa.types.is_floating(kind):
            values = col.field(index).drop_null().to_numpy(zero_copy_only=False)
            if (values == np.round(values)).any():
                return False
    return True


def _per_distinct(col, build) -> np.ndarray:
    """`build(values)` for a column, evaluated once per distinct value rather than once per row.

    Why: every record the runner writes carries the same few `provenance` and
    `unit_nouns` objects; turning a million of them into Python dicts was most
    of a million-line read. Struct columns of scalars are told apart by their
    fields' dictionary codes; any other shape takes the row-by-row path.
    """
    distinct = _distinct_rows(col)
    if distinct is None:
        return build(col.to_pylist())
    first, inverse = distinct
    return build(col.take(first).to_pylist())[inverse]


def _distinct_rows(col):
    """(a first row per distinct value, each row's distinct index) of a struct column of scalars; else None."""
    import pyarrow as pa

    if not pa.types.is_struct(col.type):
        return None
    codes = [np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=np.int64)]
    sizes = [2]
    for i in range(col.type.num_fields):
        child = col.field(i)
        if pa.types.is_nested(child.type):
            return None
        encoded = child.dictionary_encode()
        size = len(encoded.dictionary) + 1  # the last code is null
        codes.append(encoded.indices.fill_null(size - 1).to_numpy(zero_copy_only=False).astype(np.int64))
        sizes.append(size)
    if math.prod(sizes) < 2 ** 62:  # one integer per row (mixed radix), else a row-wise unique
        key = np.zeros(len(col), dtype=np.int64)
        for c, size in zip(codes, sizes):
            key = key * size + c
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(np.column_stack(codes), axis=0, return_index=True, return_inverse=True)
    return first, np.asarray(inverse).ravel()


def _arrow_reward_range(pa, col) -> tuple[np.ndarray, np.ndarray]:
    """`reward_range_columns` from a list column by array work (rows not [finite lo <= finite hi] are NaN)."""
    n = len(col)
    kind = col.type
    if not ((pa.types.is_list(kind) or pa.types.is_large_list(kind)) and
            (pa.types.is_integer(kind.value_type) or pa.types.is_floating(kind.value_type))):
        return reward_range_columns(col.to_pylist())
    lengths = pa.compute.list_value_length(col).fill_null(0).to_numpy(zero_copy_only=False)
    values = pa.compute.list_flatten(col).cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))  # list_flatten drops null lists: their length is 0
    pairs = np.flatnonzero(lengths == 2)
    lo, hi = np.full(n, np.nan), np.full(n, np.nan)
    a, b = values[starts[pairs]], values[starts[pairs] + 1]
    ok = np.isfinite(a) & np.isfinite(b) & (a <= b)
    lo[pairs[ok]], hi[pairs[ok]] = a[ok], b[ok]
    return lo, hi


def _arrow_partial(pa, cols: dict, n: int) -> dict[str, np.ndarray] | None:
    """Per unit, which rows reported that unit's spend only in part; None to fall back."""
    partial: dict[str, np.ndarray] = {}
    if "partial" in cols and cols["partial"].null_count < n:
        if not (pa.types.is_list(cols["partial"].type) and pa.types.is_string(cols["partial"].type.value_type)):
            return None
        for i, units in enumerate(cols["partial"].to_pylist()):
            for unit in units or ():
                if not unit:
                    return None
                partial.setdefault(unit, np.zeros(n, dtype=bool))[i] = True
    return partial


def _arrow_traces(pa, cols: dict, n: int):
    """Each row's trace as the line reader builds it (None without traces); False to fall back."""
    if "trace" not in cols or cols["trace"].null_count >= n:
        return None
    kind = cols["trace"].type
    if not (pa.types.is_list(kind) and pa.types.is_struct(kind.value_type)) or \
            {kind.value_type.field(i).name for i in range(kind.value_type.num_fields)} - {"spend", "best", "reward"}:
        return False  # other keys in points: Arrow would add them as null to every point
    try:  # the line reader's canonical points (Arrow fills absent fields with null; they are dropped)
        return [None if t is None else _trace(t, "") for t in cols["trace"].to_pylist()]
    except InputError:
        return False


def _arrow_items(pa, cols: dict, n: int):
    """Each row's `items` in the line reader's canonical form (None: no row has items); False to fall back.

    Arrow reads an absent item key as null, so a block where any item's
    reward is null goes line by line: there "reward": null (an unscored item)
    and a missing reward (an error) are told apart.
    """
    if "items" not in cols or cols["items"].null_count >= n:
        return None
    kind = cols["items"].type
    if not (pa.types.is_list(kind) and (pa.types.is_struct(kind.value_type) or pa.types.is_null(kind.value_type))):
        return False
    values = cols["items"].to_pylist()
    out = np.empty(n, dtype=object)
    try:
        for i, value in enumerate(values):
            if value is not None and any(item is None or item.get("reward") is None for item in value):
                return False
            out[i] = items_from_json(value, "")
    except InputError:
        return False
    return out


def items_column(values: list) -> np.ndarray:
    """Per run its canonical `items` list (None without items), as an object column (never a 2-D array)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def _object_column(col) -> np.ndarray:
    """Strings (None for null) as an object array, one Python string per distinct value."""
    import pyarrow as pa

    if pa.types.is_null(col.type):
        return np.full(len(col), None, dtype=object)
    encoded = col.dictionary_encode()
    values = np.array(encoded.dictionary.to_pylist() + [None], dtype=object)
    codes = encoded.indices.fill_null(len(encoded.dictionary)).to_numpy(zero_copy_only=False)
    return values[codes]


def _null_rows_keyed(data: bytes, col, key: str) -> list[bool] | None:
    """For each null row of `col`, whether its line has `key` (written as null) rather than lacking it.

    Arrow reads a missing key and an explicit null alike; where the rule
    tells them apart ("reward": null is a run without a score, a missing
    reward an error; a missing schema is the default, "schema": null an
    error), the null rows' lines are parsed again. Rows are the block's
    non-blank lines (`_object_lines` and `_arrow_read` checked that). None
    when a line does not parse as an object: the line reader words it.
    """
    rows = np.flatnonzero(np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)).tolist()
    lines, _ = _nonblank_lines(data) if len(rows) > 0 else ([], [])
    out = []
    for i in rows:
        try:
            obj = _load(lines[i])
        except (ValueError, IndexError, RecursionError):
            return None
        if not isinstance(obj, dict):
            return None
        out.append(key in obj)
    return out


def _load(line: bytes):
    if _orjson is not None:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            pass  # NaN literals, integers past 64 bits: the stdlib
    return json.loads(line)


def _rewards_present(data: bytes, reward_col) -> bool:
    """Arrow reads a missing key as null; check the few null-reward lines really say "reward": null."""
    keyed = _null_rows_keyed(data, reward_col, "reward")
    return keyed is not None and all(keyed)


def _schema_nulls_absent(data: bytes, schema_col) -> bool:
    """True when no line of the block writes "schema": null (which the line reader refuses); absent is fine."""
    if not schema_col.null_count:
        return True
    keyed = _null_rows_keyed(data, schema_col, "schema")
    return keyed is not None and not any(keyed)


def _labels(col) -> tuple[np.ndarray, list[str]]:
    """A string column as (codes, distinct values): the table makes one categorical of all blocks at the end."""
    encoded = col.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary.to_pylist()


def _budget_keys(col, n: int):
    """Per row (codes, canonical budget keys), and the budgets by key (None, None when invalid).

    A null (or absent) unit is no allowance in that unit, as in the line reader.
    """
    import pyarrow as pa

    empty = budget_key({})
    if col is None or pa.types.is_null(col.type) or col.type.num_fields == 0:
        return {empty: {}}, (np.zeros(n, dtype=np.int8), [empty])
    if not pa.types.is_struct(col.type):
        return None, None
    units = [col.type.field(i).name for i in range(col.type.num_fields)]
    if not all(units):
        return None, None
    values = []
    for i in range(len(units)):
        v = _numeric(col.field(i), nonneg=True)
        if v is None:
            return None, None
        values.append(v)
    matrix = np.where(np.isnan(np.column_stack(values)), -1.0, np.column_stack(values))
    matrix[np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = -1.0  # "budget": null
    if (matrix == matrix[0]).all():  # the common case: one budget for the whole block
        inverse = np.zeros(n, dtype=np.int64)
    else:
        inverse = pd.DataFrame(matrix).groupby(list(range(len(units))), sort=False).ngroup().to_numpy()
    first = np.unique(inverse, return_index=True)[1]
    budgets, keys = {}, []
    for row in matrix[first]:
        b = canonical_budget({u: float(v) for u, v in zip(units, row) if v >= 0})
        key = budget_key(b)
        budgets[key] = b
        keys.append(key)
    return budgets, (inverse, keys)


def nouns_column(values: list) -> np.ndarray:
    """A workload's own words for its units (`unit_nouns`), per run as canonical JSON text (None: none declared).

    Kept so a comparison read in bulk can say "function evaluations" for
    bbob's calls instead of "model calls".
    """
    out = np.full(len(values), None, dtype=object)
    for i, nouns in enumerate(values):
        if isinstance(nouns, dict):
            clean = {str(k): v for k, v in nouns.items() if isinstance(v, str) and v}
            if clean:
                out[i] = json.dumps(clean, sort_keys=True)
    return out


def instance_column(values: list) -> np.ndarray:
    """Each run's problem instance (bbob's "f21-i1") as text, None without one.

    Kept so that `compare --target` computes ERT per instance from the
    columns, never pooling instances, without re-reading the records.
    """
    return np.array([None if v is None else str(v) for v in values], dtype=object)


def code_column(values: list) -> np.ndarray:
    """Each run's code version (`provenance.code_key`) as one string, None without provenance.

    Kept so that `compare` can warn when one arm's runs came from different
    code (a worker with a stale module) without keeping per-run records.
    """
    return np.array([code_key(prov) for prov in values], dtype=object)


def reward_range_columns(values: list) -> tuple[np.ndarray, np.ndarray]:
    """`reward_range: [lo, hi]` per run as two float columns (NaN where none is declared or it is malformed).

    Why columns: a comparison read in bulk keeps no records, yet must never
    print a mean or interval end outside the range a workload declared.
    """
    lo, hi = np.full(len(values), np.nan), np.full(len(values), np.nan)
    for i, value in enumerate(values):
        bounds = declared_range(value)
        if bounds is not None:
            lo[i], hi[i] = bounds
    return lo, hi


def _duplicates(frame: pd.DataFrame, keep_last: bool) -> np.ndarray | None:
    """Rows that repeat an earlier (keep first) or a later (keep last) run identity, or None.

    One stable sort of the identity's codes: cheaper in time and memory than
    hashing four columns (the peak of a million-line read was this check).
    """
    keys = [frame[c].cat.codes.to_numpy() for c in ("workload", "budget", "arm")] + [frame["seed"].to_numpy()]
    order = np.lexsort(keys[::-1])
    same = np.ones(len(order) - 1, dtype=bool) if len(order) > 1 else np.zeros(0, dtype=bool)
    for k in keys:
        ordered = k[order]
        same &= ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    return order[:-1][same] if keep_last else order[1:][same]


def _nan_if_none(value) -> float:
    return math.nan if value is None else value


class _Builder:
    """Collects per-file frames (bulk path) or record lists (line path), then one table."""

    def __init__(self, expected_bytes: int = 0):
        self.store = ColumnStore()
        self.units: set[str] = set()
        self.traces: list[list | None] = []
        self.where: list = []  # per block: (path, line numbers) or a list of labels
        self.budgets: dict[str, dict[str, float]] = {}
        self.lengths: list[int] = []
        self.expected_bytes = expected_bytes
        self.bytes_read = 0

    def add_frame(self, frame: dict, budgets: dict, traces: list | None, where, nbytes: int = 0) -> None:
        """One block's columns, copied into the table's own (see `table_store`)."""
        for key, budget in budgets.items():
            self.budgets.setdefault(key, budget)
        n = len(frame["seed"])
        self.bytes_read += nbytes
        if nbytes and self.expected_bytes > self.bytes_read:  # rows per byte so far, times all the bytes
            self.store.reserve(int((self.store.rows + n) * self.expected_bytes / self.bytes_read * 1.02) + 16)
        self.store.append(frame, n)
        self.units.update(c.split(":", 1)[1] for c in frame if c.startswith("spend:"))
        self.lengths.append(n)
        self.traces.append(traces)
        self.where.append(where)

    def add_records(self, located: list[tuple[str, RunRecord]]) -> None:
        if not located:
            return
        n = len(located)
        recs = [r for _, r in located]
        frame: dict[str, object] = {
            "workload": pd.Categorical([r.workload for r in recs]), "arm": pd.Categorical([r.arm for r in recs]),
            "seed": np.array([r.seed for r in recs], dtype=np.int64),
            "reward": np.array([_nan_if_none(r.reward) for r in recs], dtype=float),
            "dev_reward": np.array([_nan_if_none(r.dev_reward) for r in recs], dtype=float),
            "stop_reason": np.array([r.stop_reason for r in recs], dtype=object),
            "failed": np.array([r.error is not None for r in recs], dtype=bool),
            "error": np.array([error_summary(r.error) for r in recs], dtype=object),
        }
        if any(r.extra and "unit_nouns" in r.extra for r in recs):
            frame["nouns"] = nouns_column([r.extra.get("unit_nouns") if r.extra else None for r in recs])
        if any(r.extra and "provenance" in r.extra for r in recs):
            frame["code"] = code_column([r.extra.get("provenance") if r.extra else None for r in recs])
        if any(r.extra and r.extra.get("instance") is not None for r in recs):
            frame["instance"] = instance_column([r.extra.get("instance") if r.extra else None for r in recs])
        if any(r.extra and "reward_range" in r.extra for r in recs):
            frame["reward_lo"], frame["reward_hi"] = reward_range_columns(
                [r.extra.get("reward_range") if r.extra else None for r in recs])
        if any(r.items is not None for r in recs):
            frame["items"] = items_column([r.items for r in recs])
        frame.update(degradation.record_columns([r.extra for r in recs]))
        budgets, keys = {}, []
        for r in recs:
            key = budget_key(r.budget)
            budgets.setdefault(key, dict(r.budget))
            keys.append(key)
        frame["budget"] = pd.Categorical(keys)
        units = dict.fromkeys(u for r in recs for u in (*r.spend, *r.partial))
        for unit in units:  # a column per unit in one pass each (a per-record setdefault was quadratic)
            frame[f"spend:{unit}"] = np.array([_nan_if_none(r.spend.get(unit)) for r in recs], dtype=float)
            frame[f"partial:{unit}"] = np.array([unit in r.partial for r in recs], dtype=bool)
        traces = [r.trace for r in recs]
        self.add_frame(frame, budgets, traces if any(t is not None for t in traces) else None,
                       [w for w, _ in located])

    def _label(self, row: int) -> str:
        """`path:line` of a row (line numbers of bulk-read files are recomputed only here, on error)."""
        for length, where in zip(self.lengths, self.where):
            if row < length:
                if isinstance(where, tuple):
                    path, first, numbers = where
                    return f"{path}:{first + row if numbers is None else first - 1 + int(numbers[row])}"
                return where[row]
            row -= length
        return f"record {row}"

    def build(self, keep_last: bool) -> RunTable:
        if not self.lengths:
            empty = pd.DataFrame({"workload": pd.Categorical([]), "budget": pd.Categorical([]),
                                  "arm": pd.Categorical([]), "seed": np.zeros(0, dtype=np.int64),
                                  "reward": np.zeros(0), "dev_reward": np.zeros(0),
                                  "stop_reason": np.zeros(0, dtype=object), "failed": np.zeros(0, dtype=bool),
                                  "error": np.zeros(0, dtype=object), "reward_lo": np.zeros(0),
                                  "reward_hi": np.zeros(0), "code": np.zeros(0, dtype=object),
                                  "nouns": np.zeros(0, dtype=object)})
            return RunTable(empty, {}, [], None)
        units = ordered_units(self.units)
        any_trace = any(t is not None for t in self.traces)
        traces = [t for n, ts in zip(self.lengths, self.traces) for t in (ts or [None] * n)] if any_trace else None
        frame = self.store.frame(units)
        drop = _duplicates(frame, keep_last)
        if drop is not None and not keep_last:
            row = int(drop.min())
            key = [frame[c].iloc[row] for c in ("workload", "budget", "arm", "seed")]
            same = np.ones(len(frame), dtype=bool)
            for c, value in zip(("workload", "budget", "arm", "seed"), key):
                same &= (frame[c] == value).to_numpy()
            first = int(np.flatnonzero(same)[0])
            raise duplicate_error(self._label(row), (str(key[0]), str(key[1]), str(key[2]), int(key[3])),
                                  self._label(first))
        if drop is not None:
            keep = np.ones(len(frame), dtype=bool)
            keep[drop] = False
            frame = frame[keep].reset_index(drop=True)
            if traces is not None:
                traces = [t for t, k in zip(traces, keep) if k]
        return RunTable(frame, self.budgets, units, traces)
