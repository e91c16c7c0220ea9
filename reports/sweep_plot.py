"""Budget sweep figure: mean reward (95% CI, as in the tables) against budget, when a workload ran at several.

A budget whose group is not valid is drawn, not left out, but never as an
equal-budget point: open markers, faint dotted segments, "not valid" under
its tick, skipped by the crossing marks, and named in a note. Dropped, it
would silently join its neighbours as if nothing had run between them.
An arm's line joins only budgets it ran at, and a shaded band marks a change
of leader only where the analysis found both orders decided
(`baselines.analysis.result.sweep`): the figure draws, it does not decide.
"""
from __future__ import annotations

import math
from pathlib import Path

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.result.model import Analysis
from baselines.analysis.result.sweep import Sweep
from baselines.core.fileio import slug
from baselines.core.units import unit_noun

from .figure_base import (_OPEN, WIDTHS, Plot, Style, _finish, _finite, _height, _mpl, _open_proxy, _wrap_name,
                          close, not_valid_note, save)
from .text import quantity


def _fixed_of(group: Group, comparison: Comparison) -> str | None:
    """The unit this group was matched in (each group has its own since budgets may differ in unit)."""
    return getattr(group, "fixed", "") or comparison.fixed


def budget_sweep_plot(sweep: Sweep, metric: str, style: Style, width: str = "single") -> Plot:
    """Mean reward against budget (log axis) when a workload ran at two or more budgets in one fixed unit.

    A budget whose group is not valid (an arm off the budget in the fixed
    unit, or the unit unreported, or one arm alone) is drawn, not left out,
    but never as an equal-budget point: its markers are open, the lines into
    it faint and dotted, its tick says "not valid", and a note names the
    group and each arm with the reason.
    """
    fixed, workload = sweep.fixed, sweep.workload
    groups = [ga.group for ga in sweep.groups]
    name = f"sweep-{slug(workload)}-{slug(fixed)}"
    title = f"{workload}: budget sweep in {unit_noun(fixed)}"
    bad = [g for g in groups if not g.valid]
    if bad:
        title += f" ({len(bad)} of {len(groups)} budgets NOT VALID)"
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    handles, labels = _draw_series(ax, sweep.series, style)
    if bad:
        handles.append(_open_proxy())
        labels.append("open: budget not valid (see note)")
    _bands(ax, sweep)
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
    ax.set_ylabel(f"{metric} (mean, 95% CI)")
    notes = [not_valid_note(g) for g in bad] + list(sweep.notes)
    _finish(fig, ax, handles, labels, notes)
    return Plot(name, title, fig, notes=notes)


def budget_sweep(analysis: Analysis, workload: str, style: Style, path: Path,
                 formats=("png", "svg")) -> list[Path]:
    sweep = next((s for s in analysis.sweeps if s.workload == workload), None)
    if sweep is None:
        return []
    plot = budget_sweep_plot(sweep, analysis.metric, style)
    plot.name = Path(path).name
    files = save(plot, Path(path).parent, formats)
    close(plot)
    return files


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
            if not (ok[i] and ok[i + 1]) and math.isfinite(ys[i]) and math.isfinite(ys[i + 1]):
                ax.plot(xs[i:i + 2], ys[i:i + 2], color=st["color"], ls=":", lw=0.7, alpha=0.6)
        for i, (x, y) in enumerate(zip(xs, ys)):
            if not math.isfinite(y):
                continue   # the arm did not run at this budget
            ax.errorbar([x], [y], yerr=[[err[0][i]], [err[1][i]]], color=st["color"], marker=st["marker"], ms=3,
                        lw=0.8 if ok[i] else 0.6, capsize=2, ls="none", alpha=1.0 if ok[i] else 0.7,
                        **({} if ok[i] else _OPEN))
        handles.append(h)
        labels.append(arm)
    return handles, labels


def _bands(ax, sweep: Sweep) -> None:
    """Shade the budget intervals where the analysis found a decided change of leader, naming both arms."""
    for band in sweep.bands:
        ax.axvspan(band.lo, band.hi, color="0.9", zorder=0)
        before, after = band.before, band.after
        label = f"{before} \u2192 {after}" if len(before) + len(after) <= 40 else \
            f"{_wrap_name(before, 40)}\n\u2192 {_wrap_name(after, 40)}"
        ax.text((band.lo + band.hi) / 2, ax.get_ylim()[1], label, fontsize=6, ha="center", va="top")
