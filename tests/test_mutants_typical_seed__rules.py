"""The typical-seed claim's rules at their edges (statistics/typical_seed.py), one test per rule a mutant broke.

Each test names the rule it protects: the tie tolerance (relative to the data, a tie exactly at it), the
counts and the win share every verdict prints, the p-values and intervals at n = 0 and 1, the search
that must answer as a whole-range scan does for any window (and from a cold quantile cache), and the
"seeds needed" figures at their caps and at share 1.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from baselines.analysis.statistics import typical_seed as ts
from baselines.analysis.statistics.typical_seed import (SignCounts, clopper_pearson, detectable_share,
                                                      margin_seeds_to_decide, margin_sign_bounds, median_interval,
                                                      min_sign_p, one_sided_sign_p, seeds_to_decide, sign_counts,
                                                      sign_test_p, tie_tolerance, typical_claim)


# -- ties ----------------------------------------------------------------------------------------
def test_the_tie_tolerance_is_a_billionth_of_the_larger_of_one_and_the_largest_difference():
    """Relative to the data (a token-count reward of 1e12 ties at 1e3) and never below 1e-9 (rewards in [0, 1])."""
    assert tie_tolerance(np.array([0.3, -0.5])) == 1e-9
    assert tie_tolerance(np.array([])) == 1e-9
    assert tie_tolerance(np.array([2e12, -1.0])) == pytest.approx(2e3, rel=1e-12)
    assert sign_counts([1e12, 1e12, 50.0, -50.0]) == SignCounts(2, 0, 2)       # 50 of 1e12 is a tie
    assert sign_counts([1.5e-9, 1.0]) == SignCounts(2, 0, 0)                   # above 1e-9 of 1: a win


def test_a_difference_exactly_at_the_tolerance_is_a_tie():
    """'Ties (D = 0 to a relative 1e-9) are dropped': at the tolerance itself it is still a tie, either sign."""
    assert sign_counts([1e-9, -1e-9, 0.5]) == SignCounts(1, 0, 2)
    claim = typical_claim([1e-9, 0.5, 0.7])
    assert claim.counts == SignCounts(2, 0, 1) and claim.median == pytest.approx(0.6)


def test_counts_are_taken_against_the_null_value_and_ties_are_what_is_left():
    assert sign_counts([0.3, 0.1, -0.2], null=0.2) == SignCounts(1, 2, 0)
    assert sign_counts([0.5, -0.2, -0.3, 0.0, 0.0]) == SignCounts(1, 2, 2)


def test_a_missing_difference_given_as_none_is_not_counted():
    """Differences are read as floats: None is NaN, and NaN differences are dropped (sign counts, claim, bounds)."""
    assert sign_counts([0.5, None, -0.2]) == SignCounts(1, 1, 0)
    assert typical_claim([0.5, None, 0.3]).counts == SignCounts(2, 0, 0)
    bounds = margin_sign_bounds([0.5, None, 0.3], 0.1, 0.05)
    assert (bounds.n, bounds.above, bounds.median) == (2, 2, pytest.approx(0.4))


# -- p-values and intervals at their ends ----------------------------------------------------------
def test_the_two_sided_p_is_capped_at_one():
    """Twice the smaller tail exceeds 1 at a balanced count (2 wins, 2 losses: 2 * 11/16)."""
    assert sign_test_p(2, 2) == 1.0
    assert sign_test_p(0, 0) == 1.0


def test_the_one_sided_p_on_one_seed_and_on_none():
    """One seed above: P(Binomial(1, 1/2) >= 1) = 1/2; no seed: p = 1 (nothing shown)."""
    assert one_sided_sign_p(1, 1) == 0.5
    assert one_sided_sign_p(0, 0) == 1.0
    assert margin_sign_bounds([0.5], 0.1, 0.05).p_pass == 0.5
    assert margin_sign_bounds([], 0.1, 0.05).p_pass == 1.0


def test_the_median_interval_default_level_is_95_percent():
    x = np.arange(20, dtype=float)
    assert median_interval(x) == median_interval(x, 0.95) == (5.0, 14.0)


def test_clopper_pearson_on_one_seed_and_on_none():
    """n = 1 is an exact interval (0 of 1 wins: [0, 0.975]); n = 0 knows nothing: [0, 1]."""
    lo, hi = clopper_pearson(0, 1)
    assert lo == 0.0 and hi == pytest.approx(0.975, abs=1e-12)
    lo, hi = clopper_pearson(1, 1)
    assert lo == pytest.approx(0.025, abs=1e-12) and hi == 1.0
    assert clopper_pearson(0, 0) == (0.0, 1.0)


def test_the_min_sign_p_is_two_over_two_to_the_n():
    assert [min_sign_p(n) for n in (0, 1, 2, 3, 10)] == [1.0, 1.0, 0.5, 0.25, 2 / 1024]
    assert min_sign_p(-3) == 1.0
    assert min_sign_p(10) == sign_test_p(10, 0)


# -- the claim's printed figures ------------------------------------------------------------------
def test_the_win_share_and_its_interval_are_at_the_claims_level():
    """The share is wins / untied seeds, and its Clopper-Pearson interval is at the level asked, not 0.95."""
    claim = typical_claim([0.4, 0.2, 0.1, -0.3, 0.0], level=0.9)
    assert claim.counts == SignCounts(3, 1, 1)
    assert claim.win_share == 0.75
    assert claim.win_share_ci == clopper_pearson(3, 4, 0.9) != clopper_pearson(3, 4, 0.95)
    assert claim.ci == median_interval([0.4, 0.2, 0.1, -0.3], 0.9)


def test_all_tied_seeds_claim_nothing():
    """Every seed tied: median 0, an unbounded interval, no share, the share interval [0, 1], p = 1."""
    for d in ([0.0, 0.0, 0.0], []):
        claim = typical_claim(d)
        assert claim.counts.untied == 0 and claim.p == 1.0
        assert claim.median == 0.0
        assert claim.ci == (-math.inf, math.inf)
        assert math.isnan(claim.win_share)
        assert claim.win_share_ci == (0.0, 1.0)


# -- the gate's margin bounds -------------------------------------------------------------------
def test_margin_bounds_report_their_median_count_and_side_counts():
    d = [0.3, -0.05, -0.2, 0.1, 0.0]
    b = margin_sign_bounds(d, 0.1, 0.05)
    assert (b.median, b.n, b.above, b.below) == (0.0, 5, 4, 1)
    assert b.p_pass == one_sided_sign_p(4, 5) and b.p_fail == one_sided_sign_p(1, 5)


def test_margin_bounds_tie_at_the_margin_relative_to_the_shifted_data():
    """A seed within 1e-9 of -M (relative to max|d + M|, not |d - M|) counts for neither side; beyond it, it counts."""
    near = margin_sign_bounds([-0.1 + 1e-12, 0.5], 0.1, 0.05)
    assert (near.above, near.below) == (1, 0)
    # d + M = [7e-9, 8]: tolerance 8e-9, a tie; a tolerance from |d - M| = [6, 2] would be 6e-9
    scaled = margin_sign_bounds([-3 + 7e-9, 5.0], 3.0, 0.05)
    assert (scaled.above, scaled.below) == (1, 0)
    exact = margin_sign_bounds([1e-9, -1e-9, 0.5], 0.0, 0.05)                 # exactly at the tolerance: a tie
    assert (exact.above, exact.below) == (1, 0)


def test_margin_bounds_of_no_seeds_are_unbounded_and_quiet():
    """No finite difference: no bound, no count, p = 1, median NaN, and no numpy warning on the way."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = margin_sign_bounds([math.nan], 0.1, 0.05)
    assert (b.lower, b.upper, b.above, b.below, b.n) == (-math.inf, math.inf, 0, 0, 0)
    assert math.isnan(b.median) and b.p_pass == b.p_fail == 1.0


# -- power figures ----------------------------------------------------------------------------------
def test_detectable_share_at_the_ends_of_power():
    """Power 1 is reached at share 1 (every seed wins); a power above 1 is never reached: None."""
    assert detectable_share(10, 0.05, power=1.0) == 1.0
    assert detectable_share(10, 0.05, power=1.01) is None


def test_seeds_to_decide_at_share_one_and_its_cap():
    """Share 1 decides once 2 / 2^n <= level (6 seeds at 0.05); a share above 1 is share 1; the cap is inclusive."""
    assert seeds_to_decide(1.0, 0.05) == seeds_to_decide(1.2, 0.05) == 6
    assert seeds_to_decide(1.0, 0.05, power=1.0) == 6
    assert seeds_to_decide(1.0, 0.05, cap=6) == 6
    assert seeds_to_decide(1.0, 0.05, cap=5) is None
    assert seeds_to_decide(math.inf, 0.05) is None and seeds_to_decide(math.nan, 0.05) is None
    assert seeds_to_decide(0.5, 0.05, power=0.01) is None        # no advantage is never "decided"
    assert seeds_to_decide(0.7, 0.05, power=0.0) == 1            # seeds are counted from one
    assert seeds_to_decide(0.9, 1.0) == 1                        # level 1: one seed, power 0.9


def test_margin_seeds_to_decide_at_share_one_and_its_cap():
    """The margin test needs 2^-n <= alpha (5 seeds at 0.05) at share 1; alpha 1/2 decides on one seed."""
    assert margin_seeds_to_decide(1.0, 0.05) == margin_seeds_to_decide(1.2, 0.05) == 5
    assert margin_seeds_to_decide(1.0, 0.05, power=1.0) == 5
    assert margin_seeds_to_decide(1.0, 0.05, cap=5) == 5
    assert margin_seeds_to_decide(1.0, 0.05, cap=4) is None
    assert margin_seeds_to_decide(math.inf, 0.05) is None
    assert margin_seeds_to_decide(0.5, 0.05, power=0.01) is None
    assert margin_seeds_to_decide(0.9, 0.5) == 1


def test_the_default_cap_is_2000_seeds():
    """A share that needs exactly 2,001 seeds is 'not within the cap' by default (found by bisection on share)."""
    share = 0.5313763109500542
    assert seeds_to_decide(share, 0.05) is None
    assert seeds_to_decide(share, 0.05, cap=2001) == 2001
    margin_share = 0.5278821331866221
    assert margin_seeds_to_decide(margin_share, 0.05) is None
    assert margin_seeds_to_decide(margin_share, 0.05, cap=2001) == 2001


# -- the windowed search -------------------------------------------------------------------------
def test_the_windowed_search_answers_as_the_whole_range_for_any_guess():
    """`_first_true` is the first j in lo..hi where a monotone condition holds, None if none: whatever the guess.

    The guess only places the window; a guess far off (the switch below the window, above it, at its
    ends) must fall back to the whole range, never answer from outside lo..hi."""
    for n in (1, 16, 100):
        for lo, hi in ((0, 40), (5, 40), (3, 3), (7, 20)):
            for t in range(-3, 46):
                expect = max(lo, t) if max(lo, t) <= hi else None
                for guess in range(-12, 60, 1 if n == 1 else 3):
                    got = ts._first_true(lambda js, t=t: js >= t, lo, hi, guess, n)
                    assert got == expect, (n, lo, hi, t, guess)


def test_the_searches_work_from_a_cold_quantile_cache(monkeypatch):
    """The normal quantile that places the window is computed for a tail never seen before (fresh process)."""
    monkeypatch.setattr(ts, "_Z", {})
    for cached in (ts.order_rank, ts.critical_wins):   # uncached in a mutation run's copy (benchmarks/mutation.py)
        getattr(cached, "cache_clear", lambda: None)()
    assert ts.order_rank(37, 0.0123) == 12
    assert ts.critical_wins(37, 0.0246) == 26
    assert ts._z(0.3) == pytest.approx(-0.5244005127080407, rel=1e-12)


def test_the_binomial_tails_give_a_float_for_a_scalar_count():
    assert isinstance(ts._binom_cdf(1, 10, 0.5), float)
    assert isinstance(ts._binom_sf(1, 10, 0.5), float)


def test_seeds_to_decide_is_the_first_n_whose_power_reaches_it_at_every_level():
    """The array form of seeds_to_decide equals the scan over n of sign_power, also at level 1, where one win
    (critical count 1) decides n = 1 with power equal to the share, not 1."""
    for level in (1.0, 0.5, 0.05):
        for share in (0.6, 0.7, 0.75, 0.9):
            scan = next((n for n in range(1, 301) if ts.sign_power(n, share, level) >= 0.8), None)
            assert seeds_to_decide(share, level, cap=300) == scan, (share, level)


def test_typical_rows_is_the_claim_of_each_row_at_its_level():
    d = np.array([[0.2, 0.1, -0.05, 0.3], [0.0, -0.1, -0.2, np.nan]])
    rows = ts.typical_rows(d)
    assert rows == [typical_claim(d[0]), typical_claim(d[1])]
    assert ts.typical_rows(d, 0.8) == [typical_claim(d[0], 0.8), typical_claim(d[1], 0.8)]
    assert ts.typical_rows(d[0]) == [typical_claim(d[0])]
