"""Refuse a finished line whose worker ran other code than this run's (issue 31: a stale worker ran old code).

Why: a Dask (or Ray) worker keeps the arm module it imported first. After an
edit, `run --fresh` on the same workers ran the old code, wrote the old
module hash into every record and said nothing, although the client had the
new file. Every line carries the hashes of the modules its worker ran
(`provenance.arm_module`, `workload_module`); the parent compares them with
the hashes of the files it read when the run started, before it writes the
line. A mismatch stops the run with one line (exit 2) naming the module and
the fix, and that line is never written; lines written before stay (they ran
the current code), so the same command resumes once the workers import the
module anew.

Why refuse rather than re-import in the worker: a worker on another machine
may have another copy of the file (no shared filesystem is assumed), so a
re-import there cannot promise the client's code either; and reloading a
module under running code leaves old classes referenced elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ..core.errors import InputError
from ..core.provenance import shown_file, source_hash

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
    """A module's hash as this run read its file when it started, and the file's name as a user writes it."""
    digest: str
    shown: str


class CodeCheck:
    """The hashes this run's cells must report, per ``"module:Name"`` path; `check` refuses a line that differs."""

    def __init__(self, paths: Iterable[str], backend: str):
        self.backend = backend
        self.expected: dict[str, Expected] = {}
        for path in dict.fromkeys(paths):
            digest, filename = source_hash(path)
            if digest is not None and filename is not None:
                self.expected[path] = Expected(digest, shown_file(filename))

    def check(self, obj: dict[str, Any], kept: int = 0) -> None:
        """Raise InputError (one line) when the worker that made `obj` ran an arm or workload module other than
        this run's. Lines the parent wrote itself (``provenance.worker`` null) ran no code and pass."""
        prov = obj.get("provenance")
        if not self.expected or not isinstance(prov, dict) or prov.get("worker") is None:
            return
        for kind, module_field, path_field in (("arm", "arm_module", "arm_path"),
                                               ("workload", "workload_module", "workload_path")):
            want = self.expected.get(prov.get(path_field))  # type: ignore[arg-type]
            got = prov.get(module_field)
            if want is not None and isinstance(got, str) and got != want.digest:
                raise InputError(self._message(obj, prov, kind, want, got, kept))

    def _message(self, obj: dict, prov: dict, kind: str, want: Expected, got: str, kept: int) -> str:
        name = obj.get(kind)  # the record's "arm" or "workload"
        fix = _FIX.get(self.backend, "run the same command (the module changed while this run was running)")
        return (f"{want.shown}: worker {prov.get('worker')} on {prov.get('host')} ran {kind} {name!r} from a copy "
                f"of this module with hash {got}, but this run read {want.digest} from the file (the worker imported "
                f"it before an edit, or it was edited during the run); {fix}, then run the same command: nothing "
                f"from that cell was written, the {kept} line(s) written before are kept")


def module_paths(arms: Iterable[Any], workloads: Iterable[Any]) -> list[str]:
    """The ``"module:Name"`` paths of a suite's arms and workloads (specs with a `path`)."""
    return [spec.path for spec in arms] + [spec.path for spec in workloads]
