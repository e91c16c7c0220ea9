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
- A group that is not valid (fixed unit unequal or unverified, or one arm
  alone) is never drawn as an equal-budget result: its points are open, its
  title says NOT VALID, and a note names the group, each arm and the reason
  (`not_valid_note`). The frontier and the sweep's crossing marks use valid
  points only.
- Every arm a figure leaves out is named in its "Not drawn" note (no unit
  reported, no trace, no scored run): a missing line is not a silent verdict.
- Legends and notes never cover the data, the title or the axis labels: they
  are placed outside the axes from the drawn boxes, in columns below the
  axes when many, and the figure grows to hold them (`_finish`).
- A rank reversal between units is claimed only when both orders are
  detected differences by the main table's paired test (`reversals`);
  other flips read "order differs, not significant".
"""
from __future__ import annotations

import io
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from baselines.analysis import anytime
from baselines.analysis.comparison import Comparison, Group, runs_by_arm
from baselines.core.fileio import atomic_write_bytes, ensure_dir, slug
from baselines.core.records import RunRecord
from baselines.core.units import nouns_of, unit_noun

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
        "savefig.pad_inches": 0.02,  # tight crop, thin margin: a single-column figure stays 3.3 in wide
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


_BREAK_AFTER = "/-_.@:+ "


def _wrap_name(text: str, width: int) -> str:
    """`text` on lines of at most `width` characters, broken after / - _ . @ : + or a space where possible.

    Only names longer than the space a legend has are wrapped; a name cut at
    the figure's edge (the mistake this prevents) reads as another arm.
    """
    if width < 4 or len(text) <= width:
        return text
    lines, line, token = [], "", ""
    for ch in text:
        token += ch
        if ch in _BREAK_AFTER:
            if len(line) + len(token) > width and line:
                lines.append(line)
                line = ""
            line += token
            token = ""
    if token:
        if len(line) + len(token) > width and line:
            lines.append(line)
            line = ""
        line += token
    lines.append(line)
    out = []
    for piece in lines:  # a token longer than a line is cut hard
        out += [piece[i:i + width] for i in range(0, len(piece), width)] or [""]
    return "\n".join(out)


def _wrap_text(text: str, width: int) -> str:
    import textwrap
    return "\n".join(textwrap.wrap(text, max(20, width), break_long_words=True, break_on_hyphens=True))


_GAP = 0.06  # inches between the x label, the legend and the notes


def _fit_width(fig, ax, renderer) -> None:
    """Move and narrow the axes until they, their labels and a legend beside them lie inside the figure.

    Why: figures are saved with a tight bounding box, so whatever sticks out
    widens the file: a "single-column" (3.3 in) figure came out 4.2-4.6 in
    wide, and a paper scales it down, fonts and all.
    """
    width_px = fig.get_size_inches()[0] * fig.dpi
    for _ in range(3):  # narrowing the axes moves tick labels a little: settle in a few passes
        box = ax.get_tightbbox(renderer)
        over_left, over_right = max(0.0, -box.x0), max(0.0, box.x1 - width_px)
        if over_left < 0.5 and over_right < 0.5:
            return
        pos = ax.get_position()
        shift, shrink = (over_left + 2) / width_px, (over_left + over_right + 4) / width_px
        ax.set_position([pos.x0 + shift, pos.y0, max(pos.width - shrink, 0.2), pos.height])


def _finish(fig, ax, handles: list, labels: list, notes: list[str] | tuple = ()) -> dict:
    """Place the legend and the footnotes outside the axes, growing the figure so nothing overlaps.

    The legend goes beside the axes when it is no taller than they are and no
    wider than half the figure (a few arms: the familiar layout); otherwise
    below the x label in as many columns as the figure width holds, long
    names wrapped, and the figure grows downward by the legend's height. The
    footnotes go below both. Inside the axes a legend covers data (8 arms
    did), beside them a tall one runs over the title (30 arms did), and a
    footnote at a fixed offset ran over the x label: every position here is
    measured from the drawn boxes instead. Returns where the legend went, for tests.
    """
    renderer = fig.canvas.get_renderer()
    dpi = fig.dpi
    width_in, height_in = fig.get_size_inches()
    title = ax.title
    title_px = title.get_window_extent(renderer).width
    if title_px > (width_in - 0.1) * dpi:  # a long workload name: wrap the title to the figure, never past it
        text = title.get_text()
        title.set_text(_wrap_name(text, int(len(text) * (width_in - 0.1) * dpi / title_px)))
    placement = {"legend": None, "ncol": 0}
    legend = None
    if handles:
        legend = ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        box = legend.get_window_extent(renderer)
        if box.height <= ax.get_window_extent(renderer).height and box.width <= 0.5 * width_in * dpi:
            placement.update(legend="right", ncol=1)
        else:
            legend.remove()
            legend = None
    _fit_width(fig, ax, renderer)
    avail = (width_in - 0.1) * dpi  # pixels a row of legend or notes may take
    left_in = max(0.02, min(ax.get_tightbbox(renderer).x0 / dpi, width_in * 0.1))  # notes start under the y label
    note_artist = None
    if notes:
        probe = fig.text(0, 0, "not drawn: arm-2 (did not report tokens) ", fontsize=5.5)
        char_px = probe.get_window_extent(renderer).width / 42
        probe.remove()
        text = "\n".join(_wrap_text(n, int((avail - left_in * dpi) / char_px)) for n in notes)
        note_artist = fig.text(0, 0, text, fontsize=5.5, ha="left", va="top")
    below = None
    if handles and placement["legend"] is None:
        probe = ax.legend(handles, labels, frameon=False)
        texts = probe.get_texts()
        chars = max(len(t.get_text()) for t in texts)
        text_px = max(t.get_window_extent(renderer).width for t in texts)
        overhead = probe.get_window_extent(renderer).width - text_px
        probe.remove()
        room = int((avail - overhead) / max(text_px / max(chars, 1), 1e-9))
        wrapped = [_wrap_name(lab, room) for lab in labels]
        probe = fig.legend(handles, wrapped, frameon=False, handlelength=1.8, borderaxespad=0.0)
        column = probe.get_window_extent(renderer).width  # one column holding the widest name
        probe.remove()
        ncol = max(1, min(len(handles), int(avail // max(column, 1.0))))
        while True:
            below = fig.legend(handles, wrapped, loc="upper center", ncol=ncol, frameon=False,
                               columnspacing=1.2, handlelength=1.8, borderaxespad=0.0)
            if ncol == 1 or below.get_window_extent(renderer).width <= avail:
                break
            below.remove()
            ncol -= 1
        placement.update(legend="below", ncol=ncol)
    # grow the figure downward by what goes under the axes, keeping the axes' size
    legend_h = below.get_window_extent(renderer).height / dpi if below is not None else 0.0
    note_h = note_artist.get_window_extent(renderer).height / dpi if note_artist is not None else 0.0
    needed = (legend_h + _GAP if below is not None else 0.0) + (note_h + _GAP if note_artist is not None else 0.0)
    tight = ax.get_tightbbox(renderer)
    label_bottom_in = tight.y0 / dpi  # the x label's (or tick labels') bottom, in inches from the figure bottom
    extra = max(0.0, needed + 0.02 - label_bottom_in) if needed else 0.0
    if extra:
        pos = ax.get_position()
        new_h = height_in + extra
        fig.set_size_inches(width_in, new_h)
        ax.set_position([pos.x0, (pos.y0 * height_in + extra) / new_h, pos.width, pos.height * height_in / new_h])
        label_bottom_in += extra
        height_in = new_h
    y = label_bottom_in - _GAP
    if below is not None:
        below.set_bbox_to_anchor((0.5, y / height_in), transform=fig.transFigure)
        y -= legend_h + _GAP
    if note_artist is not None:
        note_artist.set_position((left_in / width_in, y / height_in))
    placement["notes"] = note_artist
    return placement


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


_OPEN = {"mfc": "white", "mew": 0.9}  # an open marker: a point that is not an equal-budget result


def _open_proxy():
    from matplotlib.lines import Line2D
    return Line2D([], [], marker="o", ls="none", mfc="white", mec="0.3", mew=0.9, ms=4)


def _finite(*values) -> bool:
    return all(v is not None and math.isfinite(v) and abs(v) < 1e300 for v in values)


# -- validity ---------------------------------------------------------------------------
def not_valid_arms(group: Group) -> dict[str, str]:
    """Arm -> why its spend in the group's fixed unit is not verified equal (short words for a figure).

    The figures draw these arms open (hollow markers, faint lines) and name
    them in a note: a comparison whose fixed unit is unequal or unverified is
    never shown as an equal-budget result.
    """
    out: dict[str, str] = {}
    for f in group.unequal:
        where = "a budget of" if f.reference_source == "budget" else "an arms' median of"
        times = f"{f.spend / f.reference:.2g}x" if f.reference else "reference 0"
        out.setdefault(f.arm, f"spent {quantity(f.spend)} {unit_noun(f.unit)} against {where} "
                              f"{quantity(f.reference)} ({times}): unequal")
    for u in group.unverified:
        words = (f"did not report {unit_noun(u.unit)}" if u.reason == "unreported"
                 else f"reported {unit_noun(u.unit)} only in part")
        out.setdefault(u.arm, f"{words}: unverified")
    return out


def not_valid_note(group: Group, prefix: str = "") -> str:
    """One line naming the group and each arm that breaks its equal budget, or "" for a valid group."""
    if group.valid:
        return ""
    where = f"{prefix}{group.workload} at {budget_text(group.budget)}"
    if group.not_a_comparison and not group.unequal and not group.unverified:
        return f"not valid: {where}: {group.not_a_comparison}"
    arms = not_valid_arms(group)
    return f"not valid: {where}: " + "; ".join(f"{a} {why}" for a, why in arms.items())


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
    invalid = not_valid_arms(group)
    if not group.valid:
        title += " (NOT VALID)" if invalid or not group.not_a_comparison else " (not a comparison)"
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
                        ms=4, lw=0.8, capsize=2, **(_OPEN if arm in invalid else {}))
        if arm in invalid:
            for bars in h[2]:
                bars.set_linestyle((0, (2, 1.5)))
        handles.append(h)
        labels.append(arm)
    lows = [r[0] for r in ranges_x.values()]
    highs = [r[1] for r in ranges_x.values()]
    log_x = min(lows) > 0 and max(highs) / min(lows) >= 30  # spends a decade or more apart: log axis
    if log_x:
        ax.set_xscale("log")
    # an arm off the budget in the fixed unit is no point of an equal-budget frontier
    front = pareto_front({a: xy for a, xy in points.items() if a not in invalid})
    if _frontier_visible([points[a][0] for a in front], lows, highs, log_x):
        (line,) = ax.plot([points[a][0] for a in front], [points[a][1] for a in front], color="0.35",
                          lw=0.8, ls="--", zorder=0)
        handles.append(line)
        labels.append("Pareto frontier" + (" (valid arms)" if invalid else ""))
    if any(a in invalid for a in points):
        handles.append(_open_proxy())
        labels.append("open: not valid (see note)")
    ax.set_title(title)
    ax.set_xlabel(f"{unit_noun(unit)} (median; bars: min-max over seeds)")
    ax.set_ylabel(f"{metric} (mean, 95% CI)")
    _quantity_axis(ax.xaxis, log=log_x)
    notes = []
    if left_off:
        notes.append("Not drawn: " + "; ".join(left_off))
    if not group.valid:
        notes.append(not_valid_note(group))
    _finish(fig, ax, handles, labels, notes)
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
    curves_by_arm, left_off = {}, []
    for arm in sorted(by_arm):
        runs = [r for r in by_arm[arm] if r.trace]
        if not runs:
            left_off.append(f"{arm} (no trace)")
            continue
        curves = np.array([[anytime.best_at(r.trace, unit, x) for x in grid] for r in runs])
        if curves.size and not np.isnan(curves).all():
            curves_by_arm[arm] = curves
        else:
            left_off.append(f"{arm} (its trace does not report {unit_noun(unit)})")
    if not curves_by_arm:
        return Plot(name, title, reason=f"no trace reports {unit_noun(unit)}", notes=left_off)
    invalid = not_valid_arms(group)
    if not group.valid:
        title += " (NOT VALID)" if invalid or not group.not_a_comparison else " (not a comparison)"
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
        faint = arm in invalid  # off the budget in the fixed unit: drawn faint and named in the label and note
        (line,) = ax.plot(grid, med, color=st["color"], ls=st["linestyle"], lw=0.8 if faint else 1.1,
                          alpha=0.55 if faint else 1.0)
        ax.fill_between(grid, q1, q3, color=st["color"], alpha=band_alpha / 2 if faint else band_alpha, lw=0)
        handles.append(line)
        labels.append(f"{arm} (not valid)" if faint else arm)
    notes = []
    if left_off:
        notes.append("Not drawn: " + "; ".join(left_off))
    if not group.valid:
        notes.append(not_valid_note(group))
    rng = range_for(ranges, group)
    if kind == "reward" and rng:
        lo, hi = ax.get_ylim()
        pad = 0.02 * (rng.hi - rng.lo)
        ax.set_ylim(max(lo, rng.lo - pad), min(hi, rng.hi + pad))
    ax.axvline(limit, color="0.3", lw=0.6, ls=":")
    ax.set_xlim(0, limit * 1.02)
    ax.set_title(title)
    ax.set_xlabel(f"cumulative {unit_noun(unit)} (budget: dotted line)")
    ax.set_ylabel(f"{SCORE_LABEL[kind]}\n(median, IQR over seeds)")
    _quantity_axis(ax.xaxis, nbins=4)
    _finish(fig, ax, handles, labels, notes)
    if kind == "dev":
        notes.append("The workload does not score traces (score_trace), so the curve is the arm's own dev "
                     "score of its best so far: it may exceed the held-out reward in the tables.")
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
    # arm -> [(budget, mean, ci, valid)]
    series: dict[str, list[tuple[float, float, tuple[float, float], bool]]] = {}
    for g in groups:
        rng = range_for(ranges, g) if comparison.metric == "reward" else None
        for a in g.arms:
            mean, ci = a.mean, a.ci
            if rng:
                mean, ci = rng.clip(mean), (rng.clip(ci[0]), rng.clip(ci[1]))
            series.setdefault(a.arm, []).append((g.budget[fixed], mean, ci, g.valid))
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
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
    if bad:
        handles.append(_open_proxy())
        labels.append("open: budget not valid (see note)")
    valid_series = {a: [(x, y) for x, y, _, v in p if v] for a, p in series.items()}
    for lo, hi, before, after in sweep_crossings(valid_series):
        ax.axvspan(lo, hi, color="0.9", zorder=0)
        label = f"{before} \u2192 {after}" if len(before) + len(after) <= 40 else \
            f"{_wrap_name(before, 40)}\n\u2192 {_wrap_name(after, 40)}"
        ax.text((lo + hi) / 2, ax.get_ylim()[1], label, fontsize=5, ha="center", va="top")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
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


# -- ranking across units -----------------------------------------------------------------
RANK_UNITS = ("rollouts", "calls", "tokens", "usd")
RANK_ALPHA = 0.05
RANK_TEST_MAX_ARMS = 50  # above this, pairs are not tested and no reversal is claimed (the note says so)


class RankEntry(NamedTuple):
    """One arm at equal spend in one unit: its rank, mean score, the level compared at, and per-seed scores."""

    rank: int
    score: float
    level: float
    runs: tuple = ()   # ((seed, score), ...) read off each traced run at `level`


def ranking_across_units(group: Group, records: list[RunRecord]) -> dict[str, dict[str, RankEntry]]:
    """For each unit the traces report: arm -> (rank, best-so-far mean, spend level compared at, per-seed scores).

    The level for a unit is the smallest median final spend in that unit
    across arms: every arm reached it in at least half its runs, so the
    comparison is at equal spend in that unit, read off the same runs.
    """
    by_arm = runs_by_arm(records, group)
    out: dict[str, dict[str, RankEntry]] = {}
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
        per_seed = {arm: tuple((r.seed, anytime.best_at(r.trace, unit, level)) for r in by_arm[arm] if r.trace)
                    for arm in finals}
        scores = {arm: _mean_or_nan([v for _, v in per_seed[arm]]) for arm in finals}
        ordered = sorted(scores, key=lambda a: (-scores[a] if math.isfinite(scores[a]) else math.inf, a))
        out[unit] = {arm: RankEntry(i + 1, scores[arm], level, per_seed[arm]) for i, arm in enumerate(ordered)}
    return out


def _mean_or_nan(values) -> float:
    """Mean over runs that had a score at that level (NaN when none had: it ranks last)."""
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def order_flips(ranking: dict[str, dict[str, tuple]]) -> list[tuple[str, str, str, str]]:
    """Pairs whose rank order differs between units: (arm_a, arm_b, unit where a ranks higher, unit where b does).

    Only the order: a flip between means 0.847 and 0.845 is noise as often
    as not. `reversals` keeps the flips the statistics support.
    """
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


def unit_verdicts(ranking: dict[str, dict[str, tuple]], alpha: float = RANK_ALPHA) -> dict[str, dict]:
    """unit -> {(a, b): PairResult} with a < b, by the main table's rule on the per-seed scores at that level.

    Paired by seed; a verdict needs both the paired t test and the exact
    sign-flip test, Holm-adjusted over all pairs of that unit
    (`baselines.analysis.stats.all_pairs` and `decide`, as `compare` does for a group).
    Empty when the entries carry no per-seed scores or there are more than
    RANK_TEST_MAX_ARMS arms.
    """
    from baselines.analysis.stats import all_pairs, decide

    out: dict[str, dict] = {}
    for unit, entries in ranking.items():
        arms = sorted(a for a, e in entries.items() if len(e) > 3 and
                      sum(1 for _, v in e[3] if math.isfinite(v)) >= 2)
        if len(arms) < 2 or len(arms) > RANK_TEST_MAX_ARMS:
            out[unit] = {}
            continue
        seeds = sorted({seed for a in arms for seed, _ in entries[a][3]})
        col = {seed: j for j, seed in enumerate(seeds)}
        matrix = np.full((len(arms), len(seeds)), np.nan)
        for i, a in enumerate(arms):
            for seed, v in entries[a][3]:
                if math.isfinite(v):
                    matrix[i, col[seed]] = v
        out[unit] = {(p.a, p.b): p for p in decide(all_pairs(arms, matrix), alpha)}
    return out


def _ahead(verdicts: dict, unit: str, a: str, b: str) -> bool:
    """True when, at equal `unit`, a is detected better than b (a < b or b < a in name order)."""
    pair = verdicts.get(unit, {}).get((a, b)) if a < b else verdicts.get(unit, {}).get((b, a))
    if pair is None:
        return False
    return pair.verdict == ("a>b" if a < b else "b>a")


def reversals(ranking: dict[str, dict[str, tuple]], alpha: float = RANK_ALPHA,
              verdicts: dict | None = None) -> list[tuple[str, str, str, str]]:
    """Order flips the statistics support: (arm_a, arm_b, unit where a is better, unit where b is better).

    Claimed only when both orders are detected differences: at equal u the
    pair's verdict (paired t and exact sign-flip, Holm over that unit's
    pairs, `unit_verdicts`) is a over b, and at equal v it is b over a. A
    flip of rank alone (puct 0.847 vs thompson 0.845, difference -0.03
    [-0.37, +0.33]) is reported as "order differs, not significant", never
    as a reversal.
    """
    verdicts = unit_verdicts(ranking, alpha) if verdicts is None else verdicts
    return [(a, b, u, v) for a, b, u, v in order_flips(ranking)
            if _ahead(verdicts, u, a, b) and _ahead(verdicts, v, b, a)]


def ranking_markdown(ranking: dict[str, dict[str, tuple]], score_kind: str | None = None) -> str:
    """The ranking table with each rank's score; reversals only where both orders are detected differences."""
    from .text import md

    if not ranking:
        return ""
    units = list(ranking)
    verdicts = unit_verdicts(ranking)
    flips = order_flips(ranking)
    supported = reversals(ranking, verdicts=verdicts)
    flipped = {a for a, _, _, _ in supported} | {b for _, b, _, _ in supported}
    header = "| arm | " + " | ".join(f"rank at equal {md(u)} ({quantity(next(iter(ranking[u].values()))[2])})"
                                    for u in units) + " |"
    lines = [header, "|---" * (len(units) + 1) + "|"]
    for arm in sorted(ranking[units[0]], key=lambda a: ranking[units[0]][a][0]):
        cells = []
        for u in units:
            entry = ranking[u].get(arm)
            score = f"{entry[1]:.3f}" if entry and math.isfinite(entry[1]) else "\u2014"  # no score at that level
            cells.append(f"{entry[0]} ({score})" if entry else "n/a")
        name = f"**{md(arm)}**" if arm in flipped else md(arm)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if supported:
        shown = sorted(set(supported))[:8]
        text += "\n\nReversals (bold arms): " + "; ".join(
            f"{md(a)} ahead of {md(b)} at equal {md(u)}, behind at equal {md(v)}" for a, b, u, v in shown)
    weak = sorted({(a, b) for a, b, _, _ in flips} - {(a, b) for a, b, _, _ in supported})
    if weak:
        text += ("\n\nOrder differs between units, not significant (the paired test does not detect both orders):\n"
                 + "\n".join(f"- {_weak_pair_text(a, b, flips, ranking, verdicts, md)}" for a, b in weak[:8]))
        if len(weak) > 8:
            text += f"\n- and {len(weak) - 8} more pair(s)"
    what = {"reward": "the held-out reward of the choice in force (the workload scores traces)",
            "dev": "the arm's best-so-far dev score, not held out (the workload does not score traces), so it "
                   "may exceed the reward in the main table"}.get(score_kind or "",
            "the held-out reward of the choice in force where the workload scores traces, else the dev score")
    text += (f"\n\nScores are read off each run's trace at the spend level in parentheses: {what}. The level "
             "is the smallest median final spend in that unit across arms, which most runs of every arm reached. "
             + RANK_RULE)
    if any(not v for v in verdicts.values()) and any(len(r) > RANK_TEST_MAX_ARMS for r in ranking.values()):
        text += f" With more than {RANK_TEST_MAX_ARMS} arms the pairs are not tested, so no reversal is claimed."
    return text


RANK_RULE = ("A reversal (bold) is claimed only when both orders are detected differences: the paired test of "
             "the main table (paired t and exact sign-flip over seeds, Holm over the unit's pairs, alpha 0.05) "
             "finds A better at equal U and B better at equal V. Ranks that change without that are listed as "
             "\"order differs, not significant\".")


def _weak_pair_text(a: str, b: str, flips, ranking, verdicts, md) -> str:
    """"a vs b: 0.865 vs 0.847 at equal rollouts (no difference detected, +0.018 [-0.13, +0.11]); ..." """
    units = sorted({u for x, y, u, v in flips if (x, y) == (a, b)} | {v for x, y, u, v in flips if (x, y) == (a, b)},
                   key=list(ranking).index)
    parts = []
    for u in units:
        pair = verdicts.get(u, {}).get((a, b))
        stat = ""
        if pair is not None:
            lo, hi = pair.ci
            ci = f" [{lo:+.2f}, {hi:+.2f}]" if math.isfinite(lo) and math.isfinite(hi) else ""
            stat = f" ({pair.verdict}, {pair.diff:+.3f}{ci})"
        sa, sb = (f"{ranking[u][x][1]:.3f}" if math.isfinite(ranking[u][x][1]) else "\u2014" for x in (a, b))
        parts.append(f"{sa} vs {sb} at equal {md(u)}{md(stat)}")
    return f"{md(a)} vs {md(b)}: " + "; ".join(parts)


def ranking_plot(ranking, style: Style, name: str, title: str, width: str = "single") -> Plot | None:
    """Each arm's rank at equal spend in each unit, its score beside each point; bold only for supported reversals."""
    if len(ranking) < 2:
        return None
    plt = _mpl()
    units = list(ranking)
    verdicts = unit_verdicts(ranking)
    supported = reversals(ranking, verdicts=verdicts)
    weak = {(a, b) for a, b, _, _ in order_flips(ranking)} - {(a, b) for a, b, _, _ in supported}
    flipped = {a for a, _, _, _ in supported} | {b for _, b, _, _ in supported}
    arms = sorted(ranking[units[0]])
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.2)))
    handles, labels = [], []
    for arm in arms:
        ranks = [ranking[u][arm][0] if arm in ranking[u] else np.nan for u in units]
        st = style(arm)
        (line,) = ax.plot(range(len(units)), ranks, color=st["color"], marker=st["marker"], ms=3.5,
                          ls=st["linestyle"], lw=1.8 if arm in flipped else 0.9)
        for j, u in enumerate(units):
            if arm in ranking[u] and math.isfinite(ranking[u][arm][1]):
                ax.annotate(f"{ranking[u][arm][1]:.3f}", (j, ranking[u][arm][0]), xytext=(4, 2),
                            textcoords="offset points", fontsize=4.5, color=st["color"], va="bottom")
        handles.append(line)
        labels.append(arm)
    ax.set_xticks(range(len(units)), [f"equal\n{unit_noun(u)}" for u in units])  # two lines: they collided at 3.3 in
    ax.set_xlim(-0.25, len(units) - 0.6)
    n = max(len(r) for r in ranking.values())
    ax.set_yticks(range(1, n + 1))
    ax.set_ylim(n + 0.4, 0.6)
    ax.set_ylabel("rank (1 = best; score beside each point)")
    ax.set_title(title)
    notes = []
    if supported:
        notes.append("Bold lines: arms whose order reverses between units, each order a detected difference "
                     "(paired t and exact sign-flip, Holm, alpha 0.05).")
    if weak:
        shown = sorted(weak)[:6]
        notes.append("Order differs, not significant: " + "; ".join(f"{a} / {b}" for a, b in shown)
                     + (f" and {len(weak) - 6} more" if len(weak) > 6 else "") + ".")
    _finish(fig, ax, handles, labels, notes)
    return Plot(name, title, fig, notes=notes)


# -- everything for one comparison --------------------------------------------------------
def cost_units(group: Group, fixed: str, x_unit: str | None = None) -> list[str]:
    """Units for cost-reward x axes: `x_unit` if given, else the unit that the most arms report in full.

    Ties go to the order tokens, dollars, calls, rollouts. Preferring tokens
    whenever any arm reports them drew one arm of three on the real
    reflective files (the other two reported calls only); the arms left out
    are still named in the figure's note. Seconds only when asked for
    (``--x-unit seconds``): on simulators wall time measures the machine, not
    the arm (the same rule keeps it out of confounds).
    """
    if x_unit is not None:
        return [x_unit]
    held = set(group.budget) | ({fixed} if fixed else set())
    order = ("tokens", "usd", "calls", "rollouts")  # not seconds: wall time measures the machine
    counts = {unit: sum(1 for a in group.arms if unit in a.spend and a.spend[unit].status == "measured")
              for unit in order if unit not in held and unit in group.units}
    best = max(counts.values(), default=0)
    return [next(u for u in order if counts.get(u) == best)] if best else []


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
