"""Budget sweep figure: mean reward (95% CI, as in the tables) against budget, when a workload ran at several.

A budget whose group is not valid is drawn, not left out, but never as an
equal-budget point: open markers, faint dotted segments, "not valid" under
its tick, skipped by the crossing marks, and named in a note. Dropped, it
would silently join its neighbours as if nothing had run between them.
"""
from __future__ import annotations

import math
from pathlib import Path

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.core.fileio import slug
from baselines.core.units import unit_noun

from .figure_base import (_OPEN, WIDTHS, Plot, Style, _finish, _finite, _height, _mpl, _open_proxy, _wrap_name,
                          close, not_valid_note, save)
from .ranges import range_for
from .text import quantity


def sweep_crossings(series: dict[str, list[tuple[float, float]]]) -> list[tuple[float, float, str, str]]:
    """Budgets between which the best arm changes: (budget_before, budget_after, best_before, best_after)."""
    budgets = sorted({b for pts in series.values() for b, _ in pts})
    best = []
    for b in budgets:
        scores = {arm: y for arm, pts in series.items() for bb, y in pts if bb == b and math.isfinite(y)}
        best.append(max(sorted(scores), key=lambda a: scores[a]) if scores else None)
    return [(budgets[i], budgets[i + 1], best[i], best[i + 1]) for i in range(len(budgets) - 1)
            if best[i] and best[i + 1] and best[i] != best[i + 1]]


def _fixed_of(group: Group, comparison: Comparison) -> str | None:
    """The unit this group was matched in (each group has its own since budgets may differ in unit)."""
    return getattr(group, "fixed", "") or comparison.fixed


def budget_sweep_plot(comparison: Comparison, workload: str, style: Style, width: str = "single",
                      ranges: dict | None = None, fixed: str | None = None) -> Plot | None:
    """Mean reward against budget (log axis) when a workload ran at two or more budgets in one fixed unit.

    A budget whose group is not valid (an arm off the budget in the fixed
    unit, or the unit unreported, or one arm alone) is drawn, not left out,
    but never as an equal-budget point: its markers are open, the lines into
    it faint and dotted, its tick says "not valid", the crossing marks skip
    it, and a note names the group and each arm with the reason. Drawn
    rather than dropped because the tables print that group (flagged) and a
    figure missing a budget the tables show would silently join its
    neighbours as if nothing had run between them.
    """
    fixed = fixed or comparison.fixed
    groups = [g for g in comparison.groups if g.workload == workload and fixed in g.budget
              and _fixed_of(g, comparison) == fixed and _finite(g.budget[fixed]) and g.budget[fixed] > 0]
    if len(groups) < 2:
        return None
    groups = sorted(groups, key=lambda g: g.budget[fixed])
    name = f"sweep-{slug(workload)}-{slug(fixed)}"
    title = f"{workload}: budget sweep in {unit_noun(fixed)}"
    bad = [g for g in groups if not g.valid]
    if bad:
        title += f" ({len(bad)} of {len(groups)} budgets NOT VALID)"
    plt = _mpl()
    series = _series(comparison, groups, fixed, ranges)
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    handles, labels = _draw_series(ax, series, style)
    if bad:
        handles.append(_open_proxy())
        labels.append("open: budget not valid (see note)")
    _crossings(ax, series)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter  # only when drawing (start-up)
    ax.set_xscale("log")
    budgets = [g.budget[fixed] for g in groups]
    invalid_budgets = {g.budget[fixed] for g in bad}
    ax.xaxis.set_major_locator(FixedLocator(budgets))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda v, _pos: quantity(v, compact=True) + ("\nnot valid" if v in invalid_budgets else "")))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title(title)
    ax.set_xlabel(f"budget ({unit_noun(fixed)})")
    ax.set_ylabel(f"{comparison.metric} (mean, 95% CI)")
    notes = [not_valid_note(g) for g in bad]
    _finish(fig, ax, handles, labels, notes)
    return Plot(name, title, fig, notes=notes)


def budget_sweep(comparison: Comparison, workload: str, style: Style, path: Path,
                 formats=("png", "svg")) -> list[Path]:
    plot = budget_sweep_plot(comparison, workload, style)
    if plot is None:
        return []
    plot.name = Path(path).name
    files = save(plot, Path(path).parent, formats)
    close(plot)
    return files


def _series(comparison: Comparison, groups: list[Group], fixed: str, ranges) -> dict:
    """arm -> [(budget, mean, ci, valid)], clipped to the reward range."""
    series: dict[str, list[tuple[float, float, tuple[float, float], bool]]] = {}
    for g in groups:
        rng = range_for(ranges, g) if comparison.metric == "reward" else None
        for a in g.arms:
            mean, ci = a.mean, a.ci
            if rng:
                mean, ci = rng.clip(mean), (rng.clip(ci[0]), rng.clip(ci[1]))
            series.setdefault(a.arm, []).append((g.budget[fixed], mean, ci, g.valid))
    return series


def _draw_series(ax, series: dict, style: Style) -> tuple[list, list]:
    handles, labels = [], []
    for arm, pts in sorted(series.items()):
        st = style(arm)
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        ok = [p[3] for p in pts]
        err = [[max(0.0, y - c[0]) if math.isfinite(c[0]) else 0 for y, (_, _, c, _) in zip(ys, pts)],
               [max(0.0, c[1] - y) if math.isfinite(c[1]) else 0 for y, (_, _, c, _) in zip(ys, pts)]]
        # the arm's line joins neighbouring valid budgets only; a segment touching a not-valid one is faint
        solid = [y if v else math.nan for y, v in zip(ys, ok)]
        (h,) = ax.plot(xs, solid, color=st["color"], marker=st["marker"], ls=st["linestyle"], ms=3, lw=0.8)
        for i in range(len(xs) - 1):
            if not (ok[i] and ok[i + 1]):
                ax.plot(xs[i:i + 2], ys[i:i + 2], color=st["color"], ls=":", lw=0.7, alpha=0.6)
        for i, (x, y) in enumerate(zip(xs, ys)):
            ax.errorbar([x], [y], yerr=[[err[0][i]], [err[1][i]]], color=st["color"], marker=st["marker"], ms=3,
                        lw=0.8 if ok[i] else 0.6, capsize=2, ls="none", alpha=1.0 if ok[i] else 0.7,
                        **({} if ok[i] else _OPEN))
        handles.append(h)
        labels.append(arm)
    return handles, labels


def _crossings(ax, series: dict) -> None:
    """Shade the budget intervals where the best arm (among valid budgets) changes, naming both."""
    valid_series = {a: [(x, y) for x, y, _, v in p if v] for a, p in series.items()}
    for lo, hi, before, after in sweep_crossings(valid_series):
        ax.axvspan(lo, hi, color="0.9", zorder=0)
        label = f"{before} \u2192 {after}" if len(before) + len(after) <= 40 else \
            f"{_wrap_name(before, 40)}\n\u2192 {_wrap_name(after, 40)}"
        ax.text((lo + hi) / 2, ax.get_ylim()[1], label, fontsize=6, ha="center", va="top")
