"""`typical_claim`'s median and interval come from one partition (issue 38): the numbers a sort gives.

The reference below is the rule as it read before: np.median of the untied
differences and `median_interval` (a full sort) of them. Rows are long and
continuous (a partition of a few values sorts them whole, so a wrong rank
would go unseen), of odd and even length, with ties, and at levels where no
order-statistic interval exists (k = 0).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines.analysis.statistics.typical_seed import (_median_and_interval, median_interval, order_rank,
                                                        tie_tolerance, typical_claim)


def _reference(d: np.ndarray, level: float) -> tuple[float, tuple[float, float]]:
    d = d[np.isfinite(d)]
    untied = d[np.abs(d) > tie_tolerance(d)]
    if not untied.size:
        return 0.0, (-math.inf, math.inf)
    return float(np.median(untied)), median_interval(untied, level)


@pytest.mark.parametrize("n", [997, 998, 999, 1000, 1001, 1002, 1003, 1004, 1005, 1006])
@pytest.mark.parametrize("level", [0.95, 0.9, 0.5, 0.999])
def test_median_and_interval_are_the_sorted_ones(n, level):
    rng = np.random.default_rng(n * 7 + int(level * 1000))
    d = rng.normal(0.1, 1.0, n)
    d[rng.random(n) < 0.1] = 0.0                  # ties, dropped
    d[rng.random(n) < 0.02] = np.nan              # unscored, not counted
    claim = typical_claim(d, level)
    median, ci = _reference(d, level)
    assert claim.median == median and claim.ci == ci
    untied = d[np.isfinite(d)]
    untied = untied[np.abs(untied) > tie_tolerance(untied)]
    assert _median_and_interval(untied, level) == (median, ci)
    x = np.sort(untied)
    k = order_rank(x.size, (1 - level) / 2)
    assert ci == (x[k - 1], x[x.size - k])   # the k-th from each end of the untied differences


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_too_few_untied_seeds_have_no_interval_but_a_median(n):
    d = np.linspace(1.0, 2.0, n)[::-1].copy()
    assert order_rank(n, 0.025) == 0
    claim = typical_claim(d)
    assert claim.ci == (-math.inf, math.inf)
    assert claim.median == float(np.median(d))
    assert _median_and_interval(d, 0.95) == (float(np.median(d)), (-math.inf, math.inf))


def test_the_input_is_not_reordered():
    d = np.random.default_rng(3).normal(size=2001)
    before = d.copy()
    typical_claim(d)
    _median_and_interval(d, 0.95)
    assert np.array_equal(d, before)


@pytest.mark.parametrize("seed", range(30))
def test_random_lengths_and_levels_match_the_sort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(7, 3000))
    level = float(rng.choice([0.95, 0.99, 0.8, 0.6]))
    d = np.round(rng.normal(0, 1, n), int(rng.integers(1, 6)))   # rounded: repeated values and ties
    claim = typical_claim(d, level)
    assert (claim.median, claim.ci) == _reference(d, level)
