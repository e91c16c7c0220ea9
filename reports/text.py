"""Cell text: escaping and number formatting shared by every table format.

Pure functions. Escaping lives here once so an arm named ``a|b`` or
``<script>`` cannot break a markdown table or inject HTML in any output.
"""
from __future__ import annotations

import math

DASH = "\u2014"          # shown for an unreported unit: unknown, not zero
GE = "\u2265"            # lower-bound marker for a partly reported unit

_MD_SPECIAL = str.maketrans({
    "\\": "\\\\", "|": "\\|", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]",
    "<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " ", "\r": " ", "\t": " ",
})

_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ", "\r": " ",
}


def md(text: object) -> str:
    """Escape text for a GitHub markdown table cell or bullet."""
    return str(text).translate(_MD_SPECIAL)


def tex(text: object) -> str:
    """Escape text for LaTeX (every special character)."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in str(text))


def quantity(value: float | None, lower_bound: bool = False) -> str:
    """A spend figure: thousands separators, 3 significant digits below 1000; DASH for None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    if abs(value) >= 1000 or float(value).is_integer():
        text = f"{value:,.0f}"
    else:
        text = f"{value:.3g}"
    return f"{GE}{text}" if lower_bound else text


def decimals_for(half_widths) -> int:
    """Decimals an interval of this half-width supports (2 significant digits of it).

    Taking the largest across a column keeps a column consistent.
    """
    best = 0
    seen = False
    for hw in half_widths:
        if hw is None or not math.isfinite(hw) or hw <= 1e-9:
            continue
        seen = True
        best = max(best, min(6, max(0, 1 - math.floor(math.log10(hw)))))
    return best if seen else 3


def fixed(value: float | None, decimals: int, signed: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return DASH
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


def interval(lo: float | None, hi: float | None, decimals: int, signed: bool = False) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "n/a"
    return f"[{fixed(lo, decimals, signed)}, {fixed(hi, decimals, signed)}]"


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
