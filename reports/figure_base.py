"""What every figure shares: style per arm, sizes, fonts, legend and note placement, saving.

Rules, and the mistake each prevents:
- Widths are exact: single column 3.33 in, double 6.8 in. The file is saved
  at the figure's size (no tight crop); whatever would stick out is moved in
  (`_fit_width`, `_fit_top`), and the figure grows downward for a legend or
  notes below. A crop made "double" figures 6.3-6.6 in, and a paper scaled them.
- Every arm has a colour, a marker and a line style (colour alone failed
  under protanopia: two hues 3 ΔE apart); the three are assigned by the
  sorted list of arms, so an arm keeps them across figures.
- Text is at least 6 pt; mathtext is off (``$x^2$`` stays text) and legends
  are built from explicit labels (an arm named ``_hidden`` is not dropped).
- Legends and notes never cover the data, the title or the axis labels:
  a short legend goes beside the axes, a long one below them in columns.
- SVG keeps text as text with sans-serif fallbacks (without DejaVu Sans,
  macOS and Windows drew the figures in a serif face); PDF embeds TrueType.
- A group that is not valid is never drawn as an equal-budget result: open
  markers, NOT VALID in the title, and a note naming each arm and why.
"""
from __future__ import annotations

import io
import math
import re
import contextlib
import contextvars
import textwrap
from dataclasses import dataclass, field
from pathlib import Path


from baselines.analysis.compare.comparison import Group
from baselines.core.fileio import atomic_write_bytes, ensure_dir
from baselines.core.units import unit_noun

from .text import budget_text, quantity

# Okabe-Ito hues, darkened where needed so each has >= 3:1 contrast on white
# (orange, sky blue and yellow of the original fall to 1.3-2.3:1). Hues that a
# colour-blind reader may confuse never share a marker (tests/test_colourblind.py).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#AA3377", "#8F6A00", "#6F4E9C", "#000000", "#666666"]
OKABE_ITO = PALETTE  # the old name, kept for callers
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]
WIDTHS = {"single": 3.33, "double": 6.8}  # inches: one column / both columns of a two-column paper
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
        "text.parse_math": False, "text.usetex": False, "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
        "font.size": 7, "axes.titlesize": 7.5, "legend.fontsize": 6.5, "axes.spines.top": False,
        "axes.spines.right": False, "figure.dpi": 100, "savefig.dpi": 300, "savefig.bbox": None,
        "path.simplify": False, "axes.formatter.useoffset": False})
    return plt


class Style:
    """Stable colour, marker and line style per arm across every figure of a report."""

    def __init__(self, arms):
        self.order = sorted(set(arms))

    def __call__(self, arm: str) -> dict:
        """Colour, marker and dash of the arm: any two of the first 16 arms differ in at least two of the three (32 are all distinct).

        Why: arm 8 shared arm 0's colour and arm 1's marker and dash, so in a
        9-arm figure two arms differed only in colour and two only in marker.
        Colour cycles every 8 arms; each cycle shifts the marker by 1 and the
        dash by 2, so arms of one colour differ in marker and dash, and arms
        whose colours a colour-blind reader confuses differ in marker (both
        checked by tests for 16 arms).
        """
        i = self.order.index(arm) if arm in self.order else len(self.order)
        cycle = i // len(PALETTE)
        return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[(i + cycle) % len(MARKERS)],
                "linestyle": LINESTYLES[(i + 2 * cycle) % len(LINESTYLES)]}


@dataclass
class Plot:
    """A figure ready to save, or the reason it was not drawn."""

    name: str                      # file stem (already a safe slug)
    title: str
    fig: object | None = None
    reason: str = ""               # why not drawn (fig is None)
    notes: list[str] = field(default_factory=list)
    arms: dict[str, str] = field(default_factory=dict)   # arm -> where the figure shows it (for pages and tests)
    group: tuple | None = None     # (workload, budget key) of the group it shows; None for a sweep

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
    return "\n".join(textwrap.wrap(text, max(20, width), break_long_words=True, break_on_hyphens=True))


_GAP = 0.06  # inches between the x label, the legend and the notes
NOTE_PT = 6.0  # footnotes under a figure: the smallest text any figure has


def _fit_width(fig, ax, renderer) -> None:
    """Move and narrow the axes until they, their labels and a legend beside them lie inside the figure.

    Why: the file is saved at the figure's size, so whatever sticks out would
    be cut off (with a tight crop it widened the file instead, and a paper
    scaled the figure down, fonts and all).
    """
    width_px = fig.get_size_inches()[0] * fig.dpi
    for _ in range(3):  # narrowing the axes moves tick labels a little: settle in a few passes
        boxes = [a.get_tightbbox(renderer) for a in fig.axes]
        over_left = max(0.0, 2 - min(b.x0 for b in boxes))
        over_right = max(0.0, max(b.x1 for b in boxes) - width_px + 2)
        if over_left < 0.5 and over_right < 0.5:
            return
        left = min(a.get_position().x0 for a in fig.axes)
        right = max(a.get_position().x1 for a in fig.axes)
        span = right - left
        k = max(span - (over_left + over_right) / width_px, 0.2) / span  # every axes keeps its share
        for a in fig.axes:
            pos = a.get_position()
            a.set_position([left + over_left / width_px + (pos.x0 - left) * k, pos.y0, pos.width * k, pos.height])


def _fit_top(fig, ax, renderer) -> None:
    """Lower the axes' top until the title (or the top tick label) is inside the figure."""
    height_px = fig.get_size_inches()[1] * fig.dpi
    over = ax.get_tightbbox(renderer).y1 - height_px + 2
    if over > 0.5:
        pos = ax.get_position()
        ax.set_position([pos.x0, pos.y0, pos.width, max(pos.height - over / height_px, 0.2)])


def _use_top(fig, ax, renderer, pad_px: float = 4.0) -> None:
    """Paper style draws no title: the axes grow up into the band the title held, which was left blank
    above the plot (the caption sits in the paper's text instead)."""
    height_px = fig.get_size_inches()[1] * fig.dpi
    gap = height_px - ax.get_tightbbox(renderer).y1 - pad_px
    if gap > 0.5:
        pos = ax.get_position()
        ax.set_position([pos.x0, pos.y0, pos.width, pos.height + gap / height_px])


def _wrap_title(fig, ax, renderer) -> None:
    """A long workload name: the title wraps to the figure, never past it."""
    width_in = fig.get_size_inches()[0]
    title = ax.title
    title_px = title.get_window_extent(renderer).width
    if title_px > (width_in - 0.1) * fig.dpi:
        text = title.get_text()
        title.set_text(_wrap_name(text, int(len(text) * (width_in - 0.1) * fig.dpi / title_px)))


#: legend handles long enough to show two periods of a dash-dot line (at 2 em a dash-dot read as solid)
HANDLE_LENGTH = 3.6


def _legend_beside(fig, ax, renderer, handles: list, labels: list) -> bool:
    """A legend right of the axes when it is no taller than they are and no wider than 30% of the figure."""
    legend = ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False,
                       handlelength=HANDLE_LENGTH)
    box = legend.get_window_extent(renderer)
    if box.height <= ax.get_window_extent(renderer).height and box.width <= 0.3 * fig.get_size_inches()[0] * fig.dpi:
        return True
    legend.remove()
    return False


def _legend_below(fig, ax, renderer, handles: list, labels: list, avail: float):
    """A legend under the axes in as many columns as the width holds, long names wrapped at a break."""
    probe = ax.legend(handles, labels, frameon=False, handlelength=HANDLE_LENGTH)
    texts = probe.get_texts()
    chars = max(len(t.get_text()) for t in texts)
    text_px = max(t.get_window_extent(renderer).width for t in texts)
    overhead = probe.get_window_extent(renderer).width - text_px
    probe.remove()
    room = int((avail - overhead) / max(text_px / max(chars, 1), 1e-9))
    wrapped = [_wrap_name(lab, room) for lab in labels]
    probe = fig.legend(handles, wrapped, frameon=False, handlelength=HANDLE_LENGTH, borderaxespad=0.0)
    column = probe.get_window_extent(renderer).width  # one column holding the widest name
    probe.remove()
    ncol = max(1, min(len(handles), int(avail // max(column, 1.0))))
    while True:
        below = fig.legend(handles, wrapped, loc="upper center", ncol=ncol, frameon=False,
                           columnspacing=1.2, handlelength=HANDLE_LENGTH, borderaxespad=0.0)
        if ncol == 1 or below.get_window_extent(renderer).width <= avail:
            return below, ncol
        below.remove()
        ncol -= 1


def _note_artist(fig, renderer, notes, avail: float, left_in: float):
    """The footnotes as one text block, wrapped until it fits the width (an estimate per character cut
    notes off at the figure's edge)."""
    probe = fig.text(0, 0, "not drawn: arm-2 (did not report tokens) ", fontsize=NOTE_PT)
    chars = int((avail - left_in * fig.dpi) / (probe.get_window_extent(renderer).width / 42))
    probe.remove()
    for _ in range(6):
        artist = fig.text(left_in / fig.get_size_inches()[0], 0,
                          "\n".join(_wrap_text(n, chars) for n in notes), fontsize=NOTE_PT, ha="left", va="top")
        # 6% spare: glyphs measured at screen resolution come out wider at 300 dpi (hinting)
        if artist.get_window_extent(renderer).x1 <= 0.94 * fig.get_size_inches()[0] * fig.dpi or chars <= 20:
            return artist
        artist.remove()
        chars = int(chars * 0.93)
    return artist


def _grow_below(fig, ax, renderer, below, note_artist, left_in: float) -> None:
    """Grow the figure downward by what goes under the axes (keeping the axes' size), then place it."""
    dpi = fig.dpi
    width_in, height_in = fig.get_size_inches()
    legend_h = below.get_window_extent(renderer).height / dpi if below is not None else 0.0
    note_h = note_artist.get_window_extent(renderer).height / dpi if note_artist is not None else 0.0
    needed = (legend_h + _GAP if below is not None else 0.0) + (note_h + _GAP if note_artist is not None else 0.0)
    label_bottom_in = ax.get_tightbbox(renderer).y0 / dpi  # the x label's bottom, from the figure bottom
    extra = max(0.0, needed + 0.03 - label_bottom_in) if needed else max(0.0, 0.03 - label_bottom_in)
    if extra:
        for a in fig.axes:
            pos = a.get_position()
            a.set_position([pos.x0, (pos.y0 * height_in + extra) / (height_in + extra), pos.width,
                            pos.height * height_in / (height_in + extra)])
        fig.set_size_inches(width_in, height_in + extra)
        label_bottom_in += extra
        height_in += extra
    y = label_bottom_in - _GAP
    if below is not None:
        below.set_bbox_to_anchor((0.5, y / height_in), transform=fig.transFigure)
        y -= legend_h + _GAP
    if note_artist is not None:
        note_artist.set_position((left_in / width_in, y / height_in))


#: "report" (title and footnotes drawn in the figure) or "paper" (neither: an author sets the caption in the
#: paper, from the caption text written beside the figure); see `figure_style`
FIGURE_STYLES = ("report", "paper")
_STYLE: contextvars.ContextVar[str] = contextvars.ContextVar("figure_style", default="report")


@contextlib.contextmanager
def figure_style(style: str):
    """Draw the figures made inside this block in `style` (``--figure-style``)."""
    if style not in FIGURE_STYLES:
        raise ValueError(f"--figure-style must be report or paper, got {style!r}")
    token = _STYLE.set(style)
    try:
        yield
    finally:
        _STYLE.reset(token)


def paper_style() -> bool:
    return _STYLE.get() == "paper"


def _finish(fig, ax, handles: list, labels: list, notes: list[str] | tuple = ()) -> dict:
    """Place the legend and the footnotes outside the axes, growing the figure so nothing overlaps.

    Beside the axes when the legend is small (a few short names), else below
    the x label in columns; the footnotes go below both. Every position is
    measured from the drawn boxes (a fixed offset ran a footnote over the x
    label). Returns where the legend went, for tests.
    """
    renderer = fig.canvas.get_renderer()
    width_in = fig.get_size_inches()[0]
    fig._costmatch_exact = True   # everything is placed inside the figure: save it at its exact size
    if paper_style():  # no baked-in title or caption: the Plot keeps both for the text beside the figure
        ax.set_title("")
        notes = ()
    _wrap_title(fig, ax, renderer)
    placement = {"legend": None, "ncol": 0}
    if handles and _legend_beside(fig, ax, renderer, handles, labels):
        placement.update(legend="right", ncol=1)
    _fit_width(fig, ax, renderer)
    (_use_top if paper_style() else _fit_top)(fig, ax, renderer)
    avail = (width_in - 0.1) * fig.dpi  # pixels a row of legend or notes may take
    left_in = max(0.03, min(ax.get_tightbbox(renderer).x0 / fig.dpi, width_in * 0.1))  # notes under the y label
    note_artist = _note_artist(fig, renderer, notes, avail, left_in) if notes else None
    below = None
    if handles and placement["legend"] is None:
        below, ncol = _legend_below(fig, ax, renderer, handles, labels, avail)
        placement.update(legend="below", ncol=ncol)
    _grow_below(fig, ax, renderer, below, note_artist, left_in)
    placement["notes"] = note_artist
    return placement


def marked_title(title: str, group: Group, invalid) -> str:
    """The figure title, marked when the group is not valid: a reader of the figure alone must see it."""
    if group.valid:
        return title
    return title + (" (NOT VALID)" if invalid or not group.not_a_comparison else " (not a comparison)")


def _height(width: str, single: float) -> float:
    return single if width == "single" else single * 1.15


def render(plot: Plot, fmt: str) -> bytes:
    """The figure's bytes in `fmt` (deterministic: no dates, no software stamp)."""
    meta = {"svg": {"Date": None}, "png": {"Software": None},
            "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}}[fmt]
    buffer = io.BytesIO()
    # a figure laid out by `_finish` is saved at its exact size; any other (drawn elsewhere) keeps a tight crop
    exact = getattr(plot.fig, "_costmatch_exact", False)
    plot.fig.savefig(buffer, format=fmt, metadata=meta, bbox_inches=None if exact else "tight",
                     pad_inches=0.02)
    data = buffer.getvalue()
    return _svg_fallbacks(data) if fmt == "svg" else data


_SANS = b"'DejaVu Sans', Arial, Helvetica, sans-serif"


def _svg_fallbacks(svg: bytes) -> bytes:
    """Every font in the SVG ends in sans-serif: a reader without DejaVu Sans gets a sans face, not Times."""
    return re.sub(rb"font-family: ?['\"]?DejaVu Sans['\"]?(, ?[^;\"]*)?", b"font-family: " + _SANS, svg)


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


STRIP = "unknown"   # the strip's label word, and the status of an arm drawn in it


def _yerr(y: float, ci) -> list | None:
    return [[max(0.0, y - ci[0])], [max(0.0, ci[1] - y)]] if all(math.isfinite(c) for c in ci) else None


def unknown_strip(fig, ax, strip: dict, style, invalid: dict, label: str) -> list:
    """A narrow shaded axes right of the main one, sharing its y axis: arms whose spend is unknown.

    `strip`: arm -> (y, (ci low, ci high)). Returns [(arm, handle)] for the legend.
    """
    pos = ax.get_position()
    width = min(0.16, 0.05 + 0.03 * len(strip))
    ax.set_position([pos.x0, pos.y0, pos.width - width - 0.02, pos.height])
    side = fig.add_axes([pos.x0 + pos.width - width, pos.y0, width, pos.height], sharey=ax)
    side.set_facecolor("#efefef")
    side.set_xlim(0, len(strip) + 1)
    side.set_xticks([])
    side.tick_params(axis="y", left=False, labelleft=False)
    side.spines["left"].set_visible(False)
    side.set_xlabel(label)
    handles = []
    for i, (arm, (y, ci)) in enumerate(sorted(strip.items())):
        st = style(arm)
        h = side.errorbar([i + 1], [y], yerr=_yerr(y, ci), fmt=st["marker"], color=st["color"], ms=4.5, lw=0.9,
                          capsize=2, **(_OPEN if arm in invalid else {}))
        handles.append((arm, h))
    return handles


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

