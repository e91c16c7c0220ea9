"""The finished output of `costmatch compare`, kept beside its results file and replayed before any heavy import.

Why: a second `compare` on an unchanged million-run file spent about 0.6 s
importing pandas and scipy and 0.45 s reading the column sidecar and
comparing, to print exactly what it printed the last time (issue 38: the
warm target, 0.3x polars' parse, is below the imports alone). A hit here
prints the stored stdout and stderr, in their order, and exits with the
stored code; only the standard library is loaded.

The key (every part must be equal; anything else is a miss, never a guess):

- every results file: its real path, device, inode, size, mtime and ctime
  and a blake2b of its first and last 64 KiB (`baselines.core.file_stamp`,
  the column sidecar's rule); pipes and devices make a command uncacheable;
- the verb's options as parsed (argparse fills defaults and places flags, so
  option order and a default written out do not matter; repeated options
  keep their order) and the working folder (paths print as given);
- the code: (relative path, inode, size, mtime, ctime) of every file in the
  baselines, arms, workloads and reports packages where they are imported
  from, and of the ``__init__.py`` of each library the comparison uses,
  plus the Python build. Why stamps suffice without hashing the bytes: any
  write to a file moves its ctime, which no tool sets back (``cp -p``,
  ``touch -r``, ``git checkout`` keep or set mtime, not ctime), and an
  installed upgrade writes new files (new inodes). It costs about a
  millisecond where hashing the sources costs tens;
- the environment: `compare` reads no variable that changes its output
  (checked: ``COSTMATCH_CACHE`` is the only one on its path, and it turns
  this cache off); the terminal's width or colour settings are not read.

`compare`'s output holds no time or date, and its bootstrap is seeded, so a
cold run and a replay print the same bytes (tests/test_result_cache.py).
Nothing is stored when the verb raised (a usage error, an interrupt, a
broken pipe), when the output was not written through ``sys.stdout`` /
``sys.stderr`` as text (its ``buffer`` or ``fileno`` was used), when a
results file changed during the run, or when one changed too recently to
tell (see `FileStamp.racy`).

Where: ``.NAME.costmatch-result.json`` beside the first results file (real
path), for inputs of 1 MiB or more in all (the column sidecar's rule: smaller
ones are not worth a hidden file). It holds up to `KEEP` outputs (newest
first), each under a sha256 of its key and a sha256 of its own content; a
corrupt, unreadable or unwritable file changes nothing but speed (atomic
writes: temporary file, then ``os.replace``). ``--no-cache`` or
``COSTMATCH_CACHE=off`` turn it off with the sidecar; ``--no-result-cache``
turns off only this one. It is not part of the contract.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from ..core.file_stamp import FileStamp, edges

ENV = "COSTMATCH_CACHE"                  # the column sidecar's switch: "off" (or 0, no, false) turns both off
SUFFIX = ".costmatch-result.json"
MIN_BYTES = 1 << 20                      # the sidecar's threshold, over all the results files
KEEP = 8                                 # outputs kept per file (different options)
FORMAT = 1
VERBS = frozenset({"compare"})           # `check` keeps a looks ledger (a side effect); `report` writes files
#: the packages whose code makes the output, and the libraries the comparison imports
PACKAGES = ("baselines", "arms", "workloads", "reports")
LIBRARIES = ("numpy", "pandas", "scipy", "pyarrow", "tabulate", "orjson")
_STDOUT, _STDERR = 1, 2


def enabled(options: dict[str, Any]) -> bool:
    """False under --no-cache, --no-result-cache or COSTMATCH_CACHE=off."""
    if options.get("no_cache") or options.get("no_result_cache"):
        return False
    return os.environ.get(ENV, "").strip().lower() not in ("off", "0", "no", "false")


def cached(verb: str, options: dict[str, Any], run: Callable[[], int]) -> int:
    """`run()`'s exit code, its output replayed from the cache on a hit, else printed and (when it can be) kept."""
    key = _key(verb, options) if verb in VERBS and enabled(options) else None
    if key is None:
        return run()
    digest, files, stamps = key
    store = _store_path(files[0])
    hit = _lookup(store, digest)
    if hit is not None:
        code, chunks = hit
        for stream, text in chunks:
            (sys.stdout if stream == _STDOUT else sys.stderr).write(text)
        return code
    with _Capture() as capture:
        code = run()
    if not capture.tainted and _settled(files, stamps):
        _keep(store, digest, code, capture.chunks)
    return code


# -- the key -----------------------------------------------------------------------------------------------------
def _key(verb: str, options: dict[str, Any]) -> tuple[str, list[str], list[FileStamp]] | None:
    """(sha256 of the key, the results files' real paths, their stamps), or None when uncacheable."""
    try:
        files, stamps, parts = [], [], []
        for given in options["results"]:
            real = os.path.realpath(given)
            if real.startswith(("/dev/", "/proc/")):   # /dev/stdin redirected from a file reads from fd 0's offset
                return None
            stamp = FileStamp.of(real)
            if stamp is None:
                return None
            files.append(real)
            stamps.append(stamp)
            parts.append([real, stamp.__dict__, edges(real, stamp.size)])
        if sum(s.size for s in stamps) < MIN_BYTES:
            return None
        key = {"format": FORMAT, "verb": verb, "options": options, "cwd": os.getcwd(), "files": parts,
               "code": code_fingerprint(), "python": [sys.version, sys.executable]}
        text = json.dumps(key, sort_keys=True, ensure_ascii=True, default=repr)
    except (OSError, TypeError, ValueError, KeyError):
        return None
    return hashlib.sha256(text.encode()).hexdigest(), files, stamps


def code_fingerprint() -> str:
    """sha256 over the stamps of every file of costmatch's packages and of the libraries' ``__init__.py``.

    Each package is found where Python imports it from (a worktree on
    PYTHONPATH and the installed copy are different code); ``__pycache__``
    is left out (it follows the sources).
    """
    digest = hashlib.sha256()
    for name in PACKAGES + LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        digest.update(f"{name}\0{origin}\0".encode())
        if origin is None:
            continue
        if name in PACKAGES:
            root = os.path.dirname(origin)
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
                for file in sorted(names):
                    _stamp_into(digest, os.path.join(folder, file), os.path.relpath(os.path.join(folder, file), root))
        else:
            _stamp_into(digest, origin, origin)
    return digest.hexdigest()


def _stamp_into(digest, path: str, label: str) -> None:
    try:
        info = os.stat(path)
    except OSError:
        digest.update(f"{label}\0missing\0".encode())
        return
    digest.update(f"{label}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}\0".encode())


def _settled(files: list[str], stamps: list[FileStamp]) -> bool:
    """The files are as they were when the key was made, and not changed too recently to tell."""
    now = time.time_ns()
    return all(FileStamp.of(f) == s and not s.racy(now) for f, s in zip(files, stamps))


# -- the store ---------------------------------------------------------------------------------------------------
def store_path(results_file: str | os.PathLike) -> Path:
    """Where the outputs for a command whose first results file is `results_file` are kept."""
    return _store_path(os.path.realpath(results_file))


def _store_path(real: str) -> Path:
    folder, name = os.path.split(real)
    return Path(folder) / f".{name}{SUFFIX}"


def _entry_sum(key: str, code: int, chunks: list) -> str:
    return hashlib.sha256(json.dumps([key, code, chunks], ensure_ascii=True).encode()).hexdigest()


def _entries(store: Path) -> list[dict]:
    """The sound entries of the store ([] for a missing, unreadable or corrupt one)."""
    try:
        data = json.loads(store.read_bytes())
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), list):
        return []
    sound = []
    for entry in data["entries"]:
        try:
            key, code, chunks = entry["key"], entry["code"], entry["out"]
            ok = (isinstance(key, str) and type(code) is int and isinstance(chunks, list)
                  and all(isinstance(c, list) and len(c) == 2 and c[0] in (_STDOUT, _STDERR)
                          and isinstance(c[1], str) for c in chunks)
                  and entry["sum"] == _entry_sum(key, code, chunks))
        except (TypeError, KeyError):
            ok = False
        if ok:
            sound.append(entry)
    return sound


def _lookup(store: Path, key: str) -> tuple[int, list] | None:
    for entry in _entries(store):
        if entry["key"] == key:
            return entry["code"], entry["out"]
    return None


def _keep(store: Path, key: str, code: int, chunks: list) -> None:
    """Add this output (newest first, at most KEEP); any failure only costs speed."""
    chunks = [[stream, text] for stream, text in chunks]
    entry = {"key": key, "code": code, "out": chunks, "sum": _entry_sum(key, code, chunks)}
    entries = [entry] + [e for e in _entries(store) if e["key"] != key][:KEEP - 1]
    tmp = store.with_name(f"{store.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"format": FORMAT, "entries": entries}, handle, ensure_ascii=True)
        os.replace(tmp, store)
    except (OSError, ValueError):   # read-only folder, full disk, text that cannot be written
        try:
            os.unlink(tmp)
        except OSError:
            pass


# -- capturing the output ----------------------------------------------------------------------------------------
class _Tee:
    """A text stream that passes writes on and records them; any other use of the stream taints the capture."""

    def __init__(self, real, stream: int, capture: "_Capture"):
        self._real, self._stream, self._capture = real, stream, capture

    def write(self, text: str) -> int:
        if self._capture.active:
            if isinstance(text, str):
                self._capture.chunks.append((self._stream, text))
            else:
                self._capture.tainted = True
        return self._real.write(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._real.flush()

    def isatty(self) -> bool:
        return self._real.isatty()

    @property
    def encoding(self):
        return self._real.encoding

    @property
    def errors(self):
        return self._real.errors

    def __getattr__(self, name: str):   # buffer, fileno, ...: bytes that would bypass the record
        self._capture.tainted = True
        return getattr(self._real, name)


class _Capture:
    """Tee sys.stdout and sys.stderr inside the block; `chunks` is what was written, in order."""

    def __init__(self):
        self.chunks: list[tuple[int, str]] = []
        self.tainted = False
        self.active = False

    def __enter__(self) -> "_Capture":
        self._saved = sys.stdout, sys.stderr
        self.active = True
        sys.stdout = _Tee(sys.stdout, _STDOUT, self)
        sys.stderr = _Tee(sys.stderr, _STDERR, self)
        return self

    def __exit__(self, *exc) -> None:
        self.active = False
        if exc[0] is not None:
            self.tainted = True
        if isinstance(sys.stdout, _Tee) and sys.stdout._capture is self:
            sys.stdout = self._saved[0]
        else:   # the verb replaced the stream itself: what it wrote is not all here
            self.tainted = True
        if isinstance(sys.stderr, _Tee) and sys.stderr._capture is self:
            sys.stderr = self._saved[1]
        else:
            self.tainted = True
