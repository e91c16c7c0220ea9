"""The code a run runs, read once when it starts: stamped on the parent's records, required of the workers'.

Why read once, at the start (issue 41): the parent hashed lazily, at the
first record it wrote itself, so on Dask the `timeout` record of a cell that
started before an edit of the arm file carried the hash of the *edited*
file, and the resume after restoring the file was refused as "code changed".
`StartCode` reads every arm's and workload's code version (`class_code`:
the class and the user modules it reaches, issue 39) and file hash when the
run starts (and again at a resume, which is a new start); the parent's own
records (`timeout`, `worker-died`) carry exactly those (`stamp`).

Why refuse a worker's line that differs (issue 31: a stale worker ran old
code): a Dask (or Ray) worker keeps the arm module it imported first. Every
line carries the code versions its worker ran; a mismatch stops the run
with one line (exit 2) naming the module and the fix, and that line is
never written; lines written before stay (they ran the current code), so
the same command resumes once the workers import the module anew. Why
refuse rather than re-import in the worker: a worker on another machine may
have another copy of the file (no shared filesystem is assumed), and
reloading a module under running code leaves old classes referenced elsewhere.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import Any, Iterable

from ..core.code_identity import code_identity
from ..core.errors import InputError
from ..core.provenance import by_value, current_code, loaded_code, shown_file

#: what restarts the workers that outlive a run, per backend
_FIX = {
    "dask": "restart the Dask workers (the `dask worker` processes, or Client.restart()) so they import it anew "
            "(on other machines: from this copy of the file)",
    "ray": "give every Ray node this copy of the module (install or sync it, then `ray stop` and `ray start ...`)",
    "sequential": "restart this Python process (or importlib.reload the module) so it runs the edited code",
    "threading": "restart this Python process (or importlib.reload the module) so it runs the edited code",
}


@dataclass(frozen=True)
class Expected:
    """One class's code as this run read it when it started: its code version, its module file's hash, the
    files its code was read from (as a user names them), the first being its own module."""
    code: str | None
    module: str | None
    files: tuple[str, ...]

    @property
    def shown(self) -> str:
        return self.files[0] if self.files else "?"


class StartCode:
    """The code versions of a run's arms and workloads per ``"module:Name"`` path, read at its start."""

    def __init__(self, paths: Iterable[str], backend: str):
        self.backend = backend
        self.identity = code_identity()  # costmatch's own code, also read now rather than at a first record
        self.expected: dict[str, Expected] = {}
        for path in dict.fromkeys(paths):
            found = current_code(path)
            module = sys.modules.get(path.partition(":")[0])
            digest = found.digest if found else None
            file_digest = digest if by_value(path) is not None else _file_hash(getattr(module, "__file__", None))
            self.expected[path] = Expected(digest, file_digest, tuple(
                (f if by_value(path) is not None else shown_file(f)) for f in found.files) if found else ())

    def check_this_process(self, kinds: dict[str, tuple[str, str]]) -> None:
        """On an engine that runs cells in this process: refuse, before anything changes, a class this process
        imported before its files were edited (it would run the old code under the new code's version).

        `kinds` maps a path to (kind, name) for the message. Why here and not at the first line: the resume
        has moved the changed arms' old records aside by then, for a run that cannot go on.
        """
        if self.backend not in ("sequential", "threading"):
            return
        for path, want in self.expected.items():
            got = loaded_code(path)
            if want.code is not None and got is not None and got != want.code:
                kind, name = kinds.get(path, ("arm", path))
                raise InputError(f"{want.shown}: this process imported {kind} {name!r} before its code was edited "
                                 f"(it holds code {got}, the files now read {want.code}); {_FIX[self.backend]}, "
                                 "then run the same command: nothing was run or changed")

    def stamp(self, arm_path: str, workload_path: str) -> dict[str, Any]:
        """The code fields of a record the parent writes for a cell (what the cell was started to run)."""
        arm, workload = self.expected.get(arm_path), self.expected.get(workload_path)
        return {"arm_module": arm.module if arm else None, "workload_module": workload.module if workload else None,
                "arm_code": arm.code if arm else None, "workload_code": workload.code if workload else None,
                **self.identity}

    def check(self, obj: dict[str, Any], kept: int = 0) -> None:
        """Raise InputError (one line) when the worker that made `obj` ran an arm or workload other than this
        run's. Lines the parent wrote itself (``provenance.worker`` null) ran no code and pass.

        The code version decides when the worker reports one; without it (the worker could not load the
        class: an old copy of the file without a class added since) the file's hash does."""
        prov = obj.get("provenance")
        if not self.expected or not isinstance(prov, dict) or prov.get("worker") is None:
            return
        for kind in ("arm", "workload"):
            want = self.expected.get(prov.get(f"{kind}_path"))  # type: ignore[arg-type]
            if want is None:
                continue
            got_code, got_module = prov.get(f"{kind}_code"), prov.get(f"{kind}_module")
            if isinstance(got_code, str) and want.code is not None:
                if got_code != want.code:
                    raise InputError(self._message(obj, prov, kind, want, got_code, want.code, kept))
            elif isinstance(got_module, str) and want.module is not None and got_module != want.module:
                raise InputError(self._message(obj, prov, kind, want, got_module, want.module, kept))

    def _message(self, obj: dict, prov: dict, kind: str, want: Expected, got: str, read: str, kept: int) -> str:
        name = obj.get(kind)  # the record's "arm" or "workload"
        fix = _FIX.get(self.backend, "run the same command (the module changed while this run was running)")
        return (f"{want.shown}: worker {prov.get('worker')} on {prov.get('host')} ran {kind} {name!r} from a copy "
                f"of this module with code {got}, but this run read {read} from the files when it started (the "
                f"worker imported it before an edit, or it was edited during the run); {fix}, then run the same "
                f"command: nothing from that cell was written, the {kept} line(s) written before are kept")


def _file_hash(filename: str | None) -> str | None:
    if not filename:
        return None
    try:
        with open(filename, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()[:16]
    except OSError:
        return None


def module_paths(arms: Iterable[Any], workloads: Iterable[Any]) -> list[str]:
    """The ``"module:Name"`` paths of a suite's arms and workloads (specs with a `path`)."""
    return [spec.path for spec in arms] + [spec.path for spec in workloads]


def changed_since(records: Iterable[Any], start: StartCode, arms: dict[str, str],
                  workloads: dict[str, str]) -> dict[tuple[str, str], int]:
    """(kind, name) -> kept cells, per arm and per workload whose code changed since those cells ran.

    `arms` and `workloads` map the suite's names to their paths. A record
    with a code version (`arm_code`) is judged by it, an older one by its
    module file's hash; one with neither is not judged.
    """
    paths = {("arm", n): p for n, p in arms.items()} | {("workload", n): p for n, p in workloads.items()}
    stale: dict[tuple[str, str], int] = {}
    for r in records:
        prov = r.extra.get("provenance") if isinstance(r.extra, dict) else None
        if not isinstance(prov, dict):
            continue
        for kind, name in (("arm", r.arm), ("workload", r.workload)):
            want = start.expected.get(paths.get((kind, name), ""))
            if want is None:
                continue
            code, module = prov.get(f"{kind}_code"), prov.get(f"{kind}_module")
            if isinstance(code, str) and want.code is not None:
                changed = code != want.code
            else:
                changed = isinstance(module, str) and want.module is not None and module != want.module
            if changed:
                stale[(kind, name)] = stale.get((kind, name), 0) + 1
    return stale
