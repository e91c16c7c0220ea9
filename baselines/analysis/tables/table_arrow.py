"""One block of a results file checked in bulk by pyarrow, or handed back to the line reader.

pyarrow parses JSON Lines into typed columns in C++; every check here is a
whole-column operation that accepts exactly what the line reader of
`core/records.py` accepts, or returns None/False so the block is read again
line by line (which words the precise error). A test compares both paths.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.json as pj

from . import degradation
from ...core.errors import InputError
from ...core.json_line import MAX_DEPTH
from ...core.records import NAME_MAX, SCHEMA, _trace, items_from_json
from .run_columns import code_column, error_summary, nouns_column
from .table_arrow_columns import (arrow_reward_range, block_budgets, label_codes, numeric_column, object_column,
                                  per_distinct)
from .table_lines import load_line, nonblank_lines, object_lines, safe_for_arrow


_ARROW_BLOCK = 2 << 20     # pyarrow's own parallel block (two per read block); a longer line is read line by line


def arrow_chunk(data: bytes, ends: np.ndarray):
    """(frame, budgets, traces, line numbers) for a block checked in bulk, or None to fall back.

    Any surprise inside pyarrow (it has raised IndexError on odd input) is a
    fall back too: the line reader is total and decides.
    """
    if not safe_for_arrow(data, ends):
        return None
    try:
        return _arrow_columns(data, ends)
    except Exception:  # noqa: BLE001
        return None


def _arrow_columns(data: bytes, ends: np.ndarray):
    """The bulk checks of `arrow_chunk`.

    pyarrow parses JSON Lines into typed columns in C++; the checks below are
    whole-column operations. Anything unusual (a type conflict between lines,
    NaN, a missing required field, a non-object line) returns None and the
    file is read again line by line, so errors still name the line.
    """
    lines = object_lines(data, ends)
    if lines is False:
        return None
    read = _arrow_read(data, ends, lines, _parse_json(data))
    if read is None or not _arrow_types_ok(read[0]):
        return None
    cols, n, numbers = read
    if "schema" in cols and not _schema_nulls_absent(data, cols["schema"]):
        return None
    measured = _arrow_measures(data, cols, n)
    if measured is None:
        return None
    reward, dev, spend = measured
    frame = {"workload": label_codes(cols["workload"]), "arm": label_codes(cols["arm"]),
             "seed": cols["seed"].to_numpy().astype(np.int64), "reward": reward}
    if "dev_reward" in cols:  # absent: the table's NaN stands
        frame["dev_reward"] = dev
    budgets, keys = block_budgets(cols.get("budget"), n)
    if budgets is None:
        return None
    frame["budget"] = keys
    if not _arrow_labels(cols, n, frame):
        return None
    partial = _arrow_partial(cols, n)
    if partial is None:
        return None
    traces = _arrow_traces(cols, n)
    if traces is False:
        return None
    items = _arrow_items(cols, n)
    if items is False:
        return None
    if items is not None:
        frame["items"] = items
    for unit in set(spend) | set(partial):
        frame[f"spend:{unit}"] = spend.get(unit, np.full(n, np.nan))
        frame[f"partial:{unit}"] = partial.get(unit, np.zeros(n, dtype=bool))
    return frame, budgets, traces, numbers


def _arrow_read(data: bytes, ends: np.ndarray, lines, table):
    """(columns, rows, line numbers) of Arrow's parse, or None when the shape alone rules the bulk path out."""
    n = table.num_rows
    names = set(table.column_names)
    if not {"workload", "arm", "seed", "spend", "reward"} <= names:
        return None
    if 1 + max((_type_depth(f.type) for f in table.schema), default=0) > MAX_DEPTH or "" in names:
        return None
    # each non-blank line is "{...}" (`object_lines`): one row per such line, or a line held two runs
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


def _arrow_types_ok(cols: dict) -> bool:
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


def _arrow_measures(data: bytes, cols: dict, n: int):
    """(reward, dev_reward, spend by unit) as float arrays, tokens derived as the line reader does; None to fall back."""
    if cols["reward"].null_count and not _rewards_present(data, cols["reward"]):
        return None  # a null reward must be written out; a missing one is an error (line by line)
    reward = numeric_column(cols["reward"])
    dev = numeric_column(cols["dev_reward"]) if "dev_reward" in cols else np.full(n, np.nan)
    spend_col = cols["spend"]
    if reward is None or dev is None or not pa.types.is_struct(spend_col.type) or spend_col.null_count:
        return None
    if any(not spend_col.type.field(i).name for i in range(spend_col.type.num_fields)):
        return None
    spend = {}
    for i in range(spend_col.type.num_fields):
        unit = spend_col.type.field(i).name
        values = numeric_column(spend_col.field(i), nonneg=True)
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


def _arrow_labels(cols: dict, n: int, frame: dict) -> bool:
    """Add stop_reason, failed/error, code and reward range columns to `frame`; False to fall back."""
    # a column no row of the block has is left out: the table's default (None, False) stands
    if "stop_reason" in cols and cols["stop_reason"].null_count < n:
        frame["stop_reason"] = object_column(cols["stop_reason"])
    if "error" in cols and cols["error"].null_count < n:
        frame["failed"] = np.asarray(cols["error"].is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        frame["error"] = np.full(n, None, dtype=object)
        failed_rows = np.flatnonzero(frame["failed"])
        frame["error"][failed_rows] = [error_summary(e) for e in cols["error"].take(failed_rows).to_pylist()]
    if "provenance" in cols and cols["provenance"].null_count < n:
        if not _code_fields_as_written(cols["provenance"]):
            return False
        frame["code"] = per_distinct(cols["provenance"], code_column)
    if "reward_range" in cols and cols["reward_range"].null_count < n:
        frame["reward_lo"], frame["reward_hi"] = lo, hi = arrow_reward_range(cols["reward_range"])
        reward = frame["reward"]
        if ((reward < lo) | (reward > hi)).any():  # NaN (no score, no range) compares False
            return False  # a reward outside its own line's range: the line reader words the error
    if "unit_nouns" in cols and cols["unit_nouns"].null_count < n:
        frame["nouns"] = per_distinct(cols["unit_nouns"], nouns_column)
    if "instance" in cols and cols["instance"].null_count < n:
        kind = cols["instance"].type
        if not (pa.types.is_string(kind) or pa.types.is_integer(kind)):
            return False  # a float or object instance: the line reader words it exactly
        frame["instance"] = object_column(cols["instance"].cast(pa.string()))
    frame.update(degradation.arrow_columns(pa, cols, n))  # a governed run's stop kind and dropped stages
    return True


def _code_fields_as_written(col) -> bool:
    """Whether the provenance fields `code_key` prints read back as the line reader reads them.

    pyarrow makes a field that is 1 on one line and 1.5 on another a float
    column, so the 1 would print as "1.0"; a nested value gains the keys of
    other lines as nulls. Either way the code text would differ: such a block
    is read line by line. Strings, integers, booleans and non-integral floats
    print alike.
    """
    if not pa.types.is_struct(col.type):
        return False
    for name in ("costmatch", "arm_module", "workload_module", "arm_code", "workload_code", "stale"):
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


def _arrow_partial(cols: dict, n: int) -> dict[str, np.ndarray] | None:
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


def _arrow_traces(cols: dict, n: int):
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


def _arrow_items(cols: dict, n: int):
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


def _null_rows_keyed(data: bytes, col, key: str) -> list[bool] | None:
    """For each null row of `col`, whether its line has `key` (written as null) rather than lacking it.

    Arrow reads a missing key and an explicit null alike; where the rule
    tells them apart ("reward": null is a run without a score, a missing
    reward an error; a missing schema is the default, "schema": null an
    error), the null rows' lines are parsed again. Rows are the block's
    non-blank lines (`object_lines` and `_arrow_read` checked that). None
    when a line does not parse as an object: the line reader words it.
    """
    rows = np.flatnonzero(np.asarray(col.is_null().to_numpy(zero_copy_only=False), dtype=bool)).tolist()
    lines, _ = nonblank_lines(data) if len(rows) > 0 else ([], [])
    out = []
    for i in rows:
        try:
            obj = load_line(lines[i])
        except (ValueError, IndexError, RecursionError):
            return None
        if not isinstance(obj, dict):
            return None
        out.append(key in obj)
    return out


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


def _has_temporal(t) -> bool:
    """Whether a type is, or holds (inside structs and lists), a timestamp, date, time or duration.

    Why: pyarrow reads strings that look like ISO dates ("2024-06-01",
    "12:00:00") as timestamps, so an error message, a unit word or a
    provenance field would come back as a datetime, not the text the line
    reader keeps. Such a block is read line by line.
    """
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
    if pa.types.is_struct(t):
        return 1 + max((_type_depth(t.field(i).type) for i in range(t.num_fields)), default=0)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return 1 + _type_depth(t.value_type)
    return 0


def _parse_json(data: bytes):
    return pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(block_size=_ARROW_BLOCK))
