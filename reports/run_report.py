"""What `costmatch run` writes beside results.jsonl after the cells, and what `costmatch report` prints.

One comparison per fixed unit (a suite may hold search-sim at equal tokens,
the same arms at equal rollouts, and bbob at equal calls): the markdown
report, a self-contained report.html, each comparison's JSON, and the
figures. The reports list exactly the files that were written (a figure
that could not be drawn is named with the reason instead), and every file
goes through `baselines.core.fileio` (atomic: a full disk leaves nothing half-written).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from baselines import compare
from baselines.analysis.compare.comparison import Comparison
from baselines.core.fileio import atomic_write_text, ensure_dir
from baselines.analysis.tables.group_runs import RunIndex, as_index
from baselines.analysis.curves.ranking import group_ranking
from baselines.core.records import RunRecord, budget_key

from .latex import comparison_latex, parse_columns
from .markdown import comparison_markdown
from .plots import FORMATS, WIDTHS, close, comparison_plots, ranking_markdown, save
from .ranges import ranges_for, reward_ranges
from .tables import to_csv
from .text import md


def comparisons_by_fixed_unit(suite, records: list[RunRecord]) -> list[tuple[str, Comparison]]:
    out = []
    for unit in suite.fixed_units:
        keys = {(w.name, b.key()) for w in suite.workloads if w.fixed == unit for b in w.budgets}
        subset = [r for r in records if (r.workload, budget_key(r.budget)) in keys]
        if subset:
            out.append((unit, compare(subset, fixed=unit, tolerance=suite.tolerance_of(unit),
                                      claim=getattr(suite, "claim", None))))
    return out


@dataclass
class Figures:
    """Figures of one comparison: files written, inline SVGs for HTML, and the ones not drawn (with why)."""

    files: list[Path] = field(default_factory=list)
    inline: list = field(default_factory=list)          # reports.html.Figure
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, list[str]]] = field(default_factory=list)  # (title, notes) of each drawn figure with notes


def draw_figures(comparison: Comparison, records: list[RunRecord], out_dir: Path | None,
                 formats=("png", "svg"), inline: bool = False, width: str = "single", x_unit: str | None = None,
                 ranges: dict | None = None, taken: set | None = None) -> Figures:
    """Draw each figure once: save it under `out_dir` (if given) and/or keep its SVG for the HTML page."""
    from .html import Figure
    from .plots import render

    result = Figures()
    taken = set() if taken is None else taken
    for plot in comparison_plots(comparison, records, x_unit, width, ranges):
        if not plot.drawn:
            result.skipped.append((plot.title, plot.reason))
            if inline:
                result.inline.append(Figure(plot.title, reason=plot.reason, notes=list(plot.notes), group=plot.group))
            continue
        base, k = plot.name, 2
        while plot.name in taken:   # two figures never share a file (or overwrite each other)
            plot.name = f"{base}-{k}"
            k += 1
        taken.add(plot.name)
        if plot.notes:
            result.notes.append((plot.title, list(plot.notes)))
        try:
            if out_dir is not None:
                result.files += save(plot, out_dir, formats)
            if inline:
                result.inline.append(Figure(plot.title, render(plot, "svg").decode("utf-8"), notes=list(plot.notes),
                                            group=plot.group, arms=dict(plot.arms)))
        finally:
            close(plot)
    return result


def _ranking_sections(comparison: Comparison, index: RunIndex) -> list[str]:
    out = []
    for group in comparison.groups:
        if len(group.arms) < 2:  # one arm has no ranking
            continue
        ranking = group_ranking(index.of(group), comparison.alpha)
        if len(ranking.by_unit) > 1:
            out += [f"#### {md(group.workload)}: ranking at equal spend in each unit, from the same runs", "",
                    ranking_markdown(ranking), ""]
    return out


def oracle_lines(comparison: Comparison, records: list[RunRecord] | None) -> list[str]:
    """Arms that scored their unselected alternatives (forks): the selected reward beside the best alternative's.

    Kept apart from the table on purpose: the oracle picks with the held-out
    score, which no arm can do, so it shows the room a better selector has,
    never a result.
    """
    out = []
    index = as_index(records)
    forked = any(r.extra and "oracle_reward" in r.extra for r in index.records)
    for group in comparison.groups if forked else ():
        lines = []
        for arm, runs in sorted(index.of(group).items()):
            runs = [r for r in runs if r.extra and "oracle_reward" in r.extra]
            both = [(r.reward, r.extra.get("oracle_reward")) for r in runs
                    if r.reward is not None and isinstance(r.extra.get("oracle_reward"), (int, float))]
            if both:
                selected = sum(s for s, _ in both) / len(both)
                oracle = sum(o for _, o in both) / len(both)
                lines.append(f"- {md(arm)}: selected {selected:.3f}, best alternative {oracle:.3f} over "
                             f"{len(both)} seed(s)")
        if lines:
            out += [f"#### {md(group.workload)}: the selected choice against the best alternative (oracle)", "",
                    "The oracle picks with the held-out score, which no arm can: it shows the room a better "
                    "selector has, not a result.", ""] + lines + [""]
    return out


def _files_markdown(files: list[Path], skipped: list[tuple[str, str]], root: Path,
                    notes: list[tuple[str, list[str]]] = ()) -> list[str]:
    """Figures, then each figure's notes (a not-valid group, arms not drawn) so the page says what the image does."""
    out = []
    pngs = [p for p in files if p.suffix == ".png"]
    out += [f"![{md(p.stem)}]({_rel(p, root)})" for p in pngs]
    if notes:
        out += [""] + [f"- {md(title)}: {md(' '.join(n))}" for title, n in notes]
    if files:
        out += ["", "Figure files written: " + ", ".join(f"`{_rel(p, root)}`" for p in files) + "."]
    if skipped:
        out += [""] + [f"- not drawn: {md(title)}: {md(reason)}" for title, reason in skipped]
    return out + [""]


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def write_run_report(suite, records: list[RunRecord], out_dir: Path, plots: bool = True,
                     formats=("png", "svg"), html: bool = True) -> list[Comparison]:
    """report.md, report.html, comparison-UNIT.json and plots/ under `out_dir`; returns the comparisons made.

    Returned so the caller's printed summary reuses them instead of comparing the records again.
    """
    out_dir = ensure_dir(out_dir)
    records = RunIndex(records)  # grouped by (workload, budget) and arm once, for every table and figure
    declared = reward_ranges(records.records)
    sections = [f"# costmatch report: {md(suite.name)}", ""]
    html_sections, inline, written = [], [], []
    taken: set[str] = set()
    ranges: dict = {}
    comparisons = comparisons_by_fixed_unit(suite, records.records)
    for unit, comparison in comparisons:
        ranges.update(ranges_for(comparison) | declared)
        sections += [f"## At equal {md(unit)}", "",
                     comparison_markdown(comparison, paper=True, ranges=ranges, compact_confounds=True,
                                         records=records)]
        sections += _ranking_sections(comparison, records)
        sections += oracle_lines(comparison, records)
        target = out_dir / f"comparison-{unit}.json"
        atomic_write_text(target, json.dumps(comparison.to_json(), ensure_ascii=False, allow_nan=False,
                                             indent=1) + "\n", what="comparison JSON")
        written.append(target)
        html_sections.append((f"At equal {unit}", comparison))
        if plots:  # --no-plots: no figure files and none inline (drawing is most of the report's time)
            figs = draw_figures(comparison, records, out_dir / "plots", formats,
                                inline=html, ranges=ranges, taken=taken)
            written += figs.files
            inline += figs.inline
            sections += _files_markdown(figs.files, figs.skipped, out_dir, figs.notes)
    text = "\n".join(sections).rstrip() + "\n"
    if html:
        from .html import esc, report_html
        listing = ("<h2 id=\"files\">Files written</h2><ul>" + "".join(
            f"<li class=\"name\">{esc(_rel(p, out_dir))}</li>" for p in written + [out_dir / "report.md"])
            + "</ul>")
        atomic_write_text(out_dir / "report.html",
                          report_html(html_sections, records, f"costmatch report: {suite.name}", ranges=ranges,
                                      figures=inline, extra_html=listing), what="HTML report")
    atomic_write_text(out_dir / "report.md", text, what="report")
    return [c for _, c in comparisons]


def render_report(comparison: Comparison, records: list[RunRecord] | None, fmt: str = "md",
                  baseline: str | None = None, columns: str | None = None, plots_dir: str | Path | None = None,
                  figure_format: str | None = None, width: str = "single", x_unit: str | None = None,
                  confound_units: list[str] | None = None) -> tuple[str, list[Path], list[tuple[str, str]]]:
    """The `costmatch report` verb without its I/O of arguments: (text, figure files written, figures skipped).

    `fmt` is md, latex, csv or html; `columns` the LaTeX columns
    (``arm,seeds,tokens,mean,ci,diff,diff_ci,verdict``); `figure_format` one
    of png, svg, pdf (default: png and svg); `width` single (3.33 in) or
    double (6.8 in). Raises ValueError with a one-line message on a bad option.
    """
    if fmt not in ("md", "latex", "csv", "html"):
        raise ValueError(f"--format must be md, latex, csv or html, got {fmt!r}")
    if width not in WIDTHS:
        raise ValueError(f"--figure-width must be single (3.33 in) or double (6.8 in), got {width!r}")
    if figure_format is not None and figure_format not in FORMATS:
        raise ValueError(f"--figure-format must be one of {', '.join(FORMATS)}, got {figure_format!r}")
    formats = (figure_format,) if figure_format else ("png", "svg")
    records = as_index(records)
    ranges = ranges_for(comparison, records.records)
    figs = Figures()
    if plots_dir is not None or fmt == "html":
        figs = draw_figures(comparison, records, Path(plots_dir) if plots_dir is not None else None, formats,
                            inline=fmt == "html", width=width, x_unit=x_unit, ranges=ranges)
    if fmt == "md":
        text = comparison_markdown(comparison, baseline=baseline, paper=True, ranges=ranges,
                                   confound_units=confound_units, compact_confounds=True, records=records)
        oracle = oracle_lines(comparison, records)
        if oracle:
            text = text.rstrip() + "\n\n" + "\n".join(oracle).rstrip() + "\n"
    elif fmt == "latex":
        units = sorted({u for g in comparison.groups for u in g.units})
        text = comparison_latex(comparison, baseline=baseline, columns=parse_columns(columns, units), ranges=ranges)
    elif fmt == "csv":
        text = to_csv(comparison, baseline=baseline, ranges=ranges)
    else:
        from .html import report_html
        heading = f"At equal {comparison.fixed}" if comparison.fixed else "Comparison"
        text = report_html([(heading, comparison)], records, baseline=baseline,
                           ranges=ranges, figures=figs.inline, confound_units=confound_units)
    return text, figs.files, figs.skipped

