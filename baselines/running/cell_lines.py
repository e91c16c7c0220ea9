"""A cell's record as the one JSON line the parent appends: validated in the worker, or written for it.

Why here and not in the parent: validation runs in parallel in the workers,
so the parent (the only writer of ``results.jsonl``) appends bytes and never
re-checks every trace number; a line of a cell that never produced one (its
worker kept dying, it was stuck past its limit) is made by `failure_line`.
"""
from __future__ import annotations

import json
import math
from typing import Any

import orjson

from ..core.errors import InputError
from ..core.provenance import provenance
from ..core.records import _KNOWN, RunRecord, record_from_json
from .execute import _loaded, _timeout_error, _workload_fields, execute_record, unknown_spend
from .suite import Cell


def dump_line(obj: dict[str, Any]) -> bytes:
    """One JSON line (without the newline): orjson, with the stdlib as the fallback for odd values."""
    try:
        return orjson.dumps(obj)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=str).encode()


HEAD_OVER = 2048  # lines longer than this travel with a trace-free copy (see LineSink)


def cell_line(cell: Cell) -> bytes | tuple[bytes, bytes]:
    """Run one cell in a worker and return its validated line (and, for a long line, its head).

    Validation happens here, in parallel, so the parent (the only writer)
    does not re-check every trace number; a record that fails its own
    validation (a NaN reward, say) becomes an error record instead. A line
    longer than HEAD_OVER bytes comes with a copy without the trace, so the
    parent can keep up with a cluster without parsing every trace point.
    """
    record = execute_record(cell)
    obj = record.to_json()
    try:
        checked = record_from_json(obj, "cell result").to_json()  # as a reader will see it
        line = dump_line(checked)
        if len(line) > HEAD_OVER and checked.get("trace"):
            checked["trace"] = None
            return line, dump_line(checked)
        return line
    except (InputError, ValueError, TypeError) as exc:
        bad = RunRecord(record.workload, record.arm, record.seed,
                        {u: (v if isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 else None)
                         for u, v in record.spend.items()},
                        None, record.budget, record.params, None, None, "error",
                        {"type": "InvalidRecord", "message": f"the cell produced a record costmatch cannot "
                         f"store: {str(exc)[:500]}", "where": "", "stage": "record", "traceback": ""},
                        record.partial, record.extra)
        return dump_line(bad.to_json())


def failure_line(cell: Cell, stop_reason: str, error: dict[str, Any] | None, start: Any = None) -> bytes:
    """The line of a cell that never produced one (its worker kept dying, or it was stuck past its
    time limit where nothing could interrupt it), written by the parent.

    The same fields as a worker's record of such a cell on any engine (issue 31): every spend unit
    unknown (`unknown_spend`), no reward, no trace, and what the workload declares (`reward_range`,
    `unit_nouns`), read from the workload the parent builds from the same spec. Only what needs the
    instance or the arm's objects (the workload's `record_fields`, a governor's fields) is absent.
    Its code fields are `start.stamp` (the code the run read when it started: issue 41), not the
    files as they read now, which may have been edited while the cell ran.
    """
    if error is None and stop_reason == "timeout":
        error = _timeout_error(cell.timeout)
    spec_w, spec_a = cell.workload, cell.arm
    fields, measures = declared_fields(spec_w)
    extra = {"workload_params": dict(spec_w.params), **fields,
             "provenance": provenance(spec_a.path, spec_w.path) | {"worker": None}
             | ({} if start is None else start.stamp(spec_a.path, spec_w.path))}
    record = RunRecord(spec_w.name, spec_a.name, cell.seed, unknown_spend(cell.budget, measures), None,
                       cell.budget.to_dict(), dict(spec_a.params), None, None, stop_reason, error, (), extra)
    return dump_line(record.to_json())


_DECLARED: dict[tuple[str, str], tuple[dict[str, Any], tuple[str, ...]]] = {}


def declared_fields(spec: Any) -> tuple[dict[str, Any], tuple[str, ...]]:
    """(the record fields the workload of `spec` declares, its measured units), built once per spec.

    The suite check has already built this workload in this process, so its
    class is imported; a workload that fails to build here declares nothing.
    """
    key = (spec.path, json.dumps(spec.params, sort_keys=True, default=str))
    found = _DECLARED.get(key)
    if found is None:
        try:
            workload = _loaded(spec.path, spec.name)(**spec.params)
            found = (_workload_fields(workload, None), tuple(getattr(workload, "measures", ()) or ()))
        except Exception:  # noqa: BLE001 - the record is written all the same, without the declaration
            found = ({}, ())
        _DECLARED[key] = found
    return found


def trusted_record(obj: dict[str, Any]) -> RunRecord:
    """A record from a line a worker already validated: no second pass over every trace number."""
    return RunRecord(obj["workload"], obj["arm"], obj["seed"], obj["spend"], obj["reward"], obj.get("budget") or {},
                     obj.get("params") or {}, obj.get("dev_reward"), obj.get("trace"), obj.get("stop_reason"),
                     obj.get("error"), tuple(obj.get("partial") or ()),
                     {k: v for k, v in obj.items() if k not in _KNOWN}, obj.get("items"))
