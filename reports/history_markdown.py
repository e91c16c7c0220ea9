"""A gate history in words and markdown: the drift line a check prints, and the job summary of `history`.

Everything here is formatting: the sentences and numbers come from
`baselines.analysis.history` (the one analysis every view renders).
"""
from __future__ import annotations

import math

from baselines.analysis.history.drift import drift_sentence
from baselines.analysis.history.entry import HistoryEntry
from baselines.analysis.history.view import GroupHistory

from .text import budget_text, md, pipe_table

ICON = {"PASS": "✅", "FAIL": "❌", "INCONCLUSIVE": "⚠️"}
#: the drift gate's verdict in the words of a drift column
DRIFT_WORDS = {"PASS": "within the margin", "INCONCLUSIVE": "undecided", "FAIL": "🔻 DRIFT"}


def drift_line(entry: HistoryEntry) -> str:
    """'PASS against the base; DRIFT: 0.08 below the v1.2 reference (interval ...)', or '' without a reference."""
    d = entry.drift
    if d is None:
        return ""
    sentence = drift_sentence(d.estimate, d.lower, d.upper, d.alpha, d.verdict, d.reference, d.look, d.horizon,
                              entry.margin, entry.lower_is_better)
    tail = f"; {d.note}" if d.note else ""
    return f"{entry.workload} at {budget_text(entry.budget)}: {entry.verdict} against the base; {sentence}{tail}"


def drift_markdown(outcome) -> str:
    """The job-summary lines a check with --reference adds under its verdict table."""
    lines = [f"- {'🔻 ' if r.entry.drift.drifted else ''}{md(drift_line(r.entry))}"
             for r in outcome.recorded if r.entry.drift is not None]
    return ("\n" + "\n".join(lines) + "\n") if lines else ""


def _num(x: float, signed: bool = True) -> str:
    return (f"{x:+.3g}" if signed else f"{x:.3g}") if isinstance(x, (int, float)) and math.isfinite(x) else "n/a"


def history_markdown(groups: list[GroupHistory], last: int = 10, title: str = "costmatch history") -> str:
    """Job-summary markdown: per group its headline, steps, the stated false-alarm rate and the last commits."""
    out = [f"### {md(title)}", ""]
    for g in groups:
        out += [f"**{md(g.workload)}** at {md(budget_text(g.budget))}: {md(g.candidate)} against {md(g.baseline)}"
                + (f", drift against the {md(g.reference)} reference" if g.reference else "") + ".", "",
                md(g.headline) + ".", ""]
        for s in g.steps.steps:
            out.append(f"- step at `{md(s.commit[:12])}` (after `{md(s.previous[:12])}`): {_num(s.change)} "
                       f"(interval [{_num(s.lower)}, {_num(s.upper)}])")
        if g.false_alarm:
            out += ["", f"_{md(g.false_alarm)}_", ""]
        rows = []
        for p in g.points[-last:]:
            commit = f"[`{p.commit[:12]}`]({p.url})" if p.url else f"`{md(p.commit[:12])}`"
            drift = DRIFT_WORDS.get(p.drift_verdict, p.drift_verdict) if p.drift_verdict else "—"
            rows.append([commit, f"{ICON.get(p.verdict, '')} {p.verdict}", _num(p.estimate),
                         f"[{_num(p.base_lower)}, {_num(p.base_upper)}]", _num(p.value) if g.reference else "—",
                         drift, str(p.seeds)])
        shown = min(last, len(g.points))
        out += [f"Last {shown} of {len(g.points)} commit(s); diff = candidate - baseline, "
                f"drift = {md(g.series) if g.reference else 'no reference pinned'}:", "",
                pipe_table(rows, ["commit", "verdict", "diff", "bounds", "vs reference", "drift", "seeds"]), ""]
    return "\n".join(out) + "\n"
