"""Running a suite: every cell through joblib, each finished run on disk at once.

Why it is built this way:
- The parent process is the only writer of ``results.jsonl`` and writes one
  complete, flushed line per finished cell, so a crash, Ctrl-C or SIGKILL
  loses at most the cells still running, and lines never interleave.
- Resuming skips every run identity already in the file; a changed arm or
  workload parameter under the same name is refused, because mixing old and
  new runs under one name is a silent lie in every later table.
- A cell's randomness comes from (seed, arm name) and the workload instance
  from the seed alone, so results do not depend on jobs, backend or order.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .errors import InputError
from .meter import BudgetExhausted, CellTimeout, Meter
from .records import RunRecord, append_record, iter_records, record_from_json, write_records
from .suite import Cell, Suite, resolve


# -- one cell (runs in a worker) ------------------------------------------------
def arm_rng(seed: int, arm: str) -> np.random.Generator:
    """The arm's own random stream: fixed by seed and arm name, never by worker or order."""
    return np.random.default_rng([seed, zlib.crc32(arm.encode("utf-8"))])


def _error(exc: BaseException, stage: str) -> dict[str, str]:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return {"type": type(exc).__name__, "message": str(exc)[:2000], "where": where, "stage": stage}


@contextlib.contextmanager
def _alarm(timeout: float | None):
    """SIGALRM-based limit where possible (a worker's main thread on POSIX).

    Elsewhere (threads, Dask workers) the Meter's deadline stops the arm at
    its next charge; code that never charges and never returns cannot be
    interrupted from inside a thread, which the README states.
    """
    usable = timeout is not None and hasattr(signal, "setitimer") and \
        threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise CellTimeout(f"cell ran past its time limit ({timeout:g} s)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def execute_cell(cell: Cell) -> dict[str, Any]:
    """Run one cell and return its record as JSON-ready dict (never raises for arm errors)."""
    spec_w, spec_a = cell.workload, cell.arm
    started = time.perf_counter()
    stop_reason, error, output, reward, oracle = "done", None, None, None, None
    workload = instance = meter = None
    try:
        with _alarm(cell.timeout):
            workload = resolve(spec_w.path, spec_w.name)(**spec_w.params)
            instance = workload.instance(cell.seed)
            measures = tuple(dict.fromkeys(("calls", "seconds") + tuple(workload.measures)))
            meter = Meter(cell.budget, measures=measures,
                          deadline=None if cell.timeout is None else time.perf_counter() + cell.timeout)
            arm = resolve(spec_a.path, spec_a.name)(**spec_a.params)
            try:
                output = arm.run(instance, meter, arm_rng(cell.seed, spec_a.name))
            except BudgetExhausted as exc:
                stop_reason = f"budget:{exc.unit}"
    except CellTimeout as exc:
        stop_reason, error = "timeout", _error(exc, "arm")
    except InputError as exc:
        stop_reason, error = "error", {"type": "InputError", "message": str(exc), "where": "", "stage": "setup"}
    except Exception as exc:  # an arm or workload bug: a record, not a crashed run
        stop_reason, error = "error", _error(exc, "arm")
    if meter is not None:
        meter.stop()
        if stop_reason == "done" and meter.exhausted is not None:
            stop_reason = f"budget:{meter.exhausted}"  # the arm caught the stop and returned
    from arms.base import ArmOutput  # local: keep the worker's import light

    alternatives: list = []
    if isinstance(output, ArmOutput):
        choice, alternatives = output.choice, output.alternatives
    elif output is not None:
        choice = output
    else:
        choice = meter.choice if meter is not None and meter.has_choice else None
    if error is None:
        if choice is None:
            error = {"type": "NoChoice", "message": "the arm stopped before reporting a choice through "
                     "meter.progress(best, choice=...)", "where": "", "stage": "arm"}
        else:
            try:
                reward = workload.score(instance, choice)
                if alternatives:
                    oracle = max(workload.score(instance, alt) for alt in alternatives)
                if getattr(workload, "score_trace", False):
                    _score_trace(workload, instance, meter)
            except Exception as exc:
                error = _error(exc, "score")
                reward = None
    spend = meter.spend() if meter is not None else {"seconds": time.perf_counter() - started}
    record = RunRecord(spec_w.name, spec_a.name, cell.seed, spend,
                       None if reward is None else float(reward), cell.budget.to_dict(),
                       dict(spec_a.params), meter.best if meter is not None else None,
                       list(meter.trace) if meter is not None else None, stop_reason, error,
                       tuple(meter.partial()) if meter is not None else (),
                       {"workload_params": dict(spec_w.params)} | ({"oracle_reward": oracle} if oracle is not None else {}))
    return record.to_json()


def _score_trace(workload, instance, meter: Meter) -> None:
    """Add the held-out reward of the choice in force at each trace point (cheap workloads only).

    Anytime comparisons then read what would have shipped at spend X, not
    the arm's own (optimistically selected) dev score.
    """
    cache: dict[int, float] = {}
    for point, choice in zip(meter.trace, meter.trace_choices):
        if not meter.has_choice or choice is None:
            continue
        key = id(choice)
        if key not in cache:
            cache[key] = float(workload.score(instance, choice))
        point["reward"] = cache[key]


# -- the results file ------------------------------------------------------------
def load_existing(path: Path) -> list[RunRecord]:
    """Records already on disk. A torn last line (a SIGKILL mid-write) is cut off with a warning."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        print(f"costmatch: {path}: dropping an incomplete last line (the previous run was killed mid-write)",
              file=sys.stderr)
        with open(path, "r+b") as handle:
            handle.truncate(cut)
    return list(iter_records(path))


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def check_same_params(records: list[RunRecord], suite: Suite, path: Path) -> None:
    """Refuse to mix runs made with other parameters under the same arm or workload name."""
    arms = {a.name: _canonical(a.params) for a in suite.arms.values()}
    workloads = {w.name: _canonical(w.params) for w in suite.workloads}
    for r in records:
        if r.arm in arms and r.workload in workloads:
            if _canonical(r.params) != arms[r.arm]:
                raise InputError(
                    f"{path}: arm {r.arm!r} ran with params {_canonical(r.params)} but {suite.source} now "
                    f"says {arms[r.arm]}; give the changed arm a new name, use another --out, or pass --fresh")
            old = _canonical(r.extra.get("workload_params", {}))
            if old != workloads[r.workload]:
                raise InputError(
                    f"{path}: workload {r.workload!r} ran with params {old} but {suite.source} now says "
                    f"{workloads[r.workload]}; give it a new name, use another --out, or pass --fresh")


# -- the run ---------------------------------------------------------------------
@dataclass
class RunOutcome:
    results: Path
    ran: int = 0
    skipped: int = 0
    errors: int = 0
    interrupted: bool = False
    records: list[RunRecord] = field(default_factory=list)


@contextlib.contextmanager
def _backend(name: str, jobs: int):
    import joblib

    if name == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise InputError("--backend dask needs the dask extra: pip install 'costmatch[dask]'") from None
        address = os.environ.get("DASK_SCHEDULER_ADDRESS")
        cluster = None if address else LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                     dashboard_address=None)
        client = Client(address or cluster)
        try:
            with joblib.parallel_config(backend="dask"):
                yield "dask"
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif name == "ray":
        try:
            from ray.util.joblib import register_ray
        except ImportError:
            raise InputError("--backend ray needs ray installed: pip install 'ray[default]'") from None
        register_ray()
        with joblib.parallel_config(backend="ray"):
            yield "ray"
    else:
        yield name


def _results_iter(cells: list[Cell], jobs: int, backend: str) -> Iterator[dict]:
    if backend == "sequential" or (jobs == 1 and backend in ("loky", "threading")):
        for cell in cells:
            yield execute_cell(cell)
        return
    import joblib

    kwargs = {} if backend in ("dask", "ray") else {"backend": backend}
    parallel = joblib.Parallel(n_jobs=jobs, return_as="generator_unordered", **kwargs)
    yield from parallel(joblib.delayed(execute_cell)(cell) for cell in cells)


def _sync(path: Path) -> None:
    if path.exists():
        with open(path, "rb") as handle:
            os.fsync(handle.fileno())


def run_suite(suite: Suite, out_dir: Path, jobs: int | None = None, backend: str | None = None,
              fresh: bool = False, retry_errors: bool = False, progress=None) -> RunOutcome:
    """Run every cell not yet in ``out_dir/results.jsonl``; return what happened."""
    jobs = jobs or suite.jobs
    backend = backend or suite.backend
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "results.jsonl"
    if fresh and results.exists():
        backup = results.with_name(f"results.{time.strftime('%Y%m%d-%H%M%S')}.jsonl")
        results.rename(backup)
        print(f"costmatch: --fresh: moved the old results to {backup}", file=sys.stderr)
    existing = load_existing(results)
    check_same_params(existing, suite, results)
    if retry_errors and any(r.error is not None for r in existing):
        existing = [r for r in existing if r.error is None]
        write_records(results, existing)
    done = {r.identity() for r in existing}
    cells = suite.cells()
    todo = [c for c in cells if c.identity() not in done]
    outcome = RunOutcome(results, skipped=len(cells) - len(todo))
    if progress is not None:
        progress.start(len(todo), outcome.skipped)
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        with open(results, "a", encoding="utf-8") as handle, _backend(backend, jobs) as active:
            last_sync = time.monotonic()
            for line in _results_iter(todo, jobs, active):
                record = record_from_json(line, "cell result")
                # every line is flushed (it survives a killed process); fsync at most once a
                # second, so a machine crash loses at most a second of cells, and 10,000 tiny
                # cells do not pay 10,000 disk syncs
                sync = time.monotonic() - last_sync >= 1.0
                append_record(handle, record, sync=sync)
                if sync:
                    last_sync = time.monotonic()
                outcome.ran += 1
                outcome.errors += record.error is not None
                if progress is not None:
                    progress.update(record)
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        _sync(results)
        signal.signal(signal.SIGTERM, previous)
        if progress is not None:
            progress.close()
    wanted = {c.identity() for c in cells}
    outcome.records = [r for r in iter_records(results) if r.identity() in wanted]
    return outcome
