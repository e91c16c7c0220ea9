"""Figures: cost-reward with the Pareto frontier, anytime curves, budget sweeps,
and the ranking of arms at equal rollouts, calls and tokens.

Rules, and the mistake each prevents:
- An arm whose x unit is unreported is not drawn at zero (that would put it
  on the frontier for free); it is left off the axes and named in a note.
- A cost-reward plot never puts the group's fixed unit on the x axis: every
  arm would sit on one vertical line at the budget.
- An anytime curve is labelled "reward" only when its points are held-out
  scores (the workload sets ``score_trace``); otherwise the axis says dev
  score, which the arm selected on and may exceed what it would ship.
- Colours have at least 3:1 contrast on white (WCAG's bar for graphics), are
  assigned by the sorted list of arms so an arm keeps its colour across
  figures, and markers and line styles tell arms apart beyond eight.
- Names are drawn literally: mathtext is off (``$x^2$`` stays text, ``$\\frac{$``
  cannot crash the renderer) and legends are built from explicit labels, so
  an arm named ``_hidden`` is not dropped by matplotlib's underscore rule.
- One number format (`reports.text.quantity`) for titles, ticks and file
  names; no axis offset ("1e6") and no fractional ranks.
- PDF embeds TrueType fonts (type 42) and SVG keeps text as text; output is
  deterministic (fixed hash salt, no dates), written atomically.
"""
from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from baselines import anytime
from baselines.comparison import Comparison, Group, runs_by_arm
from baselines.fileio import atomic_write_bytes, ensure_dir, slug
from baselines.records import RunRecord
from baselines.units import nouns_of, unit_noun

from .ranges import range_for
from .text import budget_tag, budget_text, quantity

# Okabe-Ito hues, darkened where needed so each has >= 3:1 contrast on white
# (orange, sky blue and yellow of the original fall to 1.3-2.3:1).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#AA3377", "#8F6A00", "#6F4E9C", "#000000", "#666666"]
OKABE_ITO = PALETTE  # the old name, kept for callers
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]
WIDTHS = {"single": 3.3, "double": 6.8}  # inches: one column / both columns of a two-column paper
FORMATS = ("png", "svg", "pdf")
WIDTH = WIDTHS["single"]


def contrast_ratio(colour: str, background: str = "#FFFFFF") -> float:
    """WCAG 2 contrast ratio between two sRGB hex colours."""
    def luminance(hex_colour: str) -> float:
        h = hex_colour.lstrip("#")
        channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    a, b = sorted((luminance(colour), luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def _mpl():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({
        "svg.hashsalt": "costmatch", "svg.fonttype": "none", "pdf.fonttype": 42, "ps.fonttype": 42,
        "text.parse_math": False, "text.usetex": False, "font.family": "DejaVu Sans",
        "font.size": 7, "axes.titlesize": 7.5, "legend.fontsize": 6, "axes.spines.top": False,
        "axes.spines.right": False, "figure.dpi": 100, "savefig.dpi": 300, "savefig.bbox": "tight",
        "path.simplify": False, "axes.formatter.useoffset": False})
    return plt


class Style:
    """Stable colour, marker and line style per arm across every figure of a report."""

    def __init__(self, arms):
        self.order = sorted(set(arms))

    def __call__(self, arm: str) -> dict:
        i = self.order.index(arm) if arm in self.order else len(self.order)
        return {"color": PALETTE[i % 8], "marker": MARKERS[(i // 8 + i) % 8],
                "linestyle": LINESTYLES[(i // 8) % 4]}


@dataclass
class Plot:
    """A figure ready to save, or the reason it was not drawn."""

    name: str                      # file stem (already a safe slug)
    title: str
    fig: object | None = None
    reason: str = ""               # why not drawn (fig is None)
    notes: list[str] = field(default_factory=list)

    @property
    def drawn(self) -> bool:
        return self.fig is not None


def _quantity_axis(axis, nbins: int = 5, log: bool = False) -> None:
    """Ticks in the one number format, few enough that labels never run together (decades on a log axis)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    if log:
        axis.set_major_locator(LogLocator(base=10, numticks=nbins + 1))
        axis.set_minor_formatter(NullFormatter())
    else:
        axis.set_major_locator(MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: quantity(v, compact=True)))


def _legend(ax, handles: list, labels: list, outside: bool = True) -> None:
    """A legend from explicit labels: only what is drawn, names as given (``_x`` included)."""
    if not handles:
        return
    if outside:
        ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    else:
        ax.legend(handles, labels, loc="best", frameon=False)


def _height(width: str, single: float) -> float:
    return single if width == "single" else single * 1.15


def render(plot: Plot, fmt: str) -> bytes:
    """The figure's bytes in `fmt` (deterministic: no dates, no software stamp)."""
    meta = {"svg": {"Date": None}, "png": {"Software": None},
            "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}}[fmt]
    buffer = io.BytesIO()
    plot.fig.savefig(buffer, format=fmt, metadata=meta)
    return buffer.getvalue()


def save(plot: Plot, out_dir: Path, formats=("png", "svg")) -> list[Path]:
    """Write a drawn plot in each format, atomically (a full disk leaves no truncated file)."""
    ensure_dir(out_dir, "plots folder")
    out = []
    for fmt in formats:
        target = out_dir / f"{plot.name}.{fmt}"
        atomic_write_bytes(target, render(plot, fmt), what="figure")
        out.append(target)
    return out


def close(plot: Plot) -> None:
    if plot.fig is not None:
        import matplotlib.pyplot as plt
        plt.close(plot.fig)
        plot.fig = None


def _finite(*values) -> bool:
    return all(v is not None and math.isfinite(v) and abs(v) < 1e300 for v in values)


# -- cost-reward --------------------------------------------------------------------------
def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Arms not dominated: no other arm spends no more and scores no less, one of them strictly."""
    front = []
    for a, (xa, ya) in points.items():
        dominated = any((xb <= xa and yb >= ya) and (xb < xa or yb > ya) for b, (xb, yb) in points.items() if b != a)
        if not dominated:
            front.append(a)
    return sorted(front, key=lambda a: points[a][0])


def _frontier_visible(xs: list[float], lows: list[float], highs: list[float], log_x: bool) -> bool:
    """Two or more frontier points at least 3% of the axis apart; a line hidden under markers is no line."""
    if len(xs) < 2:
        return False
    f = (lambda v: math.log10(v)) if log_x else (lambda v: v)  # noqa: E731
    axis = f(max(highs)) - f(min(lows))
    return axis > 0 and (f(max(xs)) - f(min(xs))) / axis >= 0.03


def cost_reward_plot(group: Group, records: list[RunRecord], unit: str, style: Style, fixed: str | None = None,
                     metric: str = "reward", width: str = "single", ranges: dict | None = None,
                     name: str | None = None) -> Plot:
    """Mean reward against median spend in `unit`, with the Pareto frontier when it has two or more arms."""
    title = f"{group.workload} at {budget_text(group.budget)}"
    name = name or f"cost-reward-{slug(group.workload)}-{budget_tag(group.budget)}-{slug(unit)}"
    held = set(group.budget) | ({fixed} if fixed else set())
    if unit in held:
        return Plot(name, title, reason=f"the x axis would be the fixed unit ({unit_noun(unit)}): every arm "
                                        "sits at the budget, so the plot shows nothing")
    by_arm = runs_by_arm(records, group)
    rng = range_for(ranges, group) if metric == "reward" else None
    points, ranges_x, left_off = {}, {}, []
    for a in group.arms:
        s = a.spend.get(unit)
        if s is None or s.status == "unreported":
            left_off.append(f"{a.arm} (did not report {unit_noun(unit)})")
            continue
        if s.status == "partial":
            left_off.append(f"{a.arm} (reported {unit_noun(unit)} only in part)")
            continue
        if not math.isfinite(a.mean):
            left_off.append(f"{a.arm} (no scored runs)")
            continue
        xs = [r.spend[unit] for r in by_arm.get(a.arm, []) if r.spend.get(unit) is not None]
        if not xs:
            xs = [s.median]
        if not _finite(s.median, min(xs), max(xs)):
            left_off.append(f"{a.arm} ({unit_noun(unit)} too large to draw: {quantity(max(xs))})")
            continue
        points[a.arm] = (s.median, a.mean)
        ranges_x[a.arm] = (min(xs), max(xs), a.ci)
    if not points:
        return Plot(name, title, reason=f"no arm reports {unit_noun(unit)} in full", notes=left_off)
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    handles, labels = [], []
    for arm, (x, y) in points.items():
        lo, hi, ci = ranges_x[arm]
        st = style(arm)
        if rng:
            y = rng.clip(y)
            ci = (rng.clip(ci[0]), rng.clip(ci[1]))
        yerr = [[y - ci[0]], [ci[1] - y]] if all(math.isfinite(c) for c in ci) else None
        h = ax.errorbar([x], [y], xerr=[[x - lo], [hi - x]], yerr=yerr, fmt=st["marker"], color=st["color"],
                        ms=4, lw=0.8, capsize=2)
        handles.append(h)
        labels.append(arm)
    lows = [r[0] for r in ranges_x.values()]
    highs = [r[1] for r in ranges_x.values()]
    log_x = min(lows) > 0 and max(highs) / min(lows) >= 30  # spends a decade or more apart: log axis
    if log_x:
        ax.set_xscale("log")
    front = pareto_front(points)
    if _frontier_visible([points[a][0] for a in front], lows, highs, log_x):
        (line,) = ax.plot([points[a][0] for a in front], [points[a][1] for a in front], color="0.35",
                          lw=0.8, ls="--", zorder=0)
        handles.append(line)
        labels.append("Pareto frontier")
    ax.set_title(title)
    ax.set_xlabel(f"{unit_noun(unit)} (median; bars: min-max over seeds)")
    ax.set_ylabel(f"{metric} (mean, 95% CI)")
    _quantity_axis(ax.xaxis, log=log_x)
    _legend(ax, handles, labels)
    notes = []
    if left_off:
        notes.append("Not drawn: " + "; ".join(left_off))
        fig.text(0.01, -0.02, notes[-1], fontsize=5.5, ha="left", va="top", wrap=True)
    if rng:
        notes.append(rng.note())
    return Plot(name, title, fig, notes=notes)


def cost_reward(group: Group, records: list[RunRecord], unit: str, style: Style, path: Path,
                metric: str = "reward", formats=("png", "svg")) -> tuple[list[Path], list[str], list[str]]:
    """Draw and save one cost-reward plot; returns (files, arms drawn, arms left off with the reason)."""
    plot = cost_reward_plot(group, records, unit, style, metric=metric, name=Path(path).name)
    left = [n for n in (plot.notes[0][len("Not drawn: "):].split("; ") if plot.notes and
                        plot.notes[0].startswith("Not drawn: ") else [])]
    drawn = [a.arm for a in group.arms if f"{a.arm} (" not in "; ".join(left)] if plot.drawn else []
    files = save(plot, Path(path).parent, formats) if plot.drawn else []
    close(plot)
    return files, drawn, left


# -- anytime ----------------------------------------------------------------------------
def trace_score_kind(records: list[RunRecord]) -> str | None:
    """``reward`` when every traced run has held-out points, ``dev`` when none has, ``mixed`` or None."""
    kinds = {anytime.score_field(r.trace) for r in records if r.trace}
    if not kinds:
        return None
    return {"reward"} == kinds and "reward" or {"best"} == kinds and "dev" or "mixed"


SCORE_LABEL = {"reward": "held-out reward of the current choice",
               "dev": "dev score of the best so far (not held out)"}


def anytime_plot(group: Group, records: list[RunRecord], unit: str, style: Style, width: str = "single",
                 ranges: dict | None = None, name: str | None = None) -> Plot:
    """Median score against cumulative spend in `unit`, with interquartile bands."""
    title = f"{group.workload} at {budget_text(group.budget)}: anytime"
    name = name or f"anytime-{slug(group.workload)}-{budget_tag(group.budget)}"
    limit = group.budget.get(unit)
    by_arm = runs_by_arm(records, group)
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
    curves_by_arm = {}
    for arm in sorted(by_arm):
        curves = np.array([[anytime.best_at(r.trace, unit, x) for x in grid] for r in by_arm[arm] if r.trace])
        if curves.size and not np.isnan(curves).all():
            curves_by_arm[arm] = curves
    if not curves_by_arm:
        return Plot(name, title, reason=f"no trace reports {unit_noun(unit)}")
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    band_alpha = 0.16 if len(curves_by_arm) <= 3 else 0.08
    handles, labels = [], []
    for arm, curves in curves_by_arm.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(curves, axis=0)
            q1, q3 = np.nanpercentile(curves, [25, 75], axis=0)
        st = style(arm)
        (line,) = ax.plot(grid, med, color=st["color"], ls=st["linestyle"], lw=1.1)
        ax.fill_between(grid, q1, q3, color=st["color"], alpha=band_alpha, lw=0)
        handles.append(line)
        labels.append(arm)
    notes = []
    rng = range_for(ranges, group)
    if kind == "reward" and rng:
        lo, hi = ax.get_ylim()
        pad = 0.02 * (rng.hi - rng.lo)
        ax.set_ylim(max(lo, rng.lo - pad), min(hi, rng.hi + pad))
    if kind == "dev":
        notes.append("The workload does not score traces (score_trace), so the curve is the arm's own dev "
                     "score of its best so far: it may exceed the held-out reward in the tables.")
    ax.axvline(limit, color="0.3", lw=0.6, ls=":")
    ax.set_xlim(0, limit * 1.02)
    ax.set_title(title)
    ax.set_xlabel(f"cumulative {unit_noun(unit)} (budget: dotted line)")
    ax.set_ylabel(f"{SCORE_LABEL[kind]}\n(median, IQR over seeds)")
    _quantity_axis(ax.xaxis, nbins=4)
    _legend(ax, handles, labels)
    return Plot(name, title, fig, notes=notes)


# -- budget sweeps -------------------------------------------------------------------------
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
    """Mean reward against budget (log axis) when a workload ran at two or more budgets in one fixed unit."""
    fixed = fixed or comparison.fixed
    groups = [g for g in comparison.groups if g.workload == workload and fixed in g.budget
              and _fixed_of(g, comparison) == fixed and _finite(g.budget[fixed]) and g.budget[fixed] > 0]
    if len(groups) < 2:
        return None
    name = f"sweep-{slug(workload)}-{slug(fixed)}"
    title = f"{workload}: budget sweep in {unit_noun(fixed)}"
    plt = _mpl()
    series: dict[str, list[tuple[float, float, tuple[float, float]]]] = {}
    for g in sorted(groups, key=lambda g: g.budget[fixed]):
        rng = range_for(ranges, g) if comparison.metric == "reward" else None
        for a in g.arms:
            mean, ci = a.mean, a.ci
            if rng:
                mean, ci = rng.clip(mean), (rng.clip(ci[0]), rng.clip(ci[1]))
            series.setdefault(a.arm, []).append((g.budget[fixed], mean, ci))
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    handles, labels = [], []
    for arm, pts in sorted(series.items()):
        st = style(arm)
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        err = [[max(0.0, y - c[0]) if math.isfinite(c[0]) else 0 for y, (_, _, c) in zip(ys, pts)],
               [max(0.0, c[1] - y) if math.isfinite(c[1]) else 0 for y, (_, _, c) in zip(ys, pts)]]
        h = ax.errorbar(xs, ys, yerr=err, color=st["color"], marker=st["marker"], ls=st["linestyle"], ms=3,
                        lw=0.8, capsize=2)
        handles.append(h)
        labels.append(arm)
    for lo, hi, before, after in sweep_crossings({a: [(x, y) for x, y, _ in p] for a, p in series.items()}):
        ax.axvspan(lo, hi, color="0.9", zorder=0)
        ax.text((lo + hi) / 2, ax.get_ylim()[1], f"{before} \u2192 {after}", fontsize=5, ha="center", va="top")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    ax.set_xscale("log")
    budgets = sorted({g.budget[fixed] for g in groups})
    ax.xaxis.set_major_locator(FixedLocator(budgets))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: quantity(v, compact=True)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title(title)
    ax.set_xlabel(f"budget ({unit_noun(fixed)})")
    ax.set_ylabel(f"{comparison.metric} (mean, 95% CI)")
    _legend(ax, handles, labels, outside=False)
    return Plot(name, title, fig)


def budget_sweep(comparison: Comparison, workload: str, style: Style, path: Path,
                 formats=("png", "svg")) -> list[Path]:
    plot = budget_sweep_plot(comparison, workload, style)
    if plot is None:
        return []
    plot.name = Path(path).name
    files = save(plot, Path(path).parent, formats)
    close(plot)
    return files


# -- ranking across units -----------------------------------------------------------------
RANK_UNITS = ("rollouts", "calls", "tokens", "usd")


def ranking_across_units(group: Group, records: list[RunRecord]) -> dict[str, dict[str, tuple[int, float, float]]]:
    """For each unit the traces report: arm -> (rank, best-so-far mean, spend level compared at).

    The level for a unit is the smallest median final spend in that unit
    across arms: every arm reached it in at least half its runs, so the
    comparison is at equal spend in that unit, read off the same runs.
    """
    by_arm = runs_by_arm(records, group)
    out: dict[str, dict[str, tuple[int, float, float]]] = {}
    for unit in RANK_UNITS:
        finals = {}
        for arm, rs in by_arm.items():
            vals = [r.spend.get(unit) for r in rs if r.trace]
            if not vals or any(v is None for v in vals) or any(
                    any(p.get("spend", {}).get(unit) is None for p in r.trace) for r in rs if r.trace):
                finals = {}
                break
            finals[arm] = float(np.median(vals))
        if len(finals) < 2:
            continue
        level = min(finals.values())
        scores = {arm: _mean_or_nan([anytime.best_at(r.trace, unit, level) for r in by_arm[arm] if r.trace])
                  for arm in finals}
        ordered = sorted(scores, key=lambda a: (-scores[a] if math.isfinite(scores[a]) else math.inf, a))
        out[unit] = {arm: (i + 1, scores[arm], level) for i, arm in enumerate(ordered)}
    return out


def _mean_or_nan(values) -> float:
    """Mean over runs that had a score at that level (NaN when none had: it ranks last)."""
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def reversals(ranking: dict[str, dict[str, tuple]]) -> list[tuple[str, str, str, str]]:
    """Pairs whose order flips between units: (arm_a, arm_b, unit where a leads, unit where b leads)."""
    units = list(ranking)
    arms = sorted(set.intersection(*(set(r) for r in ranking.values()))) if ranking else []
    out = []
    for i, a in enumerate(arms):
        for b in arms[i + 1:]:
            for u in units:
                for v in units:
                    if ranking[u][a][0] < ranking[u][b][0] and ranking[v][a][0] > ranking[v][b][0]:
                        out.append((a, b, u, v))
    return out


def ranking_markdown(ranking: dict[str, dict[str, tuple]], score_kind: str | None = None) -> str:
    """The ranking table; `score_kind` ("reward" or "dev") names the score read off the traces."""
    from .text import md

    if not ranking:
        return ""
    units = list(ranking)
    flips = reversals(ranking)
    flipped = {a for a, _, _, _ in flips} | {b for _, b, _, _ in flips}
    header = "| arm | " + " | ".join(f"rank at equal {md(u)} ({quantity(next(iter(ranking[u].values()))[2])})"
                                    for u in units) + " |"
    lines = [header, "|---" * (len(units) + 1) + "|"]
    for arm in sorted(ranking[units[0]], key=lambda a: ranking[units[0]][a][0]):
        cells = []
        for u in units:
            rank, score, _ = ranking[u].get(arm, (None, math.nan, 0))
            cells.append(f"{rank} ({score:.3f})" if rank else "n/a")
        name = f"**{md(arm)}**" if arm in flipped else md(arm)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if flips:
        shown = sorted({(a, b, u, v) for a, b, u, v in flips})[:8]
        text += "\n\nReversals (bold arms): " + "; ".join(
            f"{md(a)} ahead of {md(b)} at equal {md(u)}, behind at equal {md(v)}" for a, b, u, v in shown)
    what = {"reward": "the held-out reward of the choice in force (the workload scores traces)",
            "dev": "the arm's best-so-far dev score, not held out (the workload does not score traces), so it "
                   "may exceed the reward in the main table"}.get(score_kind or "",
            "the held-out reward of the choice in force where the workload scores traces, else the dev score")
    text += (f"\n\nScores are read off each run's trace at the spend level in parentheses: {what}. The level "
             "is the smallest median final spend in that unit across arms, which most runs of every arm reached.")
    return text


def ranking_plot(ranking, style: Style, name: str, title: str, width: str = "single") -> Plot | None:
    """Each arm's rank at equal spend in each unit; integer rank ticks, crossing lines bold."""
    if len(ranking) < 2:
        return None
    plt = _mpl()
    units = list(ranking)
    flips = reversals(ranking)
    flipped = {a for a, _, _, _ in flips} | {b for _, b, _, _ in flips}
    arms = sorted(ranking[units[0]])
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.2)))
    handles, labels = [], []
    for arm in arms:
        ranks = [ranking[u][arm][0] if arm in ranking[u] else np.nan for u in units]
        st = style(arm)
        (line,) = ax.plot(range(len(units)), ranks, color=st["color"], marker=st["marker"], ms=3.5,
                          ls=st["linestyle"], lw=1.8 if arm in flipped else 0.9)
        handles.append(line)
        labels.append(arm)
    ax.set_xticks(range(len(units)), [f"equal {unit_noun(u)}" for u in units])
    n = max(len(r) for r in ranking.values())
    ax.set_yticks(range(1, n + 1))
    ax.set_ylim(n + 0.4, 0.6)
    ax.set_ylabel("rank (1 = best)")
    ax.set_title(title)
    _legend(ax, handles, labels)
    return Plot(name, title, fig, notes=["Bold lines: arms whose order flips between units."] if flipped else [])


# -- everything for one comparison --------------------------------------------------------
def cost_units(group: Group, fixed: str, x_unit: str | None = None) -> list[str]:
    """Units for cost-reward x axes: `x_unit` if given, else the first reported unit other than the fixed one.

    Seconds only when asked for (``--x-unit seconds``): on simulators wall time
    measures the machine, not the arm (the same rule keeps it out of confounds).
    """
    if x_unit is not None:
        return [x_unit]
    held = set(group.budget) | ({fixed} if fixed else set())
    for unit in ("tokens", "usd", "calls", "rollouts"):  # not seconds: wall time measures the machine
        if unit not in held and unit in group.units and any(a.spend[unit].status == "measured" for a in group.arms):
            return [unit]
    return []


def _group_plots(g: Group, comparison: Comparison, records, st, x_unit, width, ranges):
    """One group's cost-reward, anytime and ranking figures (drawn inside its unit-noun scope)."""
    tag = f"{slug(g.workload)}-{budget_tag(g.budget)}"
    fixed = _fixed_of(g, comparison)
    units = cost_units(g, fixed, x_unit)
    if not units:
        yield Plot(f"cost-reward-{tag}", f"{g.workload} at {budget_text(g.budget)}",
                   reason="no unit other than the one the budget holds fixed is reported by every arm "
                          "(wall time is drawn only on request: --x-unit seconds)")
    for unit in units:
        yield cost_reward_plot(g, records, unit, st, fixed, comparison.metric, width, ranges,
                               name=f"cost-reward-{tag}-{slug(unit)}")
    if fixed:
        yield anytime_plot(g, records, fixed, st, width, ranges, name=f"anytime-{tag}")
    rank = ranking_plot(ranking_across_units(g, records), st, f"ranking-{tag}",
                        f"{g.workload} at {budget_text(g.budget)}: rank by unit", width)
    if rank is not None:
        yield rank


def comparison_plots(comparison: Comparison, records: list[RunRecord], x_unit: str | None = None,
                     width: str = "single", ranges: dict | None = None, style: Style | None = None):
    """Yield every figure the data allow, and a not-drawn Plot (with its reason) for each that they do not.

    Colours are assigned per workload from all of its arms in `records`, so an
    arm has one colour in every figure of that workload. Plots are yielded one
    at a time so a caller can save and close each before the next is drawn.
    """
    styles = {w: style or Style(r.arm for r in records if r.workload == w)
              for w in {g.workload for g in comparison.groups}}
    for g in comparison.groups:
        with nouns_of(g.unit_nouns):  # the group's own words for its units in every title and axis
            plots = list(_group_plots(g, comparison, records, styles[g.workload], x_unit, width, ranges))
        yield from plots
    for workload in sorted(styles):
        for fixed in sorted({_fixed_of(g, comparison) or "" for g in comparison.groups} - {""}):
            sweep = budget_sweep_plot(comparison, workload, styles[workload], width, ranges, fixed)
            if sweep is not None:
                yield sweep


def write_comparison_plots(comparison: Comparison, records: list[RunRecord], out_dir: Path,
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
    for plot in comparison_plots(comparison, records, x_unit, width, ranges, style):
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
