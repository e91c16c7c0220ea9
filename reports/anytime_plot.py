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
- Points only where a trace has them: the curves come computed
  (`baselines.analysis.curves.anytime_series`), NaN before a run's first
  point, and an arm with fewer than three trace points is drawn as markers
  at those points only (a best-of-1 arm has two: a line between them drew
  a reward nobody measured at every sample in between).
"""
from __future__ import annotations

from baselines.analysis.compare.comparison import Group
from baselines.analysis.curves.anytime_series import AnytimeSeries
from baselines.analysis.result.model import GroupAnalysis
from baselines.core.fileio import slug
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
from .text import budget_tag, budget_text


SCORE_LABEL = {"reward": "held-out reward of the current choice",
               "dev": "dev score of the best so far (not held out)"}


SPARSE = 3   # an arm with fewer trace points than this is drawn as markers only


def _draw_lines(ax, series: AnytimeSeries, style: Style, invalid: dict) -> list:
    out = []
    n = len(series.means)
    for i, (arm, mean) in enumerate(series.means.items()):
        st = style(arm)
        faint = arm in invalid
        points = series.points.get(arm, [])
        common = dict(color=st["color"], marker=st["marker"], ms=3.2, mfc="white" if faint else st["color"],
                      alpha=0.6 if faint else 1.0)
        if len(points) < SPARSE:   # markers at the measured points, no line between them
            (line,) = ax.plot([x for x, _ in points], [y for _, y in points], ls="none", **common)
        else:
            (line,) = ax.plot(series.grid, mean, ls=st["linestyle"], lw=0.9 if faint else 1.2,
                              markevery=(2 + 3 * i % max(n, 1), 12), **common)
        out.append((arm, line))
    return out


def _table_bars(ax, ga: GroupAnalysis, arms: list[str], limit: float, style: Style) -> None:
    """At the budget, each drawn arm's table mean and 95% interval, side by side just right of the line."""
    by = {a.arm: a for a in ga.arms}
    for i, arm in enumerate(arms):
        a = by.get(arm)
        if a is None or not _finite(a.mean):
            continue
        st = style(arm)
        ax.errorbar([limit * (1.015 + 0.012 * i)], [a.mean], yerr=_yerr(a.mean, (a.interval.lo, a.interval.hi)),
                    fmt=st["marker"], color=st["color"], ms=3, lw=0.8, capsize=1.5, clip_on=False)


def _strip_items(ga: GroupAnalysis, arms: list[str]) -> dict:
    """The table's (clipped) mean and interval of each arm drawn in the unknown strip."""
    by = {a.arm: a for a in ga.arms}
    return {arm: (by[arm].mean, (by[arm].interval.lo, by[arm].interval.hi)) for arm in arms
            if arm in by and _finite(by[arm].mean)}


def anytime_plot(ga: GroupAnalysis, unit: str, style: Style, width: str = "single",
                 name: str | None = None, reward_name: str | None = None) -> Plot:
    """Mean score against cumulative spend in `unit`; the table's mean and 95% CI at the budget."""
    group, series = ga.group, ga.anytime
    title = f"{group.workload} at {budget_text(group.budget)}: anytime"
    name = name or f"anytime-{slug(group.workload)}-{budget_tag(group.budget)}"
    limit = group.budget.get(unit)
    by_arm = ga.runs
    if not limit:
        return Plot(name, title, reason=f"the budget does not name {unit_noun(unit)}, so there is no axis to 100%")
    if not _finite(limit):
        return Plot(name, title, reason=f"the {unit_noun(unit)} budget is too large to draw")
    if series is None or series.kind is None:
        return Plot(name, title, reason="no run recorded a trace")
    if series.unit != unit:
        return Plot(name, title, reason=f"the analysis holds anytime curves in {unit_noun(series.unit)} only")
    kind = series.kind
    if kind == "mixed":
        return Plot(name, title, reason="some traces carry held-out rewards and others only dev scores; "
                                        "one axis cannot show both")
    if not series.means:
        return Plot(name, title, reason=f"no trace reports {unit_noun(unit)}", notes=list(series.left_off))
    invalid = not_valid_arms(group)
    title = marked_title(title, group, invalid)
    rng = ga.reward_range
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    pairs = _draw_lines(ax, series, style, invalid)
    if kind == "reward":
        _table_bars(ax, ga, list(series.means), limit, style)
    strip = _strip_items(ga, series.missing)
    if strip:
        pairs += unknown_strip(fig, ax, strip, style, invalid, f"{STRIP}\n{unit_noun(unit)}\n(final)")
    handles = [h for _, h in pairs]
    labels = [f"{a} (not valid)" if a in invalid else a for a, _ in pairs]
    _axes(ax, group, kind, unit, limit, rng, reward_name, len(series.means))
    ax.set_title(title)
    notes = _notes(group, kind, unit, by_arm, list(series.left_off), strip)
    if any(len(series.points.get(a, [])) < SPARSE for a in series.means):
        notes.append("Markers without a line: arms whose traces have fewer than three points, drawn only there.")
    _finish(fig, ax, handles, labels, notes)
    plot = Plot(name, title, fig, notes=notes)
    plot.arms = {a: "drawn" for a in series.means} | {a: STRIP for a in strip}
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
        notes.append("Not drawn: " + "; ".join(left_off) + ".")
    if not group.valid:
        notes.append(not_valid_note(group))
    if kind == "dev":
        notes.append("The workload does not score traces (score_trace), so the curve is the arm's own dev "
                     "score of its best so far: it may exceed the held-out reward in the tables.")
    return notes
