"""Anytime figure: each arm's mean score against cumulative spend in the group's fixed unit.

Rules, and the mistake each prevents:
- The table's statistic: the line is the mean over seeds (the table's
  centre), and at the budget each arm carries the table's mean and 95%
  interval as a bar. Medians with IQR bands ended thompson above ucb1 in the
  figure and below it in the table; seven overlapping bands blurred.
- Lines differ by marker and dash as well as colour (markers staggered so
  they do not stack).
- The axis says what the points are: held-out reward (the workload scores
  traces) or the dev score of the best so far, which may exceed the reward.
  The reward is named as what it is when the records say (bbob: digits of
  precision). When each seed is a different problem the note says the mean
  is across problems.
- An arm whose trace does not report the unit is drawn in the "unknown"
  strip at its table value, not dropped.
"""
from __future__ import annotations

import warnings

import numpy as np

from baselines.analysis.curves import anytime
from baselines.analysis.compare.comparison import Group
from baselines.core.fileio import slug
from baselines.analysis.tables.group_runs import as_index
from baselines.core.units import unit_noun

from .figure_base import (
    marked_title,
    STRIP,
    WIDTHS,
    Plot,
    Style,
    _finish,
    _finite,
    _height,
    _mpl,
    _quantity_axis,
    _yerr,
    not_valid_arms,
    not_valid_note,
    unknown_strip,
)
from .ranges import range_for
from .text import budget_tag, budget_text


def trace_score_kind(records) -> str | None:
    """``reward`` when every traced run has held-out points, ``dev`` when none has, ``mixed`` or None."""
    kinds = {anytime.score_field(r.trace) for r in records if r.trace}
    if not kinds:
        return None
    return {"reward"} == kinds and "reward" or {"best"} == kinds and "dev" or "mixed"


SCORE_LABEL = {"reward": "held-out reward of the current choice",
               "dev": "dev score of the best so far (not held out)"}


def _curves(by_arm: dict, unit: str, grid) -> tuple[dict, list, list]:
    """(arm -> runs x grid matrix, arms whose traces miss the unit, notes of arms with no trace)."""
    curves, missing, left_off = {}, [], []
    for arm in sorted(by_arm):
        runs = [r for r in by_arm[arm] if r.trace]
        if not runs:
            left_off.append(f"{arm} (no trace)")
            continue
        matrix = np.array([[anytime.best_at(r.trace, unit, x) for x in grid] for r in runs])
        if matrix.size and not np.isnan(matrix).all():
            curves[arm] = matrix
        else:
            missing.append(arm)
    return curves, missing, left_off


def _draw_lines(ax, grid, curves: dict, style: Style, invalid: dict) -> list:
    out = []
    n = len(curves)
    for i, (arm, matrix) in enumerate(curves.items()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(matrix, axis=0)
        st = style(arm)
        faint = arm in invalid
        (line,) = ax.plot(grid, mean, color=st["color"], ls=st["linestyle"], lw=0.9 if faint else 1.2,
                          marker=st["marker"], ms=3.2, markevery=(2 + 3 * i % max(n, 1), 12),
                          mfc="white" if faint else st["color"], alpha=0.6 if faint else 1.0)
        out.append((arm, line))
    return out


def _table_bars(ax, group: Group, arms: list[str], limit: float, style: Style, rng) -> None:
    """At the budget, each drawn arm's table mean and 95% interval, side by side just right of the line."""
    by = {a.arm: a for a in group.arms}
    for i, arm in enumerate(arms):
        a = by.get(arm)
        if a is None or not np.isfinite(a.mean):
            continue
        y, ci = (rng.clip(a.mean), (rng.clip(a.ci[0]), rng.clip(a.ci[1]))) if rng else (a.mean, a.ci)
        st = style(arm)
        ax.errorbar([limit * (1.015 + 0.012 * i)], [y], yerr=_yerr(y, ci), fmt=st["marker"], color=st["color"],
                    ms=3, lw=0.8, capsize=1.5, clip_on=False)


def _strip_items(group: Group, arms: list[str], rng) -> dict:
    by = {a.arm: a for a in group.arms}
    out = {}
    for arm in arms:
        a = by.get(arm)
        if a is not None and np.isfinite(a.mean):
            out[arm] = (rng.clip(a.mean), (rng.clip(a.ci[0]), rng.clip(a.ci[1]))) if rng else (a.mean, a.ci)
    return out


def anytime_plot(group: Group, records, unit: str, style: Style, width: str = "single",
                 ranges: dict | None = None, name: str | None = None, reward_name: str | None = None) -> Plot:
    """Mean score against cumulative spend in `unit`; the table's mean and 95% CI at the budget."""
    title = f"{group.workload} at {budget_text(group.budget)}: anytime"
    name = name or f"anytime-{slug(group.workload)}-{budget_tag(group.budget)}"
    limit = group.budget.get(unit)
    by_arm = as_index(records).of(group)
    traced = [r for rs in by_arm.values() for r in rs if r.trace]
    if not limit:
        return Plot(name, title, reason=f"the budget does not name {unit_noun(unit)}, so there is no axis to 100%")
    if not _finite(limit):
        return Plot(name, title, reason=f"the {unit_noun(unit)} budget is too large to draw")
    if not traced:
        return Plot(name, title, reason="no run recorded a trace")
    kind = trace_score_kind(traced)
    if kind == "mixed":
        return Plot(name, title, reason="some traces carry held-out rewards and others only dev scores; "
                                        "one axis cannot show both")
    grid = np.linspace(0, limit, 101)
    curves, missing, left_off = _curves(by_arm, unit, grid)
    if not curves:
        return Plot(name, title, reason=f"no trace reports {unit_noun(unit)}", notes=left_off)
    invalid = not_valid_arms(group)
    title = marked_title(title, group, invalid)
    rng = range_for(ranges, group)
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    pairs = _draw_lines(ax, grid, curves, style, invalid)
    if kind == "reward":
        _table_bars(ax, group, list(curves), limit, style, rng)
    strip = _strip_items(group, missing, rng if kind == "reward" else None)
    if strip:
        pairs += unknown_strip(fig, ax, strip, style, invalid, f"{STRIP}\n{unit_noun(unit)}\n(final)")
    handles = [h for _, h in pairs]
    labels = [f"{a} (not valid)" if a in invalid else a for a, _ in pairs]
    _axes(ax, group, kind, unit, limit, rng, reward_name, len(curves))
    ax.set_title(title)
    notes = _notes(group, kind, unit, by_arm, left_off, strip)
    _finish(fig, ax, handles, labels, notes)
    plot = Plot(name, title, fig, notes=notes)
    plot.arms = {a: "drawn" for a in curves} | {a: STRIP for a in strip}
    return plot


def _axes(ax, group: Group, kind: str, unit: str, limit: float, rng, reward_name: str | None, n: int) -> None:
    if kind == "reward" and rng:
        lo, hi = ax.get_ylim()
        pad = 0.02 * (rng.hi - rng.lo)
        ax.set_ylim(max(lo, rng.lo - pad), min(hi, rng.hi + pad))
    ax.axvline(limit, color="0.3", lw=0.6, ls=":")
    ax.set_xlim(0, limit * (1.03 + 0.012 * n) if kind == "reward" else limit * 1.02)
    ax.set_xlabel(f"cumulative {unit_noun(unit)} (budget: dotted line)")
    what = (f"{reward_name} of the current choice" if kind == "reward" and reward_name else SCORE_LABEL[kind])
    ax.set_ylabel(f"{what}\n(mean over seeds)")
    _quantity_axis(ax.xaxis, nbins=4)


def _notes(group: Group, kind: str, unit: str, by_arm: dict, left_off: list, strip: dict) -> list[str]:
    notes = []
    if kind == "reward":
        notes.append("Lines: mean over seeds. Bars right of the budget: each arm's mean and 95% CI from the table.")
    problems = {r.extra.get("instance") for rs in by_arm.values() for r in rs if r.extra}
    if len(problems - {None}) > 1:
        notes.append(f"Each seed is a different problem ({len(problems - {None})} problems): the mean is across "
                     "problems, not repeated runs of one.")
    if strip:
        notes.append(f"Trace without {unit_noun(unit)}: drawn in the '{STRIP}' strip at the table's final value: "
                     + ", ".join(sorted(strip)) + ".")
    if left_off:
        notes.append("Not drawn: " + "; ".join(left_off))
    if not group.valid:
        notes.append(not_valid_note(group))
    if kind == "dev":
        notes.append("The workload does not score traces (score_trace), so the curve is the arm's own dev "
                     "score of its best so far: it may exceed the held-out reward in the tables.")
    return notes
