"""The looks ledger: which groups `check` has already looked at, with how many seeds.

Why: re-running `check` after every new seed and stopping at the first
PASS is peeking; a fixed-n test at alpha then PASSes at the margin far more
often than alpha (16% normal, 27% lognormal, 39% left-skewed when simulated).
`check` keeps a small JSON file beside the first results file,
`.costmatch-looks.json`, with the seed counts each (workload, budget,
baseline, candidate) was gated at. When a group has been looked at before
with fewer seeds, bounded rewards are gated with the anytime-valid betting
confidence sequence and every group says which earlier looks it knows of;
unbounded rewards have no such bound here and get a warning naming them.
A look at the same seed count again is the same data, not a new look.
`COSTMATCH_LOOKS_LEDGER=off` turns the ledger off (the test suite does, so
checks on the repository's fixtures write nothing beside them).
The ledger is advisory: a folder that cannot be written leaves it out with
a warning, never an error; a pipe has no folder and no ledger.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ...core.records import budget_key

LEDGER_NAME = ".costmatch-looks.json"
SCHEMA = "costmatch.looks/1"


def ledger_path(results: list[str]) -> Path | None:
    """The ledger beside the first results file, or None when that is not a regular file (a pipe)."""
    if not results or os.environ.get("COSTMATCH_LOOKS_LEDGER") == "off":
        return None
    path = Path(results[0])
    try:
        if not path.is_file():
            return None
    except OSError:
        return None
    return path.resolve().parent / LEDGER_NAME


def group_key(workload: str, budget: dict, baseline: str, candidate: str) -> str:
    return json.dumps([workload, budget_key(budget), baseline, candidate], ensure_ascii=False)


def read_ledger(path: Path | None) -> dict[str, list[dict[str, Any]]]:
    """Earlier looks by group key ({} without a ledger, or when it cannot be read: it is advisory)."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    looks = data.get("looks") if isinstance(data, dict) and data.get("schema") == SCHEMA else None
    if not isinstance(looks, dict):
        return {}
    return {k: [e for e in v if isinstance(e, dict) and isinstance(e.get("n"), int)]
            for k, v in looks.items() if isinstance(v, list)}


def earlier_looks(ledger: dict[str, list[dict]], key: str, n: int) -> list[int]:
    """Seed counts this group was gated at before, with fewer seeds than now."""
    return sorted({e["n"] for e in ledger.get(key, []) if e["n"] < n})


def record_looks(path: Path | None, ledger: dict[str, list[dict]], looks: list[tuple[str, int, str]]) -> str | None:
    """Add (key, n, verdict) looks not yet recorded and write the ledger; a warning sentence if it cannot."""
    if path is None:
        return None
    changed = False
    for key, n, verdict in looks:
        entries = ledger.setdefault(key, [])
        if all(e["n"] != n for e in entries):
            entries.append({"n": n, "verdict": verdict})
            changed = True
    if not changed:
        return None
    text = json.dumps({"schema": SCHEMA, "looks": ledger}, ensure_ascii=False, indent=1, sort_keys=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        return f"could not record this look in {path} ({exc.strerror or exc}); later checks will not know of it"
    return None


def looks_note(earlier: list[int], path: Path) -> str:
    shown = ", ".join(str(n) for n in earlier)
    return (f"looked at before with {shown} seed(s) ({path.name}): bounded rewards use the anytime-valid betting "
            "bounds from here on; delete the file only if those looks did not decide anything")
