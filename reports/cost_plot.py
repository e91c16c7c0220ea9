"""The cost-reward figure: mean reward against median spend in one unit, the same numbers as the table.

Rules, and the mistake each prevents:
- One statistic per axis, the table's: x is the median spend per run (the
  table's spend column), y the mean with the table's 95% interval. The old
  glyph mixed min-max bars on x with a CI on y.
- No arm disappears: an arm whose spend in the unit is unknown is drawn in a
  marked "unknown" strip right of the axes at its reward; an arm that
  reported the unit only in part is drawn at its lower bound with an arrow
  to the right (≥). It is never drawn at zero (free) and never dropped.
- The frontier is the one the statistics support, among fully reported arms
  (`baselines.analysis.compare.frontier`): ringed arms are those no arm spending no more is
  detected better than by the paired test; a point-estimate Pareto line
  claimed an order that overlapping intervals do not.
- A group that is not valid has no frontier, open markers and NOT VALID in
  its title.
"""
from __future__ import annotations

import math

from baselines.analysis.compare.comparison import Group
from baselines.core.fileio import slug
from baselines.core.units import unit_noun

from .figure_base import (
    marked_title,
    _OPEN,
    STRIP,
    WIDTHS,
    Plot,
    Style,
    _finish,
    _finite,
    _height,
    _mpl,
    _open_proxy,
    _quantity_axis,
    _yerr,
    not_valid_arms,
    not_valid_note,
    unknown_strip,
)
from baselines.analysis.result.model import GroupAnalysis
from .text import budget_tag, budget_text, quantity


def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Arms not dominated on point estimates: no other spends no more and scores no less, one strictly."""
    front = []
    for a, (xa, ya) in points.items():
        dominated = any((xb <= xa and yb >= ya) and (xb < xa or yb > ya) for b, (xb, yb) in points.items() if b != a)
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda a: points[a][0])


def _place(ga: GroupAnalysis, unit: str) -> tuple[dict, dict, list]:
    """(arm -> (x, y, ci, status) placed on the axes, arm -> (y, ci) for the unknown strip, notes of arms left off).

    y and ci are the arm table's (clipped to the reward's range by the analysis)."""
    placed, strip, left_off = {}, {}, []
    for a in ga.arms:
        if not math.isfinite(a.mean):
            left_off.append(f"{a.arm} (no scored runs)")
            continue
        y, ci = a.mean, (a.interval.lo, a.interval.hi)
        s = a.spend.get(unit)
        if s is None or s.status == "unreported" or s.median is None:
            strip[a.arm] = (y, ci)
        elif not _finite(s.median):
            left_off.append(f"{a.arm} ({unit_noun(unit)} too large to draw: {quantity(s.median)})")
        else:
            placed[a.arm] = (s.median, y, ci, s.status)
    return placed, strip, left_off


def _draw_points(ax, placed: dict, style: Style, invalid: dict, on_front: set, log_x: bool) -> list:
    handles = []
    xs = [p[0] for p in placed.values()]
    span = (max(xs) - min(xs)) or max(abs(max(xs)), 1.0)
    for arm, (x, y, ci, status) in placed.items():
        st = style(arm)
        if arm in on_front:  # a grey ring behind the marker: on the supported frontier
            ax.plot([x], [y], marker="o", ms=10, mfc="none", mec="0.6", mew=1.4, ls="none", zorder=1)
        h = ax.errorbar([x], [y], yerr=_yerr(y, ci), fmt=st["marker"], color=st["color"], ms=4.5, lw=0.9,
                        capsize=2, zorder=3, **(_OPEN if arm in invalid else {}))
        if status == "partial":  # a lower bound: the arrow points to where the true spend may lie
            end = x * 1.25 if log_x else x + 0.08 * span
            ax.annotate("", xy=(end, y), xytext=(x, y), zorder=2,
                        arrowprops={"arrowstyle": "-|>", "color": st["color"], "lw": 0.9, "mutation_scale": 6})
        handles.append((arm, h))
    return handles


def cost_reward_plot(ga: GroupAnalysis, unit: str, style: Style, fixed: str | None = None,
                     metric: str = "reward", width: str = "single",
                     name: str | None = None, reward_name: str | None = None) -> Plot:
    """Mean reward (table's 95% CI) against median spend in `unit`; unknown spend in a strip, frontier ringed."""
    group = ga.group
    title = f"{group.workload} at {budget_text(group.budget)}"
    name = name or f"cost-reward-{slug(group.workload)}-{budget_tag(group.budget)}-{slug(unit)}"
    if unit in set(group.budget) | ({fixed} if fixed else set()):
        return Plot(name, title, reason=f"the x axis would be the fixed unit ({unit_noun(unit)}): every arm "
                                        "sits at the budget, so the plot shows nothing")
    rng = ga.reward_range if metric == "reward" else None
    placed, strip, left_off = _place(ga, unit)
    if not placed:
        return Plot(name, title, reason=f"no arm reports {unit_noun(unit)}", notes=left_off)
    invalid = not_valid_arms(group)
    title = marked_title(title, group, invalid)
    front = ga.frontiers[unit]
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    xs = [p[0] for p in placed.values()]
    log_x = min(xs) > 0 and max(xs) / min(xs) >= 30  # spends a decade or more apart: log axis
    if log_x:
        ax.set_xscale("log")
    ringed = set(front.on) if 1 < len(front.on) < len(placed) or front.beaten else set()
    pairs = _draw_points(ax, placed, style, invalid, ringed, log_x)
    if strip:
        pairs += unknown_strip(fig, ax, strip, style, invalid, f"{STRIP}\n{unit_noun(unit)}")
    handles, labels = _legend(pairs, placed, strip, invalid, ringed)
    ax.set_title(title)
    ax.set_xlabel(f"{unit_noun(unit)} per run (median over seeds)")
    ax.set_ylabel(f"{reward_name or metric} (mean, 95% CI)")
    _quantity_axis(ax.xaxis, log=log_x)
    notes = _notes(group, unit, placed, strip, left_off, front)
    _finish(fig, ax, handles, labels, notes)
    if rng:
        notes.append(rng.note())
    plot = Plot(name, title, fig, notes=notes)
    plot.arms = {a: ("lower bound" if placed[a][3] == "partial" else "drawn") for a in placed} | \
        {a: STRIP for a in strip}
    return plot


def _legend(pairs, placed, strip, invalid, ringed: set) -> tuple[list, list]:
    from matplotlib.lines import (
        Line2D,  # matplotlib is imported only when a figure is drawn (start-up time)
    )

    order = sorted(pairs, key=lambda p: p[0])
    handles = [h for _, h in order]
    labels = [arm + (" (spend unknown)" if arm in strip else " (\u2265 lower bound)"
                     if arm in placed and placed[arm][3] == "partial" else "") for arm, _ in order]
    if ringed:
        handles.append(Line2D([], [], marker="o", ms=8, mfc="none", mec="0.6", mew=1.4, ls="none"))
        labels.append("ring: on the frontier")
    if any(a in invalid for a in list(placed) + list(strip)):
        handles.append(_open_proxy())
        labels.append("open: not valid (see note)")
    return handles, labels


def _notes(group: Group, unit: str, placed, strip, left_off, front) -> list[str]:
    notes = []
    noun = unit_noun(unit)
    among = "among fully reported arms" + (f" (not placed: {', '.join(front.not_placed)})"
                                           if front.not_placed else "")
    if front.valid and front.beaten:
        notes.append(f"Frontier {among}: ringed arms, which no arm spending no more {noun} beats by a difference "
                     "the paired test detects (pairs table); off it: " + "; ".join(
                         f"{a} (beaten by {b})" for a, b in sorted(front.beaten.items())) + ".")
    elif front.valid and len(placed) > 1:
        notes.append(f"No frontier drawn {among}: no arm is beaten by one that spends no more {noun} with a "
                     "difference the paired test detects, so the data do not rank cost against reward.")
    elif not front.valid:
        notes.append("No frontier: the group is not valid, so its differences are not equal-budget results.")
    if strip:
        notes.append(f"Spend unknown (no {noun} reported), drawn in the '{STRIP}' strip at their reward: "
                     + ", ".join(sorted(strip)) + ".")
    partial = sorted(a for a, p in placed.items() if p[3] == "partial")
    if partial:
        notes.append(f"Arrows: {noun} reported in part, drawn at the lower bound: " + ", ".join(partial) + ".")
    if left_off:
        notes.append("Not drawn: " + "; ".join(left_off) + ".")
    if not group.valid:
        notes.append(not_valid_note(group))
    return notes
