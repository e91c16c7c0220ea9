"""The reader's columns, filled in place block by block.

Why not collect per-block arrays and concatenate at the end: the pieces and
the joined columns were alive together, and the pieces (many of them Arrow's
buffers) went back to a different allocator than the one the joined arrays
came from, so a million-line read peaked near twice its table. Here each
column is allocated once, at the row count the first block predicts for the
whole input, and every block is copied into its slice; a wrong prediction
costs one copy of the columns, not a wrong answer.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

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
    index: dict = {}
    lookups = [[index.setdefault(v, len(index)) for v in values] + [-1] for _, values in pieces]
    small = np.int8 if len(index) < 127 else np.int16 if len(index) < 32767 else np.int32
    # every block's codes mapped straight into one array of the final type (no int64 copy per row)
    codes = np.empty(sum(len(c) for c, _ in pieces), dtype=small)
    at = 0
    for (block, _), lookup in zip(pieces, lookups):
        np.take(np.array(lookup, dtype=small), block, out=codes[at:at + len(block)])  # code -1 (none) stays -1
        at += len(block)
    return pd.Categorical.from_codes(codes, categories=list(index))


class ColumnStore:
    """Columns of a growing table: categorical labels as per-block pieces (their codes are small),
    every other column as one preallocated array."""

    def __init__(self) -> None:
        self.rows = 0
        self.capacity = 0
        self.arrays: dict[str, np.ndarray] = {}
        self.pieces: dict[str, list] = {name: [] for name in CATEGORICAL}

    def reserve(self, rows: int) -> None:
        """Make room for `rows` rows in all (copying the filled part once when it grows)."""
        if rows <= self.capacity:
            return
        for name, old in list(self.arrays.items()):
            new = _filled(name, rows)
            new[:self.rows] = old[:self.rows]
            self.arrays[name] = new
            del old
        self.capacity = rows

    def append(self, frame: dict, n: int) -> None:
        """Copy one block's columns (absent ones keep their defaults) into the next n rows."""
        end = self.rows + n
        if end > self.capacity:
            self.reserve(max(end, int(self.capacity * _GROWTH)))
        for name, values in frame.items():
            if name in CATEGORICAL:
                self.pieces[name].append(_codes_and_values(values))
                continue
            column = self.arrays.get(name)
            if column is None:
                column = self.arrays[name] = _filled(name, self.capacity)
            column[self.rows:end] = values
        self.rows = end

    def frame(self, units: list[str]) -> pd.DataFrame:
        """The finished table (the store is emptied: its arrays now belong to the frame)."""
        return as_frame(self.columns(units))

    def columns(self, units: list[str], labels: dict | None = None) -> dict:
        """The finished columns, by name in table order (the store is emptied: its arrays now belong to them).
        `labels`: the label categoricals `one_categorical` already made of all the store's pieces."""
        names = list(FIXED_COLUMNS) + [f"{kind}:{u}" for u in units for kind in ("spend", "partial")]
        names += sorted(set(self.arrays) - set(names))  # columns only some files have (`instance`)
        out: dict[str, object] = {}
        for name in names:
            if name in CATEGORICAL:
                pieces = self.pieces.pop(name)
                out[name] = labels[name] if labels is not None else one_categorical(pieces)
                continue
            column = self.arrays.pop(name, None)
            if column is None:  # no row has it: one read-only value repeated, not a column of copies
                out[name] = np.broadcast_to(np.array(default_value(name), dtype=_dtype(name)), self.rows)
            elif self.rows < _TRIM_BELOW * len(column):
                out[name] = column[:self.rows].copy()
                del column
            else:
                out[name] = column[:self.rows]
        self.arrays, self.rows, self.capacity = {}, 0, 0
        return out


def as_frame(out: dict) -> pd.DataFrame:
    """The columns as a frame, without copying them."""
    for name, column in out.items():  # labels stay Python objects: pandas would copy them into Arrow strings
        if isinstance(column, np.ndarray) and column.dtype == object:
            out[name] = pd.Series(column, dtype=object, copy=False)
    return pd.DataFrame(out, copy=False)
