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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

try:  # orjson parses several times faster; the stdlib parser is the fallback.
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _orjson = None

from .errors import InputError
from .file_kind import refuse_foreign
from .fileio import atomic_open
from .input_files import open_input
from .json_line import (MAX_DEPTH, dumped, has_surrogate_escape, json_depth, loads_line, lone_surrogate, quote,
                        refuse_bom, refuse_repeated_key)
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
# Limits that make every record input either a record or a one-line error (the nesting
# limit MAX_DEPTH is a rule of the text: `json_line.py`). The bulk reader
# (analysis/tables/table_arrow.py) hands a file to pyarrow only when it cannot cross them and
# falls back to the line reader otherwise, so both readers agree.
MAX_AMOUNT = 1e15         # spend and budget values: exact as float64 integers, sums stay finite
MAX_REWARD = 1e100        # |reward|: means, variances and plots of such values stay finite
SEED_MIN, SEED_MAX = -2**63, 2**63 - 1   # a seed is a 64-bit integer (numpy's seed columns)


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


def parse_line(line: bytes, where: str) -> RunRecord:
    """One line of a results file to a record, or InputError: the rule every reader shares.

    Checked before parsing: UTF-8 and nesting depth (a deep line exhausts
    the parser's stack); after: no string that is not valid Unicode (a lone
    surrogate escape cannot be written back), then the fields.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        refuse_bom(line, where)
        raise InputError(f"{where}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at column "
                         f"{exc.start + 1}); results files are UTF-8 JSON Lines") from None
    depth = json_depth(line)
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: JSON nested {depth} levels deep; a run record nests at most "
                         f"{MAX_DEPTH} levels")
    try:
        obj = loads_line(text, where)
    except InputError:
        refuse_bom(line, where)
        raise
    if _orjson is None or dumped(obj) != line:  # only a line not in orjson's own form can hide a repeat
        refuse_repeated_key(text, where)
    if has_surrogate_escape(line):
        bad = lone_surrogate(obj)
        if bad is not None:
            raise InputError(f"{where}: the string {quote(bad)} holds an unpaired UTF-16 surrogate "
                             "escape (\\ud800-\\udfff), which is not text; fix the writer")
    try:
        return record_from_json(obj, where)
    except InputError:
        if isinstance(obj, dict) and isinstance(obj.get("seed"), float):
            # orjson reads an integer literal past 64 bits as a float (2^64 became 1.8e+19, so the seed
            # "must be an integer"); the stdlib keeps it exact, and the message names the real value
            return record_from_json(loads_line(text, where, exact=True), where)
        raise


def iter_records(path: str | os.PathLike) -> Iterator[RunRecord]:
    """Records of one JSON Lines file, validated line by line; blank lines are skipped."""
    for _, record in _located_records(path):
        yield record


def _located_records(path: str | os.PathLike) -> Iterator[tuple[str, RunRecord]]:
    path = Path(path)
    handle = open_input(path, "results file", pipes=True)
    with handle:
        try:
            refuse_foreign(handle.peek(16)[:16], path)
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
