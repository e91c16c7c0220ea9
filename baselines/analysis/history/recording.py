"""What one `check --history FILE` appends: a line per group decided, with drift when a reference is pinned.

Why under one lock, and why this rerun rule: two CI jobs may check at once,
and each decides from the file what to add (is this a re-check? the how-many-th
look at the reference?), so the read, the decision and the append are one step
under the file's lock (`core.locked_lines`). A rerun replaces nothing: the
same (commit, group) on the same data (the same results and reference files,
by sha256) is the same look and adds no line (the recorded line is reported);
on other data it is appended as a re-check (`recheck` = 1, 2, ...), so a job
re-run until it passes stays visible, and its drift look is counted.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.errors import InputError
from ...core.git_commit import CommitInfo
from ...core.locked_lines import locked_append
from ...core.records import budget_key, read_records
from ..gating.gate import rewards_by_arm
from ..statistics.student_t import t_quantile
from .drift import DEFAULT_HORIZON, drift_alpha, spent_note
from .entry import Drift, HistoryEntry, parse_lines


@dataclass
class Reference:
    """A pinned reference: the runs of `arm` in `path` (a release's results file), called `label`."""

    path: str
    label: str
    arm: str | None = None       # None: the candidate's name
    horizon: int = DEFAULT_HORIZON


@dataclass
class Recorded:
    """What the history holds for one group after this check: the entry, and whether this check added it."""

    entry: HistoryEntry
    appended: bool
    note: str = ""


@dataclass
class HistoryOutcome:
    recorded: list[Recorded] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        return any(r.entry.drift is not None and r.entry.drift.drifted for r in self.recorded)


def file_sha256(path: str) -> str | None:
    """Full sha256 of a file's bytes; None for what is not a regular file (a pipe)."""
    p = Path(path)
    try:
        if not p.is_file():
            return None
        digest = hashlib.sha256()
        with open(p, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None


def standard_error(lower: float, upper: float, alpha: float, n: int) -> float | None:
    """The standard error a t interval of this width at this alpha and n would have (approximate otherwise)."""
    if n < 2 or not (math.isfinite(lower) and math.isfinite(upper)) or not 0 < alpha < 0.5:
        return None
    return (upper - lower) / (2 * t_quantile(1 - alpha, n - 1))


def _group_of(comparison, result):
    for g in getattr(comparison, "groups", []):
        if g.workload == result.workload and budget_key(g.budget) == budget_key(result.budget):
            return g
    return None


def _means(comparison, result, baseline: str, candidate: str) -> tuple[float | None, float | None]:
    g = _group_of(comparison, result)
    if g is None:
        return None, None
    names = {a.arm: a for a in g.arms}
    pick = lambda arm: float(names[arm].mean) if arm in names else None  # noqa: E731
    return pick(baseline), pick(candidate)


def paired_se(comparison, result, baseline: str, candidate: str) -> float | None:
    """sd / sqrt(n) of the per-seed differences the group's scores hold, or None (unpaired, or too few seeds).

    Why from the scores and not the interval: the skew-checked hull and the
    drift gate's small alpha widen the interval beyond what the spread says,
    and a step search on inflated standard errors misses real steps (false
    alarms 0.006 where 0.05 was asked, simulated).
    """
    g = _group_of(comparison, result)
    if g is None or not result.paired:
        return None
    scores = rewards_by_arm(g)
    base, cand = scores.get(baseline, {}), scores.get(candidate, {})
    diffs = np.array([cand[s] - base[s] for s in sorted(set(base) & set(cand))])
    return float(diffs.std(ddof=1) / math.sqrt(diffs.size)) if diffs.size >= 2 else None


def base_entry(result, comparison, info: CommitInfo, *, baseline: str, candidate: str, fixed: str | None,
               results: list[str], lower_is_better: bool) -> HistoryEntry:
    """The history line of one gate result (GateResult), before drift and the re-check count."""
    b_mean, c_mean = _means(comparison, result, baseline, candidate)
    return HistoryEntry(
        commit=info.commit, branch=info.branch, commit_url=info.url,
        time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        workload=result.workload, budget=dict(result.budget), fixed=fixed, baseline=baseline, candidate=candidate,
        verdict=result.verdict, estimate=result.diff, lower=result.lower, upper=result.upper, alpha=result.alpha,
        margin=result.margin, method=result.method, seeds=result.n, baseline_mean=b_mean, candidate_mean=c_mean,
        se=paired_se(comparison, result, baseline, candidate),
        results=[{"path": str(p), "sha256": file_sha256(p)} for p in results], lower_is_better=lower_is_better,
        claim=getattr(result, "claim", "mean"), skew_z=getattr(result, "skew_z", None),
        questions=getattr(result, "question_route", None))


def record_history(path: str, entries: list[HistoryEntry], gate_drift=None, reference: Reference | None = None
                   ) -> HistoryOutcome:
    """Append `entries` to the history at `path` under its lock, with drift when `reference` is pinned.

    `gate_drift(reference_arm_name, alpha)` gates the candidate against the
    reference's runs at one alpha and returns {(workload, budget key): GateResult};
    it is called under the lock, once per distinct look alpha.
    """
    outcome = HistoryOutcome()
    ref_sha = file_sha256(reference.path) if reference else None
    if reference and ref_sha is None:
        raise InputError(f"{reference.path}: the reference is not a readable results file; give the path of a "
                         "release's results.jsonl")

    def decide(lines: list[bytes]) -> list[bytes]:
        earlier = parse_lines(lines, path)
        new = []
        looks: dict[int, list[HistoryEntry]] = {}
        for entry in entries:
            same = [e for e in earlier if e.commit == entry.commit and e.group() == entry.group()]
            if reference:
                entry.drift = Drift(reference.label, ref_sha, reference.arm or entry.candidate, math.nan, math.nan,
                                    math.nan, 0.0, 0, reference.horizon, "", "INCONCLUSIVE", 0,
                                    reference_file=str(reference.path))
            twin = next((e for e in same if e.data_key() == entry.data_key()), None)
            if twin is not None:
                outcome.recorded.append(Recorded(twin, False, f"already recorded at {path}:{twin.line} (the same "
                                                              "data: nothing appended)"))
                continue
            entry.recheck = len(same)
            if reference:
                entry.drift.look = 1 + sum(1 for e in earlier if e.group() == entry.group() and e.drift
                                           and e.drift.reference_sha256 == ref_sha)
                looks.setdefault(entry.drift.look, []).append(entry)
            note = (f"re-check {entry.recheck} of commit {entry.commit[:12]} on other data (the history keeps every "
                    "check; steps use the latest)" if entry.recheck else "")
            outcome.recorded.append(Recorded(entry, True, note))
            new.append(entry)
        for look, group in looks.items():
            _add_drift(group, look, reference, gate_drift, outcome)
        return [e.line_bytes() for e in new]

    appended, warning = locked_append(path, decide)
    if warning:
        outcome.warnings.append(warning)
    return outcome


def _add_drift(entries: list[HistoryEntry], look: int, reference: Reference, gate_drift, outcome) -> None:
    alpha = drift_alpha(look, reference.horizon, entries[0].alpha)
    spent = alpha == 0.0
    gated = gate_drift(reference.arm, alpha if not spent else entries[0].alpha / reference.horizon)
    for entry in entries:
        r, comparison, names = gated.get((entry.workload, budget_key(entry.budget)), (None, None, None))
        if r is None:
            entry.drift = None
            outcome.warnings.append(f"{reference.path}: no runs of {reference.arm or entry.candidate!r} for "
                                    f"{entry.workload} at this budget; no drift recorded for this group")
            continue
        verdict = "INCONCLUSIVE" if spent else r.verdict
        entry.drift = dataclasses.replace(entry.drift, estimate=r.diff, lower=r.lower, upper=r.upper, alpha=alpha,
                                          method=r.method, verdict=verdict, n=r.n,
                                          se=paired_se(comparison, r, *names), skew_z=getattr(r, "skew_z", None),
                                          note=spent_note(reference.horizon, reference.label) if spent else "")


def history_shapes(path: str, baseline: str, candidate: str, claim: str = "mean",
                   reference_sha256: str | None = None, commit: str | None = None) -> dict:
    """{(workload, budget key): Shape} of the base gates' series in the history at `path`, or of the drift looks at
    the reference with this sha256; {} when the file does not exist yet.

    One look per commit (its latest re-check), and only lines that recorded a skewness (`skew_z`) under the same
    claim and arms: the pooled-shape route (`gating.pooled_shape`) reads these. Lines of `commit` (the commit
    being checked) are left out, so a rerun on the same data decides as the recorded line did. Read without the
    lock: a line a concurrent check is appending is its own look and is left to the next check.
    """
    from ..gating.pooled_shape import Shape
    from .entry import read_history

    if not Path(path).exists():
        return {}
    entries, _ = read_history(path)
    latest: dict[tuple, float] = {}
    for e in entries:
        if e.baseline != baseline or e.candidate != candidate or e.claim != claim or e.commit == commit:
            continue
        if reference_sha256 is None:
            z = e.skew_z
        else:
            z = e.drift.skew_z if e.drift is not None and e.drift.reference_sha256 == reference_sha256 else None
        if z is not None and math.isfinite(z):
            latest[(e.workload, budget_key(e.budget), e.commit)] = z
    shapes: dict = {}
    for (workload, budget, _), z in latest.items():
        shapes[(workload, budget)] = shapes.get((workload, budget), Shape()).add(z)
    return shapes


def reference_records(reference: Reference, candidate: str, name: str):
    """The reference arm's runs from its results file, renamed `name` so they cannot mix with the candidate's."""
    arm = reference.arm or candidate
    stored = [dataclasses.replace(r, arm=name) for r in read_records(reference.path) if r.arm == arm]
    if not stored:
        raise InputError(f"{reference.path}: no runs of arm {arm!r} to pin as the {reference.label} reference; "
                         "name the arm with --reference-arm")
    return stored
