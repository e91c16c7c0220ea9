"""Suite files (TOML): which arms run on which workloads, at which budgets and seeds.

A suite is checked completely before any cell runs, because a typo found
after an hour of model calls costs an hour of model calls. Every mistake is
an InputError naming the file, the key and the fix: every value is checked,
every arm and workload class is imported, constructed with its params and
checked against the protocols (`baselines/core/protocols.py`), and every (workload,
arm) pair against the declarations of both.

User modules are imported from where the suite says and nowhere else:
installed packages first; then the suite's folder and the folders its
``import_paths`` names (see `user_imports`). Nothing is put on ``sys.path``
or on the workers' ``PYTHONPATH`` (a ``joblib.py`` or ``zlib.py`` beside the
suite, or in the working directory, must not run), and a ``workloads/``
folder beside a suite cannot hide the built-in package.

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

import dataclasses
import json
import math
import re
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.budget import Budget
from ..core.errors import InputError
from ..core.file_kind import foreign_kind
from ..core.input_files import read_input
from ..core.protocols import check_arm, check_workload, incompatibility
from .class_checks import check_class, check_params
from ..core.provenance import by_value, by_value_hash, register_class
from ..core.json_line import MAX_DEPTH, json_depth, show
from ..core.records import MAX_AMOUNT, SEED_MAX, budget_key
from ..core.suggest import did_you_mean
from ..core.units import STANDARD_UNITS, canonical_unit
from .user_imports import (isolated_workers, origin_root, register_folders, register_root, resolve,  # noqa: F401
                           resolve_syntax)

_TOP_KEYS = {"name", "seeds", "jobs", "backend", "timeout", "out", "tolerance", "import_paths", "arms", "workloads",
             "claim", "questions"}
_ARM_KEYS = {"path", "params"}
_WORKLOAD_KEYS = {"name", "path", "params", "fixed", "budget", "budgets", "arms", "seeds", "tolerance"}
BACKENDS = ("loky", "threading", "sequential", "dask", "ray")
MAX_SEEDS = 100_000        # seeds per workload: a count beyond this is a typo, not a plan
MAX_CELLS = 1_000_000      # cells per suite
MAX_TIMEOUT = 7 * 24 * 3600.0
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,200}")


class _UserClassSpec:
    """A spec that names a user class by `path`, found from the suite's folder `root`.

    A class no worker can import by name (defined in a script, a notebook or
    a function: `provenance.register_class`) travels with the spec by value,
    pickled with cloudpickle (what loky, Dask and Ray use for such classes),
    together with the hash of its source taken where it was defined.
    """

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        cls = by_value(self.path)
        if cls is not None:
            import cloudpickle  # only a class from a script or notebook needs it (a dependency of loky)
            state["_by_value"] = (cloudpickle.dumps(cls), by_value_hash(self.path))
        return state

    def __setstate__(self, state: dict) -> None:
        # unpickled in a worker: make the suite's own modules findable there too (never via PYTHONPATH)
        sent = state.pop("_by_value", None)
        self.__dict__.update(state)
        if sent is not None:
            import pickle
            register_class(self.path, pickle.loads(sent[0]), sent[1])
        register_folders(self.folders)
        register_root(self.path, self.root)


@dataclass(frozen=True)
class ArmSpec(_UserClassSpec):
    name: str
    path: str
    params: dict[str, Any]
    root: str | None = None   # the suite's folder, for user modules (see resolve)
    folders: tuple[str, ...] = ()  # the suite's folder and its import_paths: where its other modules are found


@dataclass(frozen=True)
class WorkloadSpec(_UserClassSpec):
    name: str
    path: str
    params: dict[str, Any]
    fixed: str
    budgets: tuple[Budget, ...]
    arms: tuple[str, ...]
    seeds: tuple[int, ...]
    tolerance: float
    root: str | None = None
    folders: tuple[str, ...] = ()


@dataclass(frozen=True)
class Cell:
    """One (workload, budget, arm, seed): the unit of work, small and picklable."""

    workload: WorkloadSpec
    arm: ArmSpec
    budget: Budget
    seed: int
    timeout: float | None

    def identity(self) -> tuple[str, str, str, int]:
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
    claim: str = "auto"        # the claim the run report's pair verdicts make (issue 37), fixed before the data
    questions: str = "population"   # what its item-paired verdicts are about when question ids recur (issue 37)

    def tolerance_of(self, unit: str) -> float:
        """The drift tolerance of the comparison at equal `unit`: the strictest of its workloads'.

        One rule for the run report and the sequential gate, so both judge a
        run's spend alike.
        """
        return min(w.tolerance for w in self.workloads if w.fixed == unit)

    def cells(self) -> list[Cell]:
        """Every cell in a fixed order (workload, budget, seed, arm).

        A cell's workload spec leaves out the suite's seed list: every task
        sent to a worker pickles the spec, and a 10,000-seed workload made a
        one-cell task 30 KB and 1.2 ms to unpickle.
        """
        out = []
        for w in self.workloads:
            spec = dataclasses.replace(w, seeds=())
            for budget in w.budgets:
                for seed in w.seeds:
                    for arm in w.arms:
                        out.append(Cell(spec, self.arms[arm], budget, seed, self.timeout))
        return out


# -- value checks ----------------------------------------------------------------------
def _type(value, types, where: str, what: str):
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise InputError(f"{where}: {what}, got {show(value)}")
    if not isinstance(value, types):
        raise InputError(f"{where}: {what}, got {show(value)}")
    return value


def _unknown(table: dict, allowed: set, where: str) -> None:
    for key in table:
        if key not in allowed:
            raise InputError(f"{where}: unknown key {show(key)}{did_you_mean(key, sorted(allowed))}; allowed keys are "
                             f"{', '.join(sorted(allowed))}")


def _name(value, where: str, what: str) -> str:
    """A name that becomes a record field and a file-name part: 1-200 printable characters."""
    if not isinstance(value, str) or not _NAME.fullmatch(value) or not value.strip():
        raise InputError(f"{where}: {what} must be 1 to 200 printable characters (no control characters), "
                         f"got {show(value)}")
    return value


def _seeds(value, where: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise InputError(f"{where}: 'seeds' must be at least 1, got {show(value)}")
        if value > MAX_SEEDS:
            raise InputError(f"{where}: 'seeds' is {show(value)}, above the limit of {MAX_SEEDS:,} seeds; "
                             "give a smaller count")
        return tuple(range(value))
    if isinstance(value, list) and value and all(isinstance(s, int) and not isinstance(s, bool) for s in value):
        if len(value) > MAX_SEEDS:
            raise InputError(f"{where}: 'seeds' lists {len(value):,} seeds, above the limit of {MAX_SEEDS:,}")
        bad = [s for s in value if not 0 <= s <= SEED_MAX]
        if bad:
            raise InputError(f"{where}: seed {show(bad[0])} is outside 0..2^63-1; seeds are non-negative 64-bit integers")
        if len(set(value)) != len(value):
            raise InputError(f"{where}: 'seeds' lists a seed twice; each seed runs once per arm")
        return tuple(value)
    raise InputError(f"{where}: 'seeds' must be a count (e.g. 5) or a list of integers, got {show(value)}")


def _tolerance(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"{where}: 'tolerance' must be a finite non-negative number like 0.1, got {show(value)}")
    return float(value)


def _params(value, where: str) -> dict[str, Any]:
    """A params table that records can carry: JSON values only (no TOML dates, no NaN)."""
    _type(value, dict, where, "must be a table")
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: every value must be a string, number, boolean, array or table "
                         f"that JSON can hold ({exc}); write dates as strings and no nan/inf") from None
    if json_depth(text.encode(), MAX_DEPTH - 2) > MAX_DEPTH - 2:  # the record nests params two levels down
        raise InputError(f"{where}: nested deeper than {MAX_DEPTH - 2} levels; records could not be read back")
    return value


def _budget(raw, where: str) -> Budget:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: must be a table like {{tokens = 200000}}, got {show(raw)}")
    written = {}
    for unit, value in raw.items():   # the aliases the command line accepts (token, dollars, rollout)
        name = canonical_unit(unit)
        if name in written:
            raise InputError(f"{where}: {show(unit)} and {show(written[name][0])} both name the unit {name!r}; "
                             "give it once")
        written[name] = (unit, value)
    raw = {name: value for name, (_, value) in written.items()}
    try:
        budget = Budget(raw)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    for unit, value in budget.limits.items():
        if value > MAX_AMOUNT:
            raise InputError(f"{where}: '{unit}' is {value!r}, above the largest allowance {MAX_AMOUNT:g}")
    return budget


# -- reading ------------------------------------------------------------------------------
_TOML_AT = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$")


def load_suite(path: str | Path, check_imports: bool = True) -> Suite:
    """Read, check and (with `check_imports`) load every class of a suite file."""
    path = Path(path)
    raw = read_input(path, "suite")  # a FIFO, a device or a folder is refused before it can block
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        kind = foreign_kind(raw[:16])
        if kind is not None:
            raise InputError(f"{path}: is {kind[0]}, not a suite (UTF-8 TOML); {kind[1]}") from None
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not UTF-8 text (byte {raw[exc.start]:#04x}); save the suite as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _TOML_AT.match(message)
        if at:
            raise InputError(f"{path}:{at.group(2)}:{at.group(3)}: not valid TOML: {at.group(1)}") from None
        raise InputError(f"{path}: not valid TOML: {message}") from None
    except RecursionError:
        raise InputError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
    return parse_suite(data, str(path), check_imports, root=str(path.resolve().parent))


def parse_suite(data: dict, source: str, check_imports: bool = True, root: str | None = None) -> Suite:
    """Check a parsed suite completely; InputError names the file, the key and the fix."""
    _unknown(data, _TOP_KEYS, source)
    seeds, jobs, backend, timeout, tolerance, name, out = _suite_settings(data, source)
    folders = _import_paths(data.get("import_paths", []), source, root)
    register_folders(folders)
    arms, instances = _parse_arms(data, source, check_imports, root, folders)
    workloads_list = _type(data.get("workloads", []), list, f"{source}: 'workloads'",
                           "must be an array of tables [[workloads]]")
    if not workloads_list:
        raise InputError(f"{source}: no workloads; add a [[workloads]] table")
    workloads, seen, cells = [], set(), 0
    for i, spec in enumerate(workloads_list):
        workload, cells = _parse_workload(spec, f"{source}: workloads[{i}]", arms, instances, seeds, tolerance,
                                          seen, cells, check_imports, root)
        workload = dataclasses.replace(workload, folders=folders)
        _same_as_namesake(workload, workloads, f"{source}: workloads[{i}]")
        workloads.append(workload)
    return Suite(name, source, arms, workloads, jobs, backend,
                 None if timeout is None else float(timeout), out,
                 sorted({w.fixed for w in workloads}), _claim(data.get("claim", "auto"), source),
                 _questions(data.get("questions", "population"), source))


def _claim(value, where: str) -> str:
    """The suite's `claim` key: which claim the run report's verdicts make (decided before any data)."""
    if value not in ("auto", "typical", "mean", "both"):
        raise InputError(f"{where}: 'claim' must be \"auto\", \"typical\", \"mean\" or \"both\", got {show(value)}")
    return value


def _questions(value, where: str) -> str:
    """The suite's `questions` key: what item-paired verdicts are about when question ids recur across seeds."""
    if value not in ("population", "these"):
        raise InputError(f"{where}: 'questions' must be \"population\" or \"these\", got {show(value)}")
    return value


def _same_as_namesake(workload: WorkloadSpec, earlier: list[WorkloadSpec], where: str) -> None:
    """Two entries may share a name (other budgets) only with one path and the same params (docs/suite.md)."""
    for other in earlier:
        if other.name == workload.name and (other.path, other.params) != (workload.path, workload.params):
            what = "path" if other.path != workload.path else "params"
            raise InputError(f"{where}: workload {workload.name!r} is named by an earlier entry with another "
                             f"{what}; entries that share a name must share path and params: give this one "
                             "another name")


def _suite_settings(data: dict, source: str):
    """The suite's top-level scalars, checked in the order the file documents them (first error wins)."""
    seeds = _seeds(data.get("seeds", 5), source)
    jobs = _type(data.get("jobs", 1), int, f"{source}: 'jobs'", "must be a positive integer")
    if jobs < 1:
        raise InputError(f"{source}: 'jobs' must be at least 1, got {jobs}")
    backend = data.get("backend", "loky")
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InputError(f"{source}: 'backend' is {show(backend)}; choose one of {', '.join(BACKENDS)}")
    timeout = data.get("timeout")
    if timeout is not None:
        _type(timeout, (int, float), f"{source}: 'timeout'", "must be a number of seconds")
        if not math.isfinite(timeout) or timeout <= 0 or timeout > MAX_TIMEOUT:
            raise InputError(f"{source}: 'timeout' must be a positive number of seconds up to "
                             f"{MAX_TIMEOUT:g} (a week), got {timeout!r}")
    tolerance = _tolerance(data.get("tolerance", 0.1), source)
    name = data.get("name", Path(source).stem)
    _type(name, str, f"{source}: 'name'", "must be a string")
    out = _type(data.get("out", "costmatch-out"), str, f"{source}: 'out'", "must be a directory path")
    if not out.strip() or "\x00" in out:
        raise InputError(f"{source}: 'out' must be a directory path, got {show(out)}")
    return seeds, jobs, backend, timeout, tolerance, name, out


def _import_paths(value, source: str, root: str | None) -> tuple[str, ...]:
    """The suite's folder and the folders ``import_paths`` names (relative to it), each an existing folder."""
    where = f"{source}: 'import_paths'"
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and "\x00" not in v for v in value):
        raise InputError(f"{where}: must be a list of folder names relative to the suite, like [\"src\"], got "
                         f"{show(value)}")
    base = Path(root) if root else Path.cwd()
    folders = [str(base.resolve())] if root else []
    for entry in value:
        folder = (base / entry).resolve()
        if not folder.is_dir():
            raise InputError(f"{where}: {entry!r} is not a folder (looked for {folder}); create it or fix the name")
        folders.append(str(folder))
    return tuple(dict.fromkeys(folders))


def _parse_arms(data: dict, source: str, check_imports: bool, root: str | None, folders: tuple[str, ...] = ()):
    """The [arms.*] tables as specs, plus constructed instances so workloads can check compatibility."""
    arms_table = _type(data.get("arms", {}), dict, f"{source}: 'arms'",
                       "must be tables like [arms.greedy] with a 'path'")
    if not arms_table:
        raise InputError(f"{source}: no arms; add a table like [arms.greedy] with path = 'module:Class'")
    arms: dict[str, ArmSpec] = {}
    instances: dict[str, Any] = {}
    for arm_name, spec in arms_table.items():
        where = f"{source}: arms.{show(arm_name)}" if not _NAME.fullmatch(arm_name or "") else f"{source}: arms.{arm_name}"
        _name(arm_name, where, "an arm name")
        _type(spec, dict, where, "must be a table with 'path' and optional 'params'")
        _unknown(spec, _ARM_KEYS, where)
        if "path" not in spec:
            raise InputError(f"{where}: missing 'path' (e.g. path = 'arms.selection:Greedy')")
        params = _params(spec.get("params", {}), f"{where}.params")
        if check_imports:
            arm = _construct(_resolved(spec["path"], "arm", where, root, params), params, f"{where}.params")
            check_arm(arm, f"{where}.path")
            instances[arm_name] = arm
        else:
            resolve_syntax(spec["path"], f"{where}.path")
        arms[arm_name] = ArmSpec(arm_name, spec["path"], params, origin_root(spec["path"]) or root, folders)
    return arms, instances


_WORKLOAD_EXAMPLES = {   # what a missing required key's error line suggests (docs/suite.md)
    "name": "name = \"my-task\" (the workload's name in results and reports)",
    "path": "path = \"workloads.search_sim:SearchSim\" (the workload class, module:Class)",
    "fixed": "fixed = \"UNIT\" (the unit the arms are matched in; it needs an allowance in every budget)",
    "arms": "arms = [\"NAME\", ...] (names of [arms.NAME] tables)",
}


def _missing_example(spec: dict, key: str) -> str:
    """The fix for a missing required key; for `fixed`, a unit the entry's own budget names."""
    raw = spec.get("budget", (spec.get("budgets") or [None])[0] if isinstance(spec.get("budgets"), list) else None)
    if key == "fixed" and isinstance(raw, dict) and raw:
        units = [str(u) for u in raw]
        return (f"fixed = \"{units[0]}\" (the unit the arms are matched in; it needs an allowance in every "
                f"budget; this budget names {', '.join(units)})")
    return _WORKLOAD_EXAMPLES[key]


def _parse_workload(spec, where: str, arms: dict, instances: dict, seeds, tolerance: float, seen: set,
                    cells: int, check_imports: bool, root: str | None) -> tuple[WorkloadSpec, int]:
    """One [[workloads]] entry as a spec and the running cell count (`seen` catches duplicate budgets)."""
    _type(spec, dict, where, "must be a table")
    _unknown(spec, _WORKLOAD_KEYS, where)
    for key in ("name", "path", "fixed", "arms"):
        if key not in spec:
            raise InputError(f"{where}: missing {key!r}; add {_missing_example(spec, key)}")
    w_name = _name(spec["name"], f"{where}.name", "a workload name")
    params = _params(spec.get("params", {}), f"{where}.params")
    budgets, fixed = _workload_budgets(spec, where)
    arm_names = _workload_arms(spec, where, arms)
    for b in budgets:
        if (w_name, b) in seen:
            raise InputError(f"{where}: workload {w_name!r} at budget {b!r} appears twice; "
                             "give the second entry another name")
        seen.add((w_name, b))
    w_seeds = _seeds(spec["seeds"], where) if "seeds" in spec else seeds
    w_tol = _tolerance(spec["tolerance"], where) if "tolerance" in spec else tolerance
    cells += len(budgets) * len(w_seeds) * len(arm_names)
    if cells > MAX_CELLS:
        raise InputError(f"{where}: the suite has more than {MAX_CELLS:,} cells (budgets x seeds x arms); "
                         "split it or use fewer seeds")
    if check_imports:
        _check_workload(spec, where, w_name, params, budgets, arm_names, instances, root)
    else:
        resolve_syntax(spec["path"], f"{where}.path")
    return WorkloadSpec(w_name, spec["path"], params, fixed, tuple(budgets), tuple(arm_names),
                        w_seeds, w_tol, origin_root(spec["path"]) or root), cells


def _workload_budgets(spec: dict, where: str) -> tuple[list[Budget], str]:
    """A workload's budget list and fixed unit; the fixed unit must have an allowance in every budget."""
    if ("budget" in spec) == ("budgets" in spec):
        raise InputError(f"{where}: give exactly one of 'budget' (a table) or 'budgets' (a list of tables)")
    raw = [spec["budget"]] if "budget" in spec else spec["budgets"]
    if not isinstance(raw, list) or not raw:
        raise InputError(f"{where}.budgets: must be a non-empty list of tables like {{tokens = 200000}}")
    budgets = [_budget(b, f"{where}.budget") for b in raw]
    written = _type(spec["fixed"], str, f"{where}.fixed", "must be a unit name")
    fixed = canonical_unit(written)
    for b, table in zip(budgets, raw):
        if fixed not in b:
            typo = [u for u in table if u not in STANDARD_UNITS and canonical_unit(u) == u
                    and did_you_mean(u, [fixed, *STANDARD_UNITS], cutoff=0.75)]
            if typo:  # blame the unit the user wrote (`budget = {tokns = ...}`), not the fixed key
                raise InputError(f"{where}.budget: unit {show(typo[0])} is not a unit costmatch knows"
                                 f"{did_you_mean(typo[0], [fixed, *STANDARD_UNITS], cutoff=0.75)}; fixed = "
                                 f"{show(written)} needs an allowance in that unit")
            raise InputError(f"{where}.fixed: {show(written)} is not a unit of the budget "
                             f"({', '.join(b.units)}){did_you_mean(written, list(b.units))}; a fixed unit must "
                             "have an allowance")
    return budgets, fixed


def _workload_arms(spec: dict, where: str, arms: dict) -> list:
    """A workload's arm list: defined arms only, each once, at least one."""
    arm_names = _type(spec["arms"], list, f"{where}.arms", "must be a list of arm names")
    if not arm_names:
        raise InputError(f"{where}.arms: no arms; list at least one arm name")
    for arm in arm_names:
        if not isinstance(arm, str) or arm not in arms:
            raise InputError(f"{where}.arms: unknown arm {show(arm)}{did_you_mean(arm, list(arms))}; defined arms: "
                             f"{_listing(arms)}")
    if len(set(arm_names)) != len(arm_names):
        raise InputError(f"{where}.arms: an arm is listed twice")
    return arm_names


def _check_workload(spec: dict, where: str, w_name: str, params: dict, budgets: list, arm_names: list,
                    instances: dict, root: str | None) -> None:
    """Construct the workload and check its units and arms now, so a bad suite fails before any cell runs."""
    workload = _construct(_resolved(spec["path"], "workload", where, root, params), params, f"{where}.params")
    check_workload(workload, f"{where}.path")
    measures = set(workload.measures)
    for b in budgets:
        for unit in b.units:
            if unit not in measures and unit not in ("prompt_tokens", "completion_tokens", "tokens", "usd"):
                hint = did_you_mean(unit, sorted(measures | set(STANDARD_UNITS)))
                raise InputError(f"{where}.budget: unit {unit!r} is not measured by {spec['path']}{hint} "
                                 f"(it measures {', '.join(sorted(measures))})")
    for arm in arm_names:
        why = _guarded(lambda: incompatibility(workload, instances[arm]), f"{where}.arms")
        if why:
            raise InputError(f"{where}.arms: arm {arm!r} cannot run on workload {w_name!r}: {why}; "
                             "remove it from this workload's arms")


def _listing(names, limit: int = 20) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _user_error(exc: BaseException, where: str) -> InputError:
    frames = traceback.extract_tb(exc.__traceback__)
    at = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    message = str(exc).splitlines()[0][:200] if str(exc) else ""
    return InputError(f"{where}: {type(exc).__name__}{at}: {message}")


def _guarded(call, where: str):
    """Run a user hook (e.g. `accepts`) and turn whatever it raises into one line."""
    try:
        return call()
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - a user's code failed
        raise _user_error(exc, where) from None


def _resolved(path: str, kind: str, where: str, root: str | None, params: dict) -> Any:
    """The class `path` names, checked as deeply as `run` will use it (class_checks) before it is built."""
    cls = resolve(path, f"{where}.path", root)
    check_class(cls, kind, f"{where}.path")
    check_params(cls, params, f"{where}.params")
    return cls


def _construct(cls, params: dict, where: str):
    if not callable(cls):
        raise InputError(f"{where}: {show(cls)} is not a class; the path must name a class")
    try:
        return cls(**params)
    except TypeError as exc:
        raise InputError(f"{where}: {str(exc).splitlines()[0] if str(exc) else 'TypeError'}; "
                         "check the parameter names") from None
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's constructor refused its params
        raise _user_error(exc, where) from None
