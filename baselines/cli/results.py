"""Reading results files into a comparison: shared by compare, report and check.

Why one place: the three verbs must select the same groups and apply the
same spend rules to the same files, or a table and a gate could disagree
about one results file.
"""
from __future__ import annotations

import sys

from .lean_scipy import import_scipy_special

import_scipy_special()  # before the analysis imports it: see lean_scipy

from ..analysis.compare.comparing import compare  # noqa: E402
from ..analysis.compare.comparison import Comparison  # noqa: E402
from ..analysis.compare.compare_options import CompareOptions  # noqa: E402
from ..core.errors import InputError  # noqa: E402
from ..core.records import RunRecord, read_records  # noqa: E402
from ..analysis.tables.table import RunTable  # noqa: E402
from .options import check_results_files  # noqa: E402


def read_runs(results: list[str], keep_last: bool) -> list[RunRecord]:
    """Per-run records (traces, per-run spend), for verbs that need more than the columns."""
    check_results_files(results)
    return read_records(results, keep_last=keep_last)


def results_options(*, tolerance: float, alpha: float, allow_early_stop: bool, metric: str, start: float,
                    claim: str | None = None, questions: str | None = None,
                    workloads: list[str] | None, budgets: list[tuple[str, float]] | None,
                    confounds: list[str] | None, reward_range: tuple[float, float] | None,
                    **more) -> CompareOptions:
    """The CompareOptions of the options every results verb shares (`add_results_args`), plus `more` fields.

    Why one function: `compare`, `report` and `check` must turn the same
    flags into the same comparison; `check` once parsed --metric, --start,
    --allow-early-stop and --confounds and dropped them on the way to the gate.
    """
    return CompareOptions(tolerance=tolerance, alpha=alpha, allow_early_stop=allow_early_stop, metric=metric,
                          start=start, workloads=tuple(workloads or ()), budgets=tuple(budgets or ()),
                          confound_units=tuple(confounds) if confounds is not None else None,
                          reward_range=reward_range, **({"claim": claim} if claim else {}),
                          **({"questions": questions} if questions else {}), **more)


def load_comparison(verb: str, results: list[str], fixed: str | None, *, tolerance: float, keep_last: bool,
                    allow_early_stop: bool, alpha: float, metric: str, start: float,
                    workloads: list[str] | None = None, budgets: list[tuple[str, float]] | None = None,
                    baseline: str | None = None, equivalence_margin: float | None = None,
                    pairs: str = "auto", bootstrap: bool = False, confounds: list[str] | None = None,
                    reward_range: tuple[float, float] | None = None, claim: str | None = None,
                    questions: str | None = None, records: list[RunRecord] | None = None, table: RunTable | None = None,
                    cache: bool = True) -> Comparison:
    """Compare the results files (or `records` already read from them).

    Without `records` the files go through the fast columnar reader, which
    keeps no per-run objects (and reads each large file's column sidecar unless
    `cache` is False); callers that need those read them once and pass them.
    """
    if table is None and records is None:
        check_results_files(results)
        table = RunTable.read(results, keep_last=keep_last, cache=cache)
    elif table is None:
        table = RunTable.from_records(records)
    # (a table given by the caller was read for its columns too: compare --target)
    if len(table) == 0:
        raise InputError(f"{', '.join(results)}: no runs in the results; nothing to compare")
    try:
        options = results_options(tolerance=tolerance, alpha=alpha, allow_early_stop=allow_early_stop,
                                  metric=metric, start=start, workloads=workloads, budgets=budgets,
                                  confounds=confounds, reward_range=reward_range, baseline=baseline, claim=claim,
                                  questions=questions,
                                  equivalence_margin=equivalence_margin, pairs=pairs, bootstrap=bootstrap)
        comparison = compare(table, fixed=fixed, options=options)
    except ValueError as exc:
        raise InputError(f"{verb}: {exc}") from None
    for warning in comparison.warnings:
        print(f"costmatch: warning: {warning}", file=sys.stderr)
    return comparison
