"""The one analysis of a history file that every view renders: series per group, steps, the last commits.

Why here and not in the page: the terminal, the markdown summary and the HTML
page must show the same points, intervals and steps, so they are computed
once (`history_view`) and `reports/` only draws them.

Which series: with every commit compared with one pinned reference, the
candidate minus that reference (the cumulative change, paired by seed, always
against the same runs); otherwise the candidate minus the baseline of each
check. A commit checked more than once counts by its latest check.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...core.records import budget_label
from .drift import drift_sentence
from .entry import HistoryEntry
from .recording import standard_error
from .steps import STEP_ALPHA, Point, StepReport, false_alarm_sentence, find_steps


@dataclass
class HistoryPoint:
    index: int
    commit: str
    url: str | None
    time: str
    branch: str | None
    verdict: str                 # the base gate's
    value: float                 # what the series plots
    lower: float
    upper: float
    estimate: float              # candidate - baseline (the base gate)
    base_lower: float
    base_upper: float
    drift_verdict: str | None
    drifted: bool
    checks: int                  # how many checks of this commit the history holds (re-checks + 1)
    seeds: int
    sentence: str                # the drift sentence, or the base gate's verdict in words

    def to_json(self) -> dict:
        num = lambda x: x if isinstance(x, (int, float)) and math.isfinite(x) else None  # noqa: E731
        return {"index": self.index, "commit": self.commit, "url": self.url, "time": self.time,
                "branch": self.branch, "verdict": self.verdict, "value": num(self.value),
                "interval": [num(self.lower), num(self.upper)], "estimate": num(self.estimate),
                "base_interval": [num(self.base_lower), num(self.base_upper)],
                "drift_verdict": self.drift_verdict, "drifted": self.drifted, "checks": self.checks,
                "seeds": self.seeds, "sentence": self.sentence}


@dataclass
class GroupHistory:
    workload: str
    budget: dict
    budget_text: str
    baseline: str
    candidate: str
    series: str                  # what `value` is: "candidate - v1.2 reference" or "candidate - baseline"
    reference: str | None        # the pinned reference's label, when the series is against it
    margin: float
    points: list[HistoryPoint]
    steps: StepReport
    false_alarm: str             # the stated false-alarm rate, in words
    headline: str
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"workload": self.workload, "budget": self.budget, "baseline": self.baseline,
                "candidate": self.candidate, "series": self.series, "reference": self.reference,
                "margin": self.margin, "points": [p.to_json() for p in self.points],
                "steps": self.steps.to_json(), "false_alarm": self.false_alarm, "headline": self.headline,
                "notes": list(self.notes)}


def safe_url(url: str | None) -> str | None:
    """A commit link only when it is http(s): a history file is user input, and `javascript:` in an href runs."""
    return url if isinstance(url, str) and url.lower().startswith(("https://", "http://")) else None


def _latest_per_commit(entries: list[HistoryEntry]) -> list[tuple[HistoryEntry, int]]:
    """(the latest entry, checks) per commit, in the order commits first appear in the file."""
    order: dict[str, list[HistoryEntry]] = {}
    for e in entries:
        order.setdefault(e.commit, []).append(e)
    return [(checks[-1], len(checks)) for checks in order.values()]


def _drift_se(e: HistoryEntry) -> float | None:
    """The drift's standard error: recorded from the data, else (older lines) read back from its interval."""
    d = e.drift
    if d.se is not None:
        return d.se
    alpha = d.alpha if d.alpha > 0 else e.alpha / max(d.horizon, 1)
    return standard_error(d.lower, d.upper, alpha, d.n)


def group_history(entries: list[HistoryEntry], step_alpha: float = STEP_ALPHA) -> GroupHistory:
    """The view of one group's entries (all of one `HistoryEntry.group()`), in file order."""
    latest = _latest_per_commit(entries)
    refs = {e.drift.reference_sha256 for e, _ in latest if e.drift is not None}
    against_ref = len(refs) == 1 and all(e.drift is not None for e, _ in latest)
    first = latest[0][0]
    label = first.drift.reference if against_ref else None
    points, step_points = [], []
    for i, (e, checks) in enumerate(latest):
        d = e.drift
        if against_ref:
            value, lower, upper, se, n = d.estimate, d.lower, d.upper, _drift_se(e), d.n
        else:
            value, lower, upper, se, n = e.estimate, e.lower, e.upper, e.se, e.seeds
        sentence = (f"{e.verdict} against the base; " + drift_sentence(d.estimate, d.lower, d.upper, d.alpha,
                                                                        d.verdict, d.reference, d.look, d.horizon,
                                                                        e.margin, e.lower_is_better)
                    ) if d else f"{e.verdict}"
        points.append(HistoryPoint(i, e.commit, safe_url(e.commit_url), e.time, e.branch, e.verdict, value, lower, upper,
                                   e.estimate, e.lower, e.upper, d.verdict if d else None,
                                   bool(d and d.drifted), checks, e.seeds, sentence))
        step_points.append(Point(e.commit, value, se if se is not None else math.nan, n))
    steps = find_steps(step_points, step_alpha)
    series = f"{first.candidate} - {label} reference" if against_ref else f"{first.candidate} - {first.baseline}"
    if first.lower_is_better:
        series += " (lower is better: signs flipped, higher is better here)"
    notes = []
    if refs and not against_ref:
        notes.append("the commits were not all compared with one reference: the series is candidate - baseline")
    return GroupHistory(first.workload, dict(first.budget), budget_label(first.budget), first.baseline,
                        first.candidate, series, label, first.margin, points, steps, false_alarm_sentence(steps),
                        _headline(points, steps, label), notes)


def _headline(points: list[HistoryPoint], steps: StepReport, label: str | None) -> str:
    drifted = [p for p in points if p.drifted]
    parts = [f"{len(points)} commit(s)"]
    if label:
        parts.append(f"first drift beyond the margin from the {label} reference at {drifted[0].commit[:12]}"
                     if drifted else f"no drift beyond the margin from the {label} reference")
    if steps.steps:
        parts.append("; ".join(f"step of {s.change:+.4g} at {s.commit[:12]} (interval [{s.lower:+.4g}, "
                               f"{s.upper:+.4g}])" for s in steps.steps))
    elif math.isfinite(steps.critical):
        parts.append("no step found")
    return "; ".join(parts)


def history_view(entries: list[HistoryEntry], step_alpha: float = STEP_ALPHA) -> list[GroupHistory]:
    """One GroupHistory per (workload, budget, baseline, candidate), in the order groups first appear."""
    groups: dict[tuple, list[HistoryEntry]] = {}
    for e in entries:
        groups.setdefault(e.group(), []).append(e)
    return [group_history(g, step_alpha) for g in groups.values()]
