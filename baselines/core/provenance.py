"""Which code produced a record: costmatch version, the arm's and workload's code, host.

Why: a worker that still runs an edited (or stale) arm module produces
different rewards under the same arm name, and without a record of the code
the comparison silently pools two programs. Every record carries
``provenance``; :func:`provenance_warnings` is the check ``compare`` prints.
``arm_code``/``workload_code`` are the class's code version (its source and
the user modules it reaches: `class_code`, issue 39), ``arm_module``/
``workload_module`` the hash of the module's whole file (kept for older
readers, and to tell a worker that lacks a class the file now has).
"""
from __future__ import annotations

import hashlib
import inspect
import os
import socket
import sys
from typing import Any, Iterable

from .. import __version__
from .class_code import ClassCode, class_code, sent_class_code
from .code_identity import code_identity, current_backend

_MODULE_HASHES: dict[str, tuple[Any, str | None]] = {}
_STATIC: dict[str, Any] = {}

#: Classes no worker can import by name (defined in a script, a notebook or a function), sent to
#: workers by value: "module:Name" -> (class, hash of its source taken where it was defined).
_BY_VALUE: dict[str, tuple[type, str | None]] = {}


def register_class(path: str, cls: type, digest: str | None = None) -> None:
    """Name `cls` by `path` for this process; its code version is the hash of its source.

    `digest` is given in a worker, where the source of a class sent by value
    cannot be read: the hash travels with the class from where it was defined.
    """
    _BY_VALUE[path] = (cls, sent_class_code(cls, class_source(cls)) if digest is None else digest)


def by_value(path: str) -> type | None:
    """The class registered under `path` (see `register_class`), or None."""
    entry = _BY_VALUE.get(path)
    return None if entry is None else entry[0]


def by_value_hash(path: str) -> str | None:
    entry = _BY_VALUE.get(path)
    return None if entry is None else entry[1]


def class_source(cls: type) -> str | None:
    """The source of `cls`, or of its methods in order when the class's own is unavailable.

    Why the fallback: `inspect.getsource` of a class defined in a notebook
    cell fails on Python 3.11 (`__main__` has no file), while its methods'
    code still names the cell, so their source is read.
    """
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):
        pass
    parts = [f"class {cls.__qualname__}({', '.join(b.__qualname__ for b in cls.__bases__)})"]
    for name, value in vars(cls).items():
        function = getattr(value, "__func__", value)
        function = getattr(function, "fget", function)
        if inspect.isfunction(function):
            try:
                parts.append(inspect.getsource(function))
            except (OSError, TypeError):
                return None
        elif not name.startswith("__"):
            parts.append(f"{name} = {value!r}")
    return "\n".join(parts)


def class_hash(cls: type) -> str | None:
    """sha256 (first 16 hex digits) of `class_source(cls)`; None when no source can be read."""
    text = class_source(cls)
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def module_hash(path: str) -> str | None:
    """sha256 (first 16 hex digits) of the source file of ``module`` in ``"module:Name"``; None if unknown.

    Cached per module object, not per name: a process that imports another
    file under the same name (a second suite's ``my_arms`` from another
    folder) must not stamp its records with the first file's hash.
    """
    if path in _BY_VALUE:
        return _BY_VALUE[path][1]
    module_name = path.partition(":")[0]
    module = sys.modules.get(module_name)
    cached = _MODULE_HASHES.get(module_name)
    if cached is not None and cached[0] is module:
        return cached[1]
    digest = None
    filename = getattr(module, "__file__", None) if module is not None else None
    if filename:
        try:
            with open(filename, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()[:16]
        except OSError:
            digest = None
        _MODULE_HASHES[module_name] = (module, digest)  # cache only once the module is imported
    return digest


_LOADED_CODE: dict[str, tuple[Any, str | None]] = {}


def _class_of(path: str) -> Any:
    module_name, _, attr = path.partition(":")
    return getattr(sys.modules.get(module_name), attr, None)


def remember_code(path: str) -> None:
    """Take the code version of ``"module:Name"`` now, just after it was imported (see `loaded_code`)."""
    loaded_code(path)
    module_hash(path)


def loaded_code(path: str) -> str | None:
    """`class_code` digest of the class this process loaded for `path`: read once per class object.

    Why once, at import (the suite's `resolve` calls `remember_code`): a
    worker that imported the file before an edit runs the old class; read
    later, the edited file would be stamped on records of the old code.
    """
    if path in _BY_VALUE:
        return _BY_VALUE[path][1]
    cls = _class_of(path)
    if cls is None:
        return None
    cached = _LOADED_CODE.get(path)
    if cached is not None and cached[0] is cls:
        return cached[1]
    found = class_code(cls)
    digest = None if found is None else found.digest
    _LOADED_CODE[path] = (cls, digest)
    return digest


def current_code(path: str) -> ClassCode | None:
    """The code version of `path` as its files read now (what a resumed run compares kept records with)."""
    if path in _BY_VALUE:
        digest = _BY_VALUE[path][1]
        return None if digest is None else ClassCode(digest, (f"{path} (a class defined in a script, notebook "
                                                              "or function)",))
    cls = _class_of(path)
    return None if cls is None else class_code(cls)


def _static() -> dict[str, Any]:
    if not _STATIC:
        _STATIC.update(costmatch=__version__, host=socket.gethostname())
    return _STATIC


def provenance(arm_path: str, workload_path: str) -> dict[str, Any]:
    """The ``provenance`` field of one record (called where the cell ran, after its imports)."""
    static = _static()
    return {"costmatch": static["costmatch"], "arm_module": module_hash(arm_path),
            "workload_module": module_hash(workload_path), "arm_code": loaded_code(arm_path),
            "workload_code": loaded_code(workload_path), "host": static["host"],
            "worker": f"pid-{os.getpid()}", "arm_path": arm_path, "workload_path": workload_path,
            **code_identity(), "backend": current_backend()}  # contract v3: costmatch's code, the environment


#: the mark a kept record of code edited since it ran carries (``provenance.stale``), written by `--keep-stale`
STALE = "stale"


def code_key(prov: Any) -> str | None:
    """One run's code version as text: costmatch version, arm code, workload code, and the stale mark.

    The arm's and workload's code is `arm_code`/`workload_code` (class and
    reached modules, issue 39) where the record has it, else the module file
    hash of older records; None without provenance.
    """
    if not isinstance(prov, dict):
        return None
    arm = prov.get("arm_code") or prov.get("arm_module")
    workload = prov.get("workload_code") or prov.get("workload_module")
    return f"{prov.get('costmatch')}|{arm}|{workload}" + (f"|{STALE}" if prov.get(STALE) else "")


def different_code_lines(counts: dict[tuple[str, str], dict[str, int]]) -> list[str]:
    """Per (workload, arm): a line when its runs came from more than one code version, and one naming the runs
    kept from code edited since they ran (`--keep-stale`); from counts per `code_key`."""
    out = []
    for (workload, arm), versions in sorted(counts.items()):
        parsed = {code: (code.split("|") + ["", "", "", ""])[:4] for code in versions}
        stale = sum(n for code, n in versions.items() if parsed[code][3])
        if stale:
            out.append(f"arm {arm!r} on workload {workload!r}: {stale} run(s) are from code edited after they ran "
                       "(kept with --keep-stale / keep_stale=True): they do not show what the current code does")
        plain = {tuple(parsed[code][:3]): 0 for code in versions}
        if len(plain) < 2:
            continue
        merged: dict[tuple[str, ...], int] = {}
        for code, n in versions.items():
            merged[tuple(parsed[code][:3])] = merged.get(tuple(parsed[code][:3]), 0) + n
        parts = "; ".join(f"{n} run(s) with costmatch {v}, arm code {a}, workload code {w}"
                          for (v, a, w), n in sorted(merged.items(), key=lambda kv: -kv[1]))
        out.append(f"arm {arm!r} on workload {workload!r} ran from different code: {parts}; rerun the odd runs "
                   "(restart the workers after editing code) before trusting this comparison")
    return out


def provenance_warnings(records: Iterable[Any]) -> list[str]:
    """`different_code_lines` for records (RunRecord or dicts); `compare` gets the same from the table's columns."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for r in records:
        extra = r.extra if hasattr(r, "extra") else r
        code = code_key(extra.get("provenance") if isinstance(extra, dict) else None)
        if code is None:
            continue
        key = (r.workload, r.arm) if hasattr(r, "workload") else (r.get("workload"), r.get("arm"))
        versions = counts.setdefault((str(key[0]), str(key[1])), {})
        versions[code] = versions.get(code, 0) + 1
    return different_code_lines(counts)


def shown_file(filename: str) -> str:
    """A module's file as a user would name it: relative to the working folder when it is inside it."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive
        return filename
    return filename if relative.startswith("..") else relative
