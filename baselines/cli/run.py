"""`costmatch run`: every cell of a suite, then the report; optionally a sequential gate."""
from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.suggest import did_you_mean
from ..core.scoped import gc_paused
from .check import add_gate_arguments
from .gate_output import gate_exit, print_gate
from .options import (EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK, alpha, suite_path, finite, planned_dir,
                      positive_int)

HELP = "run every cell of a suite (the built-in demo suite without SUITE)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("suite", nargs="?", metavar="SUITE.toml", help="the suite file, or the name of a shipped suite (replay-aime2025); default: ./costmatch-suite.toml if present, else the built-in demo suite")
    p.add_argument("--out", metavar="DIR", help="output folder (default: the suite's 'out'); created if missing")
    p.add_argument("--jobs", type=positive_int("--jobs"), metavar="N",
                   help="parallel cells (default: the suite's 'jobs')")
    p.add_argument("--backend", choices=["loky", "threading", "sequential", "dask", "ray"],
                   help="where cells run: loky processes (default), threading for unpicklable clients, "
                        "sequential, dask, ray")
    p.add_argument("--address", metavar="ADDR", help="an existing Dask scheduler (tcp://host:8786) or Ray cluster "
                   "(host:6379) for --backend dask|ray, checked before anything is created; default: "
                   "DASK_SCHEDULER_ADDRESS (Dask), else a new local cluster (Ray ignores RAY_ADDRESS); a Ray "
                   "cluster with token auth needs RAY_AUTH_MODE=token (docs/cluster.md)")
    p.add_argument("--worker-wait", type=finite("--worker-wait", positive=True), default=60.0, metavar="SECONDS",
                   help="how long to wait for a first worker before giving up (default 60)")
    p.add_argument("--retries", type=_retries, default=2,
                   metavar="N", help="reruns of a cell alone after its worker process died, before it is "
                   "recorded as worker-died (default 2)")
    p.add_argument("--fresh", action="store_true", help="start over (the old results file is moved aside)")
    p.add_argument("--keep-stale", action="store_true",
                   help="keep the cells of an arm or workload whose code changed since they ran, marked as old "
                        "code in every report (without it a resume reruns them, saying which arms changed)")
    p.add_argument("--retry-errors", action="store_true", help="rerun the cells whose records carry an error")
    p.add_argument("--quiet", action="store_true", help="no progress lines and no summary")
    p.add_argument("--no-plots", action="store_true", help="write tables only, no figures")
    p.add_argument("--looks", metavar="N,N,...", help="sequential gate: add seeds in these pre-planned looks "
                   "(e.g. 5,10,15,20) and stop once the gate decides; needs --gate and --margin")
    p.add_argument("--gate", metavar="BASELINE:CANDIDATE", help="the two arms the sequential gate compares")
    add_gate_arguments(p)
    p.add_argument("--alpha", type=alpha, default=0.05, help="the sequential gate's total one-sided alpha")
    p.add_argument("--json", action="store_true", dest="as_json", help="print the sequential gate's verdict as JSON")


def _retries(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--retries must be a whole number 0 or more, got {text!r}")
    return value


def run(*, suite, out, jobs, backend, fresh, retry_errors, quiet, no_plots, looks, gate, margin,
        lower_is_better, inconclusive, alpha, as_json, bounds="auto", reward_range=None, address=None,
        worker_wait=60.0, retries=2, keep_stale=False) -> int:
    from ..running.progress import Progress  # start-up: only when the verb runs
    from ..running.runner import run_suite
    from ..running.suite import isolated_workers, load_suite

    loaded = load_suite(suite_path(suite))
    out_dir = planned_dir(loaded.out if out is None else out, "output folder")
    if looks or gate:
        return _run_sequential(loaded, out_dir, looks=looks, gate=gate, margin=margin, alpha=alpha,
                               lower_is_better=lower_is_better, inconclusive=inconclusive, as_json=as_json,
                               jobs=jobs, backend=backend, fresh=fresh, retry_errors=retry_errors, quiet=quiet,
                               cluster=dict(address=address, worker_wait=worker_wait, retries=retries,
                                            stale="keep" if keep_stale else "rerun"),
                               bounds=bounds, reward_range=reward_range)
    progress = Progress(loaded.fixed_units, quiet=quiet)
    with isolated_workers():
        outcome = run_suite(loaded, out_dir, jobs, backend, fresh, retry_errors, progress, address=address,
                            worker_wait=worker_wait, retries=retries, meanwhile=_import_report, other_runs="check",
                            stale="keep" if keep_stale else "rerun")
    if outcome.lost is not None:
        print(f"costmatch: {outcome.lost}; {len(outcome.records)} finished cell(s) are kept in {outcome.results}; "
              "restart the cluster (or drop --address) and run the same command to resume", file=sys.stderr)
        return EXIT_NEGATIVE
    if outcome.interrupted:
        print(f"costmatch: interrupted; {len(outcome.records)} finished cell(s) are kept in {outcome.results}; "
              "run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    from reports.run_report import write_run_report  # start-up: only when the verb runs

    from ..analysis.result.suite import analyses_by_fixed_unit  # start-up: only when the verb runs

    earlier = _report_files(out_dir)
    comparisons = write_run_report(loaded.name, analyses_by_fixed_unit(loaded, outcome.records), out_dir,
                                   plots=not no_plots)
    _name_stale_files(out_dir, earlier, clear=fresh)
    if not quiet:
        from reports.summary import run_summary  # start-up: only when the verb runs

        sys.stdout.write(run_summary(comparisons, out_dir / "report.md", outcome.records))
    failed = sum(r.error is not None for r in outcome.records)
    if failed:
        print(f"costmatch: {failed} cell(s) failed; their records carry the error "
              "(rerun with --retry-errors to try them again)", file=sys.stderr)
        return EXIT_NEGATIVE
    return EXIT_NEGATIVE if outcome.stopped else EXIT_OK   # the stop was said in one line when it happened


def _report_files(out_dir: Path) -> dict[Path, tuple[int, int]]:
    """The comparison JSON and figure files in `out_dir` now, each with (inode, mtime) to tell a rewrite."""
    found = {}
    for path in [*out_dir.glob("comparison-*.json"), *(out_dir / "plots").glob("*")]:
        try:
            st = path.stat()
        except OSError:
            continue
        if path.is_file():
            found[path] = (st.st_ino, st.st_mtime_ns)
    return found


#: the files a run's report writes (figures by kind, comparison JSON): what `--fresh` clears when this run did not
#: rewrite them; any other file in the folder is the user's and stays
_OWNED = re.compile(r"(plots/(cost-reward|anytime|ranking|sweep)-[^/]+\.(png|svg|pdf)|comparison-[^/]+\.json)")


def _name_stale_files(out_dir: Path, earlier: dict[Path, tuple[int, int]], clear: bool = False) -> None:
    """Say which comparison and figure files an earlier run left that this run did not rewrite; with `clear`
    (``--fresh``, issue 39: an old figure stayed in plots/ beside the new report) remove those costmatch names.

    Why not delete them: the folder is the user's, and a file there may be
    theirs. Why say it: a stale comparison-calls.json or figure beside a
    fresh report.md reads as this run's. The reports list only the files this
    run wrote (every one is replaced atomically, so an untouched inode and
    time means this run did not write it).
    """
    stale = []
    for path, signature in earlier.items():
        try:
            st = path.stat()
        except OSError:
            continue
        if (st.st_ino, st.st_mtime_ns) == signature:
            stale.append(path.relative_to(out_dir).as_posix())
    if clear:
        owned = [name for name in stale if _OWNED.fullmatch(name)]
        for name in owned:
            (out_dir / name).unlink(missing_ok=True)
        if owned:
            print(f"costmatch: --fresh: removed {len(owned)} figure or comparison file(s) an earlier run wrote",
                  file=sys.stderr)
        stale = [name for name in stale if name not in owned]
    if stale:
        stale.sort()
        shown = ", ".join(stale[:4]) + (f" and {len(stale) - 4} more" if len(stale) > 4 else "")
        print(f"costmatch: {out_dir}: {len(stale)} file(s) from an earlier run are not this run's and were left "
              f"as they were ({shown}); report.md and report.html list only this run's files", file=sys.stderr)


def _import_report() -> None:
    """Import what the run report needs (pandas, scipy: about 0.35 s of CPU) while the cells run.

    The parent would otherwise wait for the workers and then for these
    imports after the last cell. The garbage collector is off meanwhile: the
    imports make some 300,000 objects, and collections while they are made
    walk them again and again (0.03 s). A failure here is left for the
    report itself to raise, where the run's records are already on disk.
    """
    try:
        with gc_paused():
            import reports.run_report  # noqa: F401
            import reports.summary  # noqa: F401
    except Exception:  # noqa: BLE001 - raised again, with its message, when the report is written
        pass


def _run_sequential(suite, out_dir: Path, *, looks, gate, margin, alpha, lower_is_better, inconclusive, as_json,
                    jobs, backend, fresh, retry_errors, quiet, cluster=None, bounds="auto",
                    reward_range=None) -> int:
    from ..running.progress import Progress  # start-up: only when the verb runs
    from ..running.runner import run_suite
    from ..analysis.gating.sequential import parse_looks, run_sequential

    if not (looks and gate and margin):
        raise InputError("run: the sequential gate needs --looks, --gate BASELINE:CANDIDATE and --margin together")
    if ":" not in gate:
        raise InputError(f"run: --gate must be BASELINE:CANDIDATE, got {gate!r}")
    try:
        planned = parse_looks(looks)
    except ValueError as exc:
        raise InputError(f"run: {exc}") from None
    baseline, candidate = gate.split(":", 1)
    for arm in (baseline, candidate):
        if arm not in suite.arms:
            raise InputError(f"run: --gate: arm {arm!r} is not in {suite.source}{did_you_mean(arm, list(suite.arms))}; "
                             f"arms: {', '.join(suite.arms)}")
    _check_margin_before_cells(suite, gate, margin, reward_range)

    from ..running.suite import isolated_workers  # start-up: only when the verb runs

    def run_look(look_suite, out, progress):
        with isolated_workers():
            return run_suite(look_suite, out, jobs, backend, fresh=False, retry_errors=retry_errors,
                             progress=progress, **(cluster or {}))

    if fresh and (out_dir / "results.jsonl").exists():
        run_suite(dataclasses.replace(suite, workloads=[]), out_dir, fresh=True)
    try:   # a gate that cannot decide a look (e.g. --bounds betting without a range) says why: exit 2
        verdict, used, results, outcome = run_sequential(
            suite, out_dir, planned, baseline, candidate, margin, alpha, lower_is_better,
            run_look, lambda: Progress(suite.fixed_units, quiet=quiet), reward_range=reward_range, bounds=bounds)
    except ValueError as exc:
        raise InputError(f"run: --gate {gate}: {exc}") from None
    if outcome is not None and outcome.interrupted:
        print("costmatch: interrupted; finished cells are kept; run the same command to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    if not as_json:
        print(f"costmatch: sequential gate stopped after {used} seeds (looks {looks})", file=sys.stderr)
    print_gate(results, verdict, baseline=baseline, candidate=candidate, fixed=None, as_json=as_json,
               seeds_used=used)
    return gate_exit(verdict, inconclusive)


def _check_margin_before_cells(suite, gate: str, margin: str, reward_range) -> None:
    """A gate margin no difference can exceed (at least a declared range's width) is refused before any cell runs,
    not after the first look has spent the budget (issue 41; the gate itself refuses it too, per group)."""
    from ..analysis.statistics.reward_range import check_margin  # start-up: only when the verb runs
    from ..running.suite import resolve

    if str(margin).strip().endswith("%"):   # relative to the baseline's mean: known only after a look
        return
    try:
        value = float(margin)
    except ValueError:
        return   # the gate names a margin that is not a number
    for w in suite.workloads:
        declared = reward_range or getattr(resolve(w.path, f"workload {w.name!r}", w.root), "reward_range", None)
        if declared is not None:
            try:
                check_margin(value, declared, [], "--margin", f"workload {w.name!r}")
            except ValueError as exc:
                raise InputError(f"run: --gate {gate}: {exc}; nothing was run") from None
