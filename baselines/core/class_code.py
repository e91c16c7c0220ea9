"""Which code one arm or workload runs: its class's source and the user modules it reaches (issue 39).

Why not the whole file: adding a second arm to `my_arms.py` changed the
hash of the first, so a resume called every untouched arm "changed". Why
not the class alone: an edited helper module imported by the arm changed
its results and the resume kept the old cells without a word.

The rule (docs/suite.md): a class's code is the source of its definition,
of every top-level function, class and constant of its own module that it
names (transitively, base classes included), and the whole file of every
user module those names reach (a module or an object imported from one,
and the user modules those import in turn). A *user* module is one loaded
from a file outside the standard library, site-packages and costmatch itself
(whose own code is ``provenance.costmatch_code``). Source is compared as
parsed (``ast.unparse``): a comment or a reformatting changes nothing. The
limit: code reached only by name at run time (``importlib``, ``getattr``
with a string, a data file) is not seen.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import site
import sys
import sysconfig
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_COSTMATCH = str(Path(__file__).resolve().parents[1])   # baselines/: costmatch_code covers it


@dataclass(frozen=True)
class ClassCode:
    """A class's code version (`digest`, 16 hex digits) and the files it was read from (its module first)."""
    digest: str
    files: tuple[str, ...]


def _library_roots() -> tuple[str, ...]:
    roots = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:  # a virtualenv's old site module
        pass
    roots.add(_COSTMATCH)
    return tuple(sorted(str(Path(r).resolve()) for r in roots if r))


_LIBRARIES: tuple[str, ...] | None = None


def user_file(module: Any) -> str | None:
    """The source file of `module` when it is a user module (see the module docstring), else None."""
    global _LIBRARIES
    filename = getattr(module, "__file__", None)
    if not isinstance(filename, str) or not filename.endswith(".py"):
        return None
    if _LIBRARIES is None:
        _LIBRARIES = _library_roots()
    resolved = str(Path(filename).resolve())
    if any(resolved == root or resolved.startswith(root + "/") for root in _LIBRARIES):
        return None
    return resolved


def class_code(cls: type) -> ClassCode | None:
    """The code version of `cls` as its files read now; None when its module has no readable source file."""
    module = sys.modules.get(getattr(cls, "__module__", ""))
    filename = getattr(module, "__file__", None) if module is not None else None
    text = _read(filename) if filename else None
    if text is None:
        return None
    bindings = _parsed(text)
    if bindings is None:   # edited into a broken file since it was imported: the bytes are its version
        return ClassCode(_sha(text), (filename,))
    pieces, reached = _own_pieces(bindings, cls.__qualname__.partition(".")[0], module)
    files = {filename: None}
    for mod in _reached_modules(reached, module):
        files[user_file(mod)] = None
        pieces.append(f"module {mod.__name__}\0{_read(user_file(mod)) or ''}")
    return ClassCode(_sha("\0\0".join(pieces)), tuple(f for f in files if f))


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> dict[str, tuple[ast.AST, str, tuple[str, ...]]] | None:
    """Name -> (its top-level statement, that statement unparsed, the names it uses), per file text; None
    for text that does not parse. Cached by text: the arms of one module share one parse (4 ms a file)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    out = {}
    for name, node in _top_level_bindings(tree).items():
        plain = isinstance(node, (ast.Import, ast.ImportFrom))
        out[name] = (node, "" if plain else ast.unparse(node),
                     () if plain else tuple(n.id for n in ast.walk(node) if isinstance(n, ast.Name)))
    return out


def _own_pieces(bindings: dict, top: str, module: Any) -> tuple[list[str], list[Any]]:
    """The unparsed definitions `top` needs from its own module, and the imported objects it names."""
    pieces, reached, seen, queue = [], [], set(), [top]
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        found = bindings.get(name)
        if found is None:      # imported (or bound where no definition says): reached through the module's value
            value = getattr(module, name, None)
            if value is not None:
                reached.append(value)
            continue
        node, source, names = found
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            reached.append(getattr(module, name, None))
            continue
        pieces.append(f"{name}\0{source}")
        queue.extend(names)
    return sorted(pieces), [r for r in reached if r is not None]


def _top_level_bindings(tree: ast.Module) -> dict[str, ast.AST]:
    """Name -> the top-level statement that binds it (defs, assignments, imports; inside top-level if/try too)."""
    out: dict[str, ast.AST] = {}

    def visit(body: list) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            out.setdefault(n.id, node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    out[(alias.asname or alias.name).partition(".")[0]] = node
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                visit(getattr(node, "body", []) + getattr(node, "orelse", []) + getattr(node, "finalbody", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(tree.body)
    return out


def _reached_modules(values: list[Any], own: Any) -> list[types.ModuleType]:
    """The user modules the imported `values` come from, and the user modules those import (transitively)."""
    found: dict[str, types.ModuleType] = {}
    queue = [_module_of(v) for v in values]
    while queue:
        mod = queue.pop()
        if mod is None or mod is own or mod.__name__ in found or user_file(mod) is None:
            continue
        found[mod.__name__] = mod
        queue.extend(_module_of(v) for v in list(vars(mod).values()))
    return [found[name] for name in sorted(found)]


def _module_of(value: Any) -> types.ModuleType | None:
    if isinstance(value, types.ModuleType):
        return value
    name = getattr(value, "__module__", None) if isinstance(value, (type, types.FunctionType)) else None
    return sys.modules.get(name) if isinstance(name, str) else None


def _read(filename: str | None) -> str | None:
    if not filename:
        return None
    try:
        with open(filename, "rb") as handle:
            return handle.read().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def sent_class_code(cls: type, source: str | None) -> str | None:
    """The code version of a class sent by value (defined in a script, a notebook or a function).

    Its `source` (``provenance.class_source``), the source of the functions
    and classes of its own namespace it names (where they can be read), and
    the user modules it reaches, as for `class_code`; taken where the class
    was defined (a worker cannot read a notebook's cells).
    """
    if source is None:
        return None
    import inspect

    space = _namespace(cls)
    pieces, reached, seen = [source], [], {cls.__name__}
    try:
        queue = [n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)]
    except SyntaxError:
        queue = []
    while queue:
        name = queue.pop()
        if name in seen or name not in space:
            continue
        seen.add(name)
        value = space[name]
        if isinstance(value, (type, types.FunctionType)) and getattr(value, "__module__", None) == cls.__module__:
            try:
                text = inspect.getsource(value)
            except (OSError, TypeError):
                continue
            pieces.append(f"{name}\0{text}")
            try:
                queue.extend(n.id for n in ast.walk(ast.parse(textwrap_dedent(text))) if isinstance(n, ast.Name))
            except SyntaxError:
                pass
        elif isinstance(value, (int, float, str, bool, tuple)) and len(repr(value)) < 1000:
            pieces.append(f"{name}\0{value!r}")
        else:
            reached.append(value)
    for mod in _reached_modules(reached, sys.modules.get(cls.__module__)):
        pieces.append(f"module {mod.__name__}\0{_read(user_file(mod)) or ''}")
    return _sha("\0\0".join(pieces))


def _namespace(cls: type) -> dict[str, Any]:
    """The globals the methods of `cls` see (its module's namespace), or its module's dict."""
    for value in vars(cls).values():
        function = getattr(value, "__func__", value)
        if isinstance(function, types.FunctionType):
            return function.__globals__
    module = sys.modules.get(cls.__module__)
    return dict(vars(module)) if module is not None else {}


def textwrap_dedent(text: str) -> str:
    import textwrap
    return textwrap.dedent(text)
