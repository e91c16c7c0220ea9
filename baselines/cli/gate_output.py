"""How a gate verdict is printed, written to the CI step summary and turned into an exit code."""
from __future__ import annotations

import json
import os

from ..core.units import nouns_of
from .options import EXIT_DRIFT, EXIT_INCONCLUSIVE, EXIT_NEGATIVE, EXIT_OK


def print_gate(results, verdict: str, *, baseline: str, candidate: str, fixed: str | None, as_json: bool,
               seeds_used: int | None = None, skipped=(), history=None) -> None:
    from reports.gate_summary import gate_markdown  # start-up: only when the verb runs
    from reports.text import budget_text


    if as_json:
        payload = {"verdict": verdict, "baseline": baseline, "candidate": candidate,
                   "groups": [r.to_json() for r in results]}
        if seeds_used is not None:
            payload["seeds_used"] = seeds_used
        payload["skipped"] = [s.to_json() for s in skipped]
        if history is not None:   # contract 6.40: the lines the history holds for this check
            payload["history"] = [dict(r.entry.to_json(), appended=r.appended, note=r.note) for r in history.recorded]
            payload["drift"] = history.drifted
        print(json.dumps(payload, allow_nan=False))
    else:
        worst = f", the worst of {len(results)} groups" if len(results) > 1 else ""
        print(f"costmatch check: {verdict} ({candidate} vs {baseline}{worst})")
        for r in results:
            with nouns_of(r.unit_nouns):  # bbob's calls are function evaluations, not model calls
                print(f"  {r.workload} at {budget_text(r.budget)}: {r.verdict}: {r.reason}")
            for c in r.confounds:
                print(f"    confound: {c}")
        for s in skipped:
            with nouns_of(getattr(s, "unit_nouns", None)):
                print(f"  {s.workload} at {budget_text(s.budget)}: skipped: {s.reason}")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(gate_markdown(results, baseline, candidate, fixed, verdict))
            if history is not None:
                from reports.history_markdown import drift_markdown

                handle.write(drift_markdown(history))


def print_history(history, verdict: str, path: str) -> None:
    """Per group: what the history holds for it, and the drift against the reference in one sentence."""
    from reports.history_markdown import drift_line

    for r in history.recorded:
        line = drift_line(r.entry)
        if line:
            print(f"costmatch check: {line}")
        print(f"  history: {r.note or f'appended to {path}'}")


def gate_exit(verdict: str, inconclusive: str, drifted: bool = False) -> int:
    """0 PASS, 1 FAIL, 3 INCONCLUSIVE (or as --inconclusive maps it); 4 when a group drifted beyond the margin
    from a pinned reference and the base gate did not FAIL (contract 6.40)."""
    from ..analysis.gating.gate import FAIL, PASS  # start-up: only when the verb runs

    if drifted and verdict != FAIL:
        return EXIT_DRIFT
    if verdict == PASS:
        return EXIT_OK
    if verdict == FAIL:
        return EXIT_NEGATIVE
    return {"pass": EXIT_OK, "fail": EXIT_NEGATIVE}.get(inconclusive, EXIT_INCONCLUSIVE)
