"""Folders are layers and point one way, and an arm's worker does not pay for the analysis stack.

Why a test: imports hidden inside functions to dodge a cycle are invisible
to a reader; walking every import (module level, inside functions and
under TYPE_CHECKING) with `ast` makes an arrow that points up, or a cycle,
fail at once. docs/architecture.md draws the same order.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("baselines", "workloads", "arms", "reports")

#: costmatch's own layers, lowest first: a layer imports only itself and the layers before it
ORDER = ("core", "analysis", "running", "importers", "api", "cli")
#: the packages beside `baselines`, and the layers each may import
BESIDE = {"arms": {"core"}, "workloads": {"core"}, "reports": {"core", "analysis"}}
#: who may import the CLI: only the CLI itself (the entry point is `baselines.cli:entry`)
CLI_IMPORTERS = {"cli"}


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "baselines":
        return parts[0]
    if len(parts) == 1 or parts[1] == "api":
        return "api"            # the lazy facade (PEP 562) and the Python API: run, check
    return parts[1]


def allowed(importer: str, imported: str) -> bool:
    if importer == imported:
        return True
    if imported == "cli":
        return importer in CLI_IMPORTERS
    if importer in BESIDE:
        return imported in BESIDE[importer]
    if importer == "cli":
        return True             # the top: every verb wires layers, reports, arms and workloads together
    if importer in ORDER and imported in ORDER:
        return ORDER.index(imported) < ORDER.index(importer)
    return False                # costmatch's layers import no reports, arms or workloads


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = (path, parts[-1] == "__init__")
    return found


def _facade_exports() -> dict[str, str]:
    """`from baselines import X` loads the module `_EXPORTS[X]` names: count that module as imported."""
    tree = ast.parse((ROOT / "baselines" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_EXPORTS":
            return {k: f"baselines.{v}" for k, v in ast.literal_eval(node.value).items()}
    raise AssertionError("baselines/__init__.py has no _EXPORTS table")


def _imports(name: str, path: Path, is_package: bool):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    base = name.split(".") if is_package else name.split(".")[:-1]
    exports = _facade_exports()
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
                if target == "baselines" and alias.name in exports:
                    yield exports[alias.name], node.lineno
                else:
                    yield f"{target}.{alias.name}", node.lineno


def _resolve(target: str, known: set[str]) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def _graph() -> dict[str, dict[str, int]]:
    """module -> {module it imports: line}, for every module of the four packages."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, dict[str, int]] = {}
    for name, (path, pkg) in modules.items():
        edges = graph.setdefault(name, {})
        for target, line in _imports(name, path, pkg):
            if target.split(".")[0] not in PACKAGES:
                continue
            resolved = _resolve(target, known)
            if resolved is None or resolved == name or resolved == "baselines":
                continue  # importing the lazy facade itself loads nothing; its names resolve above
            if name.startswith(resolved + "."):
                continue  # a module's own package (its __init__) runs first anyway
            edges.setdefault(resolved, line)
    return graph


def test_every_import_points_down_the_layers():
    graph, modules = _graph(), _modules()
    wrong = [f"{modules[name][0].relative_to(ROOT)}:{line}: {layer(name)} {name} imports {layer(target)} {target}"
             for name, edges in graph.items() for target, line in edges.items()
             if not allowed(layer(name), layer(target))]
    assert wrong == []


def test_the_layer_rule_rejects_arrows_up():
    """The rule itself: a test that cannot fail is a defect."""
    assert not allowed("core", "analysis") and not allowed("analysis", "running")
    assert not allowed("running", "importers") and not allowed("api", "cli")
    assert not allowed("reports", "running") and not allowed("arms", "analysis")
    assert not allowed("workloads", "arms") and not allowed("core", "reports")
    assert allowed("running", "core") and allowed("cli", "reports") and allowed("reports", "analysis")
    assert not allowed("api", "reports")  # `run(out=...)` reaches the report through a registered renderer


def _cycles(graph: dict[str, dict[str, int]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, {}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [frozenset("abc")]


@pytest.mark.process
@pytest.mark.smoke  # one bare interpreter, no worker pool (0.3 s)
def test_an_arm_worker_loads_neither_pandas_scipy_nor_matplotlib():
    code = ("import sys, baselines.core.meter, baselines.core.budget, baselines.core.records, baselines.core.protocols\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_function_is_longer_than_60_lines():
    """Long functions hid four jobs each (parse, check, build, report); keep each one readable (the
    reports too: `_finish` was 84 lines and `cost_reward_plot` 82)."""
    long = []
    for package in ("baselines", "workloads", "arms", "reports"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1
                    if length > 60:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert long == []
