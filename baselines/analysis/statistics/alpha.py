"""The significance level: one check, one range, for every place that takes an alpha; and how a level prints.

Why its own module: alpha was checked in five places with two ranges,
(0, 1) and (0, 0.5), so `compare --alpha 0.7` passed the Python API and
failed the CLI. The range is (0, 0.5): every verdict here reads a two-sided
(1 - 2 alpha) interval (the gate's two one-sided bounds, the equivalence
test's TOST), which is empty at alpha = 0.5 and beyond.
"""
from __future__ import annotations

import math

#: the open interval every alpha lies in
ALPHA_RANGE = (0.0, 0.5)


def check_alpha(alpha: object, name: str = "alpha") -> float:
    """`alpha` as a float when it is a real number strictly between 0 and 0.5; ValueError naming `name` if not."""
    low, high = ALPHA_RANGE
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) \
            or not low < alpha < high:
        raise ValueError(f"{name} must be a number between {low:g} and {high:g} (both excluded), "
                         f"like 0.05, got {alpha!r}")
    return float(alpha)


def format_level(level: float) -> str:
    """A confidence level as a percentage that never rounds up to "100%" (or down to "0%").

    Two significant digits of the miss probability: 0.95 -> "95%", 0.975 ->
    "97.5%", 0.99995 -> "99.995%" (of the level itself when that is the
    smaller: 0.004 -> "0.4%"), cut down at that digit, never up. Printing
    100% claimed certainty the bounds do not have. The cut ignores the last
    bits of binary rounding: 1 - 0.021 is 0.97899999999999998 as a float and
    prints "97.9%", not "97.8%".
    """
    miss = 1.0 - float(level)
    if not 0 < miss < 1:
        return f"{level:.0%}"
    digits = max(0, -int(math.floor(math.log10(min(miss, level) * 100))) + 1)
    scaled = level * 100 * 10 ** digits
    text = f"{math.floor(scaled + 1e-6) / 10 ** digits:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"
