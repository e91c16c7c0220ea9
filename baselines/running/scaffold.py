"""What a new user needs in the first hour: the catalog (`costmatch list`) and a starter project (`costmatch init`).

Why the catalog is discovered and not written down: a hand-kept list of arms
and parameters goes stale the first time someone adds an arm or changes a
default, and a user who copies a stale default into a suite gets a different
experiment than the one they read about. So the built-in workloads and arms
are found by importing the modules of `workloads/` and `arms/`, and each
parameter's default is read from the class's own signature.

Why `init` writes a project of the user's own (not a copy of a built-in
suite): the first thing a user does is replace the arm and the workload with
theirs, so the starter shows exactly that shape (plain classes referenced by
import path, a workload that meters what a model call reported, an arm that
reports its progress) in files small enough to read in two minutes. It never
overwrites a file: a second `init` in a used folder would destroy work.
"""
from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..core import units
from ..core.errors import InputError
from ..core.fileio import OutputError, atomic_write_text, ensure_dir

WORKLOAD_PACKAGES = ("workloads",)
ARM_PACKAGES = ("arms",)

#: Classes that look like arms (they have ``run``) but are bases to subclass, not arms to run.
_NOT_ARMS = {"arms.selection:SelectionPolicy"}

#: Used when baselines.core.units offers no one-line meanings of its own.
_FALLBACK_MEANINGS = {
    "rollouts": "scoring episodes: evaluations of a candidate (charged with meter.rollouts(n))",
    "calls": "model calls made, failed and retried attempts included (counted by meter.call)",
    "prompt_tokens": "input tokens the provider reported for each call",
    "completion_tokens": "output tokens the provider reported for each call (reasoning tokens included)",
    "tokens": "prompt + completion tokens, when both were reported",
    "usd": "dollars, priced per call from a dated price table",
    "seconds": "wall-clock time of the run, measured by the Meter's clock",
}


@dataclass(frozen=True)
class Param:
    name: str
    default: Any  # inspect.Parameter.empty when the parameter is required
    annotation: str

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    def text(self) -> str:
        return self.name if self.required else f"{self.name}={_toml_value(self.default)}"


@dataclass(frozen=True)
class Entry:
    """One built-in workload or arm: what a suite's ``path`` and ``params`` may say."""

    path: str  # "package.module:Class", as a suite writes it
    summary: str  # the first line of the class docstring
    params: tuple[Param, ...]
    measures: tuple[str, ...] = ()  # workloads only: the units they meter
    group: str = ""  # the module, whose docstring says what the arms are for


@dataclass(frozen=True)
class Catalog:
    workloads: tuple[Entry, ...]
    arms: tuple[Entry, ...]
    units: tuple[tuple[str, str], ...]  # (unit, one-line meaning)
    groups: dict[str, str]  # module -> first line of its docstring


def _toml_value(value: Any) -> str:
    """A default as it would be written in a suite's params table."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def _first_line(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "").strip()
    if not text:
        return ""
    paragraph = text.split("\n\n", 1)[0]
    return " ".join(paragraph.split())


def class_params(cls: type) -> tuple[Param, ...]:
    """The keyword arguments a suite's ``params`` may pass, with defaults from the signature."""
    if cls.__init__ is object.__init__:
        return ()
    out = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", "")
        out.append(Param(p.name, p.default, "" if annotation is p.empty else str(annotation)))
    return tuple(out)


def _modules(package: str) -> list[Any]:
    pkg = importlib.import_module(package)
    names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{package}.{name}") for name in names]


def _is_workload(cls: type) -> bool:
    return all(callable(getattr(cls, m, None)) for m in ("instance", "score")) and hasattr(cls, "measures")


def _is_arm(cls: type) -> bool:
    return callable(getattr(cls, "run", None))


def _public_classes(module) -> list[type]:
    return [obj for name, obj in vars(module).items()
            if inspect.isclass(obj) and obj.__module__ == module.__name__ and not name.startswith("_")
            and not getattr(obj, "_is_protocol", False)]


def unit_meanings() -> dict[str, str]:
    """One line per standard unit: from baselines.core.units when it has them, else the fallback here."""
    offered = None
    for name in ("UNIT_MEANINGS", "UNIT_DEFINITIONS", "UNIT_DESCRIPTIONS"):
        offered = getattr(units, name, None)
        if isinstance(offered, dict):
            break
    meanings = dict(_FALLBACK_MEANINGS)
    if isinstance(offered, dict):
        meanings.update({u: str(v) for u, v in offered.items()})
    return {u: meanings.get(u, units.unit_noun(u)) for u in units.ordered_units(set(units.STANDARD_UNITS) | set(meanings))}


def catalog() -> Catalog:
    """Every built-in workload and arm with its parameters and defaults, and every standard unit."""
    workloads, arms, groups = [], [], {}
    for package in WORKLOAD_PACKAGES:
        for module in _modules(package):
            for cls in _public_classes(module):
                if _is_workload(cls):
                    workloads.append(Entry(f"{module.__name__}:{cls.__name__}", _first_line(cls.__doc__),
                                           class_params(cls), tuple(cls.measures), module.__name__))
    for package in ARM_PACKAGES:
        for module in _modules(package):
            for cls in _public_classes(module):
                path = f"{module.__name__}:{cls.__name__}"
                if _is_arm(cls) and path not in _NOT_ARMS:
                    arms.append(Entry(path, _first_line(cls.__doc__), class_params(cls), (), module.__name__))
                    groups[module.__name__] = _first_line(module.__doc__)
    return Catalog(tuple(workloads), tuple(arms), tuple(unit_meanings().items()), groups)


def _params_text(entry: Entry) -> str:
    return ", ".join(p.text() for p in entry.params) if entry.params else "(none)"


def format_catalog(cat: Catalog | None = None, aliases: dict[str, str] | None = None) -> str:
    """The catalog as the terminal shows it: paths to paste into a suite, params with defaults.

    `aliases` (alias -> unit, as the CLI accepts them for --fixed) are listed beside their unit.
    """
    cat = cat or catalog()
    by_unit: dict[str, list[str]] = {}
    for alias, unit in (aliases or {}).items():
        by_unit.setdefault(unit, []).append(alias)
    lines = ["Workloads (a suite's [[workloads]] path = \"...\"; params are keyword arguments):"]
    for w in cat.workloads:
        lines += [f"  {w.path}", f"      {w.summary}" if w.summary else None,
                  f"      measures: {', '.join(w.measures)}", f"      params: {_params_text(w)}"]
    lines += ["", "Arms (a suite's [arms.NAME] path = \"...\"):"]
    group = None
    for a in cat.arms:
        if a.group != group:
            group = a.group
            lines.append(f"  {group}: {cat.groups.get(group, '')}".rstrip(": "))
        lines.append(f"    {a.path}  {a.summary}".rstrip())
        lines.append(f"        params: {_params_text(a)}")
    width = max(len(u) for u, _ in cat.units)
    lines += ["", "Units (budget = {UNIT = amount}; fixed = \"UNIT\"; any other name is a custom unit):"]
    lines += [f"  {u:<{width}}  {meaning}" + (f" (also: {', '.join(by_unit[u])})" if u in by_unit else "")
              for u, meaning in cat.units]
    lines += ["", "Start a project of your own with `costmatch init DIR`; every suite key is described in "
              "docs/suite.md of the costmatch repository."]
    return "\n".join(line for line in lines if line is not None) + "\n"


# -- costmatch init ---------------------------------------------------------------------------------

#: Template file in baselines/data/init -> the name it gets in the user's folder.
STARTER_FILES = {
    "costmatch-suite.toml": "costmatch-suite.toml",
    "my_workload.py": "my_workload.py",
    "my_arms.py": "my_arms.py",
    "README.md": "README.md",
}
STARTER_SUITE = "costmatch-suite.toml"


def starter_templates() -> dict[str, str]:
    """The starter files' text, read from the installed package (they ship as package data)."""
    base = resources.files("baselines") / "data" / "init"
    return {target: (base / source).read_text(encoding="utf-8") for source, target in STARTER_FILES.items()}


def init_project(directory: str | Path = ".") -> list[Path]:
    """Write a runnable starter project into `directory` (created if missing); return the files written.

    Refuses, before writing anything, when any starter file already exists
    there, so a second `init` can never overwrite a user's edits; if a write
    fails mid-way, the files it had written are removed again.
    """
    if not str(directory).strip():
        raise InputError("init: the folder is an empty name; give a folder (costmatch init NEWDIR, or . for this one)")
    directory = Path(directory)
    texts = starter_templates()
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"{directory}: is a file, not a folder; give a new or existing folder for `init`")
    existing = [name for name in texts if os.path.lexists(directory / name)]  # a dangling link too
    if existing:
        raise InputError(f"{directory / existing[0]}: already exists; `init` never overwrites files: "
                         "choose an empty folder (costmatch init NEWDIR) or move the file away")
    ensure_dir(directory, "project folder")
    written: list[Path] = []
    try:
        for name, text in texts.items():
            atomic_write_text(directory / name, text, "starter file")
            written.append(directory / name)
    except BaseException:  # a disk that fills up mid-way leaves no partial project behind
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return written


def init_message(directory: str | Path, written: list[Path]) -> str:
    """What `costmatch init` prints: the files, then the three commands to try."""
    directory = Path(directory)
    cd = "" if directory.resolve() == Path.cwd().resolve() else f"cd {directory} && "
    lines = [f"wrote {len(written)} files to {directory}: {', '.join(p.name for p in written)}",
             "next:",
             f"  {cd}costmatch run {STARTER_SUITE}",
             "  costmatch report costmatch-out/results.jsonl --fixed tokens --baseline random-guess",
             "  costmatch check costmatch-out/results.jsonl --fixed tokens "
             "--baseline random-guess --candidate local-search --margin 0.02"]
    return "\n".join(lines) + "\n"
