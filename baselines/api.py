"""The Python way to run and gate a comparison, beside the command line.

    from baselines import Budget, run, compare, check
    records = run("workloads.search_sim:SearchSim",
                  arms={"greedy": "arms.selection:Greedy", "puct": ("arms.selection:PUCT", {"c": 1.0})},
                  budget=Budget(rollouts=40), seeds=5)
    comparison = compare(records)        # a notebook shows its table; .to_markdown(), .plot(), ...
    check(records, baseline="greedy", candidate="puct", margin=0.02).verdict

Why it builds a suite: a notebook run and `costmatch run` must follow one
set of rules (the same checks before any cell runs, the same records, the
same resume and report when `out` is given), so `run` only turns its
arguments into the suite a TOML file would have described and hands it to
the runner. Classes defined in the notebook or script itself (`__main__`)
are sent to the workers by value (cloudpickle), and their code version is
the hash of their source.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple

from .analysis.compare.compare_options import CompareOptions
from .analysis.compare.comparing import options_with
from .analysis.compare.comparison import Comparison
from .analysis.gating.gate import GateResult, overall, run_gate
from .analysis.result import renderers
from .analysis.result.suite import analyses_by_fixed_unit
from .analysis.tables.table import RunTable
from .core.api_arguments import RUN_RULES, check_arguments, check_rules
from .core.arguments import budget_table, records_argument
from .core.budget import Budget
from .core.errors import InputError
from .core.provenance import register_class
from .core.records import RunRecord, read_records
from .core.units import canonical_unit
from .running.runner import run_suite
from .running.suite import parse_suite

#: What an arm or a workload may be given as: an import path, a class, or (either, params).
Spec = Any


def _importable(cls: type) -> bool:
    """Whether a worker can import `cls` by ``module:Name`` (not from __main__, a function or a class body)."""
    if cls.__module__ == "__main__" or cls.__qualname__ != cls.__name__:
        return False
    module = sys.modules.get(cls.__module__)
    return module is not None and getattr(module, cls.__name__, None) is cls


def _path_and_params(spec: Spec, where: str) -> tuple[str, dict[str, Any]]:
    params: dict[str, Any] = {}
    if isinstance(spec, tuple):
        if len(spec) != 2 or not isinstance(spec[1], Mapping):
            raise InputError(f"{where}: give (class or 'module:Class', params dict), got {spec!r}")
        spec, params = spec[0], dict(spec[1])
    if isinstance(spec, str):
        return spec, params
    if isinstance(spec, type):
        path = f"{spec.__module__}:{spec.__name__}"
        if not _importable(spec):   # defined in a notebook, a script or a function: sent by value
            register_class(path, spec)
        return path, params
    raise InputError(f"{where}: give a class, 'module:Class' or (class, params); got an object of type "
                     f"{type(spec).__name__} (pass its class and its constructor arguments as params)")


def _arm_table(arms: Mapping[str, Spec] | Iterable[Spec]) -> dict[str, Spec]:
    """`arms` as name -> spec; a list names each arm by its class (or path), so `arms=[Greedy, Random]` works."""
    if isinstance(arms, Mapping):
        return dict(arms)
    if isinstance(arms, (str, type, tuple)) or not isinstance(arms, Iterable):
        raise TypeError(f"run: arms must be a dict of name -> class (or 'module:Class'), or a list of classes; "
                        f"got {type(arms).__name__}")
    table: dict[str, Spec] = {}
    for spec in arms:
        target = spec[0] if isinstance(spec, tuple) else spec
        if isinstance(target, type):
            name = target.__name__
        elif isinstance(target, str):
            name = target.rpartition(":")[2]
        else:
            raise TypeError(f"run: arms lists classes or 'module:Class' paths; got {type(target).__name__}")
        if name in table:
            raise TypeError(f"run: two arms in the list are both named {name!r}; give a dict of name -> class")
        table[name] = spec
    return table


def build_suite(workload: Spec, arms: Mapping[str, Spec] | Iterable[Spec],
                budget: Budget | Mapping[str, float] | list, seeds: int | list[int] = 5, *,
                fixed: str | None = None, name: str | None = None, timeout: float | None = None,
                tolerance: float = 0.1, jobs: int = 1, backend: str = "loky"):
    """The suite that `run` runs: checked completely (imports, parameters, units) before anything runs."""
    arms = _arm_table(arms)
    if not arms:
        raise InputError("run: arms is empty; give a dict of name -> class or 'module:Class'")
    budgets = budget if isinstance(budget, list) else [budget]
    budget_tables = [budget_table(b, "run: budget") for b in budgets]
    units = {u for b in budget_tables for u in b}
    if fixed is None:
        if len(units) != 1:
            raise InputError(f"run: the budget sets {', '.join(sorted(units))}; pass fixed=UNIT to say which "
                             "one the arms are matched in")
        fixed = next(iter(units))
    workload_path, workload_params = _path_and_params(workload, "run: workload")
    arm_tables = {}
    for arm_name, spec in arms.items():
        path, params = _path_and_params(spec, f"run: arms[{arm_name!r}]")
        arm_tables[arm_name] = {"path": path, "params": params}
    data: dict[str, Any] = {
        "seeds": seeds, "jobs": jobs, "backend": backend, "tolerance": tolerance, "arms": arm_tables,
        "workloads": [{"name": name or workload_path.rpartition(":")[2].lower(), "path": workload_path,
                       "params": workload_params, "fixed": fixed, "budgets": budget_tables,
                       "arms": list(arm_tables)}]}
    if timeout is not None:
        data["timeout"] = timeout
    return parse_suite(data, "run()")


def run(workload: Spec, arms: Mapping[str, Spec] | Iterable[Spec], budget: Budget | Mapping[str, float] | list,
        seeds: int | list[int] = 5, *, fixed: str | None = None, out: str | Path | None = None,
        jobs: int = 1, backend: str = "loky", timeout: float | None = None, name: str | None = None,
        tolerance: float = 0.1, fresh: bool = False, keep_stale: bool = False, retry_errors: bool = False,
        plots: bool = True) -> list[RunRecord]:
    """Run every (budget, arm, seed) cell of one workload and return the records.

    `workload` and each arm are a class (also one defined in this notebook or
    script), an import path ``"module:Class"``, or ``(either, params)``;
    `arms` is a dict of name -> arm, or a list of arms named by their class.
    `budget` is one Budget (or a list, for a sweep); `fixed` defaults to its
    one unit. With `out`, records are appended to ``out/results.jsonl`` as
    cells finish, a second call resumes, and the report `costmatch run`
    writes (report.md, report.html, comparison JSON, plots/ unless
    ``plots=False``) is written there. A resume reruns the cells of an arm or
    workload whose code changed since they ran (one line says which; the old
    records are moved aside) unless ``keep_stale=True`` (kept, marked as old
    code); ``fresh=True`` starts over; ``retry_errors=True`` reruns errored
    cells. Without `out` the records are kept in a temporary folder that is
    removed afterwards. Errors name these arguments, not the CLI's flags.
    """
    check_arguments("run", RUN_RULES, locals())  # first: every parameter named with its value, before the suite
    suite = build_suite(workload, arms, budget, seeds, fixed=fixed, name=name, timeout=timeout,
                        tolerance=tolerance, jobs=jobs, backend=backend)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="costmatch-") as folder:
            return _finish(run_suite(suite, Path(folder), jobs, backend))
    try:
        records = _finish(run_suite(suite, Path(out), jobs, backend, fresh=fresh, retry_errors=retry_errors,
                                    stale="keep" if keep_stale else "rerun", words=api_words))
    except InputError as exc:
        raise InputError(api_words(str(exc))) from None
    # the report is rendered by the renderer reports/ registers (loaded by name: no api -> reports import,
    # and a run without `out` never loads matplotlib); the analysis is computed here, once
    renderers.call("run_report", suite.name, analyses_by_fixed_unit(suite, records), Path(out), plots=plots)
    return records


_API_WORDS = (("another --out", "another out="), ("--out", "out="), ("--fresh", "fresh=True"),
              ("--keep-stale", "keep_stale=True"), ("--retry-errors", "retry_errors=True"),
              ("--jobs", "jobs="), ("--backend", "backend="), ("--timeout", "timeout="))


def api_words(text: str) -> str:
    """A runner message as the Python API's user reads it: its arguments (``fresh=True``), not CLI flags.

    Why at this one edge: the runner's messages are shared with the command
    line, and a notebook user told to "pass --fresh" has no such flag.
    """
    for flag, argument in _API_WORDS:
        text = text.replace(flag, argument)
    return text


def _finish(outcome) -> list[RunRecord]:
    if outcome.interrupted:
        raise KeyboardInterrupt(f"interrupted; finished cells are kept in {outcome.results}")
    if getattr(outcome, "lost", None):
        raise RuntimeError(f"the cluster was lost ({outcome.lost}); finished cells are kept in "
                           f"{outcome.results}: call run() again with the same out= to resume")
    return list(outcome.records)


class CheckResult(NamedTuple):
    """What `check` returns; it unpacks as ``verdict, groups, comparison = check(...)``."""

    verdict: str                 #: PASS, FAIL or INCONCLUSIVE: the worst over the groups where both arms ran
    groups: list[GateResult]     #: one verdict per (workload, budget) group, with its bounds and reason
    comparison: Comparison       #: the comparison the gate read (spend checks, flags, score matrices)
    history = None               #: with check(history=...): what the history holds for each group (not a field)

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    def to_json(self) -> dict[str, Any]:
        """The JSON of `costmatch check --json` (without the arm names)."""
        return {"verdict": self.verdict, "groups": [g.to_json() for g in self.groups],
                "skipped": [s.to_json() for s in self.comparison.skipped]}


def check(records: list[RunRecord] | str | Path, *, baseline: str, candidate: str, margin: float | str,
          fixed: str | None = None, alpha: float | None = None, lower_is_better: bool = False,
          bounds: str = "auto", reward_range: tuple[float, float] | None = None,
          workloads: Iterable[str] | None = None, budgets: Iterable[tuple[str, float]] | None = None,
          tolerance: float | None = None, allow_early_stop: bool | None = None, metric: str | None = None,
          start: float | None = None, confound_units: Iterable[str] | None = None,
          options: CompareOptions | None = None, history: str | Path | None = None, commit: str | None = None,
          branch: str | None = None, reference: str | Path | None = None, reference_arm: str | None = None,
          reference_label: str | None = None, drift_horizon: int | None = None, claim: str | None = None,
          max_loss: float | None = None, questions: str | None = None) -> CheckResult:
    """The CI gate in Python, with the options of `costmatch check`: `candidate` against `baseline`.

    `records` is a list of records or a results file. `margin` is the largest
    tolerated loss (0.02 in reward units, or "2%" of the baseline's mean);
    `bounds` is "auto", "t" or "betting"; `reward_range` (lo, hi) enables
    distribution-free bounds; `workloads` and `budgets` ((unit, value) pairs)
    select groups. The comparison keywords are those of `compare` (and of
    `CompareOptions`, given whole as `options=`; a keyword beside it wins).
    `claim` is "mean" (default), "typical" (the median paired difference
    above -margin, exact sign test) or "both"; `max_loss` FAILs when any
    seed loses more (docs/gate.md); `questions` ("population", the default, or
    "these") is what an item-paired verdict is about when question ids recur.
    Returns a `CheckResult`: `.verdict` is the worst over the groups.
    `history` (a file) appends one line per group as `check --history` does
    (`commit` and `branch` as there); `reference` (a results file, with
    `reference_arm`, `reference_label`, `drift_horizon`) also gates drift
    against it: `.history.drifted` (contract 6.40; 6.40.a: the shape pooled over commits).
    """
    check_arguments("check", check_rules(RunTable, CompareOptions), locals())
    if baseline == candidate:
        raise InputError(f"check: baseline and candidate are both {baseline!r}; name two different arms")
    fixed = None if fixed is None else canonical_unit(fixed)   # the aliases the suite and the CLI accept
    records = records if isinstance(records, (str, Path)) else records_argument(records, "check: records")
    merged = options_with(options, alpha=alpha, tolerance=tolerance, allow_early_stop=allow_early_stop,
                          metric=metric, start=start, workloads=workloads, budgets=budgets,
                          confound_units=confound_units, reward_range=reward_range, questions=questions)
    paths = [str(records)] if isinstance(records, (str, Path)) else []
    if isinstance(records, (str, Path)):
        records = read_records(records)
    shapes = _history_shapes(history, baseline, candidate, claim or "mean", commit, branch)
    results, comparison = run_gate(list(records), fixed, baseline, candidate, str(margin),
                                   lower_is_better=lower_is_better, bounds=bounds, options=merged,
                                   claim=claim or "mean", max_loss=max_loss, shapes=shapes)
    if history is None:
        if reference is not None:
            raise InputError("check: reference= needs history= (the looks at a reference are counted there)")
        return CheckResult(overall(results), results, comparison)
    from .analysis.history.checking import check_history
    from .analysis.history.drift import DEFAULT_HORIZON
    from .analysis.history.recording import Reference

    pinned = None if reference is None else Reference(str(reference), reference_label or Path(reference).stem,
                                                      reference_arm, drift_horizon or DEFAULT_HORIZON)
    recorded = _Recorded(overall(results), results, comparison)
    recorded.history = check_history(str(history), results=paths, outcome=results, comparison=comparison,
                                     baseline=baseline, candidate=candidate, fixed=fixed, margin=str(margin),
                                     lower_is_better=lower_is_better, bounds=bounds, options=merged,
                                     records=list(records), commit=commit, branch=branch, reference=pinned,
                                     claim=claim or "mean")
    return recorded


def _history_shapes(history, baseline: str, candidate: str, claim: str, commit: str | None,
                    branch: str | None) -> dict | None:
    """Issue 40: the shape of each group's differences its earlier commits in `history` recorded (contract 6.40.a);
    None without a history."""
    if history is None:
        return None
    from .analysis.history.recording import history_shapes
    from .core.git_commit import commit_info

    info = commit_info(commit, branch)
    return history_shapes(str(history), baseline, candidate, claim, commit=info.commit if info else None)


class _Recorded(CheckResult):
    """A CheckResult that also carries `.history` (a subclass: the tuple still unpacks into three)."""
