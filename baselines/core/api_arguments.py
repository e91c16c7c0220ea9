"""Every parameter of `run`, `compare` and `check`, checked at the API boundary before any work.

Why: `run(arms={5: Greedy})` raised "TypeError: expected string or
bytes-like object, got 'int'" from inside suite parsing (issue 41), naming
no argument; `compare(tolerance="x")` and `check(bounds=3)` failed as deep.
Each rule here says what one parameter takes; the first one broken is one
line naming the function, the parameter, the value given and what it takes.
The error is an `ArgumentError`, both an InputError (a ValueError) and a
TypeError, so callers that caught either before still catch it.
"""
from __future__ import annotations

import math
import os
from typing import Any, Callable, Mapping

from .budget import Budget
from .errors import InputError
from .json_line import show
from .records import RunRecord


class ArgumentError(InputError, TypeError):
    """A Python API argument that its function does not take: named, with its value and what it takes."""


#: a rule: None when the value is fine, else the words for what is wrong ("" means: the value as a whole)
Rule = Callable[[Any], "str | None"]

BACKENDS = ("loky", "threading", "sequential", "dask", "ray")


def check_arguments(function: str, rules: Mapping[str, tuple[Rule, str]], given: Mapping[str, Any]) -> None:
    """Raise ArgumentError for the first parameter of `given` its rule refuses: `function: name must be ...; got ...`."""
    for name, value in given.items():
        rule, takes = rules[name]
        problem = rule(value)
        if problem is not None:
            what = problem or f"{show(value)} ({type(value).__name__})"
            raise ArgumentError(f"{function}: {name} must be {takes}; got {name}={what}")


# -- rules -----------------------------------------------------------------------------------
def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def optional(rule: Rule) -> Rule:
    return lambda value: None if value is None else rule(value)


def boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else ""


def name(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else ""


def choice(*choices: str) -> Rule:
    return lambda value: None if isinstance(value, str) and value in choices else ""


def number(low: float = -math.inf, *, above: bool = False, high: float = math.inf, below: bool = False) -> Rule:
    """A finite number (not a bool) within low..high; `above`/`below` exclude the ends."""
    def rule(value: Any) -> str | None:
        if not _is_number(value):
            return ""
        if value < low or (above and value == low) or value > high or (below and value == high):
            return ""
        return None
    return rule


def integer(low: int | None = None) -> Rule:
    def rule(value: Any) -> str | None:
        ok = isinstance(value, int) and not isinstance(value, bool) and (low is None or value >= low)
        return None if ok else ""
    return rule


def path(value: Any) -> str | None:
    return None if isinstance(value, (str, os.PathLike)) and str(value).strip() else ""


def names(value: Any) -> str | None:
    """One name, or a list of names (strings)."""
    if isinstance(value, str):
        return None
    if isinstance(value, (Mapping, bytes)) or not hasattr(value, "__iter__"):
        return ""
    for i, item in enumerate(value):
        if not isinstance(item, str):
            return f"{show(value)} (item {i} is {type(item).__name__} {show(item)})"
    return None


def unit_values(value: Any) -> str | None:
    """(unit, value) pairs, e.g. [("tokens", 1000)]."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return ""
    for i, item in enumerate(value):
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str)
                and _is_number(item[1])):
            return f"{show(value)} (item {i} is {show(item)})"
    return None


def value_range(value: Any) -> str | None:
    """(lo, hi), two finite numbers with lo < hi."""
    ok = isinstance(value, (tuple, list)) and len(value) == 2 and all(map(_is_number, value)) and value[0] < value[1]
    return None if ok else ""


def seeds(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return None if value >= 1 else ""
    if isinstance(value, (list, tuple)) and value:
        for i, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int):
                return f"{show(value)} (item {i} is {type(item).__name__} {show(item)})"
        return None
    return ""


def spec(value: Any) -> str | None:
    """A class, an import path 'module:Class', or (either, params dict)."""
    if isinstance(value, tuple):
        if len(value) == 2 and spec(value[0]) is None and not isinstance(value[0], tuple) \
                and isinstance(value[1], Mapping) and all(isinstance(k, str) for k in value[1]):
            return None
        return ""
    if isinstance(value, type):
        return None
    return None if isinstance(value, str) and ":" in value and value.strip() else ""


def arms(value: Any) -> str | None:
    """name -> spec, or a list of specs (named by their class); never empty."""
    if isinstance(value, Mapping):
        if not value:
            return "{} (no arms)"
        for key, item in value.items():
            if not isinstance(key, str) or not key.strip():
                return f"{{{show(key)}: ...}} (the arm name {show(key)} is {type(key).__name__}, not a string)"
            if spec(item) is not None:
                return (f"{{{show(key)}: {show(item)}}} (arm {key!r} is {type(item).__name__}, not a class, "
                        "'module:Class' or (class, params))")
        return None
    if isinstance(value, (str, bytes, type, tuple)) or not isinstance(value, (list, set, frozenset)):
        return ""
    if not value:
        return "[] (no arms)"
    for i, item in enumerate(value):
        if spec(item) is not None:
            return f"{show(value)} (item {i} is {type(item).__name__} {show(item)})"
    return None


def _budget_one(value: Any) -> bool:
    if isinstance(value, Budget):
        return True
    return isinstance(value, Mapping) and bool(value) and all(isinstance(k, str) for k in value) \
        and all(v is None or _is_number(v) for v in value.values())


def budget(value: Any) -> str | None:
    """A Budget, a dict of unit -> allowance, or a non-empty list of them (a sweep)."""
    if isinstance(value, list):
        if not value:
            return "[] (no budgets)"
        for i, item in enumerate(value):
            if not _budget_one(item):
                return f"{show(value)} (item {i} is {type(item).__name__} {show(item)})"
        return None
    return None if _budget_one(value) else ""


def records(value: Any) -> str | None:
    """A list of RunRecord (checked item by item when it is a list or tuple; a generator is left to the reader)."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        return ""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if not isinstance(item, RunRecord):
                return f"[...] (item {i} is {type(item).__name__} {show(item)}, not a RunRecord)"
    return None


def instance_of(kind: type) -> Rule:
    return lambda value: None if isinstance(value, kind) else ""


# -- the tables ---------------------------------------------------------------------------------
RUN_RULES: dict[str, tuple[Rule, str]] = {
    "workload": (spec, "a class, an import path 'module:Class', or (either, params dict)"),
    "arms": (arms, "a dict of name -> class (or 'module:Class', or (class, params)), e.g. "
                   "arms={'greedy': Greedy}, or a list of classes"),
    "budget": (budget, "a Budget (e.g. Budget(rollouts=30)), a dict of unit -> allowance, or a list of them"),
    "seeds": (seeds, "a count of seeds (5) or a list of integer seeds ([0, 1, 2])"),
    "fixed": (optional(name), "a unit name such as 'tokens', or None"),
    "out": (optional(path), "a folder path (str or Path), or None"),
    "jobs": (integer(1), "a whole number of worker processes, at least 1"),
    "backend": (choice(*BACKENDS), "one of " + ", ".join(repr(b) for b in BACKENDS)),
    "timeout": (optional(number(0, above=True)), "a number of seconds above 0, or None"),
    "name": (optional(name), "a non-empty workload name, or None"),
    "tolerance": (number(0), "a finite number >= 0, e.g. 0.1 for 10%"),
    "fresh": (boolean, "True or False"),
    "keep_stale": (boolean, "True or False"),
    "retry_errors": (boolean, "True or False"),
    "plots": (boolean, "True or False"),
}


def comparison_rules(table_type: type, options_type: type) -> dict[str, tuple[Rule, str]]:
    """The keywords `compare` and `check` share (a CompareOptions field each), and `records`."""
    return {
        "records": (lambda v: None if isinstance(v, table_type) else records(v),
                    "a list of RunRecord (from run() or read_records()) or a RunTable"),
        "fixed": (optional(name), "a unit name such as 'tokens', or None"),
        "options": (optional(instance_of(options_type)), "a CompareOptions, or None"),
        "tolerance": (optional(number(0)), "a finite number >= 0 (0.1 is 10%), or None"),
        "alpha": (optional(number(0, above=True, high=0.5, below=True)),
                  "a number between 0 and 0.5 (both excluded), like 0.05, or None"),
        "allow_early_stop": (optional(boolean), "True, False or None"),
        "baseline": (optional(name), "an arm name, or None"),
        "equivalence_margin": (optional(number(0, above=True)), "a finite number above 0, or None"),
        "seed": (optional(integer()), "an integer, or None"),
        "metric": (optional(name), "a metric name such as 'reward' or 'auc:tokens', or None"),
        "start": (optional(number()), "a finite number, or None"),
        "pairs": (optional(lambda v: None if isinstance(v, bool) or v in ("auto", "all", "none") else ""),
                  "True, False, 'auto', 'all' or 'none'"),
        "bootstrap": (optional(boolean), "True, False or None"),
        "workloads": (optional(names), "a workload name or a list of names, or None"),
        "budgets": (optional(unit_values), "a list of (unit, value) pairs such as [('tokens', 1000)], or None"),
        "confound_units": (optional(names), "a unit name or a list of unit names, or None"),
        "reward_range": (optional(value_range), "(lo, hi), two finite numbers with lo < hi, or None"),
        "claim": (optional(choice("auto", "typical", "mean", "both")), "'auto', 'typical', 'mean', 'both' or None"),
        "questions": (optional(choice("population", "these")), "'population', 'these' or None"),
    }


def margin(value: Any) -> str | None:
    if _is_number(value):
        return None if value >= 0 else ""
    if isinstance(value, str) and value.strip():
        return None   # "0.02" or "2%": parsed, with its own message, by the gate
    return ""


def check_rules(table_type: type, options_type: type) -> dict[str, tuple[Rule, str]]:
    shared = {k: v for k, v in comparison_rules(table_type, options_type).items()
              if k not in ("equivalence_margin", "seed", "pairs", "bootstrap")}  # compare's own
    return {
        **shared,
        "records": (lambda v: None if isinstance(v, (str, os.PathLike)) else records(v),
                    "a list of RunRecord (from run() or read_records()) or a results file path"),
        "baseline": (name, "the name (a string) of the arm the candidate must not fall behind"),
        "candidate": (name, "the name (a string) of the arm under test"),
        "margin": (margin, "a number like 0.02 or a percentage like '2%' (the largest tolerated loss, "
                           ">= 0)"),
        "lower_is_better": (boolean, "True or False"),
        "bounds": (choice("auto", "t", "betting"), "'auto', 't' or 'betting'"),
        "max_loss": (optional(number(0)), "a finite number >= 0 (the largest loss on any one seed), or None"),
        # issue 40: the gate history and the pinned reference
        "history": (optional(path), "None or the path of a history file (str or os.PathLike)"),
        "commit": (optional(name), "None or a commit id (a string)"),
        "branch": (optional(name), "None or a branch name (a string)"),
        "reference": (optional(path), "None or the path of a reference results file (str or os.PathLike)"),
        "reference_arm": (optional(name), "None or the reference's arm name (a string)"),
        "reference_label": (optional(name), "None or a label for the reference (a string)"),
        "drift_horizon": (optional(integer(1)), "None or a whole number of looks, at least 1"),
    }
