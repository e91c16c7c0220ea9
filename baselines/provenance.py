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

_MODULE_HASHES: dict[str, str | None] = {}
_STATIC: dict[str, Any] = {}


def module_hash(path: str) -> str | None:
    """sha256 (first 16 hex digits) of the source file of ``module`` in ``"module:Name"``; None if unknown."""
    module_name = path.partition(":")[0]
    if module_name in _MODULE_HASHES:
        return _MODULE_HASHES[module_name]
    digest = None
    module = sys.modules.get(module_name)
    filename = getattr(module, "__file__", None) if module is not None else None
    if filename:
        try:
            with open(filename, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()[:16]
        except OSError:
            digest = None
        _MODULE_HASHES[module_name] = digest  # cache only once the module is imported
    return digest


def _static() -> dict[str, Any]:
    if not _STATIC:
        from . import __version__
        _STATIC.update(costmatch=__version__, host=socket.gethostname())
    return _STATIC


def provenance(arm_path: str, workload_path: str) -> dict[str, Any]:
    """The ``provenance`` field of one record (called where the cell ran, after its imports)."""
    static = _static()
    return {"costmatch": static["costmatch"], "arm_module": module_hash(arm_path),
            "workload_module": module_hash(workload_path), "host": static["host"],
            "worker": f"pid-{os.getpid()}"}


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
