"""How a LaTeX table is set: escaping, estimated widths, the float, type size and columns that fit a page.

Why apart from what the table says (`latex.py`): these are typesetting
estimates (widths of Computer Modern in em, a page's height in points)
that choose a layout; they know nothing of comparisons. Never scaled with
a resize box: a 32-arm table became 3 pt type.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .text import DASH, tex


WIDE_COLUMNS = 7      # more columns than this: table* (both columns of a two-column paper)
# Widths in em of \small type in a two-column paper (10 pt article: \columnwidth 229.5 pt, \textwidth 469 pt,
# \small 9 pt). Estimates to choose the layout; LaTeX still does the setting.
COLUMN_EM = 25.0
TEXT_EM = 52.0
MIN_ARM_EM = 8.0      # an arm column narrower than this wraps a name into a tower of fragments

_MINUS = re.compile(r"(?<![-\w])-(?=[\d.])")


def tex_num(text: str) -> str:
    """A number for a LaTeX cell: a real minus sign (not a hyphen), --- for unknown, $\\infty$."""
    text = text.replace(DASH, "---").replace("\u2212", "-").replace("\u221e", "$\\infty$")
    return _MINUS.sub("$-$", text)


_PROSE_SYMBOLS = (("--", "-{}-"), ("\u2265", "$\\geq$"), ("\u2014", "---"), ("\u00b1", "$\\pm$"),
                  ("\u2212", "$-$"), ("\u221e", "$\\infty$"), ("\u00d7", "$\\times$"), ("\u0394", "$\\Delta$"))


def tex_prose(text: str) -> str:
    """Escape a sentence for LaTeX: symbols as math, a minus (not a hyphen) before a number, ``--`` not a dash."""
    text = tex(_MINUS.sub("\u2212", str(text)))
    for symbol, latex in _PROSE_SYMBOLS:   # "--" first: the em dash's "---" must stay one
        text = text.replace(symbol, latex)
    return text


def tex_arm(name: str) -> str:
    """An arm name that may wrap: a break allowed after / _ . : (a hyphen already is one)."""
    return re.sub(r"(/|\\_|\.|:)", r"\1\\allowbreak{}", tex(name).replace("--", "-{}-"))


_TEX_MARKUP = (re.compile(r"\$\\[a-zA-Z]+\$|---|\$-\$"), re.compile(r"\\[a-zA-Z]+(\{\})?"),
               re.compile(r"[{}$\\]"))


# Widths in em of Computer Modern roman (the LaTeX default), near enough to choose a layout
_NARROW = set("ijlt.,:;'!|()[]/ ")
_WIDE = set("mwMW+=<>#%&@")


def visible_em(cell: str) -> float:
    """Width in em a LaTeX cell prints (``1{,}000`` is about 2.3, ``$\\geq$7`` 1.3): to estimate layouts."""
    text = _TEX_MARKUP[0].sub("M", cell)
    text = _TEX_MARKUP[1].sub(lambda m: "" if m.group(0) == "\\allowbreak{}" else "M", text)
    text = _TEX_MARKUP[2].sub("", text)
    return sum(0.28 if ch in _NARROW else 0.85 if ch in _WIDE else 0.7 if ch.isupper() else 0.5 for ch in text)


@dataclass
class Layout:
    """How a table is set: float, type size, column spec and whether it still overflows."""

    env: str
    size: str
    align: str
    tabcolsep: str = ""
    overflow: bool = False
    split_head: bool = False      # headers on two lines ("Prompt" over "tok.")


def choose_layout(headers: list[str], body: list[list[str]], keys: list[str], many_columns: bool) -> Layout:
    """The float, type size and arm column width a table needs to fit, never scaled below footnote size.

    Why not \resizebox: it scaled a 32-arm table to about 3 pt type. A table
    too wide for a column spans both, then gets footnote size (8 pt) and
    narrower column gaps; only then do long arm names wrap in a p{} column
    (a wrapped name doubles a row's height), then script size (7 pt); past
    that it overflows with a comment saying to choose fewer --columns.
    """
    cells = [max([visible_em(r[i]) for r in body], default=0.0) for i in range(len(keys))]
    one_line = [max(visible_em(h), c) for h, c in zip(headers, cells)]
    two_lines = [max(max(map(visible_em, split_header(h))), c) for h, c in zip(headers, cells)]
    arm = keys.index("arm") if "arm" in keys else None
    natural = one_line

    def fits(avail: float, pad: float, font: float) -> tuple[bool, float | None]:
        """(fits, arm width in em or None when names need not wrap); `font`: width of this size's type
        against the 10 pt estimate (cmr7 is 14% wider per em than cmr10)."""
        avail *= 1.0   # a margin for the estimate
        others = sum(w * font + pad for i, w in enumerate(natural) if i != arm)
        if arm is None or others + natural[arm] * font + pad <= avail:
            return others + (natural[arm] * font + pad if arm is not None else 0) <= avail, None
        room = avail - others - pad
        return room >= MIN_ARM_EM, max(room, MIN_ARM_EM)

    def spec(arm_em: float | None) -> str:
        cols = []
        for i, k in enumerate(keys):
            if i == arm and arm_em is not None:
                cols.append(f"p{{{arm_em:.1f}em}}")
            else:
                cols.append("l" if k in ("arm", "verdict") else "r")
        return "".join(cols)

    # (size, column gap in its em, text width scale, width of its type, \tabcolsep); wrapping a name doubles
    # a row's height, so footnote size comes before a wrapped small one; script size last
    small = ("\\small", 1.33, 1.0, 1.03, "")
    foot = ("\\footnotesize", 0.75, 9 / 8, 1.06, "3pt")
    script = ("\\scriptsize", 0.57, 9 / 7, 1.14, "2pt")
    envs = (["table"] if not many_columns else []) + ["table*"]
    for (size, pad, scale, font, gap), wrap, split in (
            (small, False, False), (foot, False, False), (small, False, True), (foot, False, True),
            (small, True, False), (foot, True, False), (foot, True, True), (script, False, True),
            (script, True, True)):
        natural = two_lines if split else one_line
        for env in envs:
            ok, arm_em = fits((COLUMN_EM if env == "table" else TEXT_EM) * scale, pad, font)
            if ok and (arm_em is None or wrap):
                return Layout(env, size, spec(arm_em), gap, split_head=split)
    size, pad, scale, font, gap = script
    natural = two_lines
    ok, arm_em = fits(TEXT_EM * scale, pad, font)
    return Layout("table*", size, spec(arm_em if arm_em is not None else MIN_ARM_EM), gap, True, True)


TEXT_HEIGHT_PT = 592.0  # \textheight of a 10 pt article on letter paper
_BASELINE_PT = {"\\small": 11.0, "\\footnotesize": 9.5, "\\scriptsize": 8.0}


def _too_tall(layout: Layout, rows: int, extra_head: bool, caption: str, notes: list[str]) -> bool:
    """Whether the float would outgrow a page: caption, tabular (a wrapped arm name takes two lines) and notes."""
    line = _BASELINE_PT.get(layout.size, 11.0)
    chars = 100 if layout.env == "table*" else 48          # characters a caption line holds
    height = 12.0 * math.ceil(visible_em(caption) * 2 / chars) + 20.0    # caption at 10 pt, and the float's gaps
    height += line * (1 + layout.split_head + extra_head) + rows * line * (2 if "p{" in layout.align else 1)
    height += sum(9.5 * math.ceil(visible_em(n) * 2 / (chars * 1.2)) for n in notes)
    return height > TEXT_HEIGHT_PT


def split_header(header: str) -> list[str]:
    """A header as two lines, split at the space nearest its middle (``Prompt``/``tok.``); one word: [word].

    Never inside math (``$a - b$``): each line must compile on its own, and a split there leaves an
    unbalanced ``$`` in both (pdflatex: "Extra }, or forgotten $")."""
    spaces = [m.start() for m in re.finditer(" ", header) if _outside_math(header, m.start())]
    if not spaces:
        return [header]
    at = min(spaces, key=lambda i: abs(visible_em(header[:i]) - visible_em(header[i + 1:])))
    return [header[:at], header[at + 1:]]


def _outside_math(text: str, at: int) -> bool:
    """True when position `at` is outside $...$ (an even count of unescaped dollars before it)."""
    return len(re.findall(r"(?<!\\)\$", text[:at])) % 2 == 0


def latex_float(layout: Layout, caption: str, short: str, label: str, headers: list[str], body: list[list[str]],
           notes: list[str], extra_head: list[str] | None = None) -> str:
    """One booktabs float; `notes` are set below the tabular as footnote-size paragraphs."""
    end = r" \tabularnewline" if "p{" in layout.align else r" \\"
    rows = [" & ".join(cells) + end for cells in body]
    lines = [f"\\begin{{{layout.env}}}[t]", r"\centering", layout.size]
    if layout.tabcolsep:
        lines.append(f"\\setlength{{\\tabcolsep}}{{{layout.tabcolsep}}}")
    if layout.overflow:
        lines.append("% wider than the text even at script size: choose fewer columns with --columns")
    if _too_tall(layout, len(body), bool(extra_head), caption, notes):
        lines.append("% taller than a page at this size: choose fewer columns with --columns (so arm names need not "
                     "wrap) or fewer arms")
    lines += [r"\setlength{\belowcaptionskip}{4pt}",  # a caption above a table does not touch its \toprule
              f"\\caption[{short}]{{{caption}}}", f"\\label{{{label}}}",
              f"\\begin{{tabular}}{{{layout.align}}}", r"\toprule"]
    if layout.split_head and any(" " in h for h in headers):
        parts = [split_header(h) for h in headers]
        lines += [" & ".join(p[0] if len(p) == 2 else "" for p in parts) + end,
                  " & ".join(p[-1] for p in parts) + end]
    else:
        lines.append(" & ".join(headers) + end)
    if extra_head:
        lines.append(" & ".join(extra_head) + end)
    lines += [r"\midrule", *rows, r"\bottomrule", r"\end{tabular}"]
    if notes:
        lines += [r"\par\smallskip", r"\begin{minipage}{\linewidth}\footnotesize\raggedright",
                  "\n".join(f"{n}\\par" for n in notes), r"\end{minipage}"]
    return "\n".join(lines + [f"\\end{{{layout.env}}}"]) + "\n"


def arm_cell(name: str, wraps: bool) -> str:
    return ("\\raggedright " + tex_arm(name)) if wraps else tex(name).replace("--", "-{}-")
