"""One cell, in a worker: build the workload and the arm, run it under its meter and time limit, score it.

Why it is built this way:
- A cell never raises for an arm's, a workload's or a timeout's failure: each
  becomes a field of its record, so one bad arm costs one record, not a run.
- A cell's randomness comes from (seed, workload), the same stream for every
  arm (common random numbers: see `arm_rng`), and the workload instance from
  the seed alone, so results do not depend on arm names, jobs, backend or order.
- The time limit is one rule on every backend: SIGALRM on a main thread, the
  watchdog elsewhere, and an elapsed-time check after the arm returns.
"""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
import traceback
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.alternatives import score_alternatives
from ..core.errors import InputError
from ..core.governor import governor_fields
from ..core.meter import BudgetExhausted, CellTimeout, Meter
from ..core.protocols import ArmOutput
from ..core.provenance import by_value, provenance
from ..core.records import RunRecord
from ..core.scored import unpack_score
from ..core.units import CALL_UNITS
from .engines import WATCHDOG
from .suite import Cell, resolve


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
    if run.stop_reason == "timeout":  # one rule on every engine, whoever writes the record (unknown_spend)
        spend, meter = unknown_spend(cell.budget, getattr(run.workload, "measures", ()) or ()), None
    extra: dict[str, Any] = {"workload_params": dict(spec_w.params)}
    if oracle is not None:
        extra["oracle_reward"] = oracle
    if notes:
        extra["notes"] = notes
    extra.update(_workload_fields(run.workload, run.instance))
    extra["provenance"] = provenance(spec_a.path, spec_w.path)
    extra.update(governor_fields(run.meter, run.stop_reason))  # nothing unless the arm held a governor under a budget
    return RunRecord(spec_w.name, spec_a.name, cell.seed, spend,
                     None if reward is None else float(reward), cell.budget.to_dict(),
                     dict(spec_a.params), meter.best if meter is not None else None,
                     list(meter.trace) if meter is not None else None, run.stop_reason, run.error,
                     tuple(meter.partial()) if meter is not None else (), extra, items)


def unknown_spend(budget: Any, measures: Any = ()) -> dict[str, None]:
    """The spend of a `timeout` or `worker-died` record: every unit unknown, on every engine.

    Why not what the meter measured: a cell stuck in a C call on a thread
    (threading, Dask) cannot report its meter, while SIGALRM lets a worker
    on loky, Ray or sequential report it; one rule every engine can honour
    is "unknown", over the same units (calls, seconds, the workload's
    measures, the budget's units and the model-call units).
    """
    return dict.fromkeys(dict.fromkeys(("calls", "seconds", *measures, *budget.to_dict(), *CALL_UNITS)))


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
