"""User classes by path ("package.module:Class"), imported from where the suite says and nowhere else.

Installed packages and the standard library first; then the suite's folder
(and the folders its ``import_paths`` names), for any top-level module not
found there: a ``helpers.py`` beside the suite imports from ``my_arms.py``
as it would in a project, without making a package (issue 39). Nothing is
put on ``sys.path`` or on the workers' ``PYTHONPATH``: a ``joblib.py`` or
``zlib.py`` beside the suite, or in the working directory, never runs (the
installed one is found first), and a ``workloads/`` folder beside a suite
cannot hide the built-in package. The workers get the same folders with the
cell's spec, on every engine. A module that does not import is one line
naming the file and line of the problem.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import traceback
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.provenance import by_value, remember_code
from ..core.json_line import show
from ..core.scoped import scoped_env
from ..core.suggest import did_you_mean


class _SuiteFinder(importlib.abc.MetaPathFinder):
    """Finds a top-level module in the suite's folders: the one a path names in its suite's folder, any other in
    the folders of the suites this process loaded (the latest first).

    It sits at the end of ``sys.meta_path``: installed packages and the
    standard library are always found first, so a user file can never stand
    in for them; submodules are found through their package as usual.
    """

    def __init__(self) -> None:
        self.roots: dict[str, str] = {}
        self.folders: list[str] = []
        self.found: dict[str, str] = {}   # top-level name -> the folder this finder found it in

    def find_spec(self, fullname, path=None, target=None):
        if "." in fullname:
            return None
        root = self.roots.get(fullname)
        if root is not None:
            return importlib.machinery.PathFinder.find_spec(fullname, [root])
        for folder in self.folders:
            spec = importlib.machinery.PathFinder.find_spec(fullname, [folder])
            if spec is not None:
                self.found[fullname] = folder
                return spec
        return None


_FINDER = _SuiteFinder()


def register_root(path: str, root: str | None) -> None:
    """Let the top-level module of ``path`` ("pkg.mod:Name") be found in `root` (after installed ones)."""
    if not root or not isinstance(path, str):
        return
    top = path.partition(":")[0].partition(".")[0]
    if not top:
        return
    old = _FINDER.roots.get(top)
    _FINDER.roots[top] = root
    if old is not None and old != root:
        # another suite's module of the same name was loaded from its folder: forget it
        loaded = sys.modules.get(top)
        if loaded is not None and str(getattr(loaded, "__file__", "") or "").startswith(old + "/"):
            for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
                del sys.modules[name]
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)


def register_folders(folders) -> None:
    """Search `folders` (a suite's folder and its ``import_paths``) first among the suites' folders.

    A module this finder loaded from another suite's folder, and found in
    these too, is forgotten, so this suite's own copy is imported; a module
    found any other way (installed, on the path) is never touched.
    """
    folders = [str(f) for f in folders or () if f]
    if not folders or _FINDER.folders[:len(folders)] == folders:
        _install()
        return
    for name, folder in list(_FINDER.found.items()):
        if folder in folders or name not in sys.modules:
            continue
        if any((Path(f) / f"{name}.py").is_file() or (Path(f) / name).is_dir() for f in folders):
            for sub in [n for n in sys.modules if n == name or n.startswith(name + ".")]:
                del sys.modules[sub]
            del _FINDER.found[name]
    _FINDER.folders = folders + [f for f in _FINDER.folders if f not in folders]
    _install()


def _install() -> None:
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)


def origin_root(path: str) -> str | None:
    """The folder the top-level module of ``path`` was imported from in this process.

    Workers get it in the spec, so they import the very module the suite
    check loaded (a user module beside the suite, or a package the parent
    had on its path), without any PYTHONPATH entry and after installed ones.
    """
    top = sys.modules.get(path.partition(":")[0].partition(".")[0])
    if top is None:
        return None
    file = getattr(top, "__file__", None)
    if file:
        here = Path(file).resolve().parent
        return str(here.parent if hasattr(top, "__path__") else here)
    locations = list(getattr(top, "__path__", []) or [])
    return str(Path(locations[0]).resolve().parent) if locations else None


@contextlib.contextmanager
def isolated_workers():
    """While running cells: child processes do not put their working directory first on sys.path.

    loky starts workers with ``python -m ...``, which puts the working
    directory first: a ``joblib.py`` or ``zlib.py`` there ran in every worker.
    PYTHONSAFEPATH (Python 3.11+) switches that off for the children started
    inside this block; the variable is restored afterwards, so nothing else
    this process starts later is affected.
    """
    with scoped_env("PYTHONSAFEPATH", "1"):
        yield


def _is_the_module(exc: ImportError, module_name: str) -> bool:
    """Whether an ImportError says the suite's module itself (or a parent package of it) was not found.

    Why: a user module that imports a missing dependency raises the same
    ModuleNotFoundError as a wrong path; only `exc.name` tells them apart,
    and "check the path" for a module that was found sends the user to the
    wrong place. Any other ImportError (`from x import y` failing, one raised
    by hand) happened inside a module that was found.
    """
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return False
    parts = module_name.split(".")
    return exc.name in {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def _import_failure(exc: BaseException, module_name: str, where: str, root: str | None = None) -> InputError:
    """One line for a user module that does not import: the file and line of the problem."""
    if isinstance(exc, SyntaxError):
        return InputError(f"{where}: cannot import {module_name!r}: {exc.filename}:{exc.lineno}: "
                          f"SyntaxError: {exc.msg}")
    # the innermost frame of the user's code: the import system's own frames say nothing useful
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen ")]
    at = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.partition(".")[0]
        if root and ((Path(root) / f"{top}.py").is_file() or (Path(root) / top).is_dir()):
            fix = (f"{top!r} is in the suite's folder but did not import from there (an installed module of that "
                   "name is found first): rename it")
        else:
            fix = "install it, or fix that import"
        return InputError(f"{where}: importing {module_name!r} raised ModuleNotFoundError{at}: No module named "
                          f"{exc.name!r}: {fix}")
    message = str(exc).splitlines()[0][:200] if str(exc) else ""
    return InputError(f"{where}: importing {module_name!r} raised {type(exc).__name__}{at}: {message}")


def resolve(path: str, where: str, root: str | None = None) -> Any:
    """Import ``"package.module:Name"``; InputError with the fix when it does not resolve.

    `root` is the suite's folder: searched after installed packages, for this
    path's top-level module only.
    """
    resolve_syntax(path, where)
    sent = by_value(path)
    if sent is not None:   # a class from a script, notebook or function (`run(arms={"x": MyArm})`)
        return sent
    module_name, _, attr = path.partition(":")
    register_root(path, root)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if not _is_the_module(exc, module_name):  # the module was found; something it imports was not
            raise _import_failure(exc, module_name, where, root) from None
        beside = " (a folder or file beside the suite named like an installed package is not searched; " \
                 "rename it)" if root and (Path(root) / module_name.partition(".")[0]).exists() else ""
        beside = beside or _in_working_folder(module_name, root)
        raise InputError(f"{where}: cannot import module {module_name!r} ({exc}); check the path "
                         f"and that the module is installed or in the suite's folder{beside}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed while importing
        raise _import_failure(exc, module_name, where) from None
    try:
        found = getattr(module, attr)
    except AttributeError:
        classes = sorted(n for n, v in vars(module).items() if isinstance(v, type) and not n.startswith("_")
                         and getattr(v, "__module__", None) == module.__name__)
        known = f"; its classes: {', '.join(classes[:12])}{' ...' if len(classes) > 12 else ''}" if classes else ""
        raise InputError(f"{where}: module {module_name!r} has no {attr!r}{did_you_mean(attr, classes)}"
                         f"{known}; write the path as module:Class") from None
    remember_code(path)   # the code version of what was just imported, before any later edit of its files
    return found


def _in_working_folder(module_name: str, root: str | None) -> str:
    """A hint when the missing module sits in the working folder (never searched), not beside the suite."""
    top = module_name.partition(".")[0]
    here = Path.cwd()
    if root and here.resolve() == Path(root).resolve():
        return ""
    if (here / f"{top}.py").is_file() or (here / top).is_dir():
        return (f" ({top!r} is in the working folder, which is never searched: keep your modules beside the "
                "suite)")
    return ""


def resolve_syntax(path, where: str) -> None:
    """The form check of `resolve` without importing anything."""
    if not isinstance(path, str) or path.count(":") != 1 or not all(path.partition(":")[::2]):
        raise InputError(f"{where}: path {show(path)} must look like 'package.module:ClassName'")
