"""The typical-seed searches that were `lru_cache`d (order_rank, critical_wins, critical_wins_upto) against exact counts.

Every expected count here comes from integer binomial sums (math.comb over 2^n, compared as fractions), not
from scipy: the documented rule is "the fewest wins k > n - k with 2 P(K <= n - k) <= level" for the critical
count and "the largest k with P(K <= k - 1) <= tail" for the order-statistic rank. The cases are where the
array form's window cannot answer -- tiny levels, where the normal guess lands above the count and every such
n must go to `critical_wins` -- and the edge of the 1e-12 rounding allowance, where a level that p reaches
only within that allowance must still count as reached.
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import special

from baselines.analysis.statistics import typical_seed as ts


def _lower_tail(j: int, n: int) -> Fraction:
    """P(Binomial(n, 1/2) <= j), exactly."""
    return Fraction(sum(math.comb(n, i) for i in range(0, min(j, n) + 1)) if j >= 0 else 0, 2 ** n)


def _exact_critical(n: int, level: float) -> int:
    """The fewest wins k > n - k of n whose two-sided p, 2 P(K <= n - k), is at most `level`; 0 when none."""
    bound = Fraction(level)
    return next((k for k in range(n // 2 + 1, n + 1) if 2 * _lower_tail(n - k, n) <= bound), 0)


def _exact_rank(n: int, tail: float) -> int:
    """The largest k in 1..n with P(K <= k - 1) <= tail; 0 when none."""
    bound = Fraction(tail)
    return max((k for k in range(1, n + 1) if _lower_tail(k - 1, n) <= bound), default=0)


@pytest.fixture(autouse=True)
def _cold(monkeypatch):
    """Each test starts from empty caches (a fresh process's state; the mutation copy has no lru_cache at all)."""
    monkeypatch.setattr(ts, "_Z", {})
    for cached in (ts.order_rank, ts.critical_wins, ts.critical_wins_upto):
        getattr(cached, "cache_clear", lambda: None)()


@pytest.mark.parametrize("level", [1e-12, 1e-15, 1e-20, 1e-30])
def test_critical_counts_at_tiny_levels_are_the_exact_counts_for_every_n(level):
    """At a tiny level the normal guess overshoots the critical count (the binomial's tail is lighter near n),
    so the array form's window starts above the count: those n must be answered by the search itself, and
    the ones where no count reaches the level are 0."""
    cap = 160
    got = ts.critical_wins_upto(cap, level)
    expect = [_exact_critical(n, level) for n in range(1, cap + 1)]
    assert got.tolist() == expect
    assert [ts.critical_wins(n, level) or 0 for n in range(1, cap + 1)] == expect
    assert any(expect) and not all(expect)          # both kinds of n are in the range checked


def test_the_fallback_answers_each_n_with_its_own_count():
    """At 1e-20 the first n with a count is 68 (all 68 must win: 2 / 2^68 = 6.8e-21), every n to 73 needs all its
    seeds, and from 74 one loss is allowed: index n - 1 holds the count for n seeds, not for a neighbour."""
    got = ts.critical_wins_upto(80, 1e-20).tolist()
    assert got[60:80] == [0] * 7 + [68, 69, 70, 71, 72, 73, 73, 74, 75, 76, 77, 78, 78]
    assert got[60:80] == [_exact_critical(n, 1e-20) for n in range(61, 81)]


def test_the_critical_counts_are_integers():
    """Counts of seeds, usable as indices and printed as whole numbers (the same type critical_wins gives)."""
    for level in (0.05, 1e-20):
        got = ts.critical_wins_upto(60, level)
        assert got.dtype.kind == "i"
        assert all(type(c) is int for c in got.tolist())


def _edge_level(p: float) -> float:
    """A level that p reaches only by the 1e-12 allowance: level < p == level * (1 + 1e-12) in floats."""
    start = p / (1 + 1e-12)
    for level in (start, np.nextafter(start, 0.0), np.nextafter(start, 1.0)):
        if level * (1 + 1e-12) == p:
            return float(level)
    raise AssertionError(p)


@pytest.mark.parametrize("n, k", [(10, 9), (10, 8), (20, 15), (31, 22), (60, 40)])
def test_a_p_within_the_rounding_allowance_of_the_level_reaches_it_in_both_forms(n, k):
    """2 P(K <= n - k) is at most level * (1 + 1e-12): at the very edge of that allowance k is still significant
    (and k - 1 is not), in critical_wins and in every index of its array form alike."""
    p = 2 * float(special.bdtr(n - k, n, 0.5))
    assert p == pytest.approx(float(2 * _lower_tail(n - k, n)), rel=1e-13)
    level = _edge_level(p)
    assert level < p
    assert ts.critical_wins(n, level) == k
    got = ts.critical_wins_upto(n + 5, level)
    assert got[n - 1] == k
    assert got.tolist() == [ts.critical_wins(m, level) or 0 for m in range(1, n + 6)]


def _exact_critical_fast(n: int, level: float) -> int:
    """_exact_critical for large n at a tiny level: the tail sum grows from j = n - k = 0 until 2 P(K <= j) > level."""
    bound, total, term, j, best = Fraction(level) * 2 ** n, 0, 1, 0, 0
    while n - j > j:                        # k = n - j must be more than half
        total += term                       # sum of C(n, i), i <= j
        if 2 * total > bound:
            break
        best = n - j
        term = term * (n - j) // (j + 1)
        j += 1
    return best


def test_critical_counts_are_quiet_and_exact_over_the_usual_levels():
    """No numpy warning on the way (n = 1 reads the tail at its top count), and the exact counts for n up to 90."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for level in (1.0, 0.5, 0.1, 0.05, 0.01, 0.05 / 99, 1e-6):
            got = ts.critical_wins_upto(90, level)
            assert got.tolist() == [_exact_critical(n, level) for n in range(1, 91)], level


def test_critical_counts_are_quiet_where_the_binomial_tail_underflows():
    """At a level of 1e-300 the first count exists at n = 998 (2 / 2^998 < 1e-300), and from n = 1075 on
    P(K = 0) = 2^-n is below the smallest float: the counts are still exact and nothing warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ts.critical_wins_upto(1100, 1e-300).tolist()
    assert got == [_exact_critical_fast(n, 1e-300) for n in range(1, 1101)]
    assert got[996:999] == [0, 998, 999] and got[1099] == _exact_critical(1100, 1e-300) > 0
    assert [_exact_critical_fast(n, 1e-12) for n in range(1, 80)] == [_exact_critical(n, 1e-12) for n in range(1, 80)]


def test_order_rank_is_the_exact_binomial_rank():
    """The k-th order statistic bounds the median at 1 - tail: k the largest with P(K <= k - 1) <= tail."""
    for tail in (0.5, 0.25, 0.05, 0.025, 0.005, 1e-4, 1e-9):
        assert [ts.order_rank(n, tail) for n in range(0, 70)] == [_exact_rank(n, tail) for n in range(0, 70)], tail
    assert ts.order_rank(10, 11 / 1024) == 2           # a tail exactly P(K <= 1) reaches it
    assert ts.order_rank(10, 11 / 1024 * (1 - 1e-9)) == 1
    assert ts.order_rank(2, 0.8) == 2                   # every P(K <= k - 1), k <= n, is below the tail: k = n
