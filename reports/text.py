"""Cell text: escaping and number formatting shared by every table format.

Pure functions. Escaping lives here once so an arm named ``a|b`` or
``<script>`` cannot break a markdown table or inject HTML in any output.
"""
from __future__ import annotations

import math
import re

from baselines.analysis.result.precision import MAX_DECIMALS, NA, fixed, interval  # noqa: F401 (one rule)


DASH = "\u2014"          # shown for an unreported unit: unknown, not zero
GE = "\u2265"            # lower-bound marker for a partly reported unit

# GitHub table cells need `|` escaped; emphasis and links need their markers
# escaped only where GitHub would read them as markup, so ``prompt_tokens`` and
# ``p<0.05`` print as they are in a terminal. `<` is escaped only before what
# could open an HTML tag, `&` only before what could be an entity, brackets only
# where they could make a link (so "[0, 1]" reads as it is), `~` only where two
# could strike text out; `$` always (GitHub renders $...$ as math).
_MD_ALWAYS = str.maketrans({"|": "\\|", "`": "\\`", "$": "\\$", "\n": " ", "\r": " ", "\t": " "})
_MD_EMPHASIS = re.compile(r"(?<![A-Za-z0-9])[*_]|[*_](?![A-Za-z0-9])|\*")
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])([^<>]*>)?")
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_MD_LINK = re.compile(r"[\[\]]")
_MD_LINK_RISK = re.compile(r"\][(\[:]")  # `[x](url)`, `[x][ref]`, `[x]: url`: only then is a bracket markup
_MD_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~])")

_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ", "\r": " ",
}


#: any character one of the rules above could touch; text without one is returned as it is
_MD_ANY = re.compile(r"[\\|`$\n\r\t*_\[\]&<~]")


def md(text: object) -> str:
    """Escape text for a GitHub markdown table cell or bullet: only what GitHub would misread."""
    text = str(text)
    return _md_escape(text) if _MD_ANY.search(text) else text


def _md_escape(text: str) -> str:
    """Every rule of `md` (which skips the text no rule can touch)."""
    text = _MD_BACKSLASH.sub(r"\\\\", text)
    text = text.translate(_MD_ALWAYS)
    text = _MD_EMPHASIS.sub(lambda m: "\\" + m.group(0), text)
    if _MD_LINK_RISK.search(text):
        text = _MD_LINK.sub(lambda m: "\\" + m.group(0), text)
    if text.count("~") > 1:  # GitHub strikes out ~x~ and ~~x~~
        text = text.replace("~", "\\~")
    text = _MD_ENTITY.sub("&amp;", text)
    return _MD_TAG.sub(lambda m: "&lt;" + (m.group(1)[:-1] + "&gt;" if m.group(1) else ""), text)


def pipe_table(rows: list[list], headers: list[str], align: str | None = None) -> str:
    """A GitHub pipe table; `align` gives each column ``l`` or ``r`` (numbers right-aligned, ``|---:|``)."""
    text = _pipe_table(rows, headers)
    if not align or len(align) != len(headers) or "r" not in align:
        return text
    lines = text.split("\n")
    cells = lines[1].strip("|").split("|")
    lines[1] = "|" + "|".join(("-" * (len(c) - 1) + ":") if a == "r" else c for c, a in zip(cells, align)) + "|"
    return "\n".join(lines)


def numeric_align(headers: list[str], text_columns: int = 1) -> str:
    """``l`` for the first `text_columns` columns (names), ``r`` for the rest (numbers)."""
    return "l" * text_columns + "r" * (len(headers) - text_columns)


def _pipe_table(rows: list[list], headers: list[str]) -> str:
    """A GitHub pipe table, the text `tabulate(rows, headers, tablefmt="github", disable_numparse=True)` gives.

    Why not always tabulate: it types, measures and aligns every cell in
    Python (about 300 us a table), and `compare` on ten thousand groups
    prints twenty thousand tables. Cells here are strings (or ints) left
    aligned, so the layout is a column width and padding; anything tabulate
    treats specially (no rows, ragged rows, other types, line breaks,
    control or escape characters, characters wider or narrower than one
    column) goes to tabulate itself. Tested equal to tabulate on random tables.
    """
    width = len(headers)
    if not rows or not width or any(len(row) != width for row in rows) or any(h.__class__ is not str for h in headers):
        return _tabulate(rows, headers)
    table = [[c if c.__class__ is str else str(c) if c.__class__ is int else None for c in row] for row in rows]
    cells = [c for row in table for c in row]
    if None in cells or not _plain("".join(cells) + "".join(headers), cells + list(headers)):
        return _tabulate(rows, headers)
    table = [[c.strip(" ") for c in row] for row in table]        # tabulate strips left-aligned cells
    widths = [max(len(h) + 2, max(map(len, column))) for h, column in zip(headers, zip(*table))]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    lines = [line.format(*headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += [line.format(*row) for row in table]
    return "\n".join(lines)


def _plain(text: str, parts: list[str]) -> bool:
    """`text` (all of `parts` joined) is printable and each part takes one terminal column per character.

    (What tabulate measures with wcwidth; one check of the joined text covers the usual all-ASCII table.)
    """
    if not text.isprintable():
        return False
    if text.isascii():
        return True
    try:
        from wcwidth import wcswidth
    except ImportError:  # tabulate's optional dependency: without it tabulate measures with len() too
        return True
    return all(part.isascii() or wcswidth(part) == len(part) for part in parts)


def _tabulate(rows, headers) -> str:
    from tabulate import tabulate
    return tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def tex(text: object) -> str:
    """Escape text for LaTeX (every special character)."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in str(text))


_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def floor_for_display(value: float) -> float:
    """Round down to what `quantity` prints: a lower bound must never be rounded up (4,253.5 is >=4,253)."""
    if not math.isfinite(value) or value == 0:
        return value
    if abs(value) >= 1000 or float(value).is_integer():
        return float(math.floor(value))
    digits = 2 - math.floor(math.log10(abs(value)))
    return math.floor(value * 10 ** digits) / 10 ** digits


def quantity(value: float | None, lower_bound: bool = False, compact: bool = False) -> str:
    """The one number format of titles, axes, file names and tables.

    Text (tables, titles, captions) gets thousands separators: 1,500,000 and
    1,500,001 never print alike (that is how two budgets look pooled).
    `compact` (axis ticks, where width is short) uses an SI suffix when it is
    exact (1.5M, 20k, 7.5k) and the separators otherwise; never an axis
    offset or 1.5e+06. Small non-integers get three significant digits;
    DASH for None/NaN (unknown, not 0).
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    value = float(value)
    if lower_bound:
        value = floor_for_display(value)
    if math.isinf(value):
        text = "\u221e" if value > 0 else "\u2212\u221e"
    elif abs(value) >= 1e15:
        text = f"{value:.3g}"
    elif abs(value) >= 1000:
        text = f"{value:,.0f}"
        if compact:
            for scale, suffix in _SI:
                if abs(value) >= scale:
                    short = f"{value / scale:.3g}"
                    if "e" not in short and float(short) * scale == value:
                        text = short + suffix
                    break
    elif value.is_integer():
        text = f"{value:.0f}"
    else:
        text = f"{value:.3g}"
    return f"{GE}{text}" if lower_bound else text


def exact_quantity(value: float) -> str:
    """Like `quantity`, but a non-integer keeps up to 12 significant digits (budgets: identities)."""
    value = float(value)
    if math.isfinite(value) and not value.is_integer() and abs(value) < 1e15:
        return f"{value:,.12g}"
    return quantity(value)


def budget_text(budget: dict) -> str:
    """"1,500,000 tokens, 80 rollouts": exact, so two budgets never read alike."""
    from baselines.core.units import unit_noun
    return ", ".join(f"{exact_quantity(v)} {unit_noun(u)}" for u, v in budget.items()) or "no budget recorded"


def budget_tag(budget: dict) -> str:
    """The budget part of a file name: ``tokens1500000``, ``rollouts80``, exact like `budget_text`."""
    return "-".join(f"{u}{exact_quantity(v).replace(',', '')}" for u, v in budget.items()) or "nobudget"


def ratio(spend: float, reference: float) -> str:
    """How far a spend is from its reference, in words that survive a zero reference."""
    if reference == 0:
        return "against a reference of 0"
    r = spend / reference
    if r >= 10:
        return f"{r:,.0f}x the reference"
    if r >= 1.5 or r <= 0.5:
        return f"{r:.2g}x the reference"
    return f"{(r - 1) * 100:+.0f}%"
