"""Figures of a comparison: cost-reward with the supported frontier, anytime curves, budget sweeps, and the
ranking of arms at equal rollouts, calls and tokens.

This module chooses which figures a comparison gets and yields them one at a
time; each figure lives in its own module (`cost_plot`, `anytime_plot`,
`sweep_plot`, `ranking_view`) and shares style and placement through
`figure_base`. Everything drawn comes from one `baselines.analysis.result.model.Analysis`
(the runs indexed once, the ranking, frontiers, anytime curves and sweeps computed once):
figures render, they do not re-derive.
"""
from __future__ import annotations

from pathlib import Path

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.curves.ranking import RANK_ALPHA, RANK_TEST_MAX_ARMS, RANK_UNITS, RankEntry, Ranking
from baselines.analysis.result.model import Analysis, GroupAnalysis
from baselines.core.fileio import slug
from baselines.core.records import budget_key
from baselines.core.units import nouns_of

from .anytime_plot import SCORE_LABEL, anytime_plot
from .cost_plot import cost_reward_plot, pareto_front
from .figure_base import (FORMATS, LINESTYLES, MARKERS, OKABE_ITO, PALETTE, WIDTH, WIDTHS, Plot, Style, close,
                          contrast_ratio, not_valid_arms, not_valid_note, render, save)
from .ranking_view import RANK_RULE, ranking_markdown, ranking_plot
from .sweep_plot import _fixed_of, budget_sweep, budget_sweep_plot
from .text import budget_tag, budget_text

__all__ = ["FORMATS", "LINESTYLES", "MARKERS", "OKABE_ITO", "PALETTE", "WIDTH", "WIDTHS", "Plot", "Style",
           "RANK_ALPHA", "RANK_RULE", "RANK_TEST_MAX_ARMS", "RANK_UNITS", "RankEntry", "Ranking", "SCORE_LABEL",
           "anytime_plot", "budget_sweep", "budget_sweep_plot", "close", "comparison_plots", "contrast_ratio",
           "cost_reward_plot", "cost_units", "not_valid_arms", "not_valid_note", "pareto_front",
           "ranking_markdown", "ranking_plot", "render", "save",
           "write_comparison_plots"]


def group_key(group: Group) -> tuple[str, str]:
    """(workload, budget key): which group a figure shows, to place it beside that group's table."""
    return (group.workload, budget_key(group.budget))


def cost_units(group: Group, fixed: str, x_unit: str | None = None) -> list[str]:
    """Units for cost-reward x axes: `x_unit` if given, else the first of tokens, dollars, calls, rollouts
    that at least half the arms report in full and in which the arms' spends differ.

    Why half: preferring tokens whenever any arm reports them drew one arm of
    three on the real reflective files (the other two reported calls only);
    arms that do not report the unit are drawn in the figure's "unknown"
    strip, so a unit most arms report is shown with the rest beside it. A
    unit every arm spends alike (calls at equal rollouts) would stack every
    point on one vertical line. Seconds only when asked for
    (``--x-unit seconds``): on simulators wall time measures the machine.
    """
    if x_unit is not None:
        return [x_unit]
    held = set(group.budget) | ({fixed} if fixed else set())
    order = ("tokens", "usd", "calls", "rollouts")  # not seconds: wall time measures the machine
    need = max(1, -(-len(group.arms) // 2))
    fallback = []
    for unit in order:
        if unit in held or unit not in group.units:
            continue
        medians = [a.spend[unit].median for a in group.arms if unit in a.spend and a.spend[unit].status == "measured"]
        if len(medians) >= need:
            if len(set(medians)) > 1 or len(group.arms) == 1:
                return [unit]
            fallback = fallback or [unit]
    return fallback


def _group_plots(ga: GroupAnalysis, comparison: Comparison, st, x_unit, width):
    """One group's cost-reward, anytime and ranking figures (drawn inside its unit-noun scope)."""
    g = ga.group
    tag = f"{slug(g.workload)}-{budget_tag(g.budget)}"
    fixed = _fixed_of(g, comparison)
    units = cost_units(g, fixed, x_unit)
    name = ga.reward_name
    if not units:
        yield Plot(f"cost-reward-{tag}", f"{g.workload} at {budget_text(g.budget)}",
                   reason="no unit other than the one the budget holds fixed is reported by every arm "
                          "(wall time is drawn only on request: --x-unit seconds)")
    for unit in units:
        yield cost_reward_plot(ga, unit, st, fixed, comparison.metric, width,
                               name=f"cost-reward-{tag}-{slug(unit)}", reward_name=name)
    if fixed:
        yield anytime_plot(ga, fixed, st, width, name=f"anytime-{tag}", reward_name=name)
    rank = None if ga.ranking is None else ranking_plot(
        ga.ranking, st, f"ranking-{tag}", f"{g.workload} at {budget_text(g.budget)}: rank by unit", width, group=g)
    if rank is not None:
        yield rank
    else:   # said, not left out in silence (issue 39: a notebook promised a ranking and got nothing)
        yield Plot(f"ranking-{tag}", f"{g.workload} at {budget_text(g.budget)}: rank by unit",
                   reason="one arm: nothing to rank" if len(g.arms) < 2 else
                   "a ranking by unit needs spend in at least two units that every arm reports")


def comparison_plots(analysis: Analysis, records=None, x_unit: str | None = None,
                     width: str = "single", ranges: dict | None = None, style: Style | None = None):
    """Yield every figure the data allow, and a not-drawn Plot (with its reason) for each that they do not.

    `analysis`: the `Analysis` to draw (a Comparison draws its own,
    `Comparison.analysis(records=records, ranges=ranges)`). Colours are
    assigned per workload from all of its arms, so an arm has one colour in
    every figure of that workload. Plots are yielded one at a time so a
    caller can save and close each before the next is drawn.
    """
    if not isinstance(analysis, Analysis):
        analysis = analysis.analysis(records=records, ranges=ranges)
    comparison = analysis.comparison
    workloads = {ga.group.workload for ga in analysis.groups}
    styles = {w: style or Style(a for ga in analysis.groups if ga.group.workload == w
                                for a in [*ga.runs, *(x.arm for x in ga.arms)]) for w in workloads}
    for ga in analysis.groups:
        with nouns_of(ga.group.unit_nouns):  # the group's own words for its units in every title and axis
            plots = list(_group_plots(ga, comparison, styles[ga.group.workload], x_unit, width))
        for plot in plots:
            plot.group = group_key(ga.group)
        yield from plots
    for sweep in analysis.sweeps:
        yield budget_sweep_plot(sweep, comparison.metric, styles[sweep.workload], width)


def write_comparison_plots(comparison: Comparison, records, out_dir: Path,
                           style: Style | None = None, x_unit: str | None = None, formats=("png", "svg"),
                           width: str = "single", ranges: dict | None = None,
                           skipped: list | None = None) -> list[Path]:
    """Every figure that the data allow, under `out_dir`; returns exactly the files written.

    Not-drawn figures are appended to `skipped` as (name, reason) when given.
    Two figures never share a file name: a clash (possible only through
    hash-equal slugs) gets a numbered suffix rather than overwriting.
    """
    files: list[Path] = []
    taken: set[str] = set()
    for plot in comparison_plots(comparison, records, x_unit, width, ranges, style):  # a Comparison or Analysis
        if not plot.drawn:
            if skipped is not None:
                skipped.append((plot.name, plot.reason))
            continue
        base, k = plot.name, 2
        while plot.name in taken:
            plot.name = f"{base}-{k}"
            k += 1
        taken.add(plot.name)
        try:
            files += save(plot, Path(out_dir), formats)
        finally:
            close(plot)
    return files