"""Suite files (TOML): which arms run on which workloads, at which budgets and seeds.

A suite is checked completely before any cell runs, because a typo found
after an hour of model calls costs an hour of model calls. Every mistake is
an InputError naming the file, the key and the fix.

    seeds = 5                 # a count (0..n-1) or a list
    jobs = 2
    out = "costmatch-out"
    timeout = 120             # seconds per cell; a hung cell becomes an error record

    [arms.greedy]
    path = "arms.selection:Greedy"
    params = {}

    [[workloads]]
    name = "search-sim"
    path = "workloads.search_sim:SearchSim"
    fixed = "tokens"
    budget = {tokens = 400000}       # or budgets = [{...}, {...}] for a sweep
    arms = ["greedy"]
"""
from __future__ import annotations

import importlib
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .budget import Budget
from .errors import InputError

_TOP_KEYS = {"name", "seeds", "jobs", "backend", "timeout", "out", "tolerance", "arms", "workloads"}
_ARM_KEYS = {"path", "params"}
_WORKLOAD_KEYS = {"name", "path", "params", "fixed", "budget", "budgets", "arms", "seeds", "tolerance"}
BACKENDS = ("loky", "threading", "sequential", "dask", "ray")


@dataclass(frozen=True)
class ArmSpec:
    name: str
    path: str
    params: dict[str, Any]


@dataclass(frozen=True)
class WorkloadSpec:
    name: str
    path: str
    params: dict[str, Any]
    fixed: str
    budgets: tuple[Budget, ...]
    arms: tuple[str, ...]
    seeds: tuple[int, ...]
    tolerance: float


@dataclass(frozen=True)
class Cell:
    """One (workload, budget, arm, seed): the unit of work, small and picklable."""

    workload: WorkloadSpec
    arm: ArmSpec
    budget: Budget
    seed: int
    timeout: float | None

    def identity(self) -> tuple[str, str, str, int]:
        from .records import budget_key
        return (self.workload.name, budget_key(self.budget.to_dict()), self.arm.name, self.seed)


@dataclass
class Suite:
    name: str
    source: str
    arms: dict[str, ArmSpec]
    workloads: list[WorkloadSpec]
    jobs: int = 1
    backend: str = "loky"
    timeout: float | None = None
    out: str = "costmatch-out"
    fixed_units: list[str] = field(default_factory=list)

    def cells(self) -> list[Cell]:
        """Every cell in a fixed order (workload, budget, seed, arm)."""
        out = []
        for w in self.workloads:
            for budget in w.budgets:
                for seed in w.seeds:
                    for arm in w.arms:
                        out.append(Cell(w, self.arms[arm], budget, seed, self.timeout))
        return out


def resolve(path: str, where: str) -> Any:
    """Import ``"package.module:Name"``; InputError with the fix when it does not resolve."""
    if not isinstance(path, str) or ":" not in path:
        raise InputError(f"{where}: path {path!r} must look like 'package.module:ClassName'")
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"{where}: cannot import module {module_name!r} ({exc}); check the path "
                         "and that the module is installed or on PYTHONPATH") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise InputError(f"{where}: module {module_name!r} has no {attr!r}") from None


def _type(value, types, where: str, what: str):
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise InputError(f"{where}: {what}, got {value!r}")
    if not isinstance(value, types):
        raise InputError(f"{where}: {what}, got {value!r}")
    return value


def _unknown(table: dict, allowed: set, where: str) -> None:
    for key in table:
        if key not in allowed:
            raise InputError(f"{where}: unknown key {key!r}; allowed keys are {', '.join(sorted(allowed))}")


def _seeds(value, where: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise InputError(f"{where}: 'seeds' must be at least 1, got {value}")
        return tuple(range(value))
    if isinstance(value, list) and value and all(isinstance(s, int) and not isinstance(s, bool) for s in value):
        if len(set(value)) != len(value):
            raise InputError(f"{where}: 'seeds' lists a seed twice; each seed runs once per arm")
        return tuple(value)
    raise InputError(f"{where}: 'seeds' must be a count (e.g. 5) or a list of integers, got {value!r}")


def add_import_roots(*dirs: Path) -> None:
    """Make user modules next to the suite (and in the working directory) importable,
    here and in worker processes (which inherit PYTHONPATH), as `python -m` would."""
    import os
    import sys

    roots = [str(Path(d).resolve()) for d in dirs]
    for root in reversed(roots):
        if root not in sys.path:
            sys.path.insert(0, root)
    current = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(roots + current))


def load_suite(path: str | Path, check_imports: bool = True) -> Suite:
    path = Path(path)
    add_import_roots(Path.cwd(), path.parent)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read suite ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc}); a repeated arm name is one cause") from None
    return parse_suite(data, str(path), check_imports)


def parse_suite(data: dict, source: str, check_imports: bool = True) -> Suite:
    _unknown(data, _TOP_KEYS, source)
    seeds = _seeds(data.get("seeds", 5), source)
    jobs = _type(data.get("jobs", 1), int, f"{source}: 'jobs'", "must be a positive integer")
    if jobs < 1:
        raise InputError(f"{source}: 'jobs' must be at least 1, got {jobs}")
    backend = data.get("backend", "loky")
    if backend not in BACKENDS:
        raise InputError(f"{source}: 'backend' is {backend!r}; choose one of {', '.join(BACKENDS)}")
    timeout = data.get("timeout")
    if timeout is not None:
        _type(timeout, (int, float), f"{source}: 'timeout'", "must be a number of seconds")
        if not math.isfinite(timeout) or timeout <= 0:
            raise InputError(f"{source}: 'timeout' must be a positive number of seconds, got {timeout!r}")
    tolerance = data.get("tolerance", 0.1)
    _type(tolerance, (int, float), f"{source}: 'tolerance'", "must be a number like 0.1")

    arms_table = _type(data.get("arms", {}), dict, f"{source}: 'arms'",
                       "must be tables like [arms.greedy] with a 'path'")
    if not arms_table:
        raise InputError(f"{source}: no arms; add a table like [arms.greedy] with path = 'module:Class'")
    arms: dict[str, ArmSpec] = {}
    for name, spec in arms_table.items():
        where = f"{source}: arms.{name}"
        _type(spec, dict, where, "must be a table with 'path' and optional 'params'")
        _unknown(spec, _ARM_KEYS, where)
        if "path" not in spec:
            raise InputError(f"{where}: missing 'path' (e.g. path = 'arms.selection:Greedy')")
        params = _type(spec.get("params", {}), dict, f"{where}.params", "must be a table")
        if check_imports:
            _construct(resolve(spec["path"], f"{where}.path"), params, f"{where}.params")
        arms[name] = ArmSpec(name, spec["path"], params)

    workloads_list = _type(data.get("workloads", []), list, f"{source}: 'workloads'",
                           "must be an array of tables [[workloads]]")
    if not workloads_list:
        raise InputError(f"{source}: no workloads; add a [[workloads]] table")
    workloads, seen = [], set()
    for i, spec in enumerate(workloads_list):
        where = f"{source}: workloads[{i}]"
        _type(spec, dict, where, "must be a table")
        _unknown(spec, _WORKLOAD_KEYS, where)
        for key in ("name", "path", "fixed", "arms"):
            if key not in spec:
                raise InputError(f"{where}: missing {key!r}")
        name = _type(spec["name"], str, f"{where}.name", "must be a string")
        params = _type(spec.get("params", {}), dict, f"{where}.params", "must be a table")
        if ("budget" in spec) == ("budgets" in spec):
            raise InputError(f"{where}: give exactly one of 'budget' (a table) or 'budgets' (a list of tables)")
        raw = [spec["budget"]] if "budget" in spec else spec["budgets"]
        if not isinstance(raw, list) or not raw:
            raise InputError(f"{where}.budgets: must be a non-empty list of tables like {{tokens = 200000}}")
        budgets = []
        for j, b in enumerate(raw):
            if not isinstance(b, dict):
                raise InputError(f"{where}.budget: must be a table like {{tokens = 200000}}, got {b!r}")
            try:
                budgets.append(Budget(b))
            except ValueError as exc:
                raise InputError(f"{where}.budget: {exc}") from None
        fixed = _type(spec["fixed"], str, f"{where}.fixed", "must be a unit name")
        for b in budgets:
            if fixed not in b:
                raise InputError(f"{where}.fixed: {fixed!r} is not a unit of the budget "
                                 f"({', '.join(b.units)}); a fixed unit must have an allowance")
        arm_names = _type(spec["arms"], list, f"{where}.arms", "must be a list of arm names")
        for arm in arm_names:
            if arm not in arms:
                raise InputError(f"{where}.arms: unknown arm {arm!r}; defined arms: {', '.join(arms)}")
        if len(set(arm_names)) != len(arm_names):
            raise InputError(f"{where}.arms: an arm is listed twice")
        keys = [(name, b) for b in budgets]
        for key in keys:
            if key in seen:
                raise InputError(f"{where}: workload {name!r} at budget {key[1]!r} appears twice; "
                                 "give the second entry another name")
            seen.add(key)
        if check_imports:
            workload = _construct(resolve(spec["path"], f"{where}.path"), params, f"{where}.params")
            measures = set(getattr(workload, "measures", ()))
            for b in budgets:
                for unit in b.units:
                    if unit not in measures and unit not in ("prompt_tokens", "completion_tokens", "tokens", "usd"):
                        raise InputError(f"{where}.budget: unit {unit!r} is not measured by {spec['path']} "
                                         f"(it measures {', '.join(sorted(measures))})")
        w_seeds = _seeds(spec["seeds"], where) if "seeds" in spec else seeds
        w_tol = spec.get("tolerance", tolerance)
        workloads.append(WorkloadSpec(name, spec["path"], params, fixed, tuple(budgets), tuple(arm_names),
                                      w_seeds, float(w_tol)))
    out = _type(data.get("out", "costmatch-out"), str, f"{source}: 'out'", "must be a directory path")
    return Suite(str(data.get("name", Path(source).stem)), source, arms, workloads, jobs, backend,
                 None if timeout is None else float(timeout), out,
                 sorted({w.fixed for w in workloads}))


def _construct(cls, params: dict, where: str):
    try:
        return cls(**params)
    except TypeError as exc:
        raise InputError(f"{where}: {exc}; check the parameter names") from None
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
