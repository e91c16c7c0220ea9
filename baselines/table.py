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

import gc
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from .errors import InputError
from .records import (MAX_AMOUNT, MAX_DEPTH, MAX_REWARD, SCHEMA, RunRecord, _trace, budget_key,
                      canonical_budget, duplicate_error, json_depth, parse_line)
from .units import ordered_units





def error_summary(error) -> str | None:
    """One line saying what went wrong in a run (type and message), for headlines; None without an error."""
    if error is None:
        return None
    if isinstance(error, dict):
        kind, message = error.get("type"), error.get("message")
        text = f"{kind}: {message}" if kind and message and not str(message).startswith(str(kind)) \
            else str(message or kind or error)
    else:
        text = str(error)
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
    def read(cls, paths: Iterable[str | os.PathLike], keep_last: bool = False) -> "RunTable":
        """Read and validate JSON Lines files straight into columns.

        The cyclic garbage collector is paused while reading: parsing creates
        millions of short-lived dicts without cycles, and collector passes
        over them more than doubled the read time of a million-line file.
        """
        builder = _Builder()
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for path in paths:
                _read_file(Path(path), builder)
            return builder.build(keep_last)
        finally:
            if was_enabled:
                gc.enable()


BLOCK_BYTES = 32 << 20     # the bulk reader parses a file this many bytes at a time
_ARROW_BLOCK = 4 << 20     # pyarrow's own parallel block; a longer line is read line by line
_SAFE_OPENS = 1000         # pyarrow's parser recurses: a line it gets never opens more brackets than this
_STRUCTURE = bytes(123 if c in b"{[" else 10 if c == 10 else 0 for c in range(256))


def _blocks(path: Path):
    """(bytes ending at a line end, number of its first line), about BLOCK_BYTES each.

    Reading block by block keeps the peak memory near the size of the columns,
    not of the file (a whole-file read held the bytes, pyarrow's table and the
    frame at once: 3x the file).
    """
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read results file ({exc.strerror})") from None
    with handle:
        carry, line = b"", 1
        while True:
            try:
                chunk = handle.read(BLOCK_BYTES)
            except OSError as exc:  # a folder, a device that fails mid-read
                raise InputError(f"{path}: cannot read results file ({exc.strerror or exc})") from None
            if not chunk:
                if carry:
                    yield carry, line
                return
            data = carry + chunk if carry else chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            block, carry = (data, b"") if cut == len(data) else (data[:cut], data[cut:])
            yield block, line
            line += block.count(b"\n")


def _read_file(path: Path, builder: "_Builder") -> None:
    for block, first in _blocks(path):
        if not block.strip():
            continue
        chunk = _arrow_chunk(block)
        if chunk is not None:
            frame, budgets, traces, numbers = chunk
            builder.add_frame(frame, budgets, traces, where=(path, first, numbers))
            continue
        # read again line by line: the exact error, or what the bulk checks were too strict for
        lines, numbers = _nonblank_lines(block)
        builder.add_records(_slow_chunk(path, lines, [n + first - 1 for n in numbers]))


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


def _safe_for_arrow(block: bytes) -> bool:
    """True when pyarrow may parse the block: UTF-8, no bare CR, no line nested past the rule.

    pyarrow does not validate UTF-8, splits lines at a bare CR (the line
    reader does not) and overflows its stack on deep nesting (a segfault),
    so these are decided here, conservatively; a block that fails any goes to
    the line reader, which applies the exact rule.
    """
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            return False
    if b"\r" in block and b"\r" in block.replace(b"\r\n", b""):
        return False
    if b"\xef\xbb\xbf" in block:  # a byte order mark: pyarrow skips it, the line reader refuses it
        return False
    codes = np.frombuffer(block.translate(_STRUCTURE), dtype=np.uint8)
    marks = codes[np.flatnonzero(codes)]
    if not len(marks):
        return True
    line_of = np.cumsum(marks == 10)
    opens = np.bincount(line_of[marks == 123])
    heavy = np.flatnonzero(opens > _SAFE_OPENS)
    if len(heavy):
        lines = block.split(b"\n")
        if any(json_depth(lines[i]) > MAX_DEPTH for i in heavy):
            return False
    return True


def _type_depth(t) -> int:
    import pyarrow as pa

    if pa.types.is_struct(t):
        return 1 + max((_type_depth(t.field(i).type) for i in range(t.num_fields)), default=0)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return 1 + _type_depth(t.value_type)
    return 0


def _arrow_chunk(data: bytes):
    """(frame, budgets, traces, line numbers) for a block checked in bulk, or None to fall back.

    Any surprise inside pyarrow (it has raised IndexError on odd input) is a
    fall back too: the line reader is total and decides.
    """
    if not _safe_for_arrow(data):
        return None
    try:
        return _arrow_columns(data)
    except Exception:  # noqa: BLE001
        return None


def _arrow_columns(data: bytes):
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
    table = pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(block_size=_ARROW_BLOCK))
    n = table.num_rows
    names = set(table.column_names)
    if not {"workload", "arm", "seed", "spend", "reward"} <= names:
        return None
    if 1 + max((_type_depth(f.type) for f in table.schema), default=0) > MAX_DEPTH or "" in names:
        return None
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    numbers = None if n == lines else np.asarray(_nonblank_lines(data)[1], dtype=np.int64)
    if numbers is not None and len(numbers) != n:
        return None
    cols = {n: table.column(n).combine_chunks() for n in
            ("workload", "arm", "seed", "spend", "reward", "dev_reward", "budget", "schema",
             "stop_reason", "error", "partial", "trace", "params") if n in names}
    for name in ("workload", "arm"):
        c = cols[name]
        if not pa.types.is_string(c.type) or c.null_count or (c.is_valid().to_numpy(zero_copy_only=False).size and
                                                              (np.asarray(pa.compute.utf8_length(c)) == 0).any()):
            return None
    if cols["seed"].type != pa.int64() or cols["seed"].null_count:
        return None
    if "schema" in cols and (not pa.types.is_string(cols["schema"].type) or
                             set(cols["schema"].drop_null().unique().to_pylist()) - {SCHEMA}):
        return None
    if "stop_reason" in cols and not (pa.types.is_string(cols["stop_reason"].type) or
                                      pa.types.is_null(cols["stop_reason"].type)):
        return None
    for name in ("params", "budget"):
        if name in cols and not (pa.types.is_struct(cols[name].type) or pa.types.is_null(cols[name].type)):
            return None
    if cols["reward"].null_count and not _rewards_present(data, cols["reward"]):
        return None  # a null reward must be written out; a missing one is an error (line by line)
    reward = _numeric(cols["reward"])
    dev = _numeric(cols["dev_reward"]) if "dev_reward" in cols else np.full(n, np.nan)
    spend_col = cols["spend"]
    if reward is None or dev is None or not pa.types.is_struct(spend_col.type) or spend_col.null_count:
        return None
    if any(not spend_col.type.field(i).name for i in range(spend_col.type.num_fields)):
        return None
    frame = {"workload": cols["workload"].dictionary_encode().to_pandas(),
             "arm": cols["arm"].dictionary_encode().to_pandas(),
             "seed": cols["seed"].to_numpy().astype(np.int64), "reward": reward, "dev_reward": dev}
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
    budgets, budget_keys = _budget_keys(cols.get("budget"), n)
    if budgets is None:
        return None
    frame["budget"] = budget_keys
    frame["stop_reason"] = cols["stop_reason"].to_pandas().to_numpy(dtype=object) if "stop_reason" in cols \
        else np.full(n, None, dtype=object)
    frame["failed"] = np.asarray(cols["error"].is_valid().to_numpy(zero_copy_only=False), dtype=bool) \
        if "error" in cols else np.zeros(n, dtype=bool)
    frame["error"] = np.full(n, None, dtype=object)
    if frame["failed"].any():
        failed_rows = np.flatnonzero(frame["failed"])
        frame["error"][failed_rows] = [error_summary(e) for e in cols["error"].take(failed_rows).to_pylist()]
    partial: dict[str, np.ndarray] = {}
    if "partial" in cols and cols["partial"].null_count < n:
        if not (pa.types.is_list(cols["partial"].type) and pa.types.is_string(cols["partial"].type.value_type)):
            return None
        for i, units in enumerate(cols["partial"].to_pylist()):
            for unit in units or ():
                if not unit:
                    return None
                partial.setdefault(unit, np.zeros(n, dtype=bool))[i] = True
    traces = None
    if "trace" in cols and cols["trace"].null_count < n:
        kind = cols["trace"].type
        if not (pa.types.is_list(kind) and pa.types.is_struct(kind.value_type)) or \
                {kind.value_type.field(i).name for i in range(kind.value_type.num_fields)} - {"spend", "best", "reward"}:
            return None  # other keys in points: Arrow would add them as null to every point
        try:  # the line reader's canonical points (Arrow fills absent fields with null; they are dropped)
            traces = [None if t is None else _trace(t, "") for t in cols["trace"].to_pylist()]
        except InputError:
            return None
    for unit in set(spend) | set(partial):
        frame[f"spend:{unit}"] = spend.get(unit, np.full(n, np.nan))
        frame[f"partial:{unit}"] = partial.get(unit, np.zeros(n, dtype=bool))
    return pd.DataFrame(frame), budgets, traces, numbers


def _rewards_present(data: bytes, reward_col) -> bool:
    """Arrow reads a missing key as null; check the few null-reward lines really say "reward": null."""
    rows = np.flatnonzero(np.asarray(reward_col.is_null().to_numpy(zero_copy_only=False), dtype=bool)).tolist()
    lines, _ = _nonblank_lines(data) if len(rows) > 0 else ([], [])
    for i in rows:
        try:
            obj = json.loads(lines[i])
        except (ValueError, IndexError):
            return False
        if not isinstance(obj, dict) or "reward" not in obj:
            return False
    return True


def _budget_keys(col, n: int):
    """Per row a categorical of canonical budget keys, and the budgets by key (None, None when invalid).

    A null (or absent) unit is no allowance in that unit, as in the line reader.
    """
    import pyarrow as pa

    empty = budget_key({})
    if col is None or pa.types.is_null(col.type) or col.type.num_fields == 0:
        return {empty: {}}, pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [empty])
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
    inverse = pd.DataFrame(matrix).groupby(list(range(len(units))), sort=False).ngroup().to_numpy()
    first = np.unique(inverse, return_index=True)[1]
    budgets, keys = {}, []
    for row in matrix[first]:
        b = canonical_budget({u: float(v) for u, v in zip(units, row) if v >= 0})
        key = budget_key(b)
        budgets[key] = b
        keys.append(key)
    return budgets, pd.Categorical.from_codes(inverse, keys)


class _Builder:
    """Collects per-file frames (bulk path) or record lists (line path), then one table."""

    def __init__(self):
        self.frames: list[pd.DataFrame] = []
        self.traces: list[list | None] = []
        self.where: list = []  # per frame: (path, line numbers) or a list of labels
        self.budgets: dict[str, dict[str, float]] = {}

    def add_frame(self, frame: pd.DataFrame, budgets: dict, traces: list | None, where) -> None:
        for key, budget in budgets.items():
            self.budgets.setdefault(key, budget)
        self.frames.append(frame)
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
            "reward": np.array([math.nan if r.reward is None else r.reward for r in recs], dtype=float),
            "dev_reward": np.array([math.nan if r.dev_reward is None else r.dev_reward for r in recs], dtype=float),
            "stop_reason": np.array([r.stop_reason for r in recs], dtype=object),
            "failed": np.array([r.error is not None for r in recs], dtype=bool),
            "error": np.array([error_summary(r.error) for r in recs], dtype=object),
        }
        budgets, keys = {}, []
        for r in recs:
            key = budget_key(r.budget)
            budgets.setdefault(key, dict(r.budget))
            keys.append(key)
        frame["budget"] = pd.Categorical(keys)
        for i, r in enumerate(recs):
            for unit, value in r.spend.items():
                column = frame.setdefault(f"spend:{unit}", np.full(n, np.nan))
                frame.setdefault(f"partial:{unit}", np.zeros(n, dtype=bool))
                if value is not None:
                    column[i] = value
            for unit in r.partial:
                frame.setdefault(f"spend:{unit}", np.full(n, np.nan))
                frame.setdefault(f"partial:{unit}", np.zeros(n, dtype=bool))[i] = True
        traces = [r.trace for r in recs]
        self.add_frame(pd.DataFrame(frame), budgets, traces if any(t is not None for t in traces) else None,
                       [w for w, _ in located])

    def _label(self, row: int) -> str:
        """`path:line` of a row (line numbers of bulk-read files are recomputed only here, on error)."""
        for frame, where in zip(self.frames, self.where):
            if row < len(frame):
                if isinstance(where, tuple):
                    path, first, numbers = where
                    return f"{path}:{first + row if numbers is None else first - 1 + int(numbers[row])}"
                return where[row]
            row -= len(frame)
        return f"record {row}"

    def build(self, keep_last: bool) -> RunTable:
        if not self.frames:
            empty = pd.DataFrame({"workload": pd.Categorical([]), "budget": pd.Categorical([]),
                                  "arm": pd.Categorical([]), "seed": np.zeros(0, dtype=np.int64),
                                  "reward": np.zeros(0), "dev_reward": np.zeros(0),
                                  "stop_reason": np.zeros(0, dtype=object), "failed": np.zeros(0, dtype=bool),
                                  "error": np.zeros(0, dtype=object)})
            return RunTable(empty, {}, [], None)
        units = ordered_units({c.split(":", 1)[1] for f in self.frames for c in f.columns if c.startswith("spend:")})
        for f in self.frames:
            for unit in units:
                if f"spend:{unit}" not in f.columns:
                    f[f"spend:{unit}"] = np.nan
                    f[f"partial:{unit}"] = False
        frame = self.frames[0] if len(self.frames) == 1 else pd.concat(self.frames, ignore_index=True)
        for name in ("workload", "budget", "arm"):
            if not isinstance(frame[name].dtype, pd.CategoricalDtype):
                frame[name] = frame[name].astype("category")
        any_trace = any(t is not None for t in self.traces)
        traces = [t for f, ts in zip(self.frames, self.traces) for t in (ts or [None] * len(f))] if any_trace else None
        ident = frame[["workload", "budget", "arm", "seed"]]
        dup = ident.duplicated(keep="last" if keep_last else "first").to_numpy()
        if dup.any():
            if not keep_last:
                row = int(np.flatnonzero(dup)[0])
                key = tuple(ident.iloc[row])
                same = (ident["workload"] == key[0]) & (ident["budget"] == key[1]) & \
                    (ident["arm"] == key[2]) & (ident["seed"] == key[3])
                first = int(np.flatnonzero(same.to_numpy())[0])
                raise duplicate_error(self._label(row), (str(key[0]), str(key[1]), str(key[2]), int(key[3])),
                                      self._label(first))
            keep = ~dup
            frame = frame[keep].reset_index(drop=True)
            if traces is not None:
                traces = [t for t, k in zip(traces, keep) if k]
        return RunTable(frame, self.budgets, units, traces)
