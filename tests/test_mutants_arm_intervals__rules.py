"""Per-arm bounded intervals' rules (statistics/arm_intervals.py) at their edges, against independent references.

Clopper-Pearson bounds are checked against binomial tails summed in plain Python and solved by bisection
(the lower bound: P(X >= k | p) = alpha/2; the upper: P(X <= k | p) = alpha/2); the betting rows against
`betting.mean_bounds` at alpha/2 per side, one arm at a time; the skewness against the moment formula in
plain Python. Also which groups are skipped, that one group never stops the next, the level's use, rows of
different lengths, and that the skew label needs |skewness| above 0.5 and an interval still labelled t.
"""
from __future__ import annotations

import math
import warnings
from decimal import Decimal
from types import SimpleNamespace

import numpy as np
import pytest

from baselines.analysis.statistics.arm_intervals import (BETTING, EXACT_BINOMIAL, T, T_SKEWED, bounded_arm_intervals,
                                                         clopper_pearson, label_skewed, skewness_rows)
from baselines.analysis.statistics.betting import mean_bounds


def binom_cdf(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def solve(f, target: float) -> float:
    """The p in (0, 1) where the increasing f(p) crosses target (bisection)."""
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return (lo + hi) / 2


def reference_cp(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    half = (1 - level) / 2
    lo = 0.0 if k == 0 else solve(lambda p: 1 - binom_cdf(k - 1, n, p), half)      # P(X >= k) increases in p
    hi = 1.0 if k == n else solve(lambda p: -binom_cdf(k, n, p), -half)            # P(X <= k) decreases in p
    return lo, hi


# -- Clopper-Pearson -------------------------------------------------------------------------------
@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (3, 10), (9, 10), (10, 10), (1, 1), (0, 1), (2, 3), (7, 25)])
def test_clopper_pearson_is_the_exact_binomial_interval(k, n):
    lo, hi = clopper_pearson(np.array([k]), np.array([n]))
    ref = reference_cp(k, n)
    assert (float(lo[0]), float(hi[0])) == pytest.approx(ref, abs=1e-9)
    lo90, hi90 = clopper_pearson(np.array([k]), np.array([n]), 0.9)
    assert (float(lo90[0]), float(hi90[0])) == pytest.approx(reference_cp(k, n, 0.9), abs=1e-9)


def test_the_textbook_values():
    lo, hi = clopper_pearson(np.array([3, 10, 1]), np.array([10, 10, 1]))
    assert lo.tolist() == pytest.approx([0.0667, 0.6915, 0.025], abs=1e-4)
    assert hi.tolist() == pytest.approx([0.6525, 1.0, 1.0], abs=1e-4)


def test_no_trials_give_nan_and_one_trial_an_interval():
    lo, hi = clopper_pearson(np.array([0, 1, 0]), np.array([0, 1, 1]))
    assert math.isnan(lo[0]) and math.isnan(hi[0])
    assert lo.dtype == float and hi.dtype == float
    assert (lo[1], hi[1]) == pytest.approx((0.025, 1.0)) and (lo[2], hi[2]) == pytest.approx((0.0, 0.975))


def test_counts_are_read_as_floats():
    """Decimal counts (a JSON reader's numbers) are numbers like any other."""
    lo, hi = clopper_pearson([Decimal("3")], [Decimal("10")])
    ref_lo, ref_hi = clopper_pearson(np.array([3.0]), np.array([10.0]))
    assert (lo.tolist(), hi.tolist()) == (ref_lo.tolist(), ref_hi.tolist())
    lo, hi = clopper_pearson([3.0], [Decimal("10")])
    assert hi.tolist() == ref_hi.tolist()
    lo, hi = clopper_pearson([Decimal("3")], [10.0])
    assert lo.tolist() == ref_lo.tolist()


def test_no_numpy_warning_for_non_finite_counts():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clopper_pearson(np.array([np.inf, np.nan, 0.0]), np.array([np.inf, 5.0, 0.0]))


# -- which groups get which interval -----------------------------------------------------------------
def group(scores, reward_range=None, names=None):
    scores = None if scores is None else np.asarray(scores, dtype=float)
    rows = 0 if scores is None else len(scores)
    arms = [SimpleNamespace(ci=(np.nan, np.nan), interval=T) for _ in range(rows if names is None else names)]
    return SimpleNamespace(scores=scores, reward_range=reward_range, arms=arms)


def test_groups_without_scores_are_skipped_and_the_next_group_still_gets_its_interval():
    no_attr = SimpleNamespace(reward_range=None, arms=[SimpleNamespace(ci=(0.0, 1.0), interval=T)])
    none = group(None, names=1)
    empty = SimpleNamespace(scores=np.zeros((1, 0)), reward_range=None,
                            arms=[SimpleNamespace(ci=(0.0, 1.0), interval=T)])
    passfail = group([[0.0, 1.0, 1.0]])
    bounded_arm_intervals([no_attr, none, empty, passfail])
    assert no_attr.arms[0].interval == T and none.arms[0].interval == T and empty.arms[0].interval == T
    assert passfail.arms[0].interval == EXACT_BINOMIAL
    assert passfail.arms[0].ci == pytest.approx(reference_cp(2, 3))


def test_an_unbounded_group_does_not_stop_the_groups_after_it():
    unbounded = group([[0.1, 0.7, 3.0]])
    passfail = group([[0.0, 0.0, 1.0, 1.0]])
    declared = group([[0.2, 0.3, 0.9]], reward_range=(0.0, 1.0))
    bounded_arm_intervals([unbounded, passfail, declared])
    assert unbounded.arms[0].interval == T_SKEWED      # labelled, and the loop went on
    assert passfail.arms[0].interval == EXACT_BINOMIAL
    assert declared.arms[0].interval == BETTING


def test_the_level_reaches_the_exact_and_the_betting_intervals():
    passfail = group([[0.0, 1.0, 1.0, 1.0, 0.0]])
    rewards = [0.2, 0.3, 0.9, 0.5, 0.45, 0.6]
    declared = group([rewards], reward_range=(0.0, 1.0))
    bounded_arm_intervals([passfail, declared], level=0.9)
    assert passfail.arms[0].ci == pytest.approx(reference_cp(3, 5, 0.9), abs=1e-9)
    assert declared.arms[0].ci == pytest.approx(mean_bounds(np.array(rewards), 0.05, 0.0, 1.0), abs=1e-12)
    default = group([rewards], reward_range=(0.0, 1.0))
    bounded_arm_intervals([default])
    assert default.arms[0].ci == pytest.approx(mean_bounds(np.array(rewards), 0.025, 0.0, 1.0), abs=1e-12)


def test_betting_rows_of_different_lengths_each_get_their_own_interval():
    """Missing seeds leave rows of different lengths (grouped by length for the vectorised pass)."""
    scores = [[0.2, 0.3, np.nan, 0.5], [0.9, 0.8, 0.7, 0.6], [0.1, np.nan, np.nan, 0.4]]
    g = group(scores, reward_range=(0.0, 1.0))
    other = group([[0.5, 0.5, 0.25]], reward_range=(0.0, 2.0))
    bounded_arm_intervals([g, other])
    for arm, row in zip(g.arms, scores):
        values = np.array([v for v in row if not math.isnan(v)])
        assert arm.interval == BETTING
        assert arm.ci == pytest.approx(mean_bounds(values, 0.025, 0.0, 1.0), abs=1e-12)
    assert other.arms[0].ci == pytest.approx(mean_bounds(np.array([0.5, 0.5, 0.25]), 0.025, 0.0, 2.0), abs=1e-12)


# -- skewness ------------------------------------------------------------------------------------------
def moment_skewness(values) -> float:
    v = [float(x) for x in values if math.isfinite(x)]
    if len(v) < 3:
        return 0.0
    m = sum(v) / len(v)
    m2 = sum((x - m) ** 2 for x in v) / len(v)
    m3 = sum((x - m) ** 3 for x in v) / len(v)
    return m3 / m2 ** 1.5 if m2 > 0 else 0.0


def test_skewness_is_the_moment_skewness_of_each_rows_finite_values():
    rows = [[0.0, 0.0, 0.0, 10.0], [1.0, 2.0, 3.0, 4.0], [5.0, 1.0, 1.0, np.nan], [0.0, 1.0, 1.0, 1.0]]
    assert skewness_rows(np.array(rows)).tolist() == pytest.approx([moment_skewness(r) for r in rows], abs=1e-12)
    assert skewness_rows(np.array(rows))[0] == pytest.approx(2 / math.sqrt(3), abs=1e-12)


def test_integer_rewards_have_a_skewness():
    assert skewness_rows(np.array([[0, 0, 0, 10], [1, 2, 3, 4]])).tolist() == pytest.approx([2 / math.sqrt(3), 0.0])


def test_three_values_are_enough_and_fewer_or_no_spread_give_zero():
    got = skewness_rows(np.array([[0.0, 0.0, 3.0, np.nan], [0.0, 0.1, np.nan, np.nan], [2.0, 2.0, 2.0, 2.0],
                                  [np.nan] * 4, [1.0, 1.7, np.nan, np.nan]]))
    assert got[0] == pytest.approx(1 / math.sqrt(2), abs=1e-12)            # (0, 0, 3): 1/sqrt(2)
    assert got[1:].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_skewness_has_no_numpy_warning_for_empty_constant_or_underflowing_rows():
    """Rows of ~1e-107 (10,000 seeds, one of them apart): m2 ** 1.5 underflows to 0 while m3 does not."""
    tiny = np.zeros((1, 10000))
    tiny[0, -1] = 4e-107
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = skewness_rows(np.array([[np.nan] * 3, [2.0] * 3, [1.0, np.nan, np.nan]]))
        assert got.tolist() == [0.0, 0.0, 0.0]
        assert skewness_rows(tiny).tolist() == [0.0]


# -- the skew label ------------------------------------------------------------------------------------
def test_the_label_needs_skewness_above_one_half_not_at_it():
    """36 zeros, 36 ones, 9 twos: skewness exactly 1/2 (4 m3^2 = m2^3 in integers; 0.5 in floating point too)."""
    at_half = np.array([[0.0] * 36 + [1.0] * 36 + [2.0] * 9])
    assert skewness_rows(at_half).tolist() == [0.5]
    above = np.array([[0.0] * 37 + [1.0] * 35 + [2.0] * 9])
    arms = [SimpleNamespace(interval=T), SimpleNamespace(interval=T)]
    label_skewed(arms, np.vstack([at_half, above]))
    assert [a.interval for a in arms] == [T, T_SKEWED]


def test_only_an_interval_still_labelled_t_gets_the_skew_label():
    skewed = np.array([[0.0, 0.0, 0.0, 10.0]] * 3)
    arms = [SimpleNamespace(interval=EXACT_BINOMIAL), SimpleNamespace(), SimpleNamespace(interval=T)]
    label_skewed(arms, skewed)
    assert arms[0].interval == EXACT_BINOMIAL
    assert arms[1].interval == T_SKEWED        # an arm with no label yet is a t interval
    assert arms[2].interval == T_SKEWED
    negative = [SimpleNamespace(interval=T)]
    label_skewed(negative, -skewed[:1])
    assert negative[0].interval == T_SKEWED


def test_a_declared_range_the_rewards_leave_gives_no_betting_interval():
    """The range must hold every value (usable_range): rewards of 2 under a declared [0, 1] keep their t."""
    outside = group([[0.2, 2.0, 0.4, 0.5]], reward_range=(0.0, 1.0))
    bounded_arm_intervals([outside])
    assert outside.arms[0].interval in (T, T_SKEWED) and math.isnan(outside.arms[0].ci[0])
