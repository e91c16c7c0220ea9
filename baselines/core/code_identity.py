"""costmatch's own code and its environment, for each record's provenance (contract v3, issue 31).

Why: records named the arm's and workload's module hashes but only a static
"0.1.0" for costmatch itself, and nothing of Python or the numeric
libraries, so an edit to costmatch (its meter, its runner) or a new numpy
was invisible in the results. Everything here is computed once per process
(a worker pays it once, about a millisecond per file read, not per cell):

- ``costmatch_code``: sha256 (16 hex digits) over the package's own source
  files (path and bytes of every ``baselines/**/*.py``), so an uncommitted
  edit changes it too; ``costmatch_commit``: the git commit when costmatch
  runs from a checkout (read from ``.git`` without running git), else absent;
- ``python`` and ``libraries`` (numpy, pandas, scipy versions from the
  installed metadata, without importing them: an arm's worker never loads
  pandas or scipy); a library that is not installed is null;
- ``backend``: the engine the cells ran on, as the runner set it for its
  workers (``COSTMATCH_BACKEND``); null when unknown (a worker started
  outside costmatch, e.g. a Dask worker by address).
"""
from __future__ import annotations

import hashlib
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

#: the variable the runner sets for the engine's workers (and this process) while cells run
BACKEND_VARIABLE = "COSTMATCH_BACKEND"
LIBRARIES = ("numpy", "pandas", "scipy")
_PACKAGE = Path(__file__).resolve().parents[1]   # baselines/
_CACHED: dict[str, Any] = {}


def code_identity() -> dict[str, Any]:
    """The fields of this process's code and environment (cached; a copy each call)."""
    if "libraries" not in _CACHED:  # filled whole, then published in one step: threads run cells too
        fields: dict[str, Any] = {"costmatch_code": package_hash(_PACKAGE)}
        commit = git_commit(_PACKAGE.parent)
        if commit is not None:
            fields["costmatch_commit"] = commit
        fields["python"] = platform.python_version()
        fields["libraries"] = {name: _version(name) for name in LIBRARIES}
        _CACHED.update(fields)
    return {**_CACHED, "libraries": dict(_CACHED["libraries"])}


def current_backend() -> str | None:
    return os.environ.get(BACKEND_VARIABLE) or None


def package_hash(package: Path) -> str:
    """sha256 (16 hex digits) over the relative path and bytes of every .py file under `package`."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + data + b"\0")
    return digest.hexdigest()[:16]


def git_commit(root: Path) -> str | None:
    """The commit checked out at `root` (a repository or a worktree), or None; never runs git."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree: "gitdir: PATH"
            git = Path(git.read_text().partition("gitdir:")[2].strip())
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head if _is_sha(head) else None
        ref = head.partition("ref:")[2].strip()
        common = Path((git / "commondir").read_text().strip()) if (git / "commondir").is_file() else None
        bases = [git] + ([git / common if not common.is_absolute() else common] if common else [])
        for base in bases:
            if (base / ref).is_file():
                sha = (base / ref).read_text().strip()
                return sha if _is_sha(sha) else None
            packed = base / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    sha, _, name = line.partition(" ")
                    if name == ref and _is_sha(sha):
                        return sha
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
