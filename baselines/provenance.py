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


def provenance(arm_path: str, workload_path: str, worker: str | None = None) -> dict[str, Any]:
    """The ``provenance`` field of one record (called where the cell ran, after its imports)."""
    static = _static()
    return {"costmatch": static["costmatch"], "arm_module": module_hash(arm_path),
            "workload_module": module_hash(workload_path), "host": static["host"],
            "worker": worker if worker is not None else f"pid-{os.getpid()}"}


def provenance_warnings(records: Iterable[Any]) -> list[str]:
    """One line per arm whose runs come from more than one code version (pure; compare prints them).

    An arm is keyed by (workload, arm); records without provenance (imported
    or older files) are ignored. The line names the distinct hashes and how
    many runs each produced, so the user can find the stale worker.
    """
    seen: dict[tuple[str, str], dict[tuple, int]] = {}
    for r in records:
        extra = r.extra if hasattr(r, "extra") else r
        prov = extra.get("provenance") if isinstance(extra, dict) else None
        if not isinstance(prov, dict):
            continue
        key = (r.workload, r.arm) if hasattr(r, "workload") else (r.get("workload"), r.get("arm"))
        code = (prov.get("costmatch"), prov.get("arm_module"), prov.get("workload_module"))
        counts = seen.setdefault(key, {})
        counts[code] = counts.get(code, 0) + 1
    out = []
    for (workload, arm), counts in sorted(seen.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        if len(counts) < 2:
            continue
        parts = "; ".join(f"{n} run(s) with costmatch {v}, arm module {a}, workload module {w}"
                          for (v, a, w), n in sorted(counts.items(), key=lambda kv: -kv[1]))
        out.append(f"warning: arm {arm!r} on workload {workload!r} ran from different code: {parts}; "
                   "rerun the odd runs (restart the workers after editing code) before trusting this comparison")
    return out
