"""One self-contained HTML page to browse a comparison: tables, flags, pairs, per-seed runs, errors, figures.

Rules, and the mistake each prevents:
- Self-contained: CSS and the sorting script are inline, figures are inline
  SVG with real text, and a Content-Security-Policy forbids every network
  load, so the page opens the same from an e-mail attachment or an
  air-gapped machine and cannot call home.
- Everything from the data (arm, workload and unit names, error messages,
  tracebacks, notes) goes through `html.escape`: an arm named
  ``<script>alert(1)</script>`` is shown as text, never run.
- Sorting uses each cell's ``data-v`` (the raw number), not the displayed
  text, so "1.5M" sorts after "20k" and an unreported value (—) sorts last.
- SVG ids are prefixed per figure, so two inline figures cannot borrow each
  other's clip paths or markers.
"""
from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field

from baselines.analysis.comparison import Comparison, Group, runs_by_arm
from baselines.core.records import RunRecord
from baselines.core.units import nouns_of, unit_noun

from .degraded import degraded_sentence
from .flags import (clip_note, comparison_headline, group_caption, run_notes, unequal_sentence, unreported_grouped,
                    unverified_sentence)
from .ranges import range_for
from .tables import (VERDICT_SHORT, _clip_pair, _verdict_words, confound_matrix, confound_reference, rows,
                     shown_units)
from .text import DASH, NA, budget_text, decimals_for, fixed, interval, quantity

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "font-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'")
MAX_SEED_ROWS = 500  # per arm; the rest are counted, the results file has them all
MAX_NOTE_CHARS = 240  # a run note in a cell; the whole note is in the cell's title and the results file

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1100px;
 padding:0 1em;color:#111;background:#fff}
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;font-variant-numeric:tabular-nums}
th,td{padding:.25em .6em;border-bottom:1px solid #e3e3e3;text-align:right;vertical-align:top}
th:first-child,td:first-child,td.t{text-align:left}
th{background:#f4f4f4;position:sticky;top:0}
th.sortable{cursor:pointer;user-select:none}th.sortable::after{content:" \\2195";color:#888}
th[aria-sort=ascending]::after{content:" \\2191";color:#111}th[aria-sort=descending]::after{content:" \\2193";color:#111}
.bad{color:#a40000;font-weight:600}.ok{color:#006b2e;font-weight:600}.note{color:#444}
.flags li{margin:.2em 0}pre{background:#f7f7f7;padding:.6em;overflow:auto;white-space:pre-wrap}
figure{margin:1em 0;display:inline-block;vertical-align:top;max-width:100%}
figure svg{max-width:100%;height:auto}figcaption{font-size:.9em;color:#333;max-width:40em}
details{margin:.3em 0}summary{cursor:pointer}
.name{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
td.note{min-width:14em;max-width:32em;overflow-wrap:anywhere;font-size:.92em}
"""

SCRIPT = """
(function(){
 function key(td){var v=td.getAttribute('data-v');
  if(v===null||v===''){return {n:null,t:td.textContent.trim().toLowerCase()};}
  var n=parseFloat(v);return isNaN(n)?{n:null,t:v.toLowerCase()}:{n:n,t:''};}
 function cmp(a,b){if(a.n!==null&&b.n!==null){return a.n-b.n;}
  if(a.n!==null){return -1;}if(b.n!==null){return 1;}return a.t<b.t?-1:a.t>b.t?1:0;}
 document.querySelectorAll('table.sortable').forEach(function(table){
  var heads=table.querySelectorAll('thead th');
  heads.forEach(function(th,col){th.classList.add('sortable');th.setAttribute('tabindex','0');
   function sort(){var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
    var asc=th.getAttribute('aria-sort')!=='ascending';
    heads.forEach(function(h){h.removeAttribute('aria-sort');});
    th.setAttribute('aria-sort',asc?'ascending':'descending');
    rows.sort(function(r1,r2){var a=key(r1.cells[col]),b=key(r2.cells[col]);
     var blankA=a.n===null&&a.t==='\\u2014',blankB=b.n===null&&b.t==='\\u2014';
     if(blankA!==blankB){return blankA?1:-1;}var c=cmp(a,b);return asc?c:-c;});
    rows.forEach(function(r){body.appendChild(r);});}
   th.addEventListener('click',sort);
   th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();sort();}});});});
})();
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num_attr(value) -> str:
    if value is None:
        return ""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return esc(value)
    return repr(value) if math.isfinite(value) else ""


def _cell(text: object, value=None, cls: str = "") -> str:
    attr = f' data-v="{_num_attr(value)}"' if value is not None else ""
    klass = f' class="{cls}"' if cls else ""
    return f"<td{attr}{klass}>{esc(text)}</td>"


def _table(headers: list[str], body: list[str], cls: str = "sortable", caption: str = "") -> str:
    cap = f"<caption class=\"note\">{esc(caption)}</caption>" if caption else ""
    head = "".join(f"<th scope=\"col\">{esc(h)}</th>" for h in headers)
    return (f"<table class=\"{cls}\">{cap}<thead><tr>{head}</tr></thead><tbody>"
            + "".join(f"<tr>{r}</tr>" for r in body) + "</tbody></table>")


_SVG_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)
_SVG_ID = re.compile(r'\bid="([^"]+)"')


def inline_svg(svg: str, prefix: str) -> str:
    """An SVG document as an element to inline: no XML prologue, ids prefixed so figures cannot clash."""
    svg = _SVG_PROLOGUE.sub("", svg, count=1)
    ids = set(_SVG_ID.findall(svg))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{prefix}-{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"').replace(f"#{name})", f"#{new})").replace(
            f'href="#{name}"', f'href="#{new}"')
    return svg


@dataclass
class Figure:
    title: str
    svg: str = ""                 # inline SVG text; empty when not drawn
    reason: str = ""              # why not drawn
    notes: list[str] = field(default_factory=list)


def _group_html(group: Group, comparison: Comparison, records: list[RunRecord], baseline: str | None,
                ranges: dict | None, confound_units: list[str] | None, gid: str) -> str:
    rng = range_for(ranges, group) if comparison.metric == "reward" else None
    parts = [f"<h3 id=\"{gid}\"><span class=\"name\">{esc(group.workload)}</span> at "
             f"{esc(budget_text(group.budget))}</h3>",
             f"<p class=\"{'ok' if group.valid and all(a.scored == a.runs for a in group.arms) else 'bad'}\">"
             f"{esc(group_caption(group, comparison.fixed, comparison.tolerance, comparison.metric))}</p>"]
    present = baseline if baseline and any(a.arm == baseline for a in group.arms) else None
    rs = rows(group, present, rng)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    units = shown_units(group, drop_unreported=True)
    headers = ["arm", "seeds", "errors"] + [unit_noun(u) for u in units] + \
        [f"{comparison.metric} (mean)", "95% CI low", "95% CI high"]
    if present:
        headers += [f"vs {present}", "verdict"]
    errors = {a.arm: a.errors for a in group.arms}
    body = []
    for r in rs:
        cells = [f"<td class=\"name\" data-v=\"{esc(r.arm)}\">{esc(r.arm)}</td>",
                 _cell(r.seeds, r.seeds.split("/")[0]), _cell(errors.get(r.arm, 0), errors.get(r.arm, 0),
                                                              "bad" if errors.get(r.arm) else "")]
        for u in units:
            median, status = r.spend[u]
            text = DASH if status == "unreported" or median is None else quantity(median, status == "partial")
            cells.append(_cell(text, median if median is not None else ""))
        cells += [_cell(fixed(r.mean, dec), r.mean), _cell(fixed(r.ci[0], dec), r.ci[0]),
                  _cell(fixed(r.ci[1], dec), r.ci[1])]
        if present:
            if r.arm == present:
                cells += [_cell("baseline", ""), _cell("", "")]
            elif r.vs is None:
                cells += [_cell("n/a", ""), _cell("", "")]
            else:
                vs_dec = decimals_for([(r.vs.ci[1] - r.vs.ci[0]) / 2])
                cells += [_cell(f"{fixed(r.vs.diff, vs_dec, True)} {interval(*r.vs.ci, vs_dec, True)}", r.vs.diff),
                          _cell(_verdict_words(r.vs), r.vs.verdict, "t")]
        body.append("".join(cells))
    parts.append(_table(headers, body))
    if rng is not None:
        parts.append(f"<p class=\"note\">{esc(rng.note())}</p>")
    parts.append(_flags_html(group, comparison.tolerance, confound_units, units))
    if group.pairs:
        parts.append(_pairs_html(group, rng))
    parts.append(_runs_html(group, records))
    return "\n".join(parts)


def _flags_html(group: Group, tolerance: float, confound_units: list[str] | None,
                shown: list[str] | None = None) -> str:
    name = lambda a: a  # noqa: E731  (escaped below as part of the sentence)
    items = [("unverified", unverified_sentence(u, name)) for u in group.unverified]
    items += [("unequal", unequal_sentence(f, tolerance, name)) for f in group.unequal]
    items += [("unreported", text) for _, text in unreported_grouped(group, name, shown)]
    items += [("note", n) for n in group.notes]
    items += [("degraded", degraded_sentence(d, name)) for d in group.degraded]
    out = []
    if items:
        out.append("<ul class=\"flags\">" + "".join(
            f"<li><b class=\"{'bad' if kind in ('unverified', 'unequal') else 'note'}\">{esc(kind)}</b>: "
            f"{esc(text)}</li>" for kind, text in items) + "</ul>")
    shown, matrix = confound_matrix(group, confound_units)
    if matrix:
        headers = ["arm"] + [f"{unit_noun(u)} (median {quantity(confound_reference(group, u))})" for u in shown]
        body = ["".join([f"<td class=\"name\">{esc(arm)}</td>"] + [_cell(cells.get(u, ""), "") for u in shown])
                for arm, cells in matrix]
        out.append(_table(headers, body, caption=f"Confounds: spend in other units as a ratio to the median "
                                                 f"across arms; only cells beyond \u00b1{tolerance:.0%}. The "
                                                 "reward column does not account for them."))
    return "\n".join(out)


def _pairs_html(group: Group, rng) -> str:
    pairs = [_clip_pair(p, rng) for p in group.pairs]
    dec = decimals_for((p.ci[1] - p.ci[0]) / 2 for p in pairs)
    body = []
    for p in pairs:
        body.append("".join([
            f"<td class=\"name\">{esc(p.a)}</td>", f"<td class=\"name\" style=\"text-align:left\">{esc(p.b)}</td>",
            _cell(p.n, p.n), _cell(fixed(p.diff, dec, True), p.diff), _cell(fixed(p.ci[0], dec, True), p.ci[0]),
            _cell(fixed(p.ci[1], dec, True), p.ci[1]), _cell(f"{p.p:.3g}", p.p),
            _cell(f"{p.p_adjusted:.3g}", p.p_adjusted),
            _cell(VERDICT_SHORT.get(p.verdict, p.verdict) + ("" if p.paired else " (unpaired)"), p.verdict, "t"),
            _cell("; ".join(p.notes), "", "t")]))
    return ("<details open><summary>Pairs (a \u2212 b, paired by seed)</summary>"
            + _table(["a", "b", "n", "a \u2212 b", "95% CI low", "95% CI high", "p (sign-flip)", "p (Holm)",
                      "verdict", "notes"], body,
                     caption="n.d. = no difference detected; neither it nor \u201cunderpowered\u201d is evidence "
                             "of equality.") + "</details>")


def _error_text(error) -> tuple[str, str]:
    """(one line, traceback or detail) of a record's error, whatever shape it has."""
    if isinstance(error, dict):
        head = f"{error.get('type', 'Error')}: {error.get('message', '')}".strip()
        detail = [f"{k}: {v}" for k, v in error.items() if k not in ("type", "message", "traceback") and v]
        tb = error.get("traceback")
        return head, "\n".join(detail + ([str(tb)] if tb else []))
    return str(error), ""


def _notes_cell(notes: list[str]) -> str:
    """Notes of one run: each clipped to a line, the whole text in the title (and in the results file)."""
    if not notes:
        return "<td class=\"t\"></td>"
    whole = "\n".join(notes)
    return (f"<td class=\"t note\" title=\"{esc(whole)}\">"
            + "<br>".join(esc(clip_note(n, MAX_NOTE_CHARS)) for n in notes) + "</td>")


def _runs_html(group: Group, records: list[RunRecord]) -> str:
    by_arm = runs_by_arm(records, group)
    if not by_arm:
        return ""
    units = shown_units(group, drop_unreported=True)
    noted = sum(bool(run_notes(r)) for runs in by_arm.values() for r in runs)
    out = ["<details><summary>Per-seed runs of each arm (reward, spend, errors"
           + (f"; {noted} run(s) with notes" if noted else "") + ")</summary>"]
    for a in group.arms:
        runs = sorted(by_arm.get(a.arm, []), key=lambda r: r.seed)
        body = []
        for r in runs[:MAX_SEED_ROWS]:
            cells = [_cell(r.seed, r.seed), _cell(fixed(r.reward, 4) if r.reward is not None else NA,
                                                    r.reward if r.reward is not None else ""),
                     _cell(fixed(r.dev_reward, 4) if r.dev_reward is not None else NA,
                           r.dev_reward if r.dev_reward is not None else "")]
            for u in units:
                v = r.spend.get(u)
                cells.append(_cell(quantity(v, u in r.partial) if v is not None else DASH, v if v is not None else ""))
            head, _ = _error_text(r.error) if r.error is not None else ("", "")
            cells += [_cell(r.stop_reason or "", "", "t"), _cell(head, "", "t bad" if head else "t")]
            if noted:
                cells.append(_notes_cell(run_notes(r)))
            body.append("".join(cells))
        more = f" ({len(runs) - MAX_SEED_ROWS} more runs are in the results file)" if len(runs) > MAX_SEED_ROWS else ""
        out.append(f"<h4 class=\"name\">{esc(a.arm)}</h4>")
        out.append(_table(["seed", "reward", "dev score"] + [unit_noun(u) for u in units] +
                          ["stop reason", "error"] + (["notes"] if noted else []), body, caption=more))
        errors = [r for r in runs if r.error is not None]
        for r in errors[:20]:
            head, detail = _error_text(r.error)
            out.append(f"<details class=\"error\"><summary class=\"bad\">seed {esc(r.seed)}: {esc(head)}</summary>"
                       f"<pre>{esc(detail or head)}</pre></details>")
        if len(errors) > 20:
            out.append(f"<p class=\"note\">{len(errors) - 20} more failed runs; see the results file.</p>")
    out.append("</details>")
    return "\n".join(out)


def _figures_html(figures: list[Figure]) -> str:
    if not figures:
        return ""
    out = ["<h2 id=\"figures\">Figures</h2>"]
    for i, f in enumerate(figures):
        if f.svg:
            notes = " ".join(f.notes)
            out.append(f"<figure>{inline_svg(f.svg, f'fig{i}')}<figcaption>{esc(f.title)}"
                       f"{(': ' + esc(notes)) if notes else ''}</figcaption></figure>")
        else:
            out.append(f"<p class=\"note\">Not drawn: {esc(f.title)}: {esc(f.reason)}</p>")
    return "\n".join(out)


def report_html(sections: list[tuple[str, Comparison]], records: list[RunRecord], title: str = "costmatch report",
                baseline: str | None = None, ranges: dict | None = None, figures: list[Figure] | None = None,
                confound_units: list[str] | None = None, extra_html: str = "") -> str:
    """The whole page: one section per (heading, comparison), then the figures."""
    nav, body = [], []
    for s_i, (heading, comparison) in enumerate(sections):
        sid = f"s{s_i}"
        body.append(f"<h2 id=\"{sid}\">{esc(heading)}</h2>")
        shared = [g.unit_nouns for g in comparison.groups]
        with nouns_of(shared[0] if shared and all(n == shared[0] for n in shared) else None):
            headline = comparison_headline(comparison)
        good = comparison.valid and not headline.startswith("INCOMPLETE")
        body.append(f"<p class=\"{'ok' if good else 'bad'}\">{esc(headline)}</p>")
        body.extend(f"<p class=\"bad\">warning: {esc(w)}</p>" for w in comparison.warnings)
        if comparison.metric_note:
            body.append(f"<p class=\"note\">{esc(comparison.metric_note)}</p>")
        for g_i, group in enumerate(comparison.groups):
            gid = f"{sid}g{g_i}"
            mark = "" if group.valid else ' <b class="bad">not valid</b>'
            with nouns_of(group.unit_nouns):  # the workload's words: bbob counts function evaluations
                nav.append(f"<li><a href=\"#{gid}\">{esc(heading)}: {esc(group.workload)} at "
                           f"{esc(budget_text(group.budget))}</a>{mark}</li>")
                body.append(_group_html(group, comparison, records, baseline, ranges, confound_units, gid))
    if figures:
        nav.append("<li><a href=\"#figures\">Figures</a></li>")
    return "\n".join([
        "<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>", "<nav><ul>" + "".join(nav) + "</ul></nav>" if nav else "",
        *body, extra_html, _figures_html(figures or []),
        "<p class=\"note\">Click a column header to sort. \u2014 = not reported (unknown, not zero); "
        "n/a = not defined (an interval from one seed; a run with no score or no dev score); "
        "\u2265 = lower bound.</p>",
        f"<script>{SCRIPT}</script>", "</body></html>"]) + "\n"


