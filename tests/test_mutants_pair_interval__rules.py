"""The paired-difference interval's rules (statistics/pair_interval.py) at their edges.

The t interval is checked against a printed table (t(.975, 2) = 4.303, t(.95, 2) = 2.920); the route
(betting / hull / t) at each boundary the module docstring names: bounded rewards, 4 <= n <= 50 always the
hull, 50 < n <= 500 the hull only when |skewness| > 0.5 (a sample whose skewness is exactly 1/2 is not
skewed), t beyond 500; the hull is the union of the t and the seeded bootstrap-t interval. The block form
must give every row the numbers and the label the one-pair form gives it, for rows of every scale and
skew, and answer without numpy warnings for rows with no spread.
"""
from __future__ import annotations

import math
import warnings
from decimal import Decimal

import numpy as np
import pytest

from baselines.analysis.statistics.betting import diff_bounds
from baselines.analysis.statistics.bootstrap import bootstrap_t_interval
from baselines.analysis.statistics.pair_interval import HULL, block_intervals, pair_interval

T975_2, T95_2 = 4.303, 2.920


def betting_label(lo, hi):
    return f"betting (distribution-free, rewards in [{lo:g}, {hi:g}])"


def skewed(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(0.0, 1.0, size=n)


def symmetric(n: int) -> np.ndarray:
    return np.linspace(-1.0, 1.0, n)        # skewness 0


# exact skewness 1/2: counts of 0, 1, 2 with 4 m3^2 = m2^3 in integers (0.5 in floating point as well)
AT_HALF = np.array([0.0] * 48 + [1.0] * 48 + [2.0] * 12)
ABOVE_HALF = np.array([0.0] * 49 + [1.0] * 47 + [2.0] * 12)


# -- one pair --------------------------------------------------------------------------------------
def test_three_differences_get_the_t_interval_at_the_default_95_percent():
    lo, hi, how = pair_interval([0.1, 0.4, 0.7])            # mean .4, sd .3
    half = T975_2 * 0.3 / math.sqrt(3)
    assert how == "t" and (lo, hi) == pytest.approx((0.4 - half, 0.4 + half), abs=1e-3)


def test_the_level_reaches_the_t_interval():
    lo, hi, how = pair_interval([0.1, 0.4, 0.7], 0.9)
    half = T95_2 * 0.3 / math.sqrt(3)
    assert how == "t" and (lo, hi) == pytest.approx((0.4 - half, 0.4 + half), abs=1e-3)


def test_differences_are_read_as_floats():
    d = [Decimal("0.1"), Decimal("0.4"), Decimal("0.7"), Decimal("2.5"), Decimal("0.2")]
    assert pair_interval(d) == pair_interval([0.1, 0.4, 0.7, 2.5, 0.2])


def test_the_hull_is_the_union_of_t_and_the_seed_zero_bootstrap_t():
    d = skewed(6)
    lo, hi, how = pair_interval(d)
    mean, sd = d.mean(), d.std(ddof=1)
    from baselines.analysis.statistics.student_t import t_quantile
    tlo, thi = mean - t_quantile(0.975, 5) * sd / math.sqrt(6), mean + t_quantile(0.975, 5) * sd / math.sqrt(6)
    blo, bhi = bootstrap_t_interval(d, 0.95, 0)
    assert how == HULL and (lo, hi) == pytest.approx((min(tlo, blo), max(thi, bhi)), rel=1e-12)
    assert bootstrap_t_interval(d, 0.95, 1) != (blo, bhi)          # so the default seed (0) is what was used
    assert pair_interval(d, seed=1)[:2] != (lo, hi)


def test_bounded_rewards_get_the_betting_interval_named_with_its_range():
    d = np.array([1.0, -0.5, 2.0, 0.0, 1.5])
    lo, hi, how = pair_interval(d, 0.9, (2.0, 5.0))
    assert how == betting_label(2.0, 5.0) == "betting (distribution-free, rewards in [2, 5])"
    assert (lo, hi) == diff_bounds(d, 0.05, (2.0, 5.0))


@pytest.mark.parametrize("n,how", [(3, "t"), (4, HULL), (5, HULL), (50, HULL)])
def test_small_samples_get_the_hull_from_four_to_fifty_differences_whatever_their_shape(n, how):
    assert pair_interval(symmetric(n))[2] == how
    assert pair_interval(skewed(n))[2] == how


@pytest.mark.parametrize("n", [51, 100, 500])
def test_between_fifty_and_five_hundred_only_skewed_samples_get_the_hull(n):
    assert pair_interval(symmetric(n))[2] == "t"
    assert pair_interval(skewed(n))[2] == HULL
    assert pair_interval(-skewed(n))[2] == HULL        # either sign


def test_beyond_five_hundred_differences_it_is_t_even_when_skewed():
    assert pair_interval(skewed(501))[2] == "t"
    assert pair_interval(skewed(3))[2] == "t"


def test_a_skewness_of_exactly_one_half_is_not_skewed():
    assert pair_interval(AT_HALF)[2] == "t"
    assert pair_interval(ABOVE_HALF)[2] == HULL


# -- the block form ---------------------------------------------------------------------------------
def block_of(rows, level=0.95, reward_range=None, seed=0):
    d = np.array(rows, dtype=float)
    return block_intervals(d.copy(), d.mean(axis=1), d.std(axis=1, ddof=1), level, reward_range, seed)


def test_one_seed_gives_nan_bounds_labelled_t():
    lo, hi, hows = block_intervals(np.zeros((3, 1)), np.zeros(3), np.full(3, np.nan), 0.95, None, 0)
    assert lo.shape == hi.shape == (3,) and np.isnan(lo).all() and np.isnan(hi).all()
    assert lo.dtype == float and hi.dtype == float
    assert hows == ["t", "t", "t"]


@pytest.mark.parametrize("level", [0.95, 0.9, 0.8])
@pytest.mark.parametrize("reward_range", [(0.0, 1.0), (-1.0, 1.0), (2.0, 5.0)])
def test_block_betting_rows_are_the_one_pair_intervals(level, reward_range):
    width = reward_range[1] - reward_range[0]
    rng = np.random.default_rng(3)
    rows = rng.uniform(-width, width, size=(4, 7))
    lo, hi, hows = block_of(rows, level, reward_range)
    for r, row in enumerate(rows):
        plo, phi, phow = pair_interval(row, level, reward_range)
        assert (lo[r], hi[r]) == pytest.approx((plo, phi), abs=1e-12) and hows[r] == phow
    assert hows[0] == betting_label(*reward_range)


def rows_of_every_kind(n: int) -> list[np.ndarray]:
    out = []
    for scale in (1e-3, 1.0, 1e3):
        out += [scale * symmetric(n), scale * skewed(n, 1), -scale * skewed(n, 2)]
    out.append(np.full(n, 0.25))                                    # no spread
    if n >= 3:
        base = np.random.default_rng(5).normal(size=n)
        out.append(base + 0.4 * np.abs(base) ** 1.5)              # mildly skewed
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 5, 20, 50, 51, 80, 500, 501])
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_block_rows_are_the_one_pair_intervals_for_every_scale_and_shape(n, level):
    rows = rows_of_every_kind(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi, hows = block_of(rows, level, None, seed=2)
    for r, row in enumerate(rows):
        plo, phi, phow = pair_interval(row, level, None, 2)
        assert hows[r] == phow, (n, r)
        assert lo[r] == pytest.approx(plo, rel=1e-9, abs=1e-12) and hi[r] == pytest.approx(phi, rel=1e-9, abs=1e-12)


def test_block_skewness_exactly_one_half_is_not_skewed():
    lo, hi, hows = block_of([AT_HALF, ABOVE_HALF])
    assert hows == ["t", HULL]


def test_block_without_numpy_warnings_where_the_moments_underflow():
    """499 zeros and one 2.15e-107: m2 ** 1.5 underflows to 0 while the mean cube does not."""
    d = np.zeros((1, 500))
    d[0, -1] = 2.15e-107
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi, hows = block_intervals(d.copy(), d.mean(axis=1), d.std(axis=1, ddof=1), 0.95, None, 0)
    assert hows == [HULL]          # its skewness is ~22 (one value apart of 500): the hull, as for one pair
