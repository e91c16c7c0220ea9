"""The history step of a check, shared by `costmatch check --history` and Python `check(history=...)`.

Why one function: the CLI and the API must write the same line for the same
check (fields, re-check rule, drift look), so both hand their gate results here.
"""
from __future__ import annotations

from ...core.errors import InputError
from ...core.git_commit import commit_info
from ...core.records import budget_key, read_records
from ..gating.gate import run_gate
from .recording import (HistoryOutcome, Reference, base_entry, file_sha256, history_shapes, record_history,
                        reference_records)


def check_history(history: str, *, results: list[str], outcome: list, comparison, baseline: str, candidate: str,
                  fixed: str | None, margin, lower_is_better: bool = False, bounds: str = "auto", options=None,
                  records=None, commit: str | None = None, branch: str | None = None,
                  reference: Reference | None = None, claim: str = "mean") -> HistoryOutcome:
    """Append one line per gated group of `outcome` (GateResults) to `history`; gate drift when `reference`.

    `records` are the runs checked (a list of RunRecord; read from `results`
    when None and a reference needs them). Raises InputError when no commit
    is given or found (`--commit`). `claim` (issue 37: mean, typical or both)
    is the base gate's, and the drift gate gates the same claim.
    """
    info = commit_info(commit, branch)
    if info is None:
        raise InputError("check --history: no commit to record: not in a git checkout and GITHUB_SHA is unset; "
                         "pass --commit SHA")
    entries = [base_entry(r, comparison, info, baseline=baseline, candidate=candidate, fixed=fixed,
                          results=results, lower_is_better=lower_is_better) for r in outcome]

    def gate_drift(reference_arm: str | None, alpha: float) -> dict:
        name = _reference_name(reference.label, candidate)
        ref = reference_records(reference, candidate, name)
        runs = records if records is not None else read_records(results, keep_last=True)
        mine = [r for r in runs if r.arm == candidate]
        shapes = history_shapes(history, baseline, candidate, claim, file_sha256(reference.path) or "", info.commit)
        try:
            gated, comparison = run_gate(mine + ref, fixed, name, candidate, margin, alpha,
                                         lower_is_better=lower_is_better, bounds=bounds, options=options,
                                         claim=claim, shapes=shapes)
        except ValueError as exc:
            raise InputError(f"check --reference {reference.path}: {exc}") from None
        return {(g.workload, budget_key(g.budget)): (g, comparison, (name, candidate)) for g in gated}

    return record_history(history, entries, gate_drift if reference else None, reference)


def _reference_name(label: str, candidate: str) -> str:
    name = f"{label} reference"
    return name if name != candidate else f"{name} (pinned)"
