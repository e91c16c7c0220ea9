"""The reader's columns, filled in place block by block.

Why not collect per-block arrays and concatenate at the end: the pieces and
the joined columns were alive together, and the pieces (many of them Arrow's
buffers) went back to a different allocator than the one the joined arrays
came from, so a million-line read peaked near twice its table. Here each
column is allocated once, at the row count the first block predicts for the
whole input, and every block is copied into its slice; a wrong prediction
costs one copy of the columns, not a wrong answer.

A sidecar's rows are the exception (`hold`): they are kept as the sidecar
read gave them and copied once, into the finished column, with the rows
after them (a few appended lines) merged in (`merged`). Copied into the
store first, they were copied twice, and growing the store past them
filled and copied every column once more.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import table_order

CATEGORICAL = ("workload", "budget", "arm")
FIXED_COLUMNS = ("workload", "budget", "arm", "seed", "reward", "dev_reward", "stop_reason", "failed", "error",
                 "reward_lo", "reward_hi", "code", "nouns")
_GROWTH = 1.5       # capacity factor when a prediction was short
_TRIM_BELOW = 0.8   # a column filled less than this is copied to its length at the end


def default_value(name: str):
    """What a row that lacks the column holds: NaN for numbers (unreported), False for flags, None otherwise."""
    if name.startswith("spend:") or name in ("reward", "dev_reward", "reward_lo", "reward_hi"):
        return np.nan
    if name.startswith("partial:") or name == "failed":
        return False
    if name == "seed":
        return 0
    return None


def _dtype(name: str):
    if name == "seed":
        return np.int64
    value = default_value(name)
    return bool if value is False else object if value is None else float


def _filled(name: str, n: int) -> np.ndarray:
    return np.full(n, default_value(name), dtype=_dtype(name))


def _codes_and_values(values) -> tuple[np.ndarray, list]:
    """A block's labels as (codes, distinct values in code order), from codes or any categorical."""
    if isinstance(values, tuple):
        return values
    cat = values.array if isinstance(values, pd.Series) else values
    if not isinstance(cat, pd.Categorical):
        cat = pd.Categorical(cat)
    return cat.codes, list(cat.categories)


def one_categorical(pieces: list[tuple[np.ndarray, list]]) -> pd.Categorical:
    """The blocks' labels as one categorical, categories in order of first appearance.

    Why not a pandas categorical per block and union_categoricals: building a
    categorical per 4 MB block was a tenth of a million-line read.
    """
    index, lookups = _label_lookups(pieces)
    small = _code_type(len(index))
    # every block's codes mapped straight into one array of the final type (no int64 copy per row)
    codes = np.empty(sum(len(c) for c, _ in pieces), dtype=small)
    at = 0
    for (block, _), lookup in zip(pieces, lookups):
        np.take(np.array(lookup, dtype=small), block, out=codes[at:at + len(block)])  # code -1 (none) stays -1
        at += len(block)
    return pd.Categorical.from_codes(codes, categories=list(index))


class ColumnStore:
    """Columns of a growing table: categorical labels as per-block pieces (their codes are small),
    every other column as one preallocated array; the first block may be held as it came (`hold`)."""

    def __init__(self) -> None:
        self.rows = 0
        self.capacity = 0
        self.arrays: dict[str, np.ndarray] = {}   # rows from `held_rows` on (those of `hold` are in `held`)
        self.pieces: dict[str, list] = {name: [] for name in CATEGORICAL}
        self.held: dict | None = None
        self.held_rows = 0
        self.held_ordered = False

    def hold(self, frame: dict, n: int, ordered: bool = False) -> None:
        """The first block's columns, kept as they are (not copied; narrow or read-only arrays are fine).
        `ordered`: its rows are in strictly increasing table order (`table_order`), so `merged` applies."""
        if self.rows or self.held is not None:
            raise ValueError("only the first block is held")
        self.held = {}
        for name, values in frame.items():
            if name in CATEGORICAL:
                self.pieces[name].append(_codes_and_values(values))
            else:
                self.held[name] = values
        self.rows = self.capacity = self.held_rows = n
        self.held_ordered = ordered

    def reserve(self, rows: int) -> None:
        """Make room for `rows` rows in all (copying the filled part once when it grows)."""
        if rows <= self.capacity:
            return
        for name, old in list(self.arrays.items()):
            new = _filled(name, rows - self.held_rows)
            new[:self.rows - self.held_rows] = old[:self.rows - self.held_rows]
            self.arrays[name] = new
            del old
        self.capacity = rows

    def append(self, frame: dict, n: int) -> None:
        """Copy one block's columns (absent ones keep their defaults) into the next n rows."""
        end = self.rows + n
        if end > self.capacity:   # grown by a factor of the rows after the held ones (those are not copied)
            self.reserve(max(end, self.held_rows + int((self.capacity - self.held_rows) * _GROWTH)))
        start, stop = self.rows - self.held_rows, end - self.held_rows
        for name, values in frame.items():
            if name in CATEGORICAL:
                self.pieces[name].append(_codes_and_values(values))
                continue
            column = self.arrays.get(name)
            if column is None:
                column = self.arrays[name] = _filled(name, self.capacity - self.held_rows)
            column[start:stop] = values
        self.rows = end

    def part(self, name: str, start: int, end: int) -> np.ndarray:
        """Rows `start` to `end` of one (non-label) column, in the table's type (a view where it can be)."""
        b = self.held_rows
        column = self.arrays.get(name)
        if start >= b and column is not None:
            return column[start - b:end - b]
        out = _filled(name, end - start)
        if self.held is not None and name in self.held and start < b:
            out[:min(end, b) - start] = self.held[name][start:min(end, b)]
        if column is not None and end > b:
            out[max(start, b) - start:] = column[max(start, b) - b:end - b]
        return out

    def frame(self, units: list[str]) -> pd.DataFrame:
        """The finished table (the store is emptied: its arrays now belong to the frame)."""
        return as_frame(self.columns(units))

    def _names(self, units: list[str]) -> list[str]:
        names = list(FIXED_COLUMNS) + [f"{kind}:{u}" for u in units for kind in ("spend", "partial")]
        present = set(self.arrays) | set(self.held or ())
        return names + sorted(present - set(names))  # columns only some files have (`instance`)

    def columns(self, units: list[str], labels: dict | None = None) -> dict:
        """The finished columns, by name in table order (the store is emptied: its arrays now belong to them).
        `labels`: the label categoricals `one_categorical` already made of all the store's pieces."""
        out: dict[str, object] = {}
        for name in self._names(units):
            if name in CATEGORICAL:
                pieces = self.pieces.pop(name)
                out[name] = labels[name] if labels is not None else one_categorical(pieces)
                continue
            column = self.arrays.pop(name, None)
            held = None if self.held is None else self.held.pop(name, None)
            if column is None and held is None:  # no row has it: one read-only value repeated, not a column of copies
                out[name] = np.broadcast_to(np.array(default_value(name), dtype=_dtype(name)), self.rows)
            elif self.held is not None:   # the held rows, then the rest: each copied once
                out[name] = self._joined(name, held, column)
                del column, held
            elif self.rows < _TRIM_BELOW * len(column):
                out[name] = column[:self.rows].copy()
                del column
            else:
                out[name] = column[:self.rows]
        self._empty()
        return out

    def _joined(self, name: str, held, column) -> np.ndarray:
        """One column of the held rows then the rest, in the order they were added (None: the default)."""
        out = np.empty(self.rows, dtype=_dtype(name))
        b = self.held_rows
        out[:b] = default_value(name) if held is None else held
        out[b:] = default_value(name) if column is None else column[:self.rows - b]
        return out

    def merged(self, units: list[str]) -> tuple[dict, "table_order.Merge"] | None:
        """The finished columns with the rows after the held ones merged into them in table order (each
        column written once, in place: `table_order.Merge`); None (the store unchanged) when the held rows
        are not in table order, a run repeats or the rows after them are many (then `columns` and a sort
        decide)."""
        if self.held is None or not self.held_ordered:
            return None
        if self.rows - self.held_rows > max(self.held_rows // 8, 1 << 12):
            return None   # many rows after the held ones (other files): a sort of those beats a search for each
        labels, codes = {}, ({}, {})
        for name in CATEGORICAL:
            labels[name], codes[0][name], codes[1][name] = _split_labels(self.pieces[name])
        b, n = self.held_rows, self.rows
        codes[0]["seed"] = self.held["seed"]
        codes[1]["seed"] = self.part("seed", b, n)
        plan = table_order.merge(codes[0], codes[1], labels)
        if plan is None:
            return None
        out: dict[str, object] = {}
        for name in self._names(units):
            if name in CATEGORICAL:
                small = _code_type(len(labels[name]))
                merged = plan.place(codes[0][name], codes[1][name], small, -1)
                out[name] = pd.Categorical.from_codes(merged, categories=labels[name], validate=False)
                continue
            held = self.held.get(name)
            column = self.arrays.get(name)
            tail = None if column is None else column[:n - b]
            default = default_value(name)
            if held is None and (tail is None or _all_default(tail, default)):
                # no held row has it, nor any other (all hold the default): one value repeated, as above
                out[name] = np.broadcast_to(np.array(default, dtype=_dtype(name)), n)
            else:
                out[name] = plan.place(held, tail, _dtype(name), default)
        self._empty()
        return out, plan

    def _empty(self) -> None:
        self.arrays, self.rows, self.capacity = {}, 0, 0
        self.held, self.held_rows, self.held_ordered = None, 0, False
        self.pieces = {name: [] for name in CATEGORICAL}


def _label_lookups(pieces: list) -> tuple[dict, list[list[int]]]:
    """The blocks' distinct values (in order of first appearance, each to its code) and, per block, its
    codes' new codes (ending in -1, where a block's code -1, none, is looked up)."""
    index: dict = {}
    return index, [[index.setdefault(v, len(index)) for v in values] + [-1] for _, values in pieces]


def _code_type(categories: int):
    return np.int8 if categories < 127 else np.int16 if categories < 32767 else np.int32


def _split_labels(pieces: list) -> tuple[list, np.ndarray, np.ndarray]:
    """(categories in order of first appearance, the held block's codes, the later blocks' codes into them)."""
    index, lists = _label_lookups(pieces)
    small = _code_type(len(index))
    lookups = [np.array(lookup, dtype=small) for lookup in lists]
    held_codes = pieces[0][0]
    if lists[0][:-1] != list(range(len(lists[0]) - 1)):   # its values repeat one
        held_codes = lookups[0][held_codes]
    rest = [lookup[codes] for (codes, _), lookup in zip(pieces[1:], lookups[1:])]
    later = np.concatenate(rest) if rest else np.zeros(0, dtype=small)
    return list(index), held_codes, later


def _all_default(values: np.ndarray, default) -> bool:
    if default is None:
        return all(v is None for v in values.tolist())
    if default is False:
        return not values.any()
    if isinstance(default, float) and np.isnan(default):
        return bool(np.isnan(values).all())
    return False


def as_frame(out: dict) -> pd.DataFrame:
    """The columns as a frame, without copying them."""
    for name, column in out.items():  # labels stay Python objects: pandas would copy them into Arrow strings
        if isinstance(column, np.ndarray) and column.dtype == object:
            out[name] = pd.Series(column, dtype=object, copy=False)
    return pd.DataFrame(out, copy=False)
