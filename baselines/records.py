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
from .units import ordered_units

SCHEMA = "costmatch.run/1"

_KNOWN = frozenset({"schema", "workload", "arm", "seed", "params", "budget", "spend", "reward",
                    "dev_reward", "trace", "stop_reason", "error", "partial"})


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
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def budget_key(budget: dict[str, float]) -> str:
    """Canonical text for a budget; runs group by it and never pool across it."""
    return ",".join(f"{u}={budget[u]:g}" for u in ordered_units(budget))


# -- validation --------------------------------------------------------------
def _number(value: Any, where: str, name: str, *, nullable: bool, nonneg: bool = False) -> float | None:
    if value is None:
        if nullable:
            return None
        raise InputError(f"{where}: field '{name}' is null; give a number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: field '{name}' must be a number{' or null' if nullable else ''}, got {value!r}")
    if not math.isfinite(value):
        fix = "write null for a run without a score" if name in ("reward", "dev_reward") \
            else "write null for a unit that was not reported"
        raise InputError(f"{where}: field '{name}' is {value!r}, which is not finite; {fix}")
    if nonneg and value < 0:
        raise InputError(f"{where}: field '{name}' is negative ({value!r}); spend cannot be negative")
    return value


def _text(obj: dict, key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: field '{key}' must be a non-empty string, got {value!r}")
    return value


def record_from_json(obj: Any, where: str) -> RunRecord:
    """Validate one parsed line and build its record; InputError names the field."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: a line must be a JSON object (one run), got {type(obj).__name__}")
    schema = obj.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise InputError(f"{where}: field 'schema' is {schema!r}; this costmatch reads {SCHEMA!r}")
    workload = _text(obj, "workload", where)
    arm = _text(obj, "arm", where)
    seed = obj.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"{where}: field 'seed' must be an integer, got {seed!r}")
    if "spend" not in obj or not isinstance(obj["spend"], dict):
        raise InputError(f"{where}: field 'spend' must be an object of unit -> number or null")
    spend = {}
    for unit, value in obj["spend"].items():
        spend[unit] = _number(value, where, f"spend.{unit}", nullable=True, nonneg=True)
    if spend.get("tokens") is None and spend.get("prompt_tokens") is not None \
            and spend.get("completion_tokens") is not None:
        spend["tokens"] = spend["prompt_tokens"] + spend["completion_tokens"]
    if "reward" not in obj:
        raise InputError(f"{where}: field 'reward' is missing; write null for a run without a score")
    reward = _number(obj["reward"], where, "reward", nullable=True)
    dev = _number(obj.get("dev_reward"), where, "dev_reward", nullable=True)
    budget = obj.get("budget") or {}
    if not isinstance(budget, dict):
        raise InputError(f"{where}: field 'budget' must be an object of unit -> number")
    for unit, value in budget.items():
        _number(value, where, f"budget.{unit}", nullable=False, nonneg=True)
    params = obj.get("params") or {}
    if not isinstance(params, dict):
        raise InputError(f"{where}: field 'params' must be an object")
    partial = obj.get("partial") or ()
    if not isinstance(partial, (list, tuple)) or not all(isinstance(u, str) for u in partial):
        raise InputError(f"{where}: field 'partial' must be a list of unit names")
    trace = obj.get("trace")
    if trace is not None:
        trace = _trace(trace, where)
    stop = obj.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        raise InputError(f"{where}: field 'stop_reason' must be a string or null")
    extra = {k: v for k, v in obj.items() if k not in _KNOWN}
    return RunRecord(workload, arm, seed, spend, reward, budget, params, dev, trace, stop,
                     obj.get("error"), tuple(partial), extra)


def _trace(trace: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(trace, list):
        raise InputError(f"{where}: field 'trace' must be a list of {{spend, best}} points")
    for i, point in enumerate(trace):
        if not isinstance(point, dict) or not isinstance(point.get("spend"), dict):
            raise InputError(f"{where}: field 'trace[{i}]' must be an object with 'spend' and 'best'")
        _number(point.get("best"), where, f"trace[{i}].best", nullable=True)
        for unit, value in point["spend"].items():
            _number(value, where, f"trace[{i}].spend.{unit}", nullable=True, nonneg=True)
    return trace


# -- files -------------------------------------------------------------------
def _loads(line: bytes | str, where: str) -> Any:
    if _orjson is not None:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            pass  # fall through for a precise message (and NaN literals)
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno}); "
                         "each line must be one JSON object") from None


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
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(f"{where}: not UTF-8 text; results files are UTF-8 JSON Lines") from None
            yield where, record_from_json(_loads(text, where), where)


def read_records(paths: Iterable[str | os.PathLike] | str | os.PathLike,
                 keep_last: bool = False) -> list[RunRecord]:
    """All records of one or more files, refusing duplicate run identities.

    A second line with the same (workload, budget, arm, seed) is an error
    (it would count one seed twice) unless `keep_last`, which keeps the later.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    seen: dict[tuple, tuple[int, str]] = {}
    out: list[RunRecord] = []
    for path in paths:
        for where, record in _located_records(path):
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
    return InputError(f"{where}: duplicate run (workload={workload!r}, budget={bkey or '{}'}, "
                      f"arm={arm!r}, seed={seed}) first seen at {first_where}; "
                      "remove one line or pass --keep-last")


def write_records(path: str | os.PathLike, records: Iterable[RunRecord]) -> None:
    """Write records to a new file atomically (a crash leaves the old file whole)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.to_line() + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


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
