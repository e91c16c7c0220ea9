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

from baselines.analysis.compare.comparison import Comparison
from baselines.analysis.result import renderers
from baselines.analysis.result.model import Analysis
from baselines.core.fileio import atomic_write_text, ensure_dir
from baselines.core.units import nouns_of, unit_noun

from .latex import comparison_latex, parse_columns
from .markdown import comparison_markdown
from .figure_base import figure_style, paper_style
from .plots import FORMATS, WIDTHS, close, comparison_plots, ranking_markdown, save
from .ranking_view import oracle_text
from .tables import to_csv
from .text import budget_text, md


@dataclass
class Figures:
    """Figures of one comparison: files written, inline SVGs for HTML, and the ones not drawn (with why)."""

    files: list[Path] = field(default_factory=list)
    inline: list = field(default_factory=list)          # reports.html.Figure
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, list[str]]] = field(default_factory=list)  # (title, notes) of each drawn figure with notes
    captions: dict[str, str] = field(default_factory=dict)  # file stem -> the caption printed beside the figure


def caption_text(plot) -> str:
    """A figure's caption in words: its title, then its notes (beside the figure in md and HTML, and the
    `<name>.caption.txt` file of a paper-style figure)."""
    return " ".join([f"{plot.title}."] + list(plot.notes))


def draw_figures(analysis: Analysis, out_dir: Path | None,
                 formats=("png", "svg"), inline: bool = False, width: str = "single", x_unit: str | None = None,
                 taken: set | None = None) -> Figures:
    """Draw each figure once: save it under `out_dir` (if given) and/or keep its SVG for the HTML page."""
    from .html import Figure
    from .plots import render

    result = Figures()
    taken = set() if taken is None else taken
    for plot in comparison_plots(analysis, x_unit=x_unit, width=width):
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
        result.captions[plot.name] = caption_text(plot)
        try:
            if out_dir is not None:
                result.files += save(plot, out_dir, formats)
                if paper_style():  # the caption an author sets in the paper, beside the figure it belongs to
                    target = out_dir / f"{plot.name}.caption.txt"
                    atomic_write_text(target, result.captions[plot.name] + "\n", what="figure caption")
                    result.files.append(target)
            if inline:
                result.inline.append(Figure(plot.title, render(plot, "svg").decode("utf-8"), notes=list(plot.notes),
                                            group=plot.group, arms=dict(plot.arms)))
        finally:
            close(plot)
    return result


def _ranking_sections(analysis: Analysis) -> list[str]:
    out = []
    for ga in analysis.groups:
        if ga.ranking is not None and len(ga.ranking.by_unit) > 1:
            out += [f"#### {md(ga.group.workload)} at {md(_budget(ga))}: ranking at equal spend in each unit, "
                    "from the same runs", "", ranking_markdown(ga), ""]
    return out


def _budget(ga) -> str:
    """The group's budget in its workload's words ("30 samples", not "30 model calls"): headings are out of scope."""
    with nouns_of(getattr(ga.group, "unit_nouns", None)):
        return budget_text(ga.group.budget)


def oracle_lines(analysis: Analysis) -> list[str]:
    """Arms that scored their unselected alternatives (forks): the selected reward beside the best alternative's.

    Kept apart from the table on purpose: the oracle picks with the held-out
    score, which no arm can do, so it shows the room a better selector has,
    never a result. Each heading names its group's budget (two groups of one
    workload never share a heading).
    """
    out = []
    for ga in analysis.groups:
        if ga.oracle:
            intro, lines = oracle_text(ga)
            out += [f"#### {md(ga.group.workload)} at {md(_budget(ga))}: the selected choice against the best "
                    "alternative (oracle)", "", intro, ""] + [f"- {md(line)}" for line in lines] + [""]
    return out


def _files_markdown(files: list[Path], skipped: list[tuple[str, str]], root: Path,
                    captions: dict[str, str] | None = None) -> list[str]:
    """Each figure with its caption right below it (title and notes: a not-valid group, arms not drawn), so the
    page says what the image shows beside the image."""
    out = []
    for p in (p for p in files if p.suffix == ".png"):
        out += [f"![{md(p.stem)}]({_rel(p, root)})", ""]
        if captions and p.stem in captions:
            out += [f"*Figure: {md(captions[p.stem])}*", ""]
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


def write_run_report(title: str, analyses: list[tuple[str, Analysis]], out_dir: Path, plots: bool = True,
                     formats=("png", "svg"), html: bool = True) -> list[Comparison]:
    """report.md, report.html, comparison-UNIT.json and plots/ under `out_dir`; returns the comparisons reported.

    `analyses`: (fixed unit, Analysis) as `baselines.analysis.result.suite.analyses_by_fixed_unit`
    computes them (the CLI and `run(out=...)` both call it): this module renders, it does not compare.
    Returned so the caller's printed summary reuses them instead of comparing the records again.
    """
    out_dir = ensure_dir(out_dir)
    sections = [f"# costmatch report: {md(title)}", ""]
    html_sections, inline, written = [], [], []
    taken: set[str] = set()
    for unit, analysis in analyses:
        heading = _unit_heading(unit, analysis)
        sections += [f"## {md(heading)}", "",
                     comparison_markdown(analysis, paper=True, compact_confounds=True)]
        sections += _ranking_sections(analysis)
        sections += oracle_lines(analysis)
        target = out_dir / f"comparison-{unit}.json"
        atomic_write_text(target, json.dumps(analysis.to_json(), ensure_ascii=False, allow_nan=False,
                                             indent=1) + "\n", what="comparison JSON")
        written.append(target)
        html_sections.append((heading, analysis))
        if plots:  # --no-plots: no figure files and none inline (drawing is most of the report's time)
            figs = draw_figures(analysis, out_dir / "plots", formats, inline=html, taken=taken)
            written += figs.files
            inline += figs.inline
            sections += _files_markdown(figs.files, figs.skipped, out_dir, figs.captions)
    text = "\n".join(sections).rstrip() + "\n"
    if html:
        from .html import esc, report_html
        listing = ("<h2 id=\"files\">Files written</h2><ul>" + "".join(
            f"<li class=\"name\">{esc(_rel(p, out_dir))}</li>" for p in written + [out_dir / "report.md"])
            + "</ul>")
        atomic_write_text(out_dir / "report.html",
                          report_html(html_sections, title=f"costmatch report: {title}",
                                      figures=inline, extra_html=listing), what="HTML report")
    atomic_write_text(out_dir / "report.md", text, what="report")
    return [a.comparison for _, a in analyses]


def _unit_heading(unit: str, analysis: Analysis) -> str:
    """"At equal function evaluations": the unit's display noun (the workloads' own words when they agree)."""
    nouns = {ga.fixed_noun for ga in analysis.groups if ga.fixed_noun}
    return f"At equal {nouns.pop() if len(nouns) == 1 else unit_noun(unit)}"


def render_report(analysis: Analysis, records=None, fmt: str = "md",
                  baseline: str | None = None, columns: str | None = None, plots_dir: str | Path | None = None,
                  figure_format: str | None = None, width: str = "single", x_unit: str | None = None,
                  confound_units: list[str] | None = None,
                  figure_style_name: str = "report") -> tuple[str, list[Path], list[tuple[str, str]]]:
    """The `costmatch report` verb without its I/O of arguments: (text, figure files written, figures skipped).

    `analysis`: the `Analysis` to render (a Comparison renders its own,
    `Comparison.analysis(baseline, records)`). `fmt` is md, latex, csv or
    html; `columns` the LaTeX columns (``arm,seeds,tokens,mean,ci,diff,
    diff_ci,verdict``); `figure_format` one of png, svg, pdf (default: png and
    svg); `width` single (3.33 in) or double (6.8 in). Raises ValueError with
    a one-line message on a bad option.
    """
    if fmt not in ("md", "latex", "csv", "html"):
        raise ValueError(f"--format must be md, latex, csv or html, got {fmt!r}")
    if width not in WIDTHS:
        raise ValueError(f"--figure-width must be single (3.33 in) or double (6.8 in), got {width!r}")
    if figure_format is not None and figure_format not in FORMATS:
        raise ValueError(f"--figure-format must be one of {', '.join(FORMATS)}, got {figure_format!r}")
    formats = (figure_format,) if figure_format else ("png", "svg")
    if not isinstance(analysis, Analysis):
        analysis = analysis.analysis(baseline, records)
    figs = Figures()
    if plots_dir is not None or fmt == "html":
        with figure_style(figure_style_name):  # paper: no title or caption in the image, caption files beside
            figs = draw_figures(analysis, Path(plots_dir) if plots_dir is not None else None, formats,
                                inline=fmt == "html", width=width, x_unit=x_unit)
    if fmt == "md":
        text = comparison_markdown(analysis, paper=True, confound_units=confound_units, compact_confounds=True)
        extra = _ranking_sections(analysis) + oracle_lines(analysis)
        if extra:
            text = text.rstrip() + "\n\n" + "\n".join(extra).rstrip() + "\n"
    elif fmt == "latex":
        units = sorted({u for g in analysis.comparison.groups for u in g.units})
        text = comparison_latex(analysis, columns=parse_columns(columns, units))
    elif fmt == "csv":
        text = to_csv(analysis)
    else:
        from .html import report_html
        fixed = analysis.comparison.fixed
        heading = _unit_heading(fixed, analysis) if fixed else "Comparison"
        text = report_html([(heading, analysis)], figures=figs.inline, confound_units=confound_units)
    return text, figs.files, figs.skipped


renderers.register("run_report", write_run_report)
