"""Layers point one way, and an arm's worker does not pay for the analysis stack.

Why a test: imports hidden inside functions to dodge a cycle are invisible
to a reader; walking every import (module level and inside functions) with
`ast` makes an arrow that points up fail at once.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("baselines", "workloads", "arms", "reports")

#: the core: what an arm, a workload or a model client needs at run time
CORE = {"baselines.errors", "baselines.units", "baselines.budget", "baselines.meter",
        "baselines.records", "baselines.fileio", "baselines.protocols", "baselines.clients", "baselines.prices",
        "baselines.provenance", "baselines.gc_pause", "baselines.environ"}
#: analysis of records (imports only the core)
ANALYSIS_PREFIXES = ("baselines.table", "baselines.columns", "baselines.comparing", "baselines.comparison",
                     "baselines.metrics", "baselines.selection", "baselines.pairing", "baselines.stats", "baselines.compare_options",
                     "baselines.anytime", "baselines.gate", "baselines.sequential", "baselines.betting",
                     "baselines.arm_intervals", "baselines.ranking", "baselines.frontier", "baselines.group_runs")


def layer(module: str) -> str:
    if module == "baselines":
        return "api"            # the package's lazy facade (PEP 562): it names the public surface
    if module in CORE:
        return "core"
    if module.startswith("baselines.cli"):
        return "cli"
    if module == "baselines.api":
        return "api"
    if module.startswith(ANALYSIS_PREFIXES):
        return "analysis"
    if module.startswith("baselines."):
        return "execution"      # suite, runner, backends, progress, importers, scaffold
    if module.startswith("reports"):
        return "reports"
    if module.startswith("arms"):
        return "arms"
    if module.startswith("workloads"):
        return "workloads"
    return "core"


ALLOWED = {
    "core": {"core"},
    "analysis": {"core", "analysis"},
    "execution": {"core", "execution"},
    "arms": {"core", "arms"},
    "workloads": {"core", "workloads"},
    "reports": {"core", "analysis", "reports"},
    "api": {"core", "analysis", "execution", "api"},
    "cli": {"core", "analysis", "execution", "api", "reports", "cli", "arms", "workloads"},
}


def _modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path, parts[-1] == "__init__"


def _imports(name: str, path: Path, is_package: bool):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    base = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parent = base[:len(base) - node.level + 1]
                target = ".".join(parent + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target, node.lineno
            for alias in node.names:  # `from . import anytime` imports a module
                yield f"{target}.{alias.name}", node.lineno


def _resolve(target: str, known: set[str]) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def test_every_import_points_down_the_layers():
    modules = {name: (path, pkg) for name, path, pkg in _modules()}
    known = set(modules)
    wrong = []
    for name, (path, pkg) in modules.items():
        for target, line in _imports(name, path, pkg):
            if not target.split(".")[0] in PACKAGES:
                continue
            resolved = _resolve(target, known)
            if resolved is None or resolved == name or resolved == "baselines":
                continue  # importing the lazy facade itself loads nothing; its names resolve below
            if layer(resolved) not in ALLOWED[layer(name)]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {layer(name)} {name} imports {layer(resolved)} {resolved}")
    assert wrong == []


def test_an_arm_worker_loads_neither_pandas_scipy_nor_matplotlib():
    code = ("import sys, baselines.meter, baselines.budget, baselines.records, baselines.protocols\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_function_in_the_core_is_longer_than_60_lines():
    """Long functions hid four jobs each (parse, check, build, report); keep each one readable (the
    reports too: `_finish` was 84 lines and `cost_reward_plot` 82)."""
    long = []
    for path in sorted(p for folder in ("baselines", "reports") for p in (ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 60:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert long == []
