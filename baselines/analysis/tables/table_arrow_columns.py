"""Arrow columns as the numpy columns of a `RunTable`, by array work.

Why apart: these conversions (numbers under the shared number rule,
strings as codes, budgets as keys, one build per distinct struct value)
know nothing of which field they read; `table_arrow` decides which field
goes where and when a block falls back to the line reader.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa

from ...core.records import MAX_AMOUNT, MAX_REWARD, budget_key, canonical_budget
from .run_columns import reward_range_columns


def numeric_column(col, nonneg: bool = False) -> np.ndarray | None:
    """A float column (null -> NaN), or None when a value breaks the shared number rule."""
    if pa.types.is_null(col.type):
        return np.full(len(col), np.nan)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        return None
    arr = col.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False)
    if col.null_count:
        values = arr[~np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)]
    else:  # every row has a value: the checks read the column itself (no mask, no copy)
        values = arr
    limit = MAX_AMOUNT if nonneg else MAX_REWARD
    if not np.isfinite(values).all() or (np.abs(values) > limit).any() or (nonneg and (values < 0).any()):
        return None
    return arr


def per_distinct(col, build) -> np.ndarray:
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


def arrow_reward_range(col) -> tuple[np.ndarray, np.ndarray]:
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


def object_column(col) -> np.ndarray:
    """Strings (None for null) as an object array, one Python string per distinct value."""
    if pa.types.is_null(col.type):
        return np.full(len(col), None, dtype=object)
    encoded = col.dictionary_encode()
    values = np.array(encoded.dictionary.to_pylist() + [None], dtype=object)
    codes = encoded.indices.fill_null(len(encoded.dictionary)).to_numpy(zero_copy_only=False)
    return values[codes]


def label_codes(col) -> tuple[np.ndarray, list[str]]:
    """A string column as (codes, distinct values): the table makes one categorical of all blocks at the end."""
    encoded = col.dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary.to_pylist()


def block_budgets(col, n: int):
    """Per row (codes, canonical budget keys), and the budgets by key (None, None when invalid).

    A null (or absent) unit is no allowance in that unit, as in the line reader.
    """
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
        v = numeric_column(col.field(i), nonneg=True)
        if v is None:
            return None, None
        values.append(v)
    matrix = np.column_stack(values)
    matrix[np.isnan(matrix)] = -1.0
    if col.null_count:
        matrix[np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = -1.0  # "budget": null
    if (matrix == matrix[0]).all():  # the common case: one budget for the whole block
        inverse = np.zeros(n, dtype=np.int8)   # codes per row: the narrowest type (a million rows, 1 MB)
        first = np.zeros(1, dtype=np.int64)
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
