"""The history page: per group, the series against commit with intervals, verdicts, the reference and the steps.

Same rules as report.html (reports/html.py, whose CSP, style and table pieces
it reuses): self-contained, no network (the CSP forbids every load), every
name escaped, and a phone never scrolls the page sideways (the chart scales
to the width, tables scroll in their own box). Each point links to its commit
(its page when the history knows the repository, else its row below), so a
reader goes from a drop to the change that made it in one click. Nothing is
computed here: points, intervals and steps come from
`baselines.analysis.history.view`.
"""
from __future__ import annotations

import math

from baselines.analysis.history.view import GroupHistory, HistoryPoint

from .history_markdown import DRIFT_WORDS
from .html import CSP, STYLE, _cell, _table, esc
from .text import budget_text

W, H = 900, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 18, 78
COLOR = {"PASS": "#1a7f37", "FAIL": "#a40000", "INCONCLUSIVE": "#b35900"}
EXTRA_STYLE = """
.chart{overflow-x:auto}
.chart svg{width:100%;height:auto;display:block;max-width:900px}
@media (max-width:700px){.chart svg{min-width:640px}}
.chart a:focus circle,.chart a:hover circle{stroke:#000;stroke-width:2}
.legend span{margin-right:1em;white-space:nowrap}
"""


def _finite(values) -> list[float]:
    return [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]


def _y_range(g: GroupHistory) -> tuple[float, float]:
    vals = _finite([p.value for p in g.points] + [p.lower for p in g.points] + [p.upper for p in g.points])
    vals += [0.0] + ([-g.margin] if math.isfinite(g.margin) else [])
    lo, hi = min(vals), max(vals)
    pad = (hi - lo) * 0.08 or 0.05
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for m in (1, 2, 5, 10):
        if raw <= m * step:
            step *= m
            break
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step) + 1)]


def point_href(g_id: str, p: HistoryPoint) -> str:
    return p.url or f"#{g_id}-c{p.index}"


def chart_svg(g: GroupHistory, g_id: str) -> str:
    """The group's series as inline SVG: one linked marker per commit, interval bars, reference, margin, steps."""
    n = len(g.points)
    lo, hi = _y_range(g)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    x = lambda i: LEFT + (pw * (i + 0.5) / max(n, 1))  # noqa: E731
    y = lambda v: TOP + ph * (hi - min(max(v, lo), hi)) / (hi - lo)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" '
             f'aria-label="{esc(g.series)} against commit" font-family="system-ui,sans-serif" font-size="14">',
             f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fff" stroke="#ccc"/>']
    for t in _ticks(lo, hi):
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>'
                     f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:+.3g}</text>')
    ref = f"{g.reference} reference" if g.reference else g.baseline
    parts.append(f'<line class="reference" x1="{LEFT}" x2="{LEFT + pw}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
                 f'stroke="#333" stroke-width="1.5"/><text x="{LEFT + 4}" y="{y(0) - 4:.1f}">{esc(ref)}</text>')
    if math.isfinite(g.margin):
        parts.append(f'<line class="margin" x1="{LEFT}" x2="{LEFT + pw}" y1="{y(-g.margin):.1f}" '
                     f'y2="{y(-g.margin):.1f}" stroke="#a40000" stroke-dasharray="6 4"/>'
                     f'<text x="{LEFT + 4}" y="{y(-g.margin) + 14:.1f}" fill="#a40000">-margin ({g.margin:.3g})</text>')
    for s in g.steps.steps:
        sx = (x(s.index - 1) + x(s.index)) / 2
        parts.append(f'<g class="step" data-commit="{esc(s.commit)}"><line x1="{sx:.1f}" x2="{sx:.1f}" y1="{TOP}" '
                     f'y2="{TOP + ph}" stroke="#5a2ca0" stroke-width="2" stroke-dasharray="3 3"/>'
                     f'<text x="{sx + 4:.1f}" y="{TOP + 14}" fill="#5a2ca0">step {s.change:+.3g}</text>'
                     f'<title>step at {esc(s.commit[:12])}: {s.change:+.4g} (interval [{s.lower:+.4g}, '
                     f'{s.upper:+.4g}])</title></g>')
    every = max(1, math.ceil(n / 12))
    for p in g.points:
        px = x(p.index)
        if math.isfinite(p.lower) or math.isfinite(p.upper):
            y1 = y(p.lower if math.isfinite(p.lower) else lo)
            y2 = y(p.upper if math.isfinite(p.upper) else hi)
            parts.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{y1:.1f}" y2="{y2:.1f}" stroke="#888"/>')
        if p.index % every == 0 or p.index == n - 1:
            parts.append(f'<text x="{px:.1f}" y="{TOP + ph + 14}" text-anchor="end" font-size="13" '
                         f'transform="rotate(-40 {px:.1f} {TOP + ph + 14})">{esc(p.commit[:8])}</text>')
        if not math.isfinite(p.value):
            continue
        color = COLOR.get(p.verdict, "#555")
        ring = ' stroke="#a40000" stroke-width="3"' if p.drifted else ' stroke="#fff" stroke-width="1"'
        parts.append(f'<a class="point" href="{esc(point_href(g_id, p))}" data-commit="{esc(p.commit)}">'
                     f'<circle cx="{px:.1f}" cy="{y(p.value):.1f}" r="5.5" fill="{color}"{ring}/>'
                     f'<title>{esc(p.commit[:12])}: {esc(p.sentence)}</title></a>')
    parts.append(f'<text x="{LEFT + pw / 2:.1f}" y="{H - 4}" text-anchor="middle">commit (oldest left)</text>'
                 f'<text x="14" y="{TOP + ph / 2:.1f}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {TOP + ph / 2:.1f})">{esc(g.series)}</text></svg>')
    return "".join(parts)


def _rows(g: GroupHistory, g_id: str) -> list[str]:
    rows = []
    for p in g.points:
        link = f'<a href="{esc(p.url)}">{esc(p.commit[:12])}</a>' if p.url else esc(p.commit[:12])
        bounds = f"[{p.lower:+.4g}, {p.upper:+.4g}]" if math.isfinite(p.lower) or math.isfinite(p.upper) else "n/a"
        step = next((f"step {s.change:+.3g}" for s in g.steps.steps if s.index == p.index), "")
        rows.append(f'<td id="{g_id}-c{p.index}" class="name">{link}</td>' + _cell(p.index, p.index)
                    + _cell(p.verdict) + _cell(f"{p.value:+.4g}" if math.isfinite(p.value) else "n/a", p.value)
                    + _cell(bounds) + _cell(DRIFT_WORDS.get(p.drift_verdict, "\u2014").replace("🔻 ", ""))
                    + _cell(step) + _cell(p.checks, p.checks) + _cell(p.sentence, cls="note"))
    return rows


def group_section(g: GroupHistory, g_id: str) -> str:
    steps = "".join(f"<li>step at <span class=\"name\">{esc(s.commit[:12])}</span> (after "
                    f"<span class=\"name\">{esc(s.previous[:12])}</span>): {s.change:+.4g}, interval "
                    f"[{s.lower:+.4g}, {s.upper:+.4g}]</li>" for s in g.steps.steps)
    legend = ("<p class=\"legend note\"><span style=\"color:#1a7f37\">\u25cf PASS</span>"
              "<span style=\"color:#b35900\">\u25cf INCONCLUSIVE</span><span style=\"color:#a40000\">\u25cf FAIL</span>"
              "<span>\u25ef red ring: drift beyond the margin</span><span style=\"color:#5a2ca0\">\u2506 step</span>"
              "<span>bars: the bounds the verdict read</span></p>")
    notes = "".join(f"<p class=\"note\">{esc(n)}</p>" for n in g.notes)
    return (f"<h2 id=\"{g_id}\"><span class=\"name\">{esc(g.workload)}</span> at {esc(budget_text(g.budget))}: "
            f"<span class=\"name\">{esc(g.candidate)}</span> against <span class=\"name\">{esc(g.baseline)}</span></h2>"
            f"<p class=\"headline info\">{esc(g.headline)}</p>{notes}"
            f"<figure class=\"chart\">{chart_svg(g, g_id)}<figcaption>{esc(g.series)} per commit, with the bounds "
            f"each verdict read; each point links to its commit.</figcaption></figure>{legend}"
            + (f"<ul>{steps}</ul>" if steps else "")
            + f"<p class=\"note\">{esc(g.false_alarm)}</p>"
            + _table(["commit", "#", "verdict", "value", "bounds", "drift", "step", "checks", "what it says"],
                     _rows(g, g_id)))


def history_html(groups: list[GroupHistory], title: str = "costmatch history") -> str:
    body = [group_section(g, f"g{i}") for i, g in enumerate(groups)]
    nav = "".join(f"<li><a href=\"#g{i}\">{esc(g.workload)} at {esc(budget_text(g.budget))}</a></li>"
                  for i, g in enumerate(groups))
    return "\n".join([
        "<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{esc(title)}</title><style>{STYLE}{EXTRA_STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>", f"<nav><ul>{nav}</ul></nav>" if len(groups) > 1 else "", *body,
        "</body></html>"]) + "\n"
