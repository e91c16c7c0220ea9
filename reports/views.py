"""A Comparison's own views for Python and notebooks: markdown, LaTeX, HTML and figures.

Why here and registered: the views need tables and matplotlib, which live in
this layer, above the analysis types; `baselines.comparison` must not import
them (tests/test_layers.py), and `import baselines` must not load matplotlib.
So this module registers itself with `baselines.analysis.result.renderers`
when imported, and `Comparison.to_markdown()` and the rest load it by name on
first use, each handing over the comparison's `Analysis` (computed once,
`Comparison.analysis`). The texts are exactly the `costmatch report` ones.
"""
from __future__ import annotations

import sys

from baselines.analysis.result import renderers
from baselines.analysis.result.model import Analysis
from baselines.core.units import nouns_of

from .flags import comparison_headline
from .html import STYLE, _group_html, esc, inline_svg, report_html
from .markdown import comparison_markdown
from .plots import close, comparison_plots, render
from .latex import comparison_latex, parse_columns


def to_markdown(analysis: Analysis) -> str:
    """The markdown `costmatch report` prints (with each group's run notes when the records were kept)."""
    return comparison_markdown(analysis, paper=True, compact_confounds=True)


def to_latex(analysis: Analysis, columns: str | None = None) -> str:
    """The booktabs tables of `costmatch report --format latex`."""
    units = sorted({u for g in analysis.comparison.groups for u in g.units})
    return comparison_latex(analysis, columns=parse_columns(columns, units))


def to_html(analysis: Analysis, title: str = "costmatch report") -> str:
    """The page `costmatch report --format html` writes for these records: tables, per-seed runs and the same
    figures inline (issue 39: the notebook's page had none while the command's had them)."""
    from .run_report import _unit_heading, draw_figures  # matplotlib: only when a page is asked for

    comparison = analysis.comparison
    heading = _unit_heading(comparison.fixed, analysis) if comparison.fixed else "Comparison"
    figures = draw_figures(analysis, None, ("svg",), inline=True)
    return report_html([(heading, analysis)], title=title, figures=figures.inline)


def html_fragment(analysis: Analysis) -> str:
    """The tables without a page around them: what a notebook shows for a Comparison (`_repr_html_`)."""
    comparison = analysis.comparison
    shared = [g.unit_nouns for g in comparison.groups]
    with nouns_of(shared[0] if shared and all(n == shared[0] for n in shared) else None):
        headline = comparison_headline(comparison)
    # the page's phone rules (a media query and the column toggle) stay with the page: a fragment has no toggle
    parts = [f"<div class=\"costmatch\"><style>{_scoped(STYLE.split('#allcols')[0])}</style>",
             f"<p class=\"{'ok' if comparison.valid else 'bad'}\">{esc(headline)}</p>"]
    parts += [f"<p class=\"bad\">warning: {esc(w)}</p>" for w in comparison.warnings]
    for i, ga in enumerate(analysis.groups):
        with nouns_of(ga.group.unit_nouns):
            parts.append(_group_html(ga, comparison, None, f"cm{id(comparison)}g{i}"))
    return "\n".join(parts) + "</div>"


def _scoped(style: str) -> str:
    """The report's CSS limited to the fragment's div, so a notebook's own page keeps its look."""
    rules = [rule for rule in style.replace("\n", "").split("}") if rule.strip()]
    out = []
    for rule in rules:
        selectors, _, body = rule.partition("{")
        scoped = ",".join(".costmatch" if s.strip() == "body" else f".costmatch {s.strip()}"
                          for s in selectors.split(","))
        out.append(f"{scoped}{{{body}}}")
    return "".join(out)


class Figures(list):
    """The figures of a comparison: a list of matplotlib Figures that a notebook shows inline (SVG).

    Each item is an ordinary matplotlib Figure (`figures[0].savefig("a.pdf")`);
    `names` and `titles` say which is which, and `not_drawn` lists the figures
    the data did not allow, with the reason.
    """

    def __init__(self, plots, not_drawn):
        super().__init__(p.fig for p in plots)
        self.names = [p.name for p in plots]
        self.titles = [p.title for p in plots]
        self.not_drawn = list(not_drawn)
        self._plots = list(plots)

    def _repr_html_(self) -> str:
        figures = [f"<figure>{inline_svg(render(p, 'svg').decode('utf-8'), f'f{i}{id(self)}')}"
                   f"<figcaption>{esc(p.title)}</figcaption></figure>" for i, p in enumerate(self._plots)]
        skipped = [f"<p class=\"note\">not drawn: {esc(name)}: {esc(reason)}</p>" for name, reason in self.not_drawn]
        return "<div class=\"costmatch-figures\">" + "".join(figures + skipped) + "</div>"

    def close(self) -> None:
        """Free the figures' memory (matplotlib keeps every open figure)."""
        for p in self._plots:
            close(p)


def plot(analysis: Analysis, x_unit: str | None = None, width: str = "single") -> Figures:
    """Every figure `costmatch report --plots` draws for this comparison (records give the cost axes and traces)."""
    drawn, skipped = [], []
    for p in comparison_plots(analysis, x_unit=x_unit, width=width):
        (drawn if p.drawn else skipped).append(p if p.drawn else (p.name, p.reason))
    return Figures(drawn, skipped)


renderers.register("views", sys.modules[__name__])
