"""What every importer shares: strict source reading, one validation, one atomic write.

Why one place: importers that coerced what they read (`str(None)` became an
arm called "None", a string "0.5" passed as a reward, a negative token count
went through) wrote files that `compare` then refused, after the import had
said it succeeded. Here every record an importer builds is validated by
`baselines.core.records.record_from_json`, the same reader `compare` uses, before
anything is written; the output is written through `baselines.core.fileio`, so a
refused import leaves no file and no temporary behind.

The error rule shared by the importers and the runner (contract section 1,
`baselines.core.alternatives`): a run whose *selected* choice was scored keeps its
reward, and errors of alternatives it did not select are kept in `notes`; a
run whose own scoring failed is unscored (`reward: null`, the source's
figure kept as `source_reward`, the error in `error`).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Iterable

from ..core.errors import InputError
from ..core.file_kind import foreign_kind
from ..core.fileio import atomic_open
from ..core.input_files import read_input
from ..core.json_line import quote
from ..core.records import RunRecord, record_from_json

_MAX_DEPTH = 200


def _reject_constant(name: str):
    raise ValueError(name)


def read_utf8(path: Path, fix: str) -> str:
    """A whole source file as text; unreadable or non-UTF-8 bytes are one-line errors ending with `fix`."""
    raw = read_input(path, "source file")  # a FIFO, a device or a folder is refused before it can block
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        kind = foreign_kind(raw[:16])   # a .json.gz or a zip handed over as it was downloaded
        if kind is not None:
            raise InputError(f"{path}: is {kind[0]}, not text; {kind[1]}; {fix}") from None
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); {fix}") from None


def load_json(path: Path, kind: str) -> Any:
    """Parse a whole JSON file; NaN, Infinity, bad bytes and deep nesting are one-line errors."""
    text = read_utf8(path, f"{kind} files are UTF-8 JSON")
    return _parse_json(text, str(path), lambda exc: f"not a JSON file ({exc.msg} at line {exc.lineno} column "
                       f"{exc.colno}); {kind} results are one JSON object",
                       "write null for a value that was not measured", f"; {kind} results are shallow objects")


def _parse_json(text: str, where: str, not_json: Callable[[json.JSONDecodeError], str], not_finite: str,
                too_deep: str = "") -> Any:
    """One JSON text parsed, its three ways to fail each one line naming `where`: the message when it is not
    JSON (`not_json`), the fix when it holds NaN or Infinity (`not_finite`), and the tail of the nesting error."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: {not_json(exc)}") from None
    except ValueError as exc:
        raise InputError(f"{where}: holds {exc.args[0]}, which is not a finite number; {not_finite}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested deeper than Python can read{too_deep}") from None


def source_object(item: dict, key: str, where: str) -> dict:
    """`item[key]` as an object ({} when absent or null); any other type is a one-line error."""
    value = item.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{where}: field {key!r} must be an object, got {type(value).__name__}; "
                         "fix or remove it in the source file")
    return value


def source_number(item: dict, key: str, where: str) -> float | None:
    """A count or amount from the source: a finite number >= 0, or None when absent/null."""
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"{where}: field {key!r} must be a finite number >= 0 or null, got {quote(value)}; "
                         "fix it in the source file (null when it was not measured)")
    return value


def source_text(item: dict, key: str, where: str) -> str:
    """A name from the source (arm, mode, algorithm): a non-empty string, never `str(None)`."""
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field {key!r} must be a non-empty string, got {quote(value)}; "
                         "fix it in the source file")
    return value


def source_seed(item: dict, key: str, where: str) -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: field {key!r} must be an integer seed, got {quote(value)}; "
                         "fix it in the source file")
    return value


def json_type(value: Any) -> str:
    """The JSON name of a value's type, as the source file's writer would say it (string, object, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", dict: "object", list: "array"}.get(type(value), type(value).__name__)


def wrong_type(where: str, key: str, expected: str, value: Any) -> InputError:
    """The one line for a source field of the wrong type: the file and item, the field, what it takes, the fix."""
    return InputError(f"{where}: field {key!r} must be {expected}, got {json_type(value)} {quote(value)}; "
                      "fix or remove it in the source file")


def source_score(item: dict, key: str, where: str) -> float | None:
    """A score (reward, quality): a finite number of magnitude at most 10^100, or None when absent/null."""
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > 1e100:
        raise wrong_type(where, key, "a finite number or null", value)
    return value


def source_label(item: dict, key: str, where: str) -> str | None:
    """An optional label (a dataset, a model, a stop reason): a non-empty string, or None when absent/null."""
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise wrong_type(where, key, "a non-empty string or null", value)
    return value


def source_flag(item: dict, key: str, where: str) -> bool | None:
    value = item.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise wrong_type(where, key, "true, false or null", value)


def source_list(item: dict, key: str, where: str) -> list | None:
    value = item.get(key)
    if value is None or isinstance(value, list):
        return value
    raise wrong_type(where, key, "a list or null", value)


def source_error(item: dict, key: str, where: str) -> str | dict | None:
    """A run's error as the source wrote it: null, a message (string) or an object."""
    value = item.get(key)
    if value is None or isinstance(value, (str, dict)):
        return value
    raise wrong_type(where, key, "a message (string), an object or null", value)


def make_record(where: str, **fields: Any) -> RunRecord:
    """Build a record by keyword and validate it with the reader `compare` uses.

    Unknown keywords become top-level fields (kept by readers in `extra`).
    A value the reader refuses is an InputError naming `where` (the source
    file and item) and the record field.
    """
    obj = {key: value for key, value in fields.items() if value is not None or key in ("reward", "error")}
    obj.setdefault("reward", None)
    if "partial" in obj:
        obj["partial"] = list(obj["partial"])
    record = record_from_json(obj, where)
    try:
        line = record.to_line()
    except (TypeError, ValueError) as exc:  # e.g. NaN or an object inside params/notes
        raise InputError(f"{where}: a field cannot be written as JSON ({exc}); fix it in the source file") from None
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escape (\ud800) in a name, an id or a note
        raise InputError(f"{where}: a field holds text that is not valid Unicode (a lone surrogate escape such as "
                         "\\ud800); fix it in the source file") from None
    return record


def check_unique(records: Iterable[RunRecord], hint: str) -> None:
    """Two records with one identity would count a seed twice: refuse before writing."""
    seen: set[tuple] = set()
    for record in records:
        ident = record.identity()
        if ident in seen:
            workload, bkey, arm, seed = ident
            raise InputError(f"import: run (workload={quote(workload)}, budget={bkey or '{}'}, arm={quote(arm)}, "
                             f"seed={seed}) appears twice across the input files; {hint}")
        seen.add(ident)


def write_records_atomic(path: str | Path, records: list[RunRecord]) -> None:
    """All lines or none: written to a temporary beside `path`, renamed into place."""
    with atomic_open(path, "w", what="imported results", fsync=True) as handle:
        for record in records:
            handle.write(record.to_line() + "\n")


# -- per-item outcomes (contract v3 `items`) ---------------------------------------------
def load_json_lines(path: Path, kind: str) -> list[Any]:
    """Every line of a JSON Lines file, parsed; NaN, bad bytes and a bad line are one-line errors naming the line."""
    text = read_utf8(path, f"{kind} files are UTF-8 JSON Lines")
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        out.append(_parse_json(line, f"{path}:{number}", lambda exc: f"not a JSON line ({exc.msg} at column "
                               f"{exc.colno}); {kind} writes one JSON object per line",
                               "a per-item score must be a number"))
    return out


def item_reward(value: Any, where: str, field: str) -> float | None:
    """A per-item score from the source: a finite number (true/false count 1/0) or None; else a one-line error."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, (int, float)) or not math.isfinite(value) or abs(value) > 1e100:
        raise InputError(f"{where}: field {quote(field)} must be a finite number per item, got {quote(value)}; "
                         "choose a per-item metric with --metric")
    return float(value)


def check_item_ids(items: list[dict], where: str, hint: str) -> None:
    """Item ids are unique within a record: the same id twice would count one question twice."""
    seen: set[str] = set()
    for item in items:
        if item["id"] in seen:
            raise InputError(f"{where}: item {quote(item['id'])} appears twice in one run; {hint}")
        seen.add(item["id"])


def mean_of(values: Iterable[float | None]) -> float | None:
    numbers = [v for v in values if v is not None]
    return sum(numbers) / len(numbers) if numbers else None


def summed_spend(per_item: list[dict[str, Any]], units: Iterable[str]) -> tuple[dict[str, Any], list[str]]:
    """A run's spend from its items': a unit no item reported is unreported (None), never 0;
    a unit only some items reported is summed and listed as partial (a lower bound)."""
    spend: dict[str, Any] = {}
    partial = []
    for unit in units:
        values = [s.get(unit) for s in per_item]
        reported = [v for v in values if v is not None]
        spend[unit] = (int(sum(reported)) if all(isinstance(v, int) for v in reported) else math.fsum(reported)) \
            if reported else None
        if reported and len(reported) < len(values):
            partial.append(unit)
    return spend, partial


def within_unit_interval(values: Iterable[float | None]) -> bool:
    return all(v is None or 0.0 <= v <= 1.0 for v in values)
