"""What a resumed run keeps: the records already on disk, checked against the suite before any cell runs.

Why refuse so much: mixing old and new runs under one name (changed params,
another class, edited code, another suite's file) is a silent lie in every
later table; each refusal is one line naming the fix (--fresh, a new name,
another --out), found before an hour of model calls, not after.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..core.errors import InputError
from ..core.json_line import quote
from ..core.provenance import STALE
from ..core.records import RunRecord, write_records
from .code_check import StartCode, changed_since
from .results_file import _set_aside, read_existing, set_aside_records
from .suite import Cell, Suite


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def check_same_params(records: list[RunRecord], suite: Suite, path: Path) -> None:
    """Refuse to mix runs made with other parameters under the same arm or workload name."""
    arms = {a.name: _canonical(a.params) for a in suite.arms.values()}
    workloads = {w.name: _canonical(w.params) for w in suite.workloads}
    arm_paths = {a.name: a.path for a in suite.arms.values()}
    workload_paths = {w.name: w.path for w in suite.workloads}
    for r in records:
        if r.arm in arms and r.workload in workloads:
            _check_same_path(r, arm_paths[r.arm], workload_paths[r.workload], suite, path)
            if _canonical(r.params) != arms[r.arm]:
                raise InputError(
                    f"{path}: arm {r.arm!r} ran with params {_canonical(r.params)} but {suite.source} now "
                    f"says {arms[r.arm]}; give the changed arm a new name, use another --out, or pass --fresh")
            old = _canonical(r.extra.get("workload_params", {}))
            if old != workloads[r.workload]:
                raise InputError(
                    f"{path}: workload {r.workload!r} ran with params {old} but {suite.source} now says "
                    f"{workloads[r.workload]}; give it a new name, use another --out, or pass --fresh")


def _check_same_path(r: RunRecord, arm_path: str, workload_path: str, suite: Suite, path: Path) -> None:
    """Refuse runs of another class under the same name (records carry the path they ran from).

    Why: pointing `[arms.x] path` at another class and resuming kept the old
    class's seeds beside the new one's under one arm name, and nothing in the
    records could tell them apart afterwards.
    """
    prov = r.extra.get("provenance") if r.extra else None
    if not isinstance(prov, dict):
        return
    for kind, name, old, new in (("arm", r.arm, prov.get("arm_path"), arm_path),
                                 ("workload", r.workload, prov.get("workload_path"), workload_path)):
        if isinstance(old, str) and old != new:
            raise InputError(f"{path}: {kind} {name!r} ran from {old} but {suite.source} now says {new}; give the "
                             f"changed {kind} a new name, use another --out, or pass --fresh")


def _names(names, limit: int = 5) -> str:
    names = sorted(names)
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def check_other_runs(records: list[RunRecord], suite: Suite, path: Path) -> str | None:
    """Refuse a results file of another suite; the line naming the kept runs of arms or workloads it dropped.

    Why refuse only when nothing is shared: a second suite run into the same
    folder appended its runs to the first one's file, and every later
    `compare` of that file mixed two experiments. But a user who removed an
    arm from a suite (or a workload) must not be made to rerun the rest: those
    runs stay in the file, are left out of this run's report, and are named.
    """
    arms = set(suite.arms)
    workloads = {w.name for w in suite.workloads}
    other = [r for r in records if r.arm not in arms or r.workload not in workloads]
    if not other:
        return None
    other_arms = {r.arm for r in other if r.arm not in arms}
    other_workloads = {r.workload for r in other if r.workload not in workloads}
    what = "; ".join(part for part in (f"arm(s) {_names(other_arms)}" if other_arms else "",
                                       f"workload(s) {_names(other_workloads)}" if other_workloads else "") if part)
    if len(other) == len(records):
        raise InputError(f"{path}: holds {len(records)} run(s) of another suite ({what}) and none of "
                         f"{suite.source}'s arms on its workloads; use another --out, or pass --fresh to move "
                         "the old file aside")
    return (f"costmatch: {path}: {len(other)} kept run(s) of {what}, which {suite.source} does not have, stay in "
            "the file and are left out of this run's report")


@dataclass
class Stale:
    """What a resume does with kept cells whose code changed since they ran, and what it says.

    `mode`: "rerun" (the default: the changed arms' cells run again, their old
    records are moved to a file beside the results) or "keep" (reported as
    they are, each marked ``provenance.stale``).
    """
    mode: str = "rerun"
    notes: list[str] = field(default_factory=list)
    dropped: list[RunRecord] = field(default_factory=list)


def _check_stale(kept: list[RunRecord], suite: Suite, results: Path, start: StartCode,
                 stale: Stale) -> list[RunRecord | None]:
    """`kept` after dealing with the records of code that changed since they ran (see `Stale`), one entry per
    record in order: the record, the record marked stale, or None when it is dropped to rerun.

    Why rerun by default (issue 39): results of code that no longer exists
    answer a question nobody asked now, and the edit loop (edit an arm, run)
    must not need a flag; the old records are moved aside, never deleted,
    and one line per changed arm or workload says so before anything runs.
    Why not silently keep: a resume that kept every old cell of an edited arm
    exited 0 and printed the old numbers as if the edit had run.
    """
    arms = {a.name: a.path for a in suite.arms.values()}
    workloads = {w.name: w.path for w in suite.workloads}
    changed = changed_since(kept, start, arms, workloads)
    if not changed:
        return list(kept)
    described = {key: _what_changed(key, n, start, arms, workloads) for key, n in sorted(changed.items())}

    def hit(r: RunRecord) -> bool:
        return ("arm", r.arm) in changed or ("workload", r.workload) in changed

    if stale.mode == "keep":
        for what in described.values():
            stale.notes.append(f"costmatch: code changed since the kept cells ran: {what}; --keep-stale: they are "
                               "reported as they are and marked as old code in every report (run without "
                               "--keep-stale to rerun them)")
        return [_marked(r) if hit(r) else r for r in kept]
    stale.dropped = [r for r in kept if hit(r)]
    for what in described.values():
        stale.notes.append(f"costmatch: code changed since the kept cells ran: {what}: rerunning them "
                           "(--keep-stale keeps them instead)")
    return [None if hit(r) else r for r in kept]


def _what_changed(key: tuple[str, str], n: int, start: StartCode, arms: dict, workloads: dict) -> str:
    kind, name = key
    files = start.expected[(arms if kind == "arm" else workloads)[name]].files
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return f"{kind} {quote(name)} ({n} kept cell(s); its code is read from {shown})"


def _marked(r: RunRecord) -> RunRecord:
    """`r` with ``provenance.stale`` set: its code was edited after it ran, and a resume kept it on request."""
    prov = r.extra.get("provenance")
    if not isinstance(prov, dict) or prov.get(STALE):
        return r
    return dataclasses.replace(r, extra={**r.extra, "provenance": {**prov, STALE: True}})


def _identities(cells: list[Cell]) -> list[tuple[str, str, str, int]]:
    """`Cell.identity` of every cell, each budget's key made once (a suite has a few budgets, 10,000s of cells)."""
    keys: dict[int, str] = {}
    out = []
    for c in cells:
        key = keys.get(id(c.budget))
        if key is None:
            key = keys[id(c.budget)] = c.identity()[1]
        out.append((c.workload.name, key, c.arm.name, c.seed))
    return out


def _kept_records(suite: Suite, results: Path, fresh: bool, retry_errors: bool, start: StartCode,
                  other_runs: str = "keep", stale: str = "rerun",
                  words: Callable[[str], str] = str) -> tuple[list[RunRecord], Callable[[], None]]:
    """The records a run resumes from, and the change to the results file that goes with them.

    None are kept after --fresh (the old file is moved aside), errors are
    dropped with --retry-errors, the cells of changed code are dropped (moved
    aside) or marked (`_check_stale`); the file is rewritten for any of these.
    Why a returned change and not done here: the engine is opened after
    this, and a refused engine or address must leave the results file as it
    was (issue 31); the caller applies the change once the engine is up,
    before the first new line. `words` rewords what is printed for the
    caller's user (the Python API names its arguments, not CLI flags).
    """
    if fresh and results.exists():
        def prepare() -> None:
            backup = _set_aside(results)
            print(words(f"costmatch: --fresh: moved the old results to {backup}"), file=sys.stderr)
        return [], prepare
    existing, set_torn_aside = read_existing(results)
    check_same_params(existing, suite, results)
    notes = [check_other_runs(existing, suite, results)] if other_runs == "check" else []
    workloads = {w.name for w in suite.workloads}
    ours = [i for i, r in enumerate(existing) if r.arm in suite.arms and r.workload in workloads]
    handled = Stale(stale)
    after: list[RunRecord | None] = list(existing)
    for i, r in zip(ours, _check_stale([existing[i] for i in ours], suite, results, start, handled)):
        after[i] = r
    kept = [r for r in after if r is not None]
    notes += handled.notes
    rewrite = kept != existing or bool(handled.dropped)
    if retry_errors and any(r.error is not None for r in kept):
        kept, rewrite = [r for r in kept if r.error is None], True
    change = set_torn_aside
    if rewrite:
        change = _in_order(set_torn_aside, functools.partial(_rewrite, results, kept, handled.dropped))
    return kept, functools.partial(_said_then, [words(n) for n in notes if n], change)


def _rewrite(results: Path, kept: list[RunRecord], dropped: list[RunRecord]) -> None:
    """The results file holding `kept` only; `dropped` (cells of changed code) first into a file of their own."""
    if dropped:
        where = set_aside_records(results, dropped, "old-code")
        print(f"costmatch: moved {len(dropped)} record(s) of changed code to {where}", file=sys.stderr)
    write_records(results, kept)


def _in_order(*changes: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        for change in changes:
            change()
    return run


def _said_then(notes: list[str], change: Callable[[], None]) -> None:
    """Print the resume's notes, then change the file: both once the engine is up, so a refused run says one line."""
    for note in notes:
        print(note, file=sys.stderr)
    change()
