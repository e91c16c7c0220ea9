"""Run records (contract section 1) and their JSON Lines files.

One line is one run: an arm, on a workload, at a budget, with a seed. The
reader validates every line and stops at the first problem with
``path:line: problem`` because a silently skipped or coerced line is how a
comparison ends up pooling a failed run as a zero. Unreported spend is kept
as ``None`` end to end; it is never written or read back as 0.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

try:  # orjson parses several times faster; the stdlib parser is the fallback.
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _orjson = None

from .errors import InputError
from .units import ordered_units

SCHEMA = "costmatch.run/1"

_KNOWN = frozenset({"schema", "workload", "arm", "seed", "params", "budget", "spend", "reward",
                    "dev_reward", "trace", "stop_reason", "error", "partial", "items"})


@dataclass(slots=True)
class RunRecord:
    """One run. `spend[unit] is None` means unreported (unknown), never zero."""

    workload: str
    arm: str
    seed: int
    spend: dict[str, float | None]
    reward: float | None
    budget: dict[str, float] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    dev_reward: float | None = None
    trace: list[dict[str, Any]] | None = None
    stop_reason: str | None = None
    error: Any = None
    partial: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    items: list[dict[str, Any]] | None = None   # per-item outcomes (contract v3), canonical: see `items_from_json`

    def identity(self) -> tuple[str, str, str, int]:
        """(workload, budget, arm, seed): what makes two lines the same run."""
        return (self.workload, budget_key(self.budget), self.arm, self.seed)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": SCHEMA, "workload": self.workload, "arm": self.arm,
                               "seed": self.seed, "params": self.params, "budget": self.budget,
                               "spend": self.spend, "reward": self.reward,
                               "dev_reward": self.dev_reward}
        if self.trace is not None:
            out["trace"] = self.trace
        out["stop_reason"] = self.stop_reason
        out["error"] = self.error
        if self.partial:
            out["partial"] = list(self.partial)
        if self.items is not None:
            out["items"] = self.items
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def canonical_budget(budget: dict[str, float]) -> dict[str, float]:
    """The budget as exact values in contract unit order: 1500000.0 is 1500000; null is no allowance."""
    out: dict[str, float] = {}
    for unit in ordered_units({u for u, v in budget.items() if v is not None}):
        value = float(budget[unit])
        out[unit] = int(value) if value.is_integer() else value
    return out


def budget_key(budget: dict[str, float]) -> str:
    """Canonical JSON of a budget: the identity runs group by and never pool across.

    By exact value, because a rounded key (``f"{v:g}"`` made 1,500,000 and
    1,500,001 tokens one group) pools runs given different allowances.
    Whole numbers print without a fraction; others in the shortest form
    that reads back as the same float.
    """
    try:
        items = tuple(budget.items())
        cached = _BUDGET_KEYS.get(items)
    except TypeError:  # an unhashable value: compute (the readers refuse it anyway)
        return json.dumps(canonical_budget(budget), separators=(",", ":"), ensure_ascii=False)
    if cached is None:
        cached = json.dumps(canonical_budget(budget), separators=(",", ":"), ensure_ascii=False)
        if len(_BUDGET_KEYS) < 4096:
            _BUDGET_KEYS[items] = cached
    return cached


#: budget items -> key. A suite has a handful of budgets and a run asks for a record's key
#: about ten times (identity, resume, grouping): a 10,000-cell run with nothing left to do
#: took 1.23 s without this cache and 0.99 s with it.
_BUDGET_KEYS: dict[tuple, str] = {}


def budget_label(budget: dict[str, float]) -> str:
    """Exact, readable text of a budget for messages: ``tokens=1500001, calls=80``."""
    canon = canonical_budget(budget)
    return ", ".join(f"{u}={v!r}" for u, v in canon.items()) or "no budget"


# -- one rule for every reader -------------------------------------------------
# Limits that make every record input either a record or a one-line error.
# The bulk reader (analysis/table_arrow.py) hands a file to pyarrow only when it cannot cross
# them and falls back to the line reader otherwise, so both readers agree.
MAX_DEPTH = 64            # nesting of objects and lists in one line (pyarrow segfaults near 10^4)
MAX_AMOUNT = 1e15         # spend and budget values: exact as float64 integers, sums stay finite
MAX_REWARD = 1e100        # |reward|: means, variances and plots of such values stay finite
SEED_MIN, SEED_MAX = -2**63, 2**63 - 1   # a seed is a 64-bit integer (numpy's seed columns)
_SHOW = 60                # longest value quoted in an error message

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"', re.S)
_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def show(value: Any) -> str:
    """repr of a value for a one-line message, cut to a readable length (suite files; records use `quote`)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else f"an integer of {len(str(abs(value)))} digits"
    return text if len(text) <= _SHOW else text[:_SHOW - 5] + "...'" + f" ({len(text)} characters)"


def quote(value: Any) -> str:
    """A value of a results line as JSON text for a one-line message (null, true, "x"), cut to a readable length.

    Why JSON: the user wrote JSON; Python's None, True and 'x' name values
    that are not in their file. Long integers are described by their length.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        try:
            return f"an integer of {len(str(abs(value)))} digits"
        except ValueError:  # past Python's digit limit for str(int)
            return "an integer of thousands of digits"
    try:
        text = json.dumps(value, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, so the message stays printable
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) <= _SHOW:
        return text
    return text[:_SHOW - 5] + "..." + ('"' if text.startswith('"') else "") + f" ({len(text)} characters)"


def declared_range(value: Any) -> tuple[float, float] | None:
    """A line's `reward_range` as (lo, hi) floats, or None when it is absent or malformed.

    Well formed is a list of two finite numbers (not booleans) with lo <= hi;
    anything else is ignored by both readers, as it always was.
    """
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return None
    try:
        lo, hi = float(value[0]), float(value[1])
    except OverflowError:  # an integer past the float range
        return None
    if math.isfinite(lo) and math.isfinite(hi) and lo <= hi:
        return lo, hi
    return None


def json_depth(line: bytes) -> int:
    """Exact nesting depth of one JSON text (brackets inside strings do not count).

    A cheap upper bound (the number of opening brackets) settles ordinary lines.
    """
    opens = line.count(b"{") + line.count(b"[")
    if opens <= MAX_DEPTH:
        return opens
    depth = best = 0
    for char in re.findall(rb"[\[\]{}]", _STRING.sub(b"", line)):
        depth += 1 if char in b"[{" else -1
        if depth > best:
            best = depth
    return best


def has_surrogate_escape(data: bytes) -> bool:
    """True when the text may hold a \\uD800-\\uDFFF escape (paired or not); cheap prefilter."""
    return _SURROGATE.search(data) is not None


def _lone_surrogate(obj: Any) -> str | None:
    """The first string (key or value) that is not valid Unicode, else None."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


# -- validation --------------------------------------------------------------
def _number(value: Any, where: str, name: str, *, nullable: bool, nonneg: bool = False) -> float | None:
    if value is None:
        if nullable:
            return None
        raise InputError(f"{where}: field '{name}' is null; give a number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: field '{name}' must be a number{' or null' if nullable else ''}, got {quote(value)}")
    limit = MAX_AMOUNT if nonneg else MAX_REWARD
    if isinstance(value, int) and abs(value) > limit:
        raise InputError(f"{where}: field '{name}' is {quote(value)}, beyond the largest accepted "
                         f"magnitude {limit:g}; check the unit or the scale")
    if not math.isfinite(value):
        fix = "write null for a run without a score" if name in ("reward", "dev_reward") \
            else "write null for a unit that was not reported"
        raise InputError(f"{where}: field '{name}' is {quote(value)}, which is not finite; {fix}")
    if nonneg and value < 0:
        what = "a budget" if name.startswith("budget") else "spend"
        raise InputError(f"{where}: field '{name}' is negative ({quote(value)}); {what} cannot be negative")
    if abs(value) > limit:
        raise InputError(f"{where}: field '{name}' is {quote(value)}, beyond the largest accepted "
                         f"magnitude {limit:g}; check the unit or the scale")
    return value


def _missing_or_null(obj: dict, key: str, where: str, what: str) -> InputError:
    """The error for a required field that is absent or null (saying which: the fixes differ)."""
    if key not in obj:
        return InputError(f"{where}: field '{key}' is missing; give {what}")
    return InputError(f"{where}: field '{key}' is null; give {what}")


#: The longest workload or arm name a reader takes (characters), as a suite's names. Why a cap: a
#: record with a 10 MB arm name grew to 23 GB through the figures and tables (issue 31).
NAME_MAX = 200


def _text(obj: dict, key: str, where: str) -> str:
    value = obj.get(key)
    if value is None:
        raise _missing_or_null(obj, key, where, "a non-empty string")
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: field '{key}' must be a non-empty string, got {quote(value)}")
    if len(value) > NAME_MAX:
        raise InputError(f"{where}: field '{key}' is {len(value):,} characters long; names are at most "
                         f"{NAME_MAX} characters: shorten it")
    return value


def _table(obj: dict, key: str, where: str, what: str) -> dict:
    """An optional object field: absent or null is {}, anything else but an object is an error."""
    value = obj.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{where}: field '{key}' must be {what} or null, got {quote(value)}")
    return value


def _units(table: dict, where: str, name: str, *, nullable: bool) -> dict[str, float | None]:
    out = {}
    for unit, value in table.items():
        if not unit:
            raise InputError(f"{where}: field '{name}' has an empty unit name; name every unit")
        out[unit] = _number(value, where, f"{name}.{unit}", nullable=nullable, nonneg=True)
    return out


def record_from_json(obj: Any, where: str) -> RunRecord:
    """Validate one parsed line and build its record; InputError names the field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a line must be a JSON object (one run), got {_json_kind(obj)}")
    schema = obj.get("schema", SCHEMA)
    if schema != SCHEMA:
        if schema is None:
            raise InputError(f"{where}: field 'schema' is null; write \"{SCHEMA}\" or leave the field out")
        raise InputError(f"{where}: field 'schema' is {quote(schema)}; this costmatch reads \"{SCHEMA}\" "
                         "(write that, or leave the field out)")
    workload = _text(obj, "workload", where)
    arm = _text(obj, "arm", where)
    seed = obj.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        if seed is None:
            raise _missing_or_null(obj, "seed", where, "an integer (the run's random seed)")
        raise InputError(f"{where}: field 'seed' must be an integer, got {quote(seed)}")
    if not SEED_MIN <= seed <= SEED_MAX:
        raise InputError(f"{where}: field 'seed' is {quote(seed)}, which is beyond a 64-bit integer; "
                         "use a seed from -2^63 to 2^63-1")
    if "spend" not in obj:
        raise InputError(f"{where}: field 'spend' is missing; give an object of unit -> number "
                         "(null for a unit that was not reported)")
    if not isinstance(obj["spend"], dict):
        got = " (null is not allowed)" if obj["spend"] is None else f", got {quote(obj['spend'])}"
        raise InputError(f"{where}: field 'spend' must be an object of unit -> number{got}")
    spend = _units(obj["spend"], where, "spend", nullable=True)
    if spend.get("tokens") is None and spend.get("prompt_tokens") is not None \
            and spend.get("completion_tokens") is not None:
        spend["tokens"] = spend["prompt_tokens"] + spend["completion_tokens"]
    if "reward" not in obj:
        raise InputError(f"{where}: field 'reward' is missing; write null for a run without a score")
    reward = _number(obj["reward"], where, "reward", nullable=True)
    dev = _number(obj.get("dev_reward"), where, "dev_reward", nullable=True)
    # null is "no allowance in this unit" (both readers drop it): a budget is unit -> number
    budget = {u: v for u, v in _units(_table(obj, "budget", where, "an object of unit -> number"),
                                      where, "budget", nullable=True).items() if v is not None}
    params = _table(obj, "params", where, "an object")
    partial = obj.get("partial")
    if partial is None:
        partial = ()
    if not isinstance(partial, (list, tuple)) or not all(isinstance(u, str) and u for u in partial):
        raise InputError(f"{where}: field 'partial' must be a list of unit names, got {quote(partial)}")
    trace = obj.get("trace")
    if trace is not None:
        trace = _trace(trace, where)
    stop = obj.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        raise InputError(f"{where}: field 'stop_reason' must be a string or null, got {quote(stop)}")
    extra = {k: v for k, v in obj.items() if k not in _KNOWN}
    if reward is not None and "reward_range" in extra:
        _check_range(reward, extra["reward_range"], where)
    items = items_from_json(obj.get("items"), where)
    return RunRecord(workload, arm, seed, spend, reward, budget, params, dev, trace, stop,
                     obj.get("error"), tuple(partial), extra, items)


def items_from_json(value: Any, where: str) -> list[dict[str, Any]] | None:
    """A record's per-item outcomes (`items`, contract v3) in canonical form, or None when absent or null.

    Each item is ``{"id": non-empty string, "reward": finite number or null}``
    with an optional ``"spend": {unit: number or null}``; ids are unique
    within the record. Canonical (what both readers hand on): ``reward`` a
    float or None, ``spend`` only its reported units and only when it has
    one; other keys of an item are ignored, as unknown fields of a record
    are. Why canonical: the bulk reader sees absent and null alike, so both
    readers keep exactly what both can see.
    """
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError(f"{where}: field 'items' must be an array of {{\"id\", \"reward\"}} objects or null, "
                         f"got {quote(value)}")
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        name = f"items[{i}]"
        if not isinstance(item, dict):
            raise InputError(f"{where}: field '{name}' must be an object with 'id' and 'reward', got {quote(item)}")
        ident = item.get("id")
        if not isinstance(ident, str) or not ident:
            raise InputError(f"{where}: field '{name}.id' must be a non-empty string, got {quote(ident)}")
        if ident in seen:
            raise InputError(f"{where}: field '{name}.id' repeats the id {quote(ident)}; "
                             "give each question of a run its own id")
        seen.add(ident)
        if "reward" not in item:
            raise InputError(f"{where}: field '{name}.reward' is missing; write null for an item without a score")
        reward = _number(item["reward"], where, f"{name}.reward", nullable=True)
        clean: dict[str, Any] = {"id": ident, "reward": None if reward is None else float(reward)}
        spend = item.get("spend")
        if spend is None:
            spend = {}
        elif not isinstance(spend, dict):
            raise InputError(f"{where}: field '{name}.spend' must be an object of unit -> number or null, "
                             f"got {quote(spend)}")
        spend = {u: v for u, v in _units(spend, where, f"{name}.spend", nullable=True).items() if v is not None}
        if spend:
            clean["spend"] = spend
        out.append(clean)
    return out


def _check_range(reward: float, declared: Any, where: str) -> None:
    """A reward outside the range its own line declares is an input error.

    Why: `reward_range` says every reward lies in it, and reports clip means
    and intervals to it, so a reward of 1.4 under [0, 1] was printed as
    1.000 without a word. A malformed range is ignored (see `declared_range`).
    """
    if type(declared) is list and len(declared) == 2:
        lo, hi = declared
        if type(lo) is float and type(hi) is float and lo <= reward <= hi:
            return  # the runner's [0.0, 1.0]: inside, whatever else holds (a line reader per-line cost)
    bounds = declared_range(declared)
    if bounds is not None and not bounds[0] <= float(reward) <= bounds[1]:
        raise InputError(f"{where}: reward {quote(reward)} is outside the line's reward_range "
                         f"[{quote(declared[0])}, {quote(declared[1])}]; fix the range or the reward")


def _json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's words (an array, not a list)."""
    if value is None or isinstance(value, bool):
        return quote(value)
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def _trace(trace: Any, where: str) -> list[dict[str, Any]]:
    """Validated trace in canonical form (what both readers hand on).

    Each point keeps ``spend`` (reported units only: null is dropped) and
    ``best`` (null when absent); ``reward`` only when it is a number, since
    an anytime curve reads ``reward`` only where every point has one.
    """
    if not isinstance(trace, list):
        raise InputError(f"{where}: field 'trace' must be a list of {{spend, best}} points")
    out = []
    for i, point in enumerate(trace):
        if not isinstance(point, dict) or not isinstance(point.get("spend"), dict):
            raise InputError(f"{where}: field 'trace[{i}]' must be an object with 'spend' and 'best'")
        spend = _units(point["spend"], where, f"trace[{i}].spend", nullable=True)
        clean = dict(point)
        clean["spend"] = {u: v for u, v in spend.items() if v is not None}
        clean["best"] = _number(point.get("best"), where, f"trace[{i}].best", nullable=True)
        if _number(point.get("reward"), where, f"trace[{i}].reward", nullable=True) is None:
            clean.pop("reward", None)
        out.append(clean)
    return out


# -- files -------------------------------------------------------------------
_CONTROL_NAMES = {"\t": "a tab", "\n": "a line feed", "\r": "a carriage return", "\x00": "a NUL byte"}


def _loads(line: str, where: str, exact: bool = False) -> Any:
    """The parsed line; `exact` parses with the stdlib, which keeps integers past 64 bits exact (orjson
    reads them as floats)."""
    if _orjson is not None and not exact:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            pass  # fall through for a precise message (and NaN literals)
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: {_json_problem(exc)}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(f"{where}: {_value_problem(line, exc)}") from None


def _json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a line the JSON parser refused, and the fix, in the user's terms."""
    text, pos = exc.doc, exc.pos
    pieces = [p.strip() for p in text.split("\r") if p.strip()]
    if len(pieces) > 1 and all(p.startswith("{") and p.endswith("}") for p in pieces):
        return ("not valid JSON: the line ends are CR only (\\r), so several runs read as one line; "
                "convert the line ends to LF (\\n)")
    if exc.msg == "Extra data" and text[pos:].lstrip().startswith("{"):
        return (f"two runs on one line (the second starts at column {exc.colno}); put each run on its own "
                "line (a file without a final newline may have been joined to the next)")
    if exc.msg.startswith("Expecting") and text[:1] == "{" and not text[pos:].strip():
        return (f"not valid JSON: the line ends at column {exc.colno} before its object closes (a run cut "
                "short, or wrapped over two lines); put each whole run on one line")
    msg = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg  # the stdlib says "Invalid control character at"
    if msg.startswith("Invalid control character") and pos < len(text):
        char = text[pos]
        name = _CONTROL_NAMES.get(char, "a control character")
        return (f"not valid JSON ({name} (U+{ord(char):04X}) inside a string at column {exc.colno}); "
                f"write it escaped as {json.dumps(char)[1:-1]}")
    return f"not valid JSON ({msg} at column {exc.colno}); each line must be one JSON object"


def _value_problem(text: str, exc: Exception) -> str:
    """The message for a parse that failed past the grammar (a number too long for Python's int)."""
    long = re.search(r"\d{4301,}", text)
    if long is not None:
        return (f"a number of {len(long.group())} digits at column {long.start() + 1} is longer than any "
                "field takes; fix the writer")
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if len(first) > 100:
        first = first[:100].rsplit(" ", 1)[0] + " ..."
    return f"not valid JSON ({first}); each line must be one JSON object"


#: byte-order marks at the start of a line, and what to do (pyarrow skips a UTF-8 BOM; neither reader may)
_BOMS = {
    b"\xef\xbb\xbf": "saved with a byte-order mark (BOM) before this line; save the file as UTF-8 without BOM",
    b"\xff\xfe": "saved as UTF-16 (it starts with a UTF-16 byte-order mark); save the file as UTF-8 without BOM",
    b"\xfe\xff": "saved as UTF-16 (it starts with a UTF-16 byte-order mark); save the file as UTF-8 without BOM",
}


def parse_line(line: bytes, where: str) -> RunRecord:
    """One line of a results file to a record, or InputError: the rule every reader shares.

    Checked before parsing: UTF-8 and nesting depth (a deep line exhausts
    the parser's stack); after: no string that is not valid Unicode (a lone
    surrogate escape cannot be written back), then the fields.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        _refuse_bom(line, where)
        raise InputError(f"{where}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at column "
                         f"{exc.start + 1}); results files are UTF-8 JSON Lines") from None
    depth = json_depth(line)
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: JSON nested {depth} levels deep; a run record nests at most "
                         f"{MAX_DEPTH} levels")
    try:
        obj = _loads(text, where)
    except InputError:
        _refuse_bom(line, where)
        raise
    if _orjson is None or _dumped(obj) != line:  # only a line not in orjson's own form can hide a repeat
        _refuse_repeated_key(text, where)
    if has_surrogate_escape(line):
        bad = _lone_surrogate(obj)
        if bad is not None:
            raise InputError(f"{where}: the string {quote(bad)} holds an unpaired UTF-16 surrogate "
                             "escape (\\ud800-\\udfff), which is not text; fix the writer")
    try:
        return record_from_json(obj, where)
    except InputError:
        if isinstance(obj, dict) and isinstance(obj.get("seed"), float):
            # orjson reads an integer literal past 64 bits as a float (2^64 became 1.8e+19, so the seed
            # "must be an integer"); the stdlib keeps it exact, and the message names the real value
            return record_from_json(_loads(text, where, exact=True), where)
        raise


def _dumped(obj: Any) -> bytes | None:
    try:
        return _orjson.dumps(obj)
    except (TypeError, _orjson.JSONEncodeError):
        return None


class _RepeatedKey(Exception):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return obj


def _refuse_repeated_key(text: str, where: str) -> None:
    """Refuse a line with a key twice in one JSON object (at any depth): the rule both readers share.

    Why: every JSON parser here keeps the last value of a repeated key, so
    appending `,"reward":0.0` to a line changed an arm's mean with exit 0
    (issue 31). orjson cannot report repeats, so `parse_line` first checks
    the cheap proof that there is none: orjson writes the parsed object back
    byte for byte as the line (true of every line `costmatch run` writes).
    Only other lines are parsed again here, by the stdlib with a pairs hook.
    Arrow, the columnar reader's parser, refuses a repeated key itself, and
    that block is then read line by line through this rule.
    """
    try:
        json.loads(text, object_pairs_hook=_unique_pairs)
    except _RepeatedKey as exc:
        raise InputError(f"{where}: the key {quote(exc.args[0])} appears twice in one JSON object (a reader "
                         "would keep only the last); remove one of the two") from None
    except (ValueError, RecursionError):  # what the stdlib cannot read was read by orjson; no repeat to find
        pass


def _refuse_bom(line: bytes, where: str) -> None:
    """A line that failed to decode or parse because it starts with a byte-order mark: say so."""
    for bom, problem in _BOMS.items():
        if line.startswith(bom):
            raise InputError(f"{where}: {problem}") from None


def iter_records(path: str | os.PathLike) -> Iterator[RunRecord]:
    """Records of one JSON Lines file, validated line by line; blank lines are skipped."""
    for _, record in _located_records(path):
        yield record


def _located_records(path: str | os.PathLike) -> Iterator[tuple[str, RunRecord]]:
    path = Path(path)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read results file ({exc.strerror})") from None
    with handle:
        try:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                yield f"{path}:{number}", parse_line(line.rstrip(b"\n"), f"{path}:{number}")
        except OSError as exc:  # a folder, a device that fails mid-read
            raise InputError(f"{path}: cannot read results file ({exc.strerror or exc})") from None


def read_records(paths: Iterable[str | os.PathLike] | str | os.PathLike,
                 keep_last: bool = False) -> list[RunRecord]:
    """All records of one or more files, refusing duplicate run identities.

    A second line with the same (workload, budget, arm, seed) is an error
    (it would count one seed twice) unless `keep_last`, which keeps the later.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    # every line is validated before duplicates are looked for, as the bulk reader does,
    # so both readers name the same first problem of a file
    located = [item for path in paths for item in _located_records(path)]
    seen: dict[tuple, tuple[int, str]] = {}
    out: list[RunRecord] = []
    for where, record in located:
        ident = record.identity()
        if ident not in seen:
            seen[ident] = (len(out), where)
            out.append(record)
        elif keep_last:
            out[seen[ident][0]] = record
            seen[ident] = (seen[ident][0], where)
        else:
            raise duplicate_error(where, ident, seen[ident][1])
    return out


def duplicate_error(where: str, ident: tuple, first_where: str) -> InputError:
    """The one-line error for a run identity seen twice (it would count a seed twice)."""
    workload, bkey, arm, seed = ident
    return InputError(f"{where}: duplicate run (workload={quote(workload)}, budget={bkey}, "
                      f"arm={quote(arm)}, seed={seed}) first seen at {first_where}; "
                      "remove one line or pass --keep-last")


def write_records(path: str | os.PathLike, records: Iterable[RunRecord]) -> None:
    """Write records to a new file atomically (a crash or a full disk leaves the old file whole)."""
    from .fileio import atomic_open

    with atomic_open(path, "w", "results file", fsync=True) as handle:
        for record in records:
            handle.write(record.to_line() + "\n")


def append_record(handle, record: RunRecord, sync: bool = True) -> None:
    """Append one complete line and hand it to the operating system at once.

    After the flush the line survives the process being killed (SIGKILL, a
    crash); `sync` also forces it to the disk, which protects against the
    machine going down and costs a few milliseconds per line.
    """
    handle.write(record.to_line() + "\n")
    handle.flush()
    if sync:
        os.fsync(handle.fileno())
