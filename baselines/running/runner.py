"""Running a suite: the cells not yet on disk through an engine, each finished run appended at once.

Why it is built this way:
- Everything that can refuse the run (options, engine, address, the kept
  records) is checked before the results file changes; ``--fresh`` and
  ``--retry-errors`` change it only once the engine is up (issue 31).
- SIGTERM, Ctrl-C and a lost cluster end the run cleanly: every line that
  finished is kept, and the same command resumes.

The pieces: `execute` (one cell in a worker), `cell_lines` (its line),
`results_file` (reading and appending), `resume` (what a resume keeps),
`preflight` (checks before the folder is touched, the folder's lock).
"""
from __future__ import annotations

import dataclasses
import functools
import gc
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..core.code_identity import BACKEND_VARIABLE
from ..core.fileio import ensure_dir
from ..core.records import RunRecord
from ..core.scoped import scoped_env
from .cell_journal import IN_PROCESS, CellJournal, forget, journaled, resume_message, unfinished
from .cell_lines import HEAD_OVER, cell_line, dump_line, failure_line, trusted_record  # noqa: F401 - public
from .code_check import StartCode, module_paths
from .fail_fast import FailFast
from .engines import ClusterLost, ExecOptions, open_pool, run_cells
from .engines.probe import check_address
from .execute import arm_rng, execute_cell, execute_record  # noqa: F401 - public names of the runner
from .preflight import (LOCK_NAME, _cluster_address, _missing_folders, _undo_folders_on_refusal,  # noqa: F401
                        check_engine, check_results_path, output_lock)
from .results_file import (AppendFailed, LineSink, _ends_with_newline, _sync, append_error,  # noqa: F401
                           load_existing, open_results)
from .resume import _identities, _kept_records, _said_then, check_other_runs, check_same_params  # noqa: F401
from .suite import Suite


@dataclass
class RunOutcome:
    results: Path
    ran: int = 0
    skipped: int = 0
    errors: int = 0
    interrupted: bool = False
    lost: str | None = None  # the cluster was lost: the message; finished cells are kept
    stopped: dict = field(default_factory=dict)  # (workload, arm) -> why: arms the fail-fast rule stopped
    records: list[RunRecord] = field(default_factory=list)


def run_suite(suite: Suite, out_dir: Path, jobs: int | None = None, backend: str | None = None,
              fresh: bool = False, retry_errors: bool = False, progress=None, *, address: str | None = None,
              worker_wait: float = 60.0, retries: int = 2, meanwhile: Callable[[], None] | None = None,
              other_runs: str = "keep", stale: str = "rerun", words: Callable[[str], str] = str) -> RunOutcome:
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
    ``stale``: what a resume does with kept cells whose arm or workload code
    changed since they ran: "rerun" (the default; their old records are
    moved aside, one line per changed arm or workload) or "keep" (reported,
    each marked ``provenance.stale``).
    The code is read once, when the run starts (`StartCode`): the parent's
    own records carry that, and a worker's line of other code is refused.
    ``words`` rewords the lines printed for the caller's user (the Python
    API names its arguments, not CLI flags).
    """
    explicit_jobs = jobs
    jobs = jobs or suite.jobs
    backend = backend or suite.backend
    given = address
    address = _cluster_address(backend, address, worker_wait, retries)
    check_engine(backend)
    check_results_path(Path(out_dir) / "results.jsonl")
    # a bounded handshake: a wrong address creates no folder and no lock
    check_address(backend, address, "--address" if given is not None else "DASK_SCHEDULER_ADDRESS")
    made = _missing_folders(Path(out_dir))
    out_dir = ensure_dir(out_dir, "output folder")
    results = out_dir / "results.jsonl"
    with _undo_folders_on_refusal(made), output_lock(out_dir), scoped_env(BACKEND_VARIABLE, backend):
        code = StartCode(module_paths(suite.arms.values(), suite.workloads), backend)
        code.check_this_process({**{w.path: ("workload", w.name) for w in suite.workloads},
                                 **{a.path: ("arm", a.name) for a in suite.arms.values()}})
        existing, prepare = _kept_records(suite, results, fresh, retry_errors, code, other_runs, stale, words)
        kept, first, todo, total = _cells_to_run(suite, existing, out_dir, backend)
        outcome = RunOutcome(results, skipped=total - len(first) - len(todo))
        new_records: list[RunRecord] = []
        if progress is not None:
            progress.start(len(first) + len(todo), outcome.skipped)
        if address is not None and explicit_jobs is not None:  # said once the cluster answered: a refusal is one line
            prepare = functools.partial(_said_then, [f"costmatch: --jobs {explicit_jobs} is not used with the cluster "
                                                     f"at {address}: every worker thread (Dask) or CPU (Ray) there "
                                                     "runs cells"], prepare)
        fail_fast = FailFast.of(suite)
        fail_fast.observe_all(kept)    # an arm that broke the contract and was not edited since is not run again
        _run_todo(todo, results, outcome, new_records, progress, backend, jobs, address, worker_wait, retries,
                  meanwhile, prepare, first, code, fail_fast)
        outcome.stopped = dict(fail_fast.stopped)
    # kept records of cells the suite no longer has are left out; new records all come from its cells
    outcome.records = kept + new_records
    return outcome


def _cells_to_run(suite: Suite, existing: list[RunRecord], out_dir: Path, backend: str):
    """(kept records of the suite's cells, cells to run first in a worker, the other cells to run, all cells).

    The first ones are the cells of each (workload, arm) an in-process run
    ended inside (its journal names the cells): on sequential or threading
    they run first in worker processes (one line says so); other engines
    run every cell in worker processes anyway.
    """
    kept_identities = [r.identity() for r in existing]
    done = set(kept_identities)
    cells = suite.cells()
    identities = _identities(cells)
    wanted = set(identities)
    again = unfinished(out_dir) & wanted if backend in IN_PROCESS else set()
    suspects = {(workload, arm) for workload, _, arm, _ in again}  # the rest of their arm may end it too
    first, todo = [], []
    for c, ident in zip(cells, identities):
        if ident not in done:
            (first if (ident[0], ident[2]) in suspects else todo).append(c)
    if first:
        print(resume_message(sorted(again), len(first)), file=sys.stderr)
    return [r for r, ident in zip(existing, kept_identities) if ident in wanted], first, todo, len(cells)


def _run_todo(todo: list, results: Path, outcome: RunOutcome, new_records: list[RunRecord], progress,
              backend: str, jobs: int, address: str | None, worker_wait: float, retries: int,
              meanwhile: Callable[[], None] | None = None, prepare: Callable[[], None] | None = None,
              first: list | None = None, code: StartCode | None = None, fail_fast: FailFast | None = None) -> None:
    """Run the missing cells, appending each line as it finishes; SIGTERM and a lost cluster end the run cleanly.

    ``prepare`` changes the results file (--fresh, --retry-errors) once the engine is up; ``first``: cells
    an in-process run ended inside (`cell_journal`), run before `todo`, each alone in a worker process;
    ``code`` refuses a line whose worker ran other code than this run's, before it is written (code_check.py);
    ``fail_fast`` stops an arm at its first record that breaks the contract (fail_fast.py).
    """
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _interrupt)
    engines = _Engines(results.parent, None if code is None else functools.partial(failure_line, start=code),
                       None if fail_fast is None else fail_fast.skips)
    sink = None
    refused: OSError | None = None
    try:  # the engine first: a bad address leaves the folder as it was
        lines = engines.open(todo, first or [], ExecOptions(backend, max(1, jobs), address, worker_wait, retries),
                             meanwhile)
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
            if lines is not None:
                _take_all(lines, functools.partial(_keep, sink, outcome, progress, fail_fast))
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
        engines.close(cancel=outcome.interrupted or outcome.lost is not None or refused is not None)
        signal.signal(signal.SIGTERM, previous)
        if progress is not None:
            progress.close()
    if refused is not None:
        raise append_error(refused, results, outcome.skipped + outcome.ran)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _keep(sink: LineSink, outcome: RunOutcome, progress, fail_fast: FailFast | None, item) -> None:
    """One finished line: appended, counted, shown, and judged by the fail-fast rule."""
    record = sink.take(item)
    if fail_fast is not None:
        fail_fast.observe(record)
    outcome.ran += 1
    outcome.errors += record.error is not None
    if progress is not None:
        progress.update(record)


class _Engines:
    """The pools of one run: its engine, and for cells an in-process run ended inside, one loky worker first.

    Why a loky worker for those: such a cell may end the process again; in
    a worker process its death is the engine's ordinary worker-died rule
    (rerun alone, then a record), so the resume goes on instead of dying.
    """

    def __init__(self, out_dir: Path, on_failure: Callable = failure_line, skip: Callable | None = None):
        self.out_dir = out_dir
        self.skip = skip
        self.on_failure = on_failure or failure_line  # the parent's line for a cell: stamped with the start code
        self.pools: list = []
        self.journal: CellJournal | None = None

    def open(self, todo: list, first: list, opts: ExecOptions, meanwhile):
        """The lines of `first` (in a worker) then of `todo` (on `opts`' engine); None when nothing runs."""
        runs = []
        if todo:
            work: Callable = cell_line
            if opts.backend in IN_PROCESS:  # journaled: a cell that ends this process is named (cell_journal)
                self.journal = CellJournal(self.out_dir, opts.backend)
                work = journaled(self.journal, cell_line)
            runs.append((todo, self._opened(dataclasses.replace(opts, jobs=min(opts.jobs, len(todo))), work)))
        if first:
            jobs = max(1, min(opts.jobs, len(first)))
            runs.insert(0, (first, self._opened(ExecOptions("loky", jobs, None, opts.worker_wait, opts.retries),
                                                 cell_line)))
        if not runs:
            return None
        return _in_turn([run_cells(cells, pool, opts.retries, opts.batch_seconds, self.on_failure,
                                   meanwhile=meanwhile if k == 0 else None, skip=self.skip)
                         for k, (cells, pool) in enumerate(runs)])

    def _opened(self, opts: ExecOptions, work: Callable):
        pool = open_pool(opts, work)
        self.pools.append(pool)
        return pool

    def close(self, cancel: bool) -> None:
        for pool in self.pools:
            pool.close(cancel=cancel)
        if self.journal is not None:
            self.journal.close()
        if not cancel:  # a finished run: a journal an earlier run left has been dealt with
            forget(self.out_dir)


def _in_turn(runs: list):
    """The lines of each run in turn; an interrupt thrown in goes to the one running (`yield from`)."""
    for lines in runs:
        yield from lines


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
