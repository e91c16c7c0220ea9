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
from dataclasses import replace as dataclass_replace

import json

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.result.model import Analysis, GroupAnalysis
from baselines.core.records import budget_key
from baselines.core.units import nouns_of, unit_noun

from .degraded import degraded_sentence
from .flags import (clip_note, comparison_headline, group_caption, run_notes, unequal_sentence, unreported_grouped,
                    unverified_sentence)
from .headline import group_headline, informative_first
from .confounds import confound_matrix, confound_reference
from .markdown import claim_rows, p_header
from .ranking_view import oracle_text, ranking_rows, weak_pair_lines
from .table_rows import VERDICT_LEGEND, baseline_claim, baseline_pairs, family_line, shown_units
from .text import DASH, NA, budget_text, fixed, interval, quantity

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "font-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'")
MAX_SEED_ROWS = 500  # per arm; the rest are counted, the results file has them all
MAX_NOTE_CHARS = 240  # a run note in a cell; the whole note is in the cell's title and the results file

STYLE = """
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:1.2em auto;max-width:1150px;
 padding:0 .8em;color:#111;background:#fff;overflow-wrap:break-word}
h1{font-size:1.45em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.1em;margin-top:1.6em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.6em 0;font-variant-numeric:tabular-nums}
th,td{padding:.25em .6em;border-bottom:1px solid #e3e3e3;text-align:right;vertical-align:top}
th:first-child,td:first-child,td.t{text-align:left}
th{background:#f4f4f4;position:sticky;top:0}
th.sortable{cursor:pointer;user-select:none}th.sortable::after{content:" \\2195";color:#888}
th[aria-sort=ascending]::after{content:" \\2191";color:#111}th[aria-sort=descending]::after{content:" \\2193";color:#111}
.bad{color:#a40000;font-weight:600}.note{color:#444}
.headline{padding:.5em .8em;border-left:6px solid;margin:.6em 0;font-weight:600}
.headline.ok{border-color:#1a7f37;background:#eef8f0}.headline.info{border-color:#777;background:#f3f3f3}
.glance a{color:inherit}
.headline.warn{border-color:#b35900;background:#fff4e0;color:#4a2800}
.headline.bad{border-color:#a40000;background:#fdecec;color:#5c0000}
.headline.warn::before{content:"\\26A0\\FE0E  "}.headline.bad::before{content:"\\2716\\FE0E  "}
.warning{color:#4a2800;background:#fff4e0;padding:.2em .5em}
.glance li{margin:.25em 0}
.flags li{margin:.2em 0}pre{background:#f7f7f7;padding:.6em;overflow:auto;white-space:pre-wrap}
.figs{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,460px),1fr));gap:1em;margin:.8em 0}
figure{margin:0;min-width:0}figure svg{width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#333}
details{margin:.3em 0}summary{cursor:pointer}
.name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:nowrap;hyphens:none}
h3 .name,h4.name,li .name,li.name{white-space:normal;overflow-wrap:anywhere}
td.note{min-width:14em;max-width:32em;overflow-wrap:anywhere;font-size:.92em}
#allcols,.allcols-label{display:none}
@media (max-width:640px){
 .allcols-label{display:block;margin:.4em 0;font-size:.9em}
 table.arms th:not(.key),table.arms td:not(.key):not(.name),table.pairs th:not(.key),
 table.pairs td:not(.key):not(.name){display:none}
 #allcols:checked~* table.arms th,#allcols:checked~* table.arms td,#allcols:checked~* table.pairs th,
 #allcols:checked~* table.pairs td{display:table-cell}
 table.arms .name,table.pairs .name{white-space:normal;overflow-wrap:break-word}
 table.arms th,table.arms td,table.pairs th,table.pairs td{padding:.2em .3em}
 table.arms,table.pairs{font-size:.86em}
}
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


def _table(headers: list[str], body: list[str], cls: str = "sortable", caption: str = "", keys: int = 0) -> str:
    """A table in a box that scrolls sideways on its own, so a phone never scrolls the page sideways.

    The first `keys` columns are the key ones (arm, mean with its interval, verdict): on a phone only they
    are shown unless the reader asks for every column (PHONE_STYLE), so they never sit off screen.
    """
    cap = f"<caption class=\"note\">{esc(caption)}</caption>" if caption else ""
    key = ' class="key"'
    head = "".join(f"<th scope=\"col\"{key if i < keys else ''}>{esc(h)}</th>" for i, h in enumerate(headers))
    return (f"<div class=\"scroll\"><table class=\"{cls}\">{cap}<thead><tr>{head}</tr></thead><tbody>"
            + "".join(f"<tr>{r}</tr>" for r in body) + "</tbody></table></div>")


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
    group: tuple | None = None    # (workload, budget key) of the group it shows: drawn beside that group's table
    arms: dict = field(default_factory=dict)   # arm -> where the figure shows it (drawn, unknown, lower bound)
    prefix: str = ""              # the SVG id prefix, unique on the page (set by report_html)


def _group_html(ga: GroupAnalysis, comparison: Comparison, confound_units: list[str] | None, gid: str,
                figures: list[Figure] | None = None) -> str:
    group, rng, present = ga.group, ga.reward_range, ga.baseline
    head = group_headline(ga)
    parts = [f"<h3 id=\"{gid}\"><span class=\"name\">{esc(group.workload)}</span> at "
             f"{esc(budget_text(group.budget))}</h3>",
             f"<p class=\"headline {head.level}\" data-valid=\"{str(group.valid).lower()}\">{esc(head.text)}</p>",
             f"<p class=\"note\">{esc(group_caption(group, comparison.fixed, comparison.tolerance, comparison.metric))}"
             "</p>"]
    units = shown_units(group, drop_unreported=True)
    parts.append(_arm_table(ga, comparison.metric, units))
    if ga.baseline_note:
        parts.append(f"<p class=\"note baseline\">{esc(ga.baseline_note)}.</p>")
    family = family_line(baseline_pairs(ga))
    if family:
        parts.append(f"<p class=\"note family\">{esc(family)}</p>")
    if rng is not None:
        parts.append(f"<p class=\"note\">{esc(rng.note())}</p>")
    parts.append(_figures_html(figures or []))
    parts.append(_flags_html(group, comparison.tolerance, confound_units, units))
    if ga.pairs:
        parts.append(_pairs_html(ga))
    parts.append(_ranking_html(ga))
    parts.append(_oracle_html(ga))
    parts.append(_runs_html(ga))
    return "\n".join(p for p in parts if p)


def _arm_table(ga: GroupAnalysis, metric: str, units: list[str]) -> str:
    """The arm table: the key columns (arm, mean with its interval, verdict) first, so a phone shows them."""
    present, dec, vs_dec = ga.baseline, ga.decimals, ga.pair_decimals
    claim = baseline_claim(ga) if present else ""
    headers = ["arm", f"{metric} (mean)", "95% CI"] + \
        ([f"vs {present}" + (f" ({claim})" if claim else ""), "verdict"] if present else []) + \
        ["seeds", "errors"] + [f"{unit_noun(u)} (median)" for u in units]
    errors = {a.arm: a.errors for a in ga.group.arms}
    body = []
    for r in ga.arms:
        cells = [f"<td class=\"name\" data-v=\"{esc(r.arm)}\">{esc(r.arm)}</td>",
                 _cell(fixed(r.mean, dec), r.mean, "key"),
                 _cell(interval(r.interval.lo, r.interval.hi, dec), r.interval.lo, "key")]
        if present:
            vs = r.vs_baseline
            if r.arm == present:
                cells += [_cell("baseline", "", "key"), _cell("", "", "key")]
            elif vs is None:
                cells += [_cell("n/a", "", "key"), _cell("", "", "key")]
            else:
                cells += [_cell(f"{fixed(vs.estimate, vs_dec, True)} {interval(vs.interval.lo, vs.interval.hi, vs_dec, True)}",
                                vs.estimate, "key"), _cell(vs.against_word, vs.verdict if ga.valid else "", "t key")]
        cells += [_cell(r.seeds, r.seeds.split("/")[0]),
                  _cell(errors.get(r.arm, 0), errors.get(r.arm, 0), "bad" if errors.get(r.arm) else "")]
        for u in units:
            median, status = r.spend[u].median, r.spend[u].status
            text = DASH if status == "unreported" or median is None else quantity(median, status == "partial")
            cells.append(_cell(text, median if median is not None else ""))
        body.append("".join(cells))
    return _table(headers, body, cls="sortable arms", keys=5 if present else 3)


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
        out.append(_table(headers, body, cls="sortable confounds", caption=f"\u26a0\ufe0e Confounds: spend in other units as a ratio to the median "
                                                 f"across arms; only cells beyond \u00b1{tolerance:.0%}. The "
                                                 "reward column does not account for them."))
    return "\n".join(out)


def _pairs_html(ga: GroupAnalysis) -> str:
    dec, shown = ga.pair_decimals, claim_rows(ga)
    head = p_header(shown)
    body = []
    for p, c in shown:
        p_text = f"{c.p:.3g}" if head else f"{c.p:.3g} ({c.p_label})"
        notes = c.notes if len(p.claims) > 1 else p.notes
        body.append("".join([
            f"<td class=\"name\">{esc(p.a)}</td>", f"<td class=\"name\" style=\"text-align:left\">{esc(p.b)}</td>",
            _cell(fixed(c.estimate, dec, True), c.estimate, "key"),
            _cell(interval(c.interval.lo, c.interval.hi, dec, True), c.interval.lo, "key"),
            _cell(c.verdict_word, c.verdict if ga.valid else "", "t key"), _cell(c.claim_word, c.claim, "t"),
            _cell(p.n, p.n), _cell(p_text, c.p), _cell(f"{c.p_adjusted:.3g}", c.p_adjusted),
            _cell("; ".join(notes), "", "t note")]))
    family = family_line(ga.pairs)
    sentences = [p.sentence for p in ga.pairs if p.decided and p.sentence]
    by_item = [bool(c.about) for _, c in shown]   # an item-paired claim says what it is about
    paired = ("paired by question within each seed" if by_item and all(by_item)
              else "paired by seed or by question (notes)" if any(by_item) else "paired by seed")
    return (f"<details open><summary>Pairs (a \u2212 b, {paired})</summary>"
            + _table(["a", "b", "a \u2212 b", "95% CI", "verdict", "claim", "n", head or "p", "p (Holm)", "notes"],
                     body, cls="sortable pairs", caption=VERDICT_LEGEND, keys=5)
            + ("<ul class=\"claims\">" + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>" if sentences else "")
            + (f"<p class=\"note family\">{esc(family)}</p>" if family else "")
            + "</details>")


def _ranking_html(ga: GroupAnalysis) -> str:
    """The rank at equal spend in each unit, and the pairs whose order differs (the md report's section)."""
    if ga.ranking is None or len(ga.ranking.by_unit) < 2:
        return ""
    headers, rows_ = ranking_rows(ga.ranking)
    body = ["".join([f"<td class=\"name\">{esc(r[0])}</td>"] + [_cell(c, "") for c in r[1:]]) for r in rows_]
    weak = weak_pair_lines(ga)
    return ("<details><summary>Ranking at equal spend in each unit, from the same runs</summary>"
            + _table(headers, body, cls="sortable ranking")
            + ("<p class=\"note\">Order differs between units, not significant:</p><ul>"
               + "".join(f"<li>{esc(line)}</li>" for line in weak) + "</ul>" if weak else "")
            + "</details>")


def _oracle_html(ga: GroupAnalysis) -> str:
    if not ga.oracle:
        return ""
    intro, lines = oracle_text(ga)
    return ("<details><summary>The selected choice against the best alternative (oracle)</summary>"
            f"<p class=\"note\">{esc(intro)}</p><ul>" + "".join(f"<li>{esc(x)}</li>" for x in lines)
            + "</ul></details>")


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


def _runs_html(ga: GroupAnalysis) -> str:
    group, by_arm = ga.group, ga.runs
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


def _figures_html(figures: list[Figure], start: int = 0) -> str:
    """Figures side by side at a readable size (two per row on a wide screen, one on a phone), then the
    ones not drawn with why. `data-arms` lists where each arm is shown (drawn, unknown strip, lower bound)."""
    if not figures:
        return ""
    drawn, out = [], []
    for i, f in enumerate(figures):
        if f.svg:
            drawn.append(f"<figure data-arms=\"{esc(json.dumps(f.arms, ensure_ascii=False, sort_keys=True))}\">"
                         f"{inline_svg(_sans(f.svg), f.prefix or f'fig{start + i}')}<figcaption>{esc(f.title)}."
                         + "".join(f" {esc(n)}" for n in f.notes) + "</figcaption></figure>")
        else:
            out.append(f"<p class=\"note\">Not drawn: {esc(f.title)}: {esc(f.reason)}</p>")
    return (f"<div class=\"figs\">{''.join(drawn)}</div>" if drawn else "") + "\n".join(out)


_SVG_FONT = re.compile(r"font-family: ?[^;\"]*")


def _sans(svg: str) -> str:
    """Sans-serif fallbacks in every font of an inline SVG (without DejaVu Sans a browser chose a serif)."""
    return _SVG_FONT.sub("font-family: 'DejaVu Sans', Arial, Helvetica, sans-serif", svg)


def _glance(sections: list, gids: dict) -> str:
    """The answer first: every group's headline, most informative first, linking to its section."""
    items = []
    for _, analysis in sections:
        for ga in analysis.groups:
            with nouns_of(ga.group.unit_nouns):
                head = group_headline(ga)
            items.append((ga.group, f"<li><a href=\"#{gids[id(ga.group)]}\" class=\"headline {head.level}\" "
                                    f"style=\"display:block;text-decoration:none\">{esc(head.text)}</a></li>"))
    order = {id(g): i for i, g in enumerate(informative_first([g for g, _ in items]))}
    items.sort(key=lambda t: order[id(t[0])])
    return "<h2 id=\"glance\">At a glance</h2><ul class=\"glance\" style=\"list-style:none;padding:0\">" + \
        "".join(li for _, li in items) + "</ul>"


def _key(group: Group) -> tuple[str, str]:
    return (group.workload, budget_key(group.budget))


def _informative_sections(sections: list) -> list:
    """Sections ordered by their best group, groups inside each most informative first."""
    out = []
    for h, a in sections:
        order = {id(g): i for i, g in enumerate(informative_first([ga.group for ga in a.groups]))}
        out.append((h, dataclass_replace(a, groups=sorted(a.groups, key=lambda ga: order[id(ga.group)]))))
    rank = {id(g): i for i, g in enumerate(informative_first([ga.group for _, a in out for ga in a.groups]))}
    return sorted(out, key=lambda s: min((rank[id(ga.group)] for ga in s[1].groups), default=len(rank)))


def report_html(sections: list[tuple[str, Analysis]], records=None, title: str = "costmatch report",
                baseline: str | None = None, ranges: dict | None = None, figures: list[Figure] | None = None,
                confound_units: list[str] | None = None, extra_html: str = "") -> str:
    """The whole page: the headlines first, then one section per analysis, each group's figures beside its
    table, and figures of no one group (budget sweeps) at the end.

    `sections`: (heading, Analysis); a Comparison in its place prints its own
    `Comparison.analysis(baseline, records, ranges)`.
    """
    sections = [(h, a if isinstance(a, Analysis) else a.analysis(baseline, records, ranges)) for h, a in sections]
    sections = _informative_sections(sections)
    by_group: dict = {}
    for i, f in enumerate(figures or []):
        by_group.setdefault(f.group, []).append(dataclass_replace(f, prefix=f"fig{i}"))
    nav, body, gids = [], [], {}
    for s_i, (_, analysis) in enumerate(sections):
        for g_i, ga in enumerate(analysis.groups):
            gids[id(ga.group)] = f"s{s_i}g{g_i}"
    for s_i, (heading, analysis) in enumerate(sections):
        comparison = analysis.comparison
        sid = f"s{s_i}"
        body.append(f"<h2 id=\"{sid}\">{esc(heading)}</h2>")
        shared = [g.unit_nouns for g in comparison.groups]
        with nouns_of(shared[0] if shared and all(n == shared[0] for n in shared) else None):
            headline = comparison_headline(comparison)
        body.append(f"<p class=\"note\">{esc(headline)}</p>")
        body.extend(f"<p class=\"warning\">\u26a0\ufe0e warning: {esc(w)}</p>" for w in comparison.warnings)
        if comparison.metric_note:
            body.append(f"<p class=\"note\">{esc(comparison.metric_note)}</p>")
        for ga in analysis.groups:
            group = ga.group
            gid = gids[id(group)]
            mark = "" if group.valid else ' <b class="bad">not valid</b>'
            mine = by_group.pop(_key(group), [])
            with nouns_of(group.unit_nouns):  # the workload's words: bbob counts function evaluations
                nav.append(f"<li><a href=\"#{gid}\">{esc(heading)}: {esc(group.workload)} at "
                           f"{esc(budget_text(group.budget))}</a>{mark}</li>")
                body.append(_group_html(ga, comparison, confound_units, gid, mine))
    rest = [f for fs in by_group.values() for f in fs]
    figures_html = ""
    if rest:
        nav.append("<li><a href=\"#figures\">Other figures</a></li>")
        figures_html = "<h2 id=\"figures\">Other figures</h2>" + _figures_html(rest)
    glance = _glance(sections, gids)
    return "\n".join([
        "<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        "<input type=\"checkbox\" id=\"allcols\"><label for=\"allcols\" class=\"allcols-label\">\u2610 Show every "
        "column (a phone shows arm, mean, interval and verdict)</label>",
        f"<h1>{esc(title)}</h1>", glance,
        "<nav><details><summary>Contents</summary><ul>" + "".join(nav) + "</ul></details></nav>" if nav else "",
        *body, figures_html, extra_html,
        "<p class=\"note\">Click a column header to sort. \u2014 = not reported (unknown, not zero); "
        "n/a = not defined (an interval from one seed; a run with no score or no dev score); "
        "\u2265 = lower bound.</p>",
        f"<script>{SCRIPT}</script>", "</body></html>"]) + "\n"


