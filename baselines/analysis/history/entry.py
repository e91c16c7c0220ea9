"""One line of a history file (`costmatch.history/1`): what the gate decided for one group at one commit.

Why every field: a history read a year later must say what was compared (workload,
budget and its fixed unit, the two arms), on what (the results files' sha256,
so a rerun on other data is told apart from the same data), with which rule
(method, alpha, margin) and what it found (estimate, interval, verdict), and,
with a pinned reference, the drift since it. Lines are never rewritten: a
second check of the same commit and group on other data is appended as a
re-check (`recheck` counts them), the same data again adds nothing.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import InputError
from ...core.records import budget_key

SCHEMA = "costmatch.history/1"


def _num(x: Any) -> float | None:
    return None if x is None or not isinstance(x, (int, float)) or not math.isfinite(x) else float(x)


@dataclass
class Drift:
    """The candidate against the pinned reference at this commit, gated with the base gate's margin."""

    reference: str               # its label ("v1.2")
    reference_sha256: str        # of the reference results file: looks are counted per reference
    reference_arm: str
    estimate: float
    lower: float
    upper: float
    alpha: float                 # this look's share of alpha (drift.look_alpha)
    look: int                    # the how-many-th look at this reference for this group
    horizon: int                 # the looks alpha is spread over
    method: str
    verdict: str                 # PASS / FAIL / INCONCLUSIVE of candidate vs reference
    n: int
    reference_file: str = ""
    note: str = ""
    se: float | None = None      # sd / sqrt(n) of the per-seed differences (steps use it)
    skew_z: float | None = None  # their sample skewness in standard errors (the next looks pool it)

    @property
    def drifted(self) -> bool:
        """The cumulative change since the reference is beyond the margin (the upper bound is below -margin)."""
        return self.verdict == "FAIL"

    def to_json(self) -> dict[str, Any]:
        return {"reference": self.reference, "reference_file": self.reference_file,
                "reference_sha256": self.reference_sha256, "reference_arm": self.reference_arm,
                "estimate": _num(self.estimate), "interval": [_num(self.lower), _num(self.upper)],
                "alpha": self.alpha, "look": self.look, "horizon": self.horizon, "method": self.method,
                "verdict": self.verdict, "drift": self.drifted, "n": self.n, "se": _num(self.se),
                "skew_z": _num(self.skew_z), "note": self.note}


@dataclass
class HistoryEntry:
    commit: str
    workload: str
    budget: dict
    baseline: str
    candidate: str
    verdict: str
    estimate: float
    lower: float
    upper: float
    alpha: float
    margin: float
    method: str
    seeds: int
    fixed: str | None = None
    branch: str | None = None
    time: str = ""
    commit_url: str | None = None
    baseline_mean: float | None = None
    candidate_mean: float | None = None
    se: float | None = None          # sd / sqrt(n) of the per-seed differences (steps use it)
    results: list[dict] = field(default_factory=list)   # [{"path", "sha256"}] of the results files checked
    recheck: int = 0                 # 0: the first check of this (commit, group); k: the k-th re-check
    lower_is_better: bool = False
    claim: str = "mean"              # the gate's claim (issue 37): mean, typical or both
    drift: Drift | None = None
    skew_z: float | None = None      # sample skewness of the per-seed differences in standard errors (pooled)
    # the questions route of an item-paired verdict (issue 37 item 2): "population", "these" or "fresh"; None
    # when decided per seed, and on lines written before the field (contract 6.37.e)
    questions: str | None = None
    line: int = 0                    # where it was read from (not written)

    def group(self) -> tuple[str, str, str, str]:
        """(workload, budget, baseline, candidate): what one series of the history follows."""
        return (self.workload, budget_key(self.budget), self.baseline, self.candidate)

    def data_key(self) -> tuple:
        """What makes two checks the same look: the results and reference files' contents (by hash) and the rule
        (margin, claim, questions route); the same data under another margin, claim or route is a re-check, never
        the same line."""
        ref = self.drift.reference_sha256 if self.drift else None
        return (tuple(sorted(str(r.get("sha256", "")) for r in self.results)), ref, self.margin, self.claim,
                self.questions)

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "commit": self.commit, "branch": self.branch, "time": self.time,
                "commit_url": self.commit_url, "workload": self.workload, "budget": self.budget,
                "fixed": self.fixed, "baseline": self.baseline, "candidate": self.candidate,
                "verdict": self.verdict, "estimate": _num(self.estimate),
                "interval": [_num(self.lower), _num(self.upper)], "se": _num(self.se), "alpha": self.alpha,
                "margin": _num(self.margin), "method": self.method, "seeds": self.seeds,
                "lower_is_better": self.lower_is_better, "claim": self.claim,
                "baseline_mean": _num(self.baseline_mean), "candidate_mean": _num(self.candidate_mean),
                "results": list(self.results), "recheck": self.recheck, "skew_z": _num(self.skew_z),
                "questions": self.questions, "drift": self.drift.to_json() if self.drift else None}

    def line_bytes(self) -> bytes:
        return json.dumps(self.to_json(), ensure_ascii=False, allow_nan=False, sort_keys=False).encode("utf-8")


_REQUIRED = ("commit", "workload", "budget", "baseline", "candidate", "verdict", "interval", "margin", "method",
             "seeds")


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def parse_entry(line: bytes, where: str) -> HistoryEntry:
    """One history line, or an InputError naming the line, the field and the fix."""
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise InputError(f"{where}: not a JSON line ({exc.msg}); a history file holds one JSON object per line "
                         "written by `costmatch check --history`") from None
    if not isinstance(obj, dict) or obj.get("schema") != SCHEMA:
        raise InputError(f"{where}: not a history line (schema must be {SCHEMA!r}); is this a results file? "
                         "`costmatch history` reads the file `check --history` writes")
    missing = [k for k in _REQUIRED if k not in obj]
    if missing:
        raise InputError(f"{where}: field {missing[0]!r} is missing; lines are written by `costmatch check "
                         "--history`: remove the line or restore it from the file's backup")
    try:
        interval = obj["interval"]
        entry = HistoryEntry(
            commit=str(obj["commit"]), workload=str(obj["workload"]), budget=dict(obj["budget"]),
            baseline=str(obj["baseline"]), candidate=str(obj["candidate"]), verdict=str(obj["verdict"]),
            estimate=_float(obj.get("estimate")), lower=_float(interval[0]), upper=_float(interval[1]),
            alpha=float(obj.get("alpha", 0.05)), margin=_float(obj["margin"]), method=str(obj["method"]),
            seeds=int(obj["seeds"]), fixed=obj.get("fixed"), branch=obj.get("branch"), time=str(obj.get("time", "")),
            commit_url=obj.get("commit_url"), baseline_mean=_num(obj.get("baseline_mean")),
            candidate_mean=_num(obj.get("candidate_mean")), se=_num(obj.get("se")),
            results=list(obj.get("results") or []), recheck=int(obj.get("recheck", 0)),
            lower_is_better=bool(obj.get("lower_is_better", False)), claim=str(obj.get("claim", "mean")),
            drift=_parse_drift(obj.get("drift")), skew_z=_num(obj.get("skew_z")),
            questions=_questions(obj.get("questions")))
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        raise InputError(f"{where}: a field has the wrong type ({exc}); lines are written by `costmatch check "
                         "--history`: remove the line or restore it from the file's backup") from None
    return entry


def _questions(value: Any) -> str | None:
    """A line's questions route: null (absent on lines written before it: read as unknown / per seed) or a
    string (an unknown route is kept as written: readers ignore what they do not know)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"questions must be a string or null, got {type(value).__name__}")
    return value


def _parse_drift(obj: Any) -> Drift | None:
    if obj is None:
        return None
    interval = obj["interval"]
    return Drift(reference=str(obj["reference"]), reference_sha256=str(obj["reference_sha256"]),
                 reference_arm=str(obj["reference_arm"]), estimate=_float(obj.get("estimate")),
                 lower=_float(interval[0]), upper=_float(interval[1]), alpha=float(obj["alpha"]),
                 look=int(obj["look"]), horizon=int(obj["horizon"]), method=str(obj["method"]),
                 verdict=str(obj["verdict"]), n=int(obj.get("n", 0)),
                 reference_file=str(obj.get("reference_file", "")), note=str(obj.get("note", "")),
                 se=_num(obj.get("se")), skew_z=_num(obj.get("skew_z")))


def parse_lines(lines: list[bytes], path: str) -> list[HistoryEntry]:
    """Every complete line of a history file (blank lines skipped), numbered from 1."""
    out = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            entry = parse_entry(line, f"{path}:{number}")
            entry.line = number
            out.append(entry)
    return out


def read_history(path: str) -> tuple[list[HistoryEntry], list[str]]:
    """The entries of a history file and warnings (a torn last line, left out); an InputError if unreadable."""
    from ...core.locked_lines import read_complete

    try:
        lines, torn = read_complete(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the history file ({exc.strerror})") from None
    warnings = [f"{path}:{len(lines) + 1}: an incomplete last line (a check killed while appending) is left out"] \
        if torn else []
    return parse_lines(lines, path), warnings
