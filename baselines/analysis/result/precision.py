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
