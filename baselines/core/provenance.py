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
import os
import socket
import sys
from typing import Any, Iterable

_MODULE_HASHES: dict[str, tuple[Any, str | None]] = {}
_STATIC: dict[str, Any] = {}


def module_hash(path: str) -> str | None:
    """sha256 (first 16 hex digits) of the source file of ``module`` in ``"module:Name"``; None if unknown.

    Cached per module object, not per name: a process that imports another
    file under the same name (a second suite's ``my_arms`` from another
    folder) must not stamp its records with the first file's hash.
    """
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
        from .. import __version__
        _STATIC.update(costmatch=__version__, host=socket.gethostname())
    return _STATIC


def provenance(arm_path: str, workload_path: str) -> dict[str, Any]:
    """The ``provenance`` field of one record (called where the cell ran, after its imports)."""
    static = _static()
    return {"costmatch": static["costmatch"], "arm_module": module_hash(arm_path),
            "workload_module": module_hash(workload_path), "host": static["host"],
            "worker": f"pid-{os.getpid()}", "arm_path": arm_path, "workload_path": workload_path}


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
    """
    module = sys.modules.get(path.partition(":")[0])
    filename = getattr(module, "__file__", None) if module is not None else None
    if not filename:
        return None, None
    try:
        with open(filename, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()[:16], filename
    except OSError:
        return None, filename


def _shown(filename: str) -> str:
    """A module's file as a user would name it: relative to the working folder when it is inside it."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive
        return filename
    return filename if relative.startswith("..") else relative


def changed_code_lines(records: Iterable[Any], arms: dict[str, str], workloads: dict[str, str]) -> list[str]:
    """One line per arm, then per workload, whose module changed since its kept runs ran.

    `records` are the kept runs a resumed run will report; `arms` and
    `workloads` map the suite's names to their ``"module:Name"`` paths. Why
    not refuse: a comment edit changes the hash too, and must not force a
    rerun; but reporting old results of edited code without a word is how
    a fix that was never run gets published.
    """
    hashes: dict[str, tuple[str | None, str | None]] = {}  # one read per module, however many arms share it

    def hashed(path: str) -> tuple[str | None, str | None]:
        module = path.partition(":")[0]
        if module not in hashes:
            hashes[module] = source_hash(path)
        return hashes[module]

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
    out = []
    for (kind, name), n in sorted(stale.items()):
        shown = _shown(now[(kind, name)][1])
        whose = name if kind == "arm" else f"workload {name}"
        out.append(f"{shown} changed since {n} kept cell(s) of {whose} ran: pass --fresh to rerun them, or give "
                   f"the changed {kind} a new name (the kept results are reported as they are)")
    return out
