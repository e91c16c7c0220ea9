"""How a confidence level prints (`format_level`), pinned rule by rule (issue 44: mutation testing).

The oracles are the rules in its docstring, computed in exact decimal arithmetic: two significant
digits of the miss probability (of the level itself when that is the smaller), cut down at that digit,
never printed as "100%" or "0%" for a level strictly between 0 and 1. Levels come in as floats, so
the exact value a decimal level names (1 - 0.021 is 0.979) is what must print.
"""
from __future__ import annotations

import math
from decimal import ROUND_FLOOR, Decimal

import pytest

from baselines.analysis.statistics.alpha import format_level


def expected(level: str) -> str:
    """The rule in exact decimals: two significant digits of min(miss, level), floored at that digit."""
    exact = Decimal(level)
    smaller = min(exact, 1 - exact) * 100
    digits = max(0, 1 - smaller.adjusted())          # adjusted(): the exponent of the leading digit
    shown = (exact * 100).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_FLOOR)
    text = f"{shown:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


@pytest.mark.parametrize("level, text", [
    (0.9, "90%"), (0.95, "95%"), (0.975, "97.5%"), (0.99, "99%"), (0.995, "99.5%"), (0.999, "99.9%"),
    (0.9999, "99.99%"), (0.99995, "99.995%"), (0.5, "50%"), (0.8, "80%"), (0.6, "60%"),
])
def test_the_usual_levels_print_as_written(level, text):
    """A whole percentage keeps its zeros ("90%", not "9%"); a fractional one drops only trailing ones."""
    assert format_level(level) == text


@pytest.mark.parametrize("k", range(1, 13))
def test_a_level_near_one_shows_two_digits_of_its_miss_and_never_100(k):
    """1 - 10**-k and 1 - 2.5 * 10**-k: the miss shown has its two significant digits, none rounded away."""
    for miss in (10.0 ** -k, 2.5 * 10.0 ** -k):
        level = 1 - miss
        text = format_level(level)
        assert text != "100%" and text.endswith("%")
        real = (1 - Decimal(level)) * 100          # the float's own miss, exactly
        shown = 100 - Decimal(text[:-1])
        # cut down, never up: the miss shown is at least the real one (up to the float's last bits),
        # and within its second significant digit
        assert real * Decimal("0.999999") <= shown <= real * Decimal("1.1"), (level, text)


@pytest.mark.parametrize("level, text", [(0.001, "0.1%"), (0.004, "0.4%"), (0.0125, "1.2%"), (0.25, "25%"),
                                         (1e-6, "0.0001%"), (0.0995, "9.9%"), (0.0999, "9.9%"), (0.1, "10%")])
def test_a_small_level_never_prints_as_0_percent(level, text):
    """Failed before the fix: 0.001 and 0.004 printed "0%" (digits came from the miss alone). Just below
    a power of ten (9.95%) the level still has two digits: "9.9%", not "9%"."""
    assert format_level(level) == text


@pytest.mark.parametrize("k", list(range(1, 1000, 7)) + [21, 70, 420, 710])
def test_a_decimal_level_prints_its_own_digits_not_the_float_below_it(k):
    """Failed before the fix: 1 - 0.021 printed "97.8%", 1 - 0.07 "92.9%", 0.58 "57%", 0.29 "28%"
    (the float is a hair below the decimal and the cut took the digit with it)."""
    level = str(Decimal(k) / 1000)
    assert format_level(1 - k / 1000) == expected(str(1 - Decimal(level)))
    assert format_level(float(level)) == expected(level)


@pytest.mark.parametrize("alpha", [0.05, 0.025, 0.01, 0.001, 0.05 / 30, 0.1 / 7, 0.2, 0.49])
def test_the_levels_the_gate_and_drift_print_are_floored_at_two_digits_of_alpha(alpha):
    """What gate.py and drift.py pass (1 - alpha) for alphas a user writes or a correction divides."""
    text = format_level(1 - alpha)
    value = float(text[:-1])
    assert value <= (1 - alpha) * 100 + 1e-9                      # never claims more than the level
    assert (1 - alpha) * 100 - value < alpha * 100 * 0.1 + 1e-9     # loses less than alpha's third digit


def test_the_ends_of_the_range_print_as_whole_percentages():
    """Levels 0 and 1 (no miss, or nothing but) and beyond are printed as they are, not computed on."""
    assert format_level(1.0) == "100%"
    assert format_level(0.0) == "0%"
    assert format_level(1.5) == "150%"
    assert format_level(-0.5) == "-50%"


def test_an_integer_level_is_read_as_a_float():
    """`level` is taken through float(): the integers 1 and 0 are the levels 1.0 and 0.0."""
    assert format_level(1) == "100%" and format_level(0) == "0%"
