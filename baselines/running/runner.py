"""Running a suite: every cell through joblib, each finished run on disk at once.

Why it is built this way:
- The parent process is the only writer of ``results.jsonl`` and writes one
  complete, flushed line per finished cell, so a crash, Ctrl-C or SIGKILL
  loses at most the cells still running, and lines never interleave.
- Resuming skips every run identity already in the file; a changed arm or
  workload parameter under the same name is refused, because mixing old and
  new runs under one name is a silent lie in every later table.
- A cell's randomness comes from (seed, workload), the same stream for every
  arm (common random numbers: see `arm_rng`), and the workload instance from
  the seed alone, so results do not depend on arm names, jobs, backend or order.
"""
from __future__ import annotations

import contextlib
import errno
import gc
import importlib.util
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import orjson

from ..core.alternatives import score_alternatives
from ..core.errors import InputError
from ..core.fileio import ensure_dir
from ..core.code_identity import BACKEND_VARIABLE
from ..core.governor import governor_fields
from ..core.scoped import gc_paused, scoped_env
from ..core.protocols import ArmOutput
from ..core.meter import BudgetExhausted, CellTimeout, Meter
from ..core.provenance import by_value, changed_code, changed_code_lines, provenance
from ..core.records import _KNOWN, RunRecord, parse_line, quote, record_from_json, write_records
from ..core.scored import unpack_score
from .code_check import CodeCheck, module_paths
from .engines import WATCHDOG, ClusterLost, ExecOptions, open_pool, run_cells
from .suite import Cell, Suite, resolve


# -- one cell (runs in a worker) ------------------------------------------------
def arm_rng(seed: int, workload: str) -> np.random.Generator:
    """The arm's random stream: fixed by the seed and the workload, never by the arm's name, worker or order.

    Why not by arm name: common random numbers. Every arm of a comparison
    gets the same stream at a given seed (as it gets the same instance), so
    two arms with identical code give identical records, and arms that draw
    alike share their draws: the standard variance reduction for paired
    comparisons (per-seed differences then measure the arms, not the draws).

    The seed material is ``[seed, crc32(workload)]``. Below 2**32 it is given
    as the uint32 words numpy would make of that list (the same stream,
    tested), which skips numpy's per-call conversion: a quarter of a trivial cell.
    """
    crc = zlib.crc32(workload.encode("utf-8"))
    if 0 <= seed < 2**32:
        return np.random.default_rng(np.array((seed, crc), dtype=np.uint32))
    return np.random.default_rng([seed, crc])


_TRACEBACK_CHARS = 20_000


def _error(exc: BaseException, stage: str) -> dict[str, str]:
    """An error field: type, message, the innermost frame, and the full traceback text.

    The full text is kept because a one-word error type in a progress line is
    not enough to fix an arm without rerunning it under a debugger.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if len(text) > _TRACEBACK_CHARS:
        text = "...\n" + text[-_TRACEBACK_CHARS:]
    return {"type": type(exc).__name__, "message": str(exc)[:2000], "where": where, "stage": stage,
            "traceback": text}


def _timeout_error(timeout: float) -> dict[str, str]:
    """The same timeout error on every backend (where the cell was stopped varies, so it is left out)."""
    return {"type": "CellTimeout", "message": f"cell ran past its time limit ({timeout:g} s)", "where": "",
            "stage": "arm", "traceback": ""}


def _alarm(timeout: float | None):
    """The time limit of one cell (see :func:`_alarm_at`); nothing to arm without one."""
    return contextlib.nullcontext() if timeout is None else _alarm_at(timeout)


@contextlib.contextmanager
def _alarm_at(timeout: float):
    """Stop a cell that runs past ``timeout`` seconds, wherever it runs.

    On a process's main thread (loky and Ray workers, ``sequential``) SIGALRM
    interrupts it; on other threads (``threading``, Dask workers) a watchdog
    raises CellTimeout asynchronously at the next bytecode. The Meter's
    deadline also stops the arm at its next charge, and :func:`execute_record`
    records any cell whose arm ran longer than its limit as ``timeout``, so a
    cell that sleeps past its limit is ``timeout`` on every backend.
    """
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        def on_alarm(signum, frame):
            raise CellTimeout(f"cell ran past its time limit ({timeout:g} s)")

        previous = signal.signal(signal.SIGALRM, on_alarm)
        started = time.monotonic()
        outer, _ = signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer > 0:  # someone else's alarm (pytest-timeout, an embedding program): give it back
                signal.setitimer(signal.ITIMER_REAL, max(1e-3, outer - (time.monotonic() - started)))
        return
    WATCHDOG.arm(time.perf_counter() + timeout, CellTimeout)
    try:
        yield
    finally:
        WATCHDOG.disarm()


def execute_cell(cell: Cell) -> dict[str, Any]:
    """Run one cell and return its record as a JSON-ready dict (never raises for arm errors)."""
    return execute_record(cell).to_json()


@dataclass
class _CellRun:
    """How far one cell got: a piece is None when the step that makes it failed or never ran."""
    stop_reason: str = "done"
    error: dict[str, Any] | None = None
    output: Any = None
    workload: Any = None
    instance: Any = None
    meter: Meter | None = None


def execute_record(cell: Cell) -> RunRecord:
    """Run one cell and return its record (never raises for arm, workload or timeout errors)."""
    started = time.perf_counter()
    run = _CellRun()
    _run_arm(cell, run)
    if run.meter is not None:
        run.meter.stop()
        if run.stop_reason == "done" and run.meter.exhausted is not None:
            run.stop_reason = f"budget:{run.meter.exhausted}"  # the arm caught the stop and returned
    if cell.timeout is not None and run.error is None and time.perf_counter() - started > cell.timeout:
        # the one rule every backend shares: an arm that ran past its limit is a timeout,
        # even where nothing could interrupt it (a sleep in a thread)
        run.stop_reason, run.error, run.output = "timeout", _timeout_error(cell.timeout), None
    choice, alternatives = _choice(run)
    reward, items = _score(run, choice)
    oracle, notes = None, []
    if run.error is None and alternatives:  # an unselected alternative's failed scoring is a note (contract 1)
        oracle, notes = score_alternatives(run.workload.score, run.instance, alternatives)
    return _cell_record(cell, run, reward, items, oracle, notes, started)


def _run_arm(cell: Cell, run: _CellRun) -> None:
    """Build the workload, instance, meter and arm and run the arm, turning every failure into `run` fields."""
    spec_w, spec_a = cell.workload, cell.arm
    stage = "workload"  # a failure before the arm is built is the workload's, and its record says so
    try:
        try:
            with _alarm(cell.timeout):
                run.workload = _loaded(spec_w.path, spec_w.name)(**spec_w.params)
                run.instance = run.workload.instance(cell.seed)
                measures = tuple(dict.fromkeys(("calls", "seconds") + tuple(run.workload.measures)))
                run.meter = Meter(cell.budget, measures=measures,
                                  deadline=None if cell.timeout is None else time.perf_counter() + cell.timeout)
                stage = "arm"
                arm = _loaded(spec_a.path, spec_a.name)(**spec_a.params)
                try:
                    run.output = arm.run(run.instance, run.meter, arm_rng(cell.seed, spec_w.name))
                except BudgetExhausted as exc:
                    run.stop_reason = f"budget:{exc.unit}"
        except CellTimeout:  # also one raised late, between the arm's return and the alarm's end
            run.stop_reason, run.error = "timeout", _timeout_error(cell.timeout)
    except CellTimeout:
        run.stop_reason, run.error = "timeout", _timeout_error(cell.timeout)
    except InputError as exc:
        run.stop_reason, run.error = "error", {"type": "InputError", "message": str(exc), "where": "",
                                               "stage": "setup", "traceback": ""}
    except Exception as exc:  # an arm or workload bug: a record, not a crashed run
        run.stop_reason, run.error = "error", _error(exc, stage)


def _loaded(path: str, name: str) -> Any:
    """`resolve`, with the module looked up in sys.modules first: after a worker's first cell the
    module is there, and the import machinery's checks were a tenth of a trivial cell's time."""
    sent = by_value(path)   # a class from a script or notebook, sent with the cell
    if sent is not None:
        return sent
    module_name, _, attr = path.partition(":")
    module = sys.modules.get(module_name)
    spec = getattr(module, "__spec__", None)
    if module is not None and not getattr(spec, "_initializing", False) and hasattr(module, attr):
        return getattr(module, attr)
    return resolve(path, name)


def _choice(run: _CellRun) -> tuple[Any, list]:
    """The arm's choice (its return value, else the meter's last progress choice) and its alternatives."""
    alternatives: list = []
    if isinstance(run.output, ArmOutput):
        choice, alternatives = run.output.choice, run.output.alternatives
    elif run.output is not None:
        choice = run.output
    else:
        choice = run.meter.choice if run.meter is not None and run.meter.has_choice else None
    return choice, alternatives


def _score(run: _CellRun, choice: Any) -> tuple[float | None, list | None]:
    """The workload's score of `choice` and its items (a `Scored`), or None with `run.error` set
    (no choice, or scoring raised)."""
    reward = items = None
    if run.error is None:
        if choice is None:
            run.error = {"type": "NoChoice", "message": "the arm stopped before reporting a choice through "
                         "meter.progress(best, choice=...)", "where": "", "stage": "arm", "traceback": ""}
        else:
            try:
                reward, items = unpack_score(run.workload.score(run.instance, choice))
                if getattr(run.workload, "score_trace", False):
                    _score_trace(run.workload, run.instance, run.meter)
            except Exception as exc:
                run.error = _error(exc, "score")
                reward = items = None
    return reward, items


def _cell_record(cell: Cell, run: _CellRun, reward, items, oracle, notes: list[str], started: float) -> RunRecord:
    """The record of a finished cell; without a meter its spend is only the seconds it took.

    `items` are the per-item outcomes of a `Scored` score (contract v3), None for a plain number.
    """
    spec_w, spec_a, meter = cell.workload, cell.arm, run.meter
    spend = meter.spend() if meter is not None else {"seconds": time.perf_counter() - started}
    extra: dict[str, Any] = {"workload_params": dict(spec_w.params)}
    if oracle is not None:
        extra["oracle_reward"] = oracle
    if notes:
        extra["notes"] = notes
    extra.update(_workload_fields(run.workload, run.instance))
    extra["provenance"] = provenance(spec_a.path, spec_w.path)
    extra.update(governor_fields(meter, run.stop_reason))  # nothing unless the arm held a governor under a budget
    return RunRecord(spec_w.name, spec_a.name, cell.seed, spend,
                     None if reward is None else float(reward), cell.budget.to_dict(),
                     dict(spec_a.params), meter.best if meter is not None else None,
                     list(meter.trace) if meter is not None else None, run.stop_reason, run.error,
                     tuple(meter.partial()) if meter is not None else (), extra, items)


def _workload_fields(workload, instance) -> dict[str, Any]:
    """What the workload declares about this run's record: `reward_range`, `unit_nouns` and `record_fields`.

    Never fails the cell: a declaration that cannot be read is left out (the
    suite check has already validated the attributes).
    """
    out: dict[str, Any] = {}
    if workload is None:
        return out
    low_high = getattr(workload, "reward_range", None)
    if low_high is not None:
        out["reward_range"] = [float(low_high[0]), float(low_high[1])]
    nouns = getattr(workload, "unit_nouns", None)
    if isinstance(nouns, dict) and nouns:
        out["unit_nouns"] = dict(nouns)
    if instance is not None and callable(getattr(workload, "record_fields", None)):
        try:
            out.update(workload.record_fields(instance))
        except Exception:  # noqa: BLE001 - a broken optional hook must not lose the run
            pass
    return out


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


def failure_line(cell: Cell, stop_reason: str, error: dict[str, Any] | None) -> bytes:
    """The line of a cell that never produced one (its worker kept dying, or it was stuck past its
    time limit where nothing could interrupt it): spend unknown, no reward."""
    if error is None and stop_reason == "timeout":
        error = _timeout_error(cell.timeout)
    spec_w, spec_a = cell.workload, cell.arm
    units = ["calls", "seconds", *cell.budget.to_dict()]
    record = RunRecord(spec_w.name, spec_a.name, cell.seed, {u: None for u in dict.fromkeys(units)}, None,
                       cell.budget.to_dict(), dict(spec_a.params), None, None, stop_reason, error, (),
                       {"workload_params": dict(spec_w.params),
                        "provenance": provenance(spec_a.path, spec_w.path) | {"worker": None}})
    return dump_line(record.to_json())


def trusted_record(obj: dict[str, Any]) -> RunRecord:
    """A record from a line a worker already validated: no second pass over every trace number."""
    return RunRecord(obj["workload"], obj["arm"], obj["seed"], obj["spend"], obj["reward"], obj.get("budget") or {},
                     obj.get("params") or {}, obj.get("dev_reward"), obj.get("trace"), obj.get("stop_reason"),
                     obj.get("error"), tuple(obj.get("partial") or ()),
                     {k: v for k, v in obj.items() if k not in _KNOWN}, obj.get("items"))


def _score_trace(workload, instance, meter: Meter) -> None:
    """Add the held-out reward of the choice in force at each trace point (cheap workloads only).

    Anytime comparisons then read what would have shipped at spend X, not
    the arm's own (optimistically selected) dev score.
    """
    cache: dict[int, float | None] = {}
    for point, choice in zip(meter.trace, meter.trace_choices):
        if not meter.has_choice or choice is None:
            continue
        key = id(choice)
        if key not in cache:
            cache[key] = unpack_score(workload.score(instance, choice))[0]
        if cache[key] is not None:
            point["reward"] = cache[key]


# -- the results file ------------------------------------------------------------
NEWLINE = b"\n"


def load_existing(path: Path) -> list[RunRecord]:
    """Records already on disk, every line validated before the file is touched.

    A last line without its newline is kept when it is a valid record (a
    file edited by hand, or written by another tool). Only an invalid last
    line with no newline after it (a run killed mid-write) is moved into a
    side file ``results.torn-<time>.jsonl`` and cut from the results; nothing
    is deleted, and a file whose complete lines are not valid records is
    refused without a byte changed.
    """
    if not path.exists():
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read results file ({exc.strerror})") from None
    cut = data.rfind(b"\n") + 1
    body, tail = data[:cut], data[cut:]
    records, seen = [], {}
    for number, line in enumerate(body.split(b"\n")[:-1], 1):
        if line.strip():
            record = parse_line(line, f"{path}:{number}")
            first = seen.setdefault(record.identity(), number)
            if first != number:  # found now, before any cell runs, not by the report after them
                workload, bkey, arm, seed = record.identity()
                raise InputError(f"{path}:{number}: duplicate run (workload={quote(workload)}, budget={bkey}, "
                                 f"arm={quote(arm)}, seed={seed}) first seen at line {first}; remove one of the "
                                 "two lines, or pass --fresh to start over")
            records.append(record)
    if tail.strip():
        where = f"{path}:{body.count(NEWLINE) + 1}"
        try:
            records.append(parse_line(tail, where))
        except InputError:
            side = path.with_name(f"{path.stem}.torn-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.jsonl")
            from ..core.fileio import atomic_write_text
            atomic_write_text(side, tail.decode("utf-8", errors="replace") + "\n")
            with open(path, "r+b") as handle:
                handle.truncate(cut)
            print(f"costmatch: {where}: an incomplete last line (the previous run was killed mid-write) "
                  f"was moved to {side}; its cell runs again", file=sys.stderr)
    return records


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


def check_other_runs(records: list[RunRecord], suite: Suite, path: Path) -> None:
    """Refuse a results file of another suite; name the kept runs of arms or workloads this suite dropped.

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
        return
    other_arms = {r.arm for r in other if r.arm not in arms}
    other_workloads = {r.workload for r in other if r.workload not in workloads}
    what = "; ".join(part for part in (f"arm(s) {_names(other_arms)}" if other_arms else "",
                                       f"workload(s) {_names(other_workloads)}" if other_workloads else "") if part)
    if len(other) == len(records):
        raise InputError(f"{path}: holds {len(records)} run(s) of another suite ({what}) and none of "
                         f"{suite.source}'s arms on its workloads; use another --out, or pass --fresh to move "
                         "the old file aside")
    print(f"costmatch: {path}: {len(other)} kept run(s) of {what}, which {suite.source} does not have, stay in "
          "the file and are left out of this run's report", file=sys.stderr)


# -- one run per output folder ------------------------------------------------------
LOCK_NAME = ".costmatch.lock"


@contextlib.contextmanager
def output_lock(out_dir: Path):
    """Hold an advisory lock on the output folder for the whole run.

    Two runs on one ``--out`` would both run every cell and write every record
    twice, after which every later run refuses the file. The second run exits
    2 naming the first one's pid. The lock is released by the kernel when the
    process dies, so a SIGKILLed run never leaves a stale lock behind.
    """
    import fcntl

    path = out_dir / LOCK_NAME
    created = not os.path.lexists(path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        from ..core.fileio import DiskError, describe_os_error

        described = describe_os_error(exc, path, "run lock")
        if isinstance(described, DiskError):
            raise described from None
        raise InputError(f"{path}: cannot create the run lock ({exc.strerror}); choose a writable --out") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise InputError(f"{out_dir}: another costmatch run (pid {holder}) is writing to this folder; "
                             "wait for it to finish, stop it, or choose another --out") from None
        with contextlib.suppress(OSError):  # the pid only names the holder; a full disk must not stop the run here
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    except InputError:
        if created:  # a refused run leaves no lock behind; removed while held, so no other run can hold it
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise
    finally:
        os.close(fd)


# -- the run ---------------------------------------------------------------------
@dataclass
class RunOutcome:
    results: Path
    ran: int = 0
    skipped: int = 0
    errors: int = 0
    interrupted: bool = False
    lost: str | None = None  # the cluster was lost: the message; finished cells are kept
    records: list[RunRecord] = field(default_factory=list)


class AppendFailed(Exception):
    """The results file refused a line (`os_error` says why); :func:`run_suite` turns it into one line."""

    def __init__(self, os_error: OSError):
        super().__init__(str(os_error))
        self.os_error = os_error


def append_error(exc: OSError, results: Path, kept: int) -> Exception:
    """A refused append as the CLI's one line: DiskError (exit 1) for a full disk, else an OutputError (exit 2)."""
    from ..core.fileio import DiskError, describe_os_error

    described = describe_os_error(exc, results, "results file")
    if not isinstance(described, DiskError):
        return described
    reason = "the disk is full" if exc.errno != errno.EFBIG else "the file is over a size limit"
    kept_text = f"the {kept} finished cell(s) before it are kept whole; " if kept else ""
    return DiskError(f"{results}: cannot append a finished cell: {reason}; {kept_text}free space (or raise the "
                     "limit) and run the same command to resume")


def open_results(path: Path):
    """The results file for appending, unbuffered: a refused write leaves nothing in a buffer for close() to retry."""
    return open(path, "ab", buffering=0)


class LineSink:
    """The parent's whole job per finished cell: write, flush, keep the record (no re-validation).

    Every line is flushed (it survives a killed process); fsync runs at most
    once a second, so a machine crash loses at most a second of cells and
    10,000 tiny cells do not pay 10,000 disk syncs. The records are kept for
    the report, so nothing is read back after the run; kept records are
    moved out of the garbage collector's sight in blocks (``gc.freeze``),
    without which each young collection walks every kept trace and the
    parent slows down as the run goes on. A long line arrives with a
    trace-free head: the parent parses the head now and the trace once,
    after the run (:meth:`finish`), so a trace-heavy run is not capped by
    the parent's parsing while the cluster waits.
    """

    FREEZE_EVERY = 256

    def __init__(self, handle, kept: list[RunRecord], check: Callable[[dict], None] | None = None):
        self.handle, self.kept, self.check = handle, kept, check
        self.pending: list[tuple[RunRecord, bytes]] = []  # records whose trace is still in their line
        self.last_sync = time.monotonic()
        self.size = os.fstat(handle.fileno()).st_size  # where the file ends after the last whole line

    def append(self, data: bytes) -> None:
        """Write `data` whole or not at all: on a refused write (a full disk) the file is cut back.

        Raises AppendFailed with the OSError; the lines before stay, so the
        same command resumes, and no torn line is left for it to set aside.
        """
        try:
            view = memoryview(data)
            while view:
                written = self.handle.write(view)
                view = view[len(view) if written is None else written:]
            self.handle.flush()
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self.handle.fileno(), self.size)
            raise AppendFailed(exc) from None
        self.size += len(data)

    def take(self, item: bytes | tuple[bytes, bytes]) -> RunRecord:
        line, head = (item, None) if isinstance(item, bytes) else item
        obj = orjson.loads(line if head is None else head)
        if self.check is not None:  # before the write: a refused line (code other than the run's) is never written
            self.check(obj)
        self.append(line + b"\n")
        now = time.monotonic()
        if now - self.last_sync >= 1.0:
            try:
                os.fsync(self.handle.fileno())
            except OSError as exc:
                raise AppendFailed(exc) from None
            self.last_sync = now
        record = trusted_record(obj)
        if head is not None:
            self.pending.append((record, line))
        self.kept.append(record)
        if len(self.kept) % self.FREEZE_EVERY == 0:
            gc.freeze()
        return record

    def finish(self) -> None:
        """Attach the traces of long lines, in one pass after the run (the report reads them)."""
        with gc_paused():
            for record, line in self.pending:
                record.trace = orjson.loads(line).get("trace")
            self.pending.clear()


def _sync(handle) -> None:
    try:
        handle.flush()
        os.fsync(handle.fileno())
    except (OSError, ValueError):
        pass


def run_suite(suite: Suite, out_dir: Path, jobs: int | None = None, backend: str | None = None,
              fresh: bool = False, retry_errors: bool = False, progress=None, *, address: str | None = None,
              worker_wait: float = 60.0, retries: int = 2, meanwhile: Callable[[], None] | None = None,
              other_runs: str = "keep", stale: str = "refuse") -> RunOutcome:
    """Run every cell not yet in ``out_dir/results.jsonl``; return what happened.

    ``address``: a Dask scheduler or Ray cluster to use (Dask also reads
    DASK_SCHEDULER_ADDRESS); ``worker_wait``: seconds to wait for a first
    worker; ``retries``: reruns of a cell alone after its worker died;
    ``meanwhile``: the caller's set-up, run once while the workers start
    (see :func:`baselines.running.engines.run_cells`); never when nothing runs;
    ``other_runs``: "keep" leaves kept runs of arms or workloads the suite
    does not have alone (the Python API may append several experiments to
    one file), "check" (``costmatch run``, which writes one report per
    folder) refuses a file that holds none of this suite's arms and
    workloads and says which kept runs the report leaves out;
    ``stale``: "refuse" (the default) stops a resume whose arm or workload
    code changed since its kept cells ran (InputError naming the modules,
    before any cell runs), "keep" reports them with a warning per module.
    """
    explicit_jobs = jobs
    jobs = jobs or suite.jobs
    backend = backend or suite.backend
    address = _cluster_address(backend, address, worker_wait, retries)
    check_engine(backend)
    made = _missing_folders(Path(out_dir))
    out_dir = ensure_dir(out_dir, "output folder")
    results = out_dir / "results.jsonl"
    with _undo_folders_on_refusal(made), output_lock(out_dir), scoped_env(BACKEND_VARIABLE, backend):
        existing, prepare = _kept_records(suite, results, fresh, retry_errors, other_runs, stale)
        kept_identities = [r.identity() for r in existing]
        done = set(kept_identities)
        cells = suite.cells()
        identities = _identities(cells)
        wanted = set(identities)
        todo = [c for c, ident in zip(cells, identities) if ident not in done]
        outcome = RunOutcome(results, skipped=len(cells) - len(todo))
        kept = [r for r, ident in zip(existing, kept_identities) if ident in wanted]
        new_records: list[RunRecord] = []
        if progress is not None:
            progress.start(len(todo), outcome.skipped)
        if address is not None and explicit_jobs is not None:
            print(f"costmatch: --jobs {explicit_jobs} is not used with the cluster at {address}: every worker "
                  "thread (Dask) or CPU (Ray) there runs cells", file=sys.stderr)
        code = CodeCheck(module_paths(suite.arms.values(), suite.workloads), backend)
        _run_todo(todo, results, outcome, new_records, progress, backend, jobs, address, worker_wait, retries,
                  meanwhile, prepare, code)
    # kept records of cells the suite no longer has are left out; new records all come from its cells
    outcome.records = kept + new_records
    return outcome


def _check_stale(kept: list[RunRecord], suite: Suite, results: Path, stale: str) -> None:
    """Refuse (or, with stale="keep", warn about) kept cells whose arm or workload code has changed since.

    Why refuse by default: a resumed run that keeps every old cell of an
    edited arm exits 0 and prints the old numbers as if the edit had run.
    """
    arms = {a.name: a.path for a in suite.arms.values()}
    workloads = {w.name: w.path for w in suite.workloads}
    if stale == "keep":
        for line in changed_code_lines(kept, arms, workloads):
            print(f"costmatch: {line}", file=sys.stderr)
        return
    changed = changed_code(kept, arms, workloads)
    if changed:
        what = "; ".join(f"{shown} ({kind} {quote(name)}, {n} kept cell(s))" for kind, name, shown, n in changed)
        raise InputError(f"{results}: code changed since the kept cells ran: {what}; pass --fresh to rerun "
                         "everything (the old results are moved aside), or --keep-stale to report the kept "
                         "cells as they are")


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


def _cluster_address(backend: str, address: str | None, worker_wait: float, retries: int) -> str | None:
    """Check the engine options before anything touches the output folder; Dask's address may come from the environment."""
    if worker_wait is None or not math.isfinite(worker_wait) or worker_wait <= 0:
        raise InputError(f"--worker-wait must be a positive number of seconds, got {worker_wait!r}")
    if retries is None or retries < 0:
        raise InputError(f"--retries must be 0 or more, got {retries!r}")
    if backend == "dask" and address is None:
        address = os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address is not None and backend not in ("dask", "ray"):
        raise InputError(f"--address {address}: only --backend dask or ray use a cluster address")
    return address


def _set_aside(results: Path) -> Path:
    """Move the results file to a name no other file has (`results.<time>[-k].jsonl`) and return it.

    Why never overwrite: two `--fresh` runs within one second gave the same
    name, and `rename` replaced the first backup: the old results were lost.
    A hard link fails instead of replacing, so the name is claimed atomically.
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1, 10_000):
        backup = results.with_name(f"results.{stamp}{'' if k == 1 else f'-{k}'}.jsonl")
        try:
            os.link(results, backup)
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links: rename, after checking the name is free
            if backup.exists():
                continue
            results.rename(backup)
            return backup
        results.unlink()
        return backup
    raise InputError(f"{results}: too many earlier results files beside it; move some away and run again")


def _kept_records(suite: Suite, results: Path, fresh: bool, retry_errors: bool,
                  other_runs: str = "keep", stale: str = "refuse") -> tuple[list[RunRecord], Callable[[], None]]:
    """The records a run resumes from, and the change to the results file that goes with them.

    None are kept after --fresh (the old file is moved aside), errors are
    dropped with --retry-errors (the file rewritten). Why a returned change
    and not done here: the engine is opened after this, and a refused engine
    or address must leave the results file as it was (issue 31); the caller
    applies the change once the engine is up, before the first new line.
    """
    if fresh and results.exists():
        def prepare() -> None:
            backup = _set_aside(results)
            print(f"costmatch: --fresh: moved the old results to {backup}", file=sys.stderr)
        return [], prepare
    existing = load_existing(results)
    check_same_params(existing, suite, results)
    if other_runs == "check":
        check_other_runs(existing, suite, results)
    workloads = {w.name for w in suite.workloads}
    _check_stale([r for r in existing if r.arm in suite.arms and r.workload in workloads], suite, results, stale)
    if retry_errors and any(r.error is not None for r in existing):
        existing = [r for r in existing if r.error is None]
        return existing, lambda: write_records(results, existing)
    return existing, lambda: None


# -- engines checked before the folder is touched ------------------------------------
_ENGINE_NEEDS = {"dask": (("dask", "distributed"), "the dask extra"), "ray": (("ray",), "ray")}


def check_engine(backend: str) -> None:
    """Refuse a backend whose package is not installed before any folder or file is made (issue 31).

    ``find_spec`` only looks the package up (importing Ray costs about a
    second, paid later only when cells run).
    """
    modules, what = _ENGINE_NEEDS.get(backend, ((), ""))
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise InputError(f"--backend {backend} needs {what}: pip install 'costmatch[{backend}]'")


def _missing_folders(path: Path) -> list[Path]:
    """The folders from `path` up that do not exist yet (the ones `ensure_dir` will make), deepest first."""
    missing = []
    while not os.path.lexists(path) and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


@contextlib.contextmanager
def _undo_folders_on_refusal(made: list[Path]):
    """Remove the folders this run made (and its lock in them) when it is refused before writing a line.

    A refused command leaves nothing behind (issue 31): a bad address found
    while the engine starts must not leave a new ``--out`` holding only
    ``.costmatch.lock``. Only an empty folder this run made is removed.
    """
    try:
        yield
    except InputError:
        if made:
            with contextlib.suppress(OSError):
                if not any(made[0].iterdir()):  # its lock is gone already (output_lock)
                    for folder in made:
                        folder.rmdir()
        raise


def _run_todo(todo: list, results: Path, outcome: RunOutcome, new_records: list[RunRecord], progress,
              backend: str, jobs: int, address: str | None, worker_wait: float, retries: int,
              meanwhile: Callable[[], None] | None = None, prepare: Callable[[], None] | None = None,
              code: CodeCheck | None = None) -> None:
    """Run the missing cells, appending each line as it finishes; SIGTERM and a lost cluster end the run cleanly.

    ``prepare`` changes the results file (--fresh, --retry-errors) once the engine is up; ``code`` refuses a
    line whose worker ran other code than this run's, before it is written.
    """
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    pool = sink = None
    refused: OSError | None = None
    try:
        if todo:  # the engine first: a bad address leaves the folder as it was
            opts = ExecOptions(backend, max(1, min(jobs, len(todo))), address, worker_wait, retries)
            pool = open_pool(opts, cell_line)
        if prepare is not None:
            prepare()
        try:
            handle = open_results(results)
        except OSError as exc:
            raise AppendFailed(exc) from None
        with handle:
            sink = LineSink(handle, new_records, None if code is None else lambda obj: code.check(obj, outcome.ran))
            if sink.size and not _ends_with_newline(results):
                sink.append(b"\n")  # a kept last line without its newline
            if todo:
                def keep(item) -> None:
                    record = sink.take(item)
                    outcome.ran += 1
                    outcome.errors += record.error is not None
                    if progress is not None:
                        progress.update(record)
                _take_all(run_cells(todo, pool, retries, opts.batch_seconds, failure_line, meanwhile=meanwhile),
                          keep)
            _sync(handle)
    except KeyboardInterrupt:
        outcome.interrupted = True
    except ClusterLost as exc:
        outcome.lost = str(exc)
    except AppendFailed as exc:
        refused = exc.os_error
    finally:
        if sink is not None:
            sink.finish()
        gc.unfreeze()
        if pool is not None:
            pool.close(cancel=outcome.interrupted or outcome.lost is not None or refused is not None)
        signal.signal(signal.SIGTERM, previous)
        if progress is not None:
            progress.close()
    if refused is not None:
        raise append_error(refused, results, outcome.skipped + outcome.ran)


def _take_all(lines, keep) -> None:
    """Keep every line `run_cells` yields, also when Ctrl-C (or SIGTERM) lands here between two lines.

    Why: the engine hands over finished lines when the interrupt reaches it
    in its wait; one landing in this loop instead lost lines that had already
    finished. Thrown into the engine, it still yields them (kept, not rerun),
    then the interrupt goes on.
    """
    try:
        for _, item in lines:
            keep(item)
    except KeyboardInterrupt:
        try:
            _, item = lines.throw(KeyboardInterrupt)
            while True:
                keep(item)
                _, item = next(lines)
        except StopIteration:
            pass
        raise KeyboardInterrupt from None


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"
