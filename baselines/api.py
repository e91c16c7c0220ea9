"""The Python way to run and gate a comparison, beside the command line.

    from baselines import Budget, run, compare, check
    records = run("workloads.search_sim:SearchSim",
                  arms={"greedy": "arms.selection:Greedy", "puct": ("arms.selection:PUCT", {"c": 1.0})},
                  budget=Budget(rollouts=40), seeds=5)
    compare(records).valid

Why it builds a suite: a notebook run and `costmatch run` must follow one
set of rules (the same checks before any cell runs, the same records, the
same resume when `out` is given), so `run` only turns its arguments into the
suite a TOML file would have described and hands it to the runner.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Mapping

from .core.budget import Budget
from .core.errors import InputError
from .core.records import RunRecord

#: What an arm or a workload may be given as: an import path, a class, or (either, params).
Spec = Any


def _path_and_params(spec: Spec, where: str) -> tuple[str, dict[str, Any]]:
    params: dict[str, Any] = {}
    if isinstance(spec, tuple):
        if len(spec) != 2 or not isinstance(spec[1], Mapping):
            raise InputError(f"{where}: give (class or 'module:Class', params dict), got {spec!r}")
        spec, params = spec[0], dict(spec[1])
    if isinstance(spec, str):
        return spec, params
    if isinstance(spec, type):
        path = f"{spec.__module__}:{spec.__qualname__}"
        if spec.__module__ == "__main__" or "<locals>" in spec.__qualname__:
            raise InputError(f"{where}: class {spec.__qualname__} is defined in a script or notebook "
                             f"({spec.__module__}); worker processes cannot import it: move it to a module "
                             "and pass the class (or 'module:Class')")
        return path, params
    raise InputError(f"{where}: give a class, 'module:Class' or (class, params); got an object of type "
                     f"{type(spec).__name__} (pass its class and its constructor arguments as params)")


def build_suite(workload: Spec, arms: Mapping[str, Spec], budget: Budget | Mapping[str, float] | list,
                seeds: int | list[int] = 5, *, fixed: str | None = None, name: str | None = None,
                timeout: float | None = None, tolerance: float = 0.1, jobs: int = 1, backend: str = "loky"):
    """The suite that `run` runs: checked completely (imports, parameters, units) before anything runs."""
    from .running.suite import parse_suite

    if not arms:
        raise InputError("run: arms is empty; give a dict of name -> class or 'module:Class'")
    budgets = budget if isinstance(budget, list) else [budget]
    budget_tables = [dict(b.limits) if isinstance(b, Budget) else dict(b) for b in budgets]
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


def run(workload: Spec, arms: Mapping[str, Spec], budget: Budget | Mapping[str, float] | list,
        seeds: int | list[int] = 5, *, fixed: str | None = None, out: str | Path | None = None,
        jobs: int = 1, backend: str = "loky", timeout: float | None = None, name: str | None = None,
        tolerance: float = 0.1) -> list[RunRecord]:
    """Run every (budget, arm, seed) cell of one workload and return the records.

    `workload` and each arm are a class, an import path ``"module:Class"``,
    or ``(either, params)``. `budget` is one Budget (or a list, for a sweep);
    `fixed` defaults to its one unit. With `out`, records are appended to
    ``out/results.jsonl`` as cells finish and a second call resumes; without
    it they are kept in a temporary folder that is removed afterwards.
    """
    from .running.runner import run_suite

    suite = build_suite(workload, arms, budget, seeds, fixed=fixed, name=name, timeout=timeout,
                        tolerance=tolerance, jobs=jobs, backend=backend)
    if out is not None:
        return _finish(run_suite(suite, Path(out), jobs, backend))
    with tempfile.TemporaryDirectory(prefix="costmatch-") as folder:
        return _finish(run_suite(suite, Path(folder), jobs, backend))


def _finish(outcome) -> list[RunRecord]:
    if outcome.interrupted:
        raise KeyboardInterrupt(f"interrupted; finished cells are kept in {outcome.results}")
    if getattr(outcome, "lost", None):
        raise RuntimeError(f"the cluster was lost ({outcome.lost}); finished cells are kept in "
                           f"{outcome.results}: call run() again with the same out= to resume")
    return list(outcome.records)


def check(records: list[RunRecord] | str | Path, baseline: str, candidate: str, margin: float | str, *,
          fixed: str | None = None, alpha: float = 0.05, tolerance: float = 0.1, lower_is_better: bool = False):
    """The CI gate in Python: (verdict, per-group results, comparison) for `candidate` against `baseline`.

    `records` is a list of records or a results file. The verdict is the
    worst over the groups where both arms ran: "PASS", "FAIL" or "INCONCLUSIVE".
    """
    from .analysis.gate import overall, run_gate
    from .core.records import read_records

    if baseline == candidate:
        raise InputError(f"check: baseline and candidate are both {baseline!r}; name two different arms")
    if isinstance(records, (str, Path)):
        records = read_records(records)
    results, comparison = run_gate(list(records), fixed, baseline, candidate, str(margin), alpha, tolerance,
                                   lower_is_better)
    return overall(results), results, comparison
