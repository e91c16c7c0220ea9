"""Records as columns, so a million-line comparison is array work.

Why not a list of dicts: per-record Python objects for 10^6 runs cost
gigabytes; one float column per unit costs 8 MB. NaN in a spend column
means *unreported*: it stays NaN through every aggregate (medians over
reporting runs only) and is never filled with 0.

Reading has two paths that must agree (a test checks they do): a fast one
that validates whole blocks of lines as pyarrow columns (`table_arrow`, on
the blocks of `table_lines`), and the line-by-line validator of
`core/records.py`. Whenever a block does not pass the fast checks, it is
read again line by line, which either raises the precise
``path:line: problem`` error or accepts what the fast path was too strict
for. This module holds the table, the reading loop and the builder that
joins both paths' blocks into one table (duplicates refused at the end).
"""
from __future__ import annotations

import functools
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
import pyarrow as pa

from . import degradation
from ...core.records import RunRecord, budget_key, duplicate_error, parse_line
from ...core.scoped import gc_paused
from .run_columns import code_column, error_summary, instance_column, items_column, nouns_column, reward_range_columns
from .table_arrow import arrow_chunk
from .table_lines import line_ends, nonblank_lines, read_blocks
from . import table_cache, table_order
from .table_store import CATEGORICAL, ColumnStore, as_frame, one_categorical
from ...core.units import ordered_units


@dataclass
class RunTable:
    """Columns: workload, budget, arm, seed, reward, dev_reward, stop_reason,
    failed (error is set), and per unit `spend:<unit>` (float, NaN =
    unreported) with `partial:<unit>` (bool).

    Rows are in one order whatever order the lines or records came in: by
    workload, budget key and arm (each by name), then seed (`table_order`;
    `traces` follow their rows); workload and budget categories are in name
    order. That is the order `compare`'s group split needs, so it neither
    sorts nor copies a column, and a sidecar keeps its rows in it, so lines
    appended later are merged in rather than sorted with all the rest."""

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
    def read(cls, paths: Iterable[str | os.PathLike] | str | os.PathLike, keep_last: bool = False,
             cache: bool = True) -> "RunTable":
        """Read and validate JSON Lines files straight into columns.

        `cache` (with COSTMATCH_CACHE unset) reads and keeps each large
        file's columns in its sidecar (`table_cache`): an unchanged file is
        not parsed again, an appended one only from where the sidecar ends.

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
                _read_file(path, builder, cache)
            return builder.build(keep_last)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # the read itself reports it


_RELEASE_BYTES = 16 << 20  # freed parse memory is handed back after this much input (each time cost 5 ms)


def _read_file(path: Path, builder: "_Builder", cache: bool) -> None:
    """One file's rows into the builder: from its sidecar and the lines after it, or parsed whole."""
    stamp = table_cache.Stamp.of(path)
    keep = table_cache.wanted(path, stamp, cache)
    held = table_cache.load(path, stamp) if keep else None
    start = _Mark(len(builder.lengths), builder.store.rows, 0, 0, 0)
    state = table_cache.hasher() if keep else None   # fed the bytes behind `start` (see `_parse`)
    after = start   # where the sidecar's own rows end (the tail sidecar's, if any, follow)
    if held is not None:
        # held as read (copied once, into the table) unless this read rewrites the sidecar from the store
        hold = builder.store.rows == 0 and not table_cache.worth_rewriting(held, stamp.size)
        builder.add_frame(held.frame, held.budgets, held.traces, where=(path, 1, held.numbers),
                          nbytes=held.prefix_bytes, hold=hold, ordered=held.ordered)
        builder.slow[-1] = held.exact   # its traces are written back as exactly as the line reader read them
        after = _Mark(len(builder.lengths), builder.store.rows, held.prefix_bytes, held.prefix_lines, held.digest)
        last = held
        if held.tail is not None:
            last = held.tail
            builder.add_frame(last.frame, last.budgets, last.traces, where=(path, 1, last.numbers),
                              nbytes=last.prefix_bytes - held.prefix_bytes)
            builder.slow[-1] = last.exact
        start.nbytes, start.lines, start.digest = last.prefix_bytes, last.prefix_lines, last.digest
        state = held.hasher   # the check's, when it read the held part (a grown file); else made if needed
    parsed = _parse(path, builder, start, keep, state)
    if keep and parsed.nbytes > start.nbytes:
        if held is None or table_cache.worth_rewriting(held, parsed.nbytes):
            _keep(path, stamp, builder, _Mark(start.blocks, start.rows, 0, 0, 0), parsed)
        else:   # a few lines after the sidecar: their rows go to the tail sidecar, the sidecar stays as it is
            _keep(path, stamp, builder, after, parsed, base=held)


@dataclass
class _Mark:
    """A place in a read: blocks and rows added to the builder so far, bytes and lines of the file behind it."""

    blocks: int
    rows: int
    nbytes: int
    lines: int
    digest: int   # `table_cache.digest_of` the bytes behind it (kept only when a sidecar is)


def _parse(path: Path, builder: "_Builder", start: _Mark, keep: bool, state=None) -> _Mark:
    """Parse the file from `start` (0 or where its sidecar ends); the mark after its last complete line.

    With `keep`, `state` (a `table_cache.hasher` fed the bytes behind `start`,
    or None: the part is hashed again here, once a complete line follows it)
    is fed each block of complete lines, for the sidecar's digest.
    """
    first, since_release = start.lines + 1, 0
    done = _Mark(len(builder.lengths), builder.store.rows, start.nbytes, start.lines, start.digest)
    scratch: list = []
    for block in read_blocks(path, start.nbytes):
        ends = line_ends(block, scratch)
        if block and not block.isspace():
            chunk = arrow_chunk(block, ends)
            if chunk is not None:
                frame, budgets, traces, numbers = chunk
                builder.add_frame(frame, budgets, traces, where=(path, first, numbers), nbytes=len(block))
            else:
                # read again line by line: the exact error, or what the bulk checks were too strict for
                lines_, numbers = nonblank_lines(bytes(block))   # bytes, as the line reader is given them
                builder.add_records(_slow_chunk(path, lines_, [n + first - 1 for n in numbers]),
                                    where=(path, first, np.asarray(numbers, dtype=np.int64)))
        first += len(ends)
        if block.endswith(b"\n"):  # an unterminated last line is never held: it is parsed on every read
            if keep:
                if state is None:   # the stamps proved the held part unchanged: nothing hashed it yet
                    with open(path, "rb") as handle:
                        state = table_cache.prefix_hasher(handle, done.nbytes)
                state.update(block)
            done = _Mark(len(builder.lengths), builder.store.rows, done.nbytes + len(block), first - 1,
                         table_cache.digest_of(state) if keep else 0)
        since_release += len(block)
        if since_release >= _RELEASE_BYTES:
            _release_arrow_memory()
            since_release = 0
    return done


def _keep(path: Path, stamp, builder: "_Builder", start: _Mark, end: _Mark,
          base: table_cache.Held | None = None) -> None:
    """Write the sidecar of the file's rows from `start` to `end` (its complete lines), if it can be kept;
    with `base` (the sidecar read, ending at `start`), the tail sidecar of the rows after it, in line order."""
    if end.rows <= start.rows or not table_cache.settled(path, stamp):
        return
    blocks = range(start.blocks, end.blocks)
    names = dict.fromkeys(name for b in blocks for name in builder.columns[b])
    columns = {name: (one_categorical(builder.store.pieces[name][start.blocks:end.blocks]) if name in CATEGORICAL
                      else builder.store.part(name, start.rows, end.rows)) for name in names}
    budgets = {key: builder.budgets[key] for key in columns["budget"].categories}
    any_trace = any(builder.traces[b] is not None for b in blocks)
    traces = [t for b in blocks for t in (builder.traces[b] or [None] * builder.lengths[b])] if any_trace else None
    exact = [builder.slow[b] for b in blocks for _ in range(builder.lengths[b])] if any_trace else None
    numbers = None if base is None and _one_row_per_line(builder, blocks) else \
        np.concatenate([_line_numbers(builder.where[b], builder.lengths[b]) for b in blocks])
    rows, repeats = table_order.order(columns) if base is None else (None, False)
    if start.blocks == 0 and end.blocks == len(builder.lengths) and base is None:  # every row read so far:
        builder.made = (end.blocks, end.rows, {n: columns[n] for n in CATEGORICAL}, (rows, repeats))  # see build
    if repeats:   # a run twice (read with keep_last): held as read, the duplicate rules see the lines' order
        rows = None
    if rows is not None:  # held in table order: the next read (and a merge of appended rows) needs no sort
        if numbers is None:
            numbers = np.arange(1, end.rows - start.rows + 1, dtype=np.int64)
        numbers = numbers.take(rows)
        picked = rows.tolist()
        traces = None if traces is None else [traces[i] for i in picked]
        exact = None if exact is None else [exact[i] for i in picked]
    if base is None and numbers is not None and np.array_equal(numbers, np.arange(1, len(numbers) + 1)):
        numbers = None
    table_cache.save(path, stamp, end.nbytes, end.lines, end.digest, columns, budgets, traces, numbers, exact, rows,
                     base, ordered=base is None and not repeats)


def _one_row_per_line(builder: "_Builder", blocks: range) -> bool:
    """Whether row i of these blocks is line i + 1 of the file (every line a row, from the first line on).

    Why not build the numbers and compare them with 1..n: two int64 arrays of
    the file's row count (16 MB per million) made only to be dropped.
    """
    line = 1
    for b in blocks:
        where = builder.where[b]
        if not isinstance(where, tuple) or where[2] is not None or where[1] != line:
            return False
        line += builder.lengths[b]
    return True


def _line_numbers(where: tuple, n: int) -> np.ndarray:
    _, first, numbers = where
    return first + np.arange(n, dtype=np.int64) if numbers is None else first - 1 + np.asarray(numbers, np.int64)


@contextmanager
def _returning_arrow_pool():
    """pyarrow allocates from the system allocator while a file is read.

    Why: its default pool (mimalloc) keeps the pages of each block's parse
    cached, so a million-line read peaked about 35 MB higher (248-260 MB
    against 214-218 MB, in-process, four runs each) for about 0.05 s less
    CPU. The previous pool is restored afterwards.
    """
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)
        _trim_heap()


@functools.lru_cache(maxsize=1)
def _libc_trim():
    """glibc's malloc_trim, or None (another C library: nothing to do)."""
    try:
        import ctypes
        trim = ctypes.CDLL("libc.so.6").malloc_trim
        trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
        return trim
    except (OSError, AttributeError):
        return None


def _trim_heap() -> None:
    """Hand the heap's free pages back to the system after a read (issue 38: peak memory).

    The parse frees tens of MB of blocks from several threads' heaps; glibc keeps
    them mapped, so the comparison that follows grew the process past them: the
    peak of `compare --json` on 1M runs fell from about 313 to 292 MiB with this
    (in process, one run each, measured with tracemalloc and ru_maxrss)."""
    trim = _libc_trim()
    if trim is not None:
        trim(0)


def _release_arrow_memory() -> None:
    """Hand pyarrow's freed block buffers back (its allocator keeps them cached otherwise)."""
    try:
        pa.default_memory_pool().release_unused()
    except Exception:  # noqa: BLE001 - an optimisation only
        pass


def _slow_chunk(path: Path, lines: list[bytes], numbers) -> list[tuple[str, RunRecord]]:
    return [(f"{path}:{n}", parse_line(line, f"{path}:{n}")) for line, n in zip(lines, numbers)]


def _duplicates(frame: pd.DataFrame, keep_last: bool) -> np.ndarray | None:
    """Rows that repeat an earlier (keep first) or a later (keep last) run identity, or None.

    One stable sort of the identity's codes: cheaper in time and memory than
    hashing four columns (the peak of a million-line read was this check).
    """
    keys = [frame[c].cat.codes.to_numpy() for c in ("workload", "budget", "arm")] + [frame["seed"].to_numpy()]
    if _increasing(keys):
        return None
    order = np.lexsort(keys[::-1])
    same = np.ones(len(order) - 1, dtype=bool) if len(order) > 1 else np.zeros(0, dtype=bool)
    for k in keys:
        ordered = k[order]
        same &= ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    return order[:-1][same] if keep_last else order[1:][same]


def _increasing(keys: list[np.ndarray]) -> bool:
    """Whether the rows are already in strictly increasing identity order (no sort needed: no repeat).

    Why: a file written in order (most generated and imported files) is checked
    in one pass; the sort was a quarter of reading a million lines from the sidecar.
    """
    if len(keys[0]) < 2:
        return True
    later = np.zeros(len(keys[0]) - 1, dtype=bool)  # decided: this row's identity is above the previous one's
    for k in keys:  # compared, never subtracted (seeds may span the whole int64 range)
        if ((k[1:] < k[:-1]) & ~later).any():
            return False
        later |= k[1:] > k[:-1]
    return bool(later.all())


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
        self.columns: list[tuple[str, ...]] = []  # per block: the columns it has (a sidecar keeps only those)
        self.slow: list[bool] = []  # per block: read line by line (its traces may hold NaN or long integers)
        self.expected_bytes = expected_bytes
        self.bytes_read = 0
        self.made: tuple | None = None  # (blocks, rows, labels, order) a sidecar's write made of every row (`_keep`)

    def add_frame(self, frame: dict, budgets: dict, traces: list | None, where, nbytes: int = 0,
                  hold: bool = False, ordered: bool = False) -> None:
        """One block's columns, copied into the table's own (see `table_store`); with `hold` (the first
        block: a sidecar's rows, in table order if `ordered`), kept as they are until the table is built."""
        for key, budget in budgets.items():
            self.budgets.setdefault(key, budget)
        n = len(frame["seed"])
        self.bytes_read += nbytes
        if hold:
            self.store.hold(frame, n, ordered)
        else:
            if nbytes and self.expected_bytes > self.bytes_read:  # rows per byte so far, times all the bytes
                self.store.reserve(int((self.store.rows + n) * self.expected_bytes / self.bytes_read * 1.02) + 16)
            self.store.append(frame, n)
        self.units.update(c.split(":", 1)[1] for c in frame if c.startswith("spend:"))
        self.lengths.append(n)
        self.columns.append(tuple(frame))
        self.slow.append(False)
        self.traces.append(traces)
        self.where.append(where)

    def add_records(self, located: list[tuple[str, RunRecord]], where: tuple | None = None) -> None:
        """Records as one block; `where` is (path, first line, line numbers) for a file's lines, else their labels."""
        if not located:
            return
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
                       where if where is not None else [w for w, _ in located])
        self.slow[-1] = True

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
        # the labels and the row order a sidecar's write just made of these very rows: not made twice (issue 38)
        made = self.made if self.made and self.made[:2] == (len(self.lengths), self.store.rows) else None
        self.made = None
        merged = None if made else self.store.merged(units)
        if merged is not None:   # a sidecar's rows (in table order) and the few after them, merged in place
            columns, plan = merged
            table_order.sort_labels(columns)
            if traces is not None:
                traces = [traces[i] for i in plan.permutation().tolist()]
            return RunTable(as_frame(columns), self.budgets, units, traces)
        columns = self.store.columns(units, labels=made[2] if made else None)
        table_order.sort_labels(columns)
        rows, repeats = made[3] if made else table_order.order(columns)   # by names and seeds: as made
        del made
        if not repeats:   # no run twice: the rows in table order, each column copied once (if not in it already)
            if rows is not None:
                table_order.take(columns, rows)
                traces = None if traces is None else [traces[i] for i in rows.tolist()]
            return RunTable(as_frame(columns), self.budgets, units, traces)
        frame = as_frame(columns)
        del columns
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
        rows, _ = table_order.order({name: frame[name].array if name in CATEGORICAL else frame[name].to_numpy()
                                     for name in ("workload", "budget", "arm", "seed")})
        if rows is not None:
            frame = frame.take(rows).reset_index(drop=True)
            traces = None if traces is None else [traces[i] for i in rows.tolist()]
        return RunTable(frame, self.budgets, units, traces)
