"""`check`'s history and drift options: where the history goes, which commit, and the pinned reference."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..core.errors import InputError
from ..core.input_files import check_input
from .options import positive_int


def add_history_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--history", metavar="FILE",
                   help="append one line per group decided to this JSON Lines history (commit, verdict, interval, "
                        "results' sha256); a rerun on the same data adds nothing, on other data a re-check; with "
                        "--bounds auto, unbounded groups read the skewness pooled over their earlier commits "
                        "(Student t while it does not lean against the verdict)")
    p.add_argument("--commit", metavar="SHA", help="the commit to record (default: GITHUB_SHA, else git HEAD)")
    p.add_argument("--branch", metavar="NAME", help="the branch to record (default: from the CI or git)")
    p.add_argument("--reference", metavar="FILE",
                   help="pin a reference (a release's results file): the candidate is also gated against it with "
                        "the same margin, alpha spent over the commits; drift exits 4 (needs --history)")
    p.add_argument("--reference-commit", metavar="SHA",
                   help="pin the results file a history entry of this commit checked (its sha256 must still match)")
    p.add_argument("--reference-arm", metavar="ARM", help="the reference's arm (default: the candidate's name)")
    p.add_argument("--reference-label", metavar="LABEL",
                   help="what the reference is called in verdicts (default: the file's folder, or the commit)")
    p.add_argument("--drift-horizon", type=positive_int("--drift-horizon"), default=None, metavar="N",
                   help="the looks at one reference that share alpha (alpha / N each; default 30)")


def resolve_reference(history: str | None, reference: str | None, reference_commit: str | None,
                      reference_arm: str | None, reference_label: str | None, drift_horizon: int | None):
    """The pinned Reference, or None; an InputError for options that cannot work together."""
    from ..analysis.history.drift import DEFAULT_HORIZON
    from ..analysis.history.recording import Reference

    if reference is None and reference_commit is None:
        for name, value in (("--reference-arm", reference_arm), ("--reference-label", reference_label),
                            ("--drift-horizon", drift_horizon)):
            if value is not None:
                raise InputError(f"check: {name} needs --reference FILE or --reference-commit SHA")
        return None
    if history is None:
        raise InputError("check: --reference needs --history FILE: the looks at a reference are counted there "
                         "(alpha is spread over them)")
    if reference is not None and reference_commit is not None:
        raise InputError("check: give --reference FILE or --reference-commit SHA, not both")
    if reference_commit is not None:
        reference, label = _pinned_entry_file(history, reference_commit)
        reference_label = reference_label or label
    elif not Path(reference).is_file():   # missing, a FIFO, a device: the shared input check's one line
        check_input(reference, "reference results file (--reference)")
    label = reference_label or _label_of(reference)
    return Reference(reference, label, reference_arm, drift_horizon or DEFAULT_HORIZON)


def _label_of(path: str) -> str:
    p = Path(path).resolve()
    return p.parent.name if p.name == "results.jsonl" and p.parent.name else p.stem


def _pinned_entry_file(history: str, commit: str) -> tuple[str, str]:
    """The results file a history entry of `commit` checked, after checking its sha256 still matches."""
    from ..analysis.history.entry import read_history
    from ..analysis.history.recording import file_sha256

    if not Path(history).is_file():
        raise InputError(f"{history}: no history yet to take --reference-commit {commit} from")
    entries, _ = read_history(history)
    found = [e for e in entries if e.commit.startswith(commit)]
    if not found:
        raise InputError(f"{history}: no entry for commit {commit}; `costmatch history {history}` lists them")
    entry = found[-1]
    for item in entry.results:
        path, sha = item.get("path"), item.get("sha256")
        if path and sha and file_sha256(path) == sha:
            return path, entry.commit[:12]
    shown = ", ".join(str(i.get("path")) for i in entry.results) or "none recorded"
    raise InputError(f"{history}:{entry.line}: the results file of commit {entry.commit[:12]} ({shown}) is gone or "
                     "changed (sha256 differs); pin it with --reference FILE instead")
