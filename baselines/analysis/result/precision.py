"""How many decimals a column of means or differences prints: one rule, chosen once per table, for every format.

Why here: markdown, LaTeX, HTML and CSV each chose their own decimals from
their own intervals, so one pair printed -0.01 in one table and -0.010 in
another. The analysis chooses a table's decimals once (`GroupAnalysis.decimals`,
`pair_decimals`) and every format prints with them.
"""
from __future__ import annotations

import math


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


MAX_DECIMALS = 6  # the most decimals a table cell grows to so a small nonzero number keeps a digit
NA = "n/a"        # a number that is not defined (an interval from one seed), never "not reported" (DASH)


def fixed(value: float | None, decimals: int, signed: bool = False) -> str:
    """`value` with `decimals` decimals, but never a zero that is not one.

    A column's decimals follow its intervals (`decimals_for`), so a difference
    of -0.033 beside an interval of +-1 printed as "-0.0": a signed zero that
    reads as "no difference". A nonzero value that would round to zero gets
    the decimals of its first significant digit (up to MAX_DECIMALS, then one
    significant digit in e-notation); an exact zero prints unsigned ("0.0").
    None, NaN and infinities are not defined here: NA.
    """
    if value is None or not math.isfinite(value):
        return NA
    if value == 0:
        return f"{0.0:.{decimals}f}"
    if round(abs(value), decimals) == 0:
        first = -math.floor(math.log10(abs(value)))     # decimals that reach the first significant digit
        if first > MAX_DECIMALS:
            return f"{value:+.0e}" if signed else f"{value:.0e}"
        decimals = first
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


def interval(lo: float | None, hi: float | None, decimals: int, signed: bool = False) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return NA
    return f"[{fixed(lo, decimals, signed)}, {fixed(hi, decimals, signed)}]"


def mean_and_interval(mean: float | None, lo: float | None, hi: float | None, decimals: int) -> str:
    """"0.39 [0.33, 0.45]"; one "n/a" for an arm with no scored seed (not "n/a n/a", which reads as two
    missing numbers of a row that has none)."""
    if mean is None or not math.isfinite(mean):
        return NA
    return f"{fixed(mean, decimals)} {interval(lo, hi, decimals)}"
