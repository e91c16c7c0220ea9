"""Which code produced a record: costmatch version, a hash of the arm's and workload's module, host.

Why: a worker that still runs an edited (or stale) arm module produces
different rewards under the same arm name, and without a record of the code
the comparison silently pools two programs. Every record carries
``provenance``; :func:`provenance_warnings` is the check ``compare`` prints.
The hashes cover the source file of the module named in the suite's path
(not its imports), which catches the common case: an edited arm or workload
file, or a worker that was not restarted after the edit.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import socket
import sys
from typing import Any, Iterable

from .. import __version__
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
    _BY_VALUE[path] = (cls, class_hash(cls) if digest is None else digest)


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


def _static() -> dict[str, Any]:
    if not _STATIC:
        _STATIC.update(costmatch=__version__, host=socket.gethostname())
    return _STATIC


def provenance(arm_path: str, workload_path: str) -> dict[str, Any]:
    """The ``provenance`` field of one record (called where the cell ran, after its imports)."""
    static = _static()
    return {"costmatch": static["costmatch"], "arm_module": module_hash(arm_path),
            "workload_module": module_hash(workload_path), "host": static["host"],
            "worker": f"pid-{os.getpid()}", "arm_path": arm_path, "workload_path": workload_path,
            **code_identity(), "backend": current_backend()}  # contract v3: costmatch's code, the environment


def code_key(prov: Any) -> str | None:
    """One run's code version as text (costmatch version, arm and workload module hashes); None without provenance."""
    if not isinstance(prov, dict):
        return None
    return f"{prov.get('costmatch')}|{prov.get('arm_module')}|{prov.get('workload_module')}"


def different_code_lines(counts: dict[tuple[str, str], dict[str, int]]) -> list[str]:
    """One line per (workload, arm) whose runs came from more than one code version, from counts per `code_key`."""
    out = []
    for (workload, arm), versions in sorted(counts.items()):
        if len(versions) < 2:
            continue
        parts = "; ".join(f"{n} run(s) with costmatch {v}, arm module {a}, workload module {w}"
                          for code, n in sorted(versions.items(), key=lambda kv: -kv[1])
                          for v, a, w in [code.split("|")])
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


def source_hash(path: str) -> tuple[str | None, str | None]:
    """(hash, file name) of the module of ``"module:Name"`` as its file reads now, not cached.

    What the next cell will run. :func:`module_hash` caches per process, so
    it cannot see an edit made since the module was first hashed; this is the
    check a resumed run makes against the hashes its kept records carry.
    A class sent by value is named by its path (it has no file of its own).
    """
    if path in _BY_VALUE:
        return _BY_VALUE[path][1], f"{path} (a class defined in a script, notebook or function)"
    module = sys.modules.get(path.partition(":")[0])
    filename = getattr(module, "__file__", None) if module is not None else None
    if not filename:
        return None, None
    try:
        with open(filename, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()[:16], filename
    except OSError:
        return None, filename


def shown_file(filename: str) -> str:
    """A module's file as a user would name it: relative to the working folder when it is inside it."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive
        return filename
    return filename if relative.startswith("..") else relative



def changed_code(records: Iterable[Any], arms: dict[str, str],
                 workloads: dict[str, str]) -> list[tuple[str, str, str, int]]:
    """(kind, name, file, kept cells) per arm, then per workload, whose code changed since its kept runs ran.

    `records` are the kept runs a resumed run would report; `arms` and
    `workloads` map the suite's names to their ``"module:Name"`` paths. A
    comment edit changes the hash too: the caller decides (refuse, or keep
    with a warning), but old results of edited code are never reported
    without a word.
    """
    hashes: dict[str, tuple[str | None, str | None]] = {}  # one read per module, however many arms share it

    def hashed(path: str) -> tuple[str | None, str | None]:
        key = path if path in _BY_VALUE else path.partition(":")[0]
        if key not in hashes:
            hashes[key] = source_hash(path)
        return hashes[key]

    now = {("arm", name): hashed(path) for name, path in arms.items()}
    now.update({("workload", name): hashed(path) for name, path in workloads.items()})
    stale: dict[tuple[str, str], int] = {}
    for r in records:
        extra = r.extra if hasattr(r, "extra") else {}
        prov = extra.get("provenance") if isinstance(extra, dict) else None
        if not isinstance(prov, dict):
            continue
        for kind, name, field in (("arm", r.arm, "arm_module"), ("workload", r.workload, "workload_module")):
            current = now.get((kind, name), (None, None))[0]
            old = prov.get(field)
            if current is not None and isinstance(old, str) and old != current:
                stale[(kind, name)] = stale.get((kind, name), 0) + 1
    return [(kind, name, shown_file(now[(kind, name)][1]), n) for (kind, name), n in sorted(stale.items())]


def changed_code_lines(records: Iterable[Any], arms: dict[str, str], workloads: dict[str, str]) -> list[str]:
    """`changed_code` as warning lines, for a resume told to keep the stale cells (`--keep-stale`)."""
    out = []
    for kind, name, shown, n in changed_code(records, arms, workloads):
        whose = name if kind == "arm" else f"workload {name}"
        out.append(f"{shown} changed since {n} kept cell(s) of {whose} ran; --keep-stale: the kept results are "
                   f"reported as they are (pass --fresh to rerun them, or give the changed {kind} a new name)")
    return out
