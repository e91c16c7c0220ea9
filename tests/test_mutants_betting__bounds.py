"""The betting bounds' rules (statistics/betting.py), checked against an independent reading of the method.

The reference below computes Waudby-Smith & Ramdas' hedged capital as the module docstring states it, one
seed at a time in plain Python (running mean and variance started at 1/2 and 1/4, the stake
sqrt(2 log(1/alpha) / (planned_n var)) capped at 0.9/m, or 0.9/(1 - m) for the upper side, rejection once
the capital reaches 1/alpha at any prefix). The rule protected: the printed bound is a rejected mean (never
narrower than the method allows) within one 1/4096 step of the first mean the method keeps. Also the
argument rules (range, 1e-12 tolerance of the range, empty data, `side`) and that the many-row forms are the
one-row forms row by row.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines.analysis.statistics.betting import diff_bounds, diff_bounds_many, mean_bounds, mean_bounds_many

STEP = 1 / 4096


def rejected(u: list[float], m: float, alpha: float, planned_n: int, side: int) -> bool:
    """Did the bet on 'mean above m' (side +1) or 'below m' (side -1) reach 1/alpha at some prefix?"""
    mu, var, csum, squares = 0.5, 0.25, 0.0, 0.0
    log_k, threshold = 0.0, math.log(1 / alpha)
    for t, x in enumerate(u, 1):
        lam = math.sqrt(2 * math.log(1 / alpha) / (max(planned_n, 1) * var))
        stake = min(lam, 0.9 / m if side > 0 else 0.9 / (1 - m))
        log_k += math.log1p(side * stake * (x - m))
        if log_k >= threshold:
            return True
        csum += x
        squares += (x - mu) ** 2
        mu, var = (0.5 + csum) / (t + 1), (0.25 + squares) / (t + 1)
    return False


def check(u, alpha, planned_n=None):
    low, up = mean_bounds(u, alpha, planned_n=planned_n)
    n_plan = planned_n or len(u)
    eps = 1e-9
    # the lower bound is a rejected mean (or 0), and a step above it is kept
    assert low == 0.0 or rejected(u, max(low, eps), alpha, n_plan, +1), (u, alpha, low)
    if low + STEP < 1:
        assert not rejected(u, low + STEP, alpha, n_plan, +1), (u, alpha, low)
    assert up == 1.0 or rejected(u, min(up, 1 - eps), alpha, n_plan, -1), (u, alpha, up)
    if up - STEP > 0:
        assert not rejected(u, up - STEP, alpha, n_plan, -1), (u, alpha, up)
    return low, up


def datasets():
    rng = np.random.default_rng(44)
    out = [[0.0] * 30, [1.0] * 30, [0.0] * 400, [1.0] * 400, [1.0], [0.5] * 12, [0.0, 1.0] * 10]
    for n in (5, 12, 40, 150):
        out.append(list(rng.uniform(size=n)))
        out.append(list(rng.beta(0.5, 3.0, size=n)))
        out.append(list(rng.beta(4.0, 0.7, size=n)))
        out.append(list((rng.uniform(size=n) < 0.7).astype(float)))
    return out


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.01, 0.5])
def test_bounds_are_the_methods_own_to_one_step(alpha):
    for u in datasets():
        check(u, alpha)


def test_planned_n_sets_the_stakes():
    rng = np.random.default_rng(7)
    u = list(rng.uniform(size=20))
    for planned in (1, 20, 80):
        check(u, 0.05, planned)
    assert mean_bounds(u, 0.05, planned_n=80) != mean_bounds(u, 0.05)


def test_constant_data_at_the_ends():
    """All zeros: the lower bound is 0 and the upper bound small but above 0; all ones mirror it."""
    low, up = check([0.0] * 400, 0.05)
    assert low == 0.0 and 0 < up < 1 / 65
    low, up = check([1.0] * 400, 0.05)
    assert up == 1.0 and 1 - 1 / 65 < low < 1


# -- arguments -----------------------------------------------------------------------------------------------------
def test_the_range_must_be_finite_and_not_empty():
    for lo, hi in ((1.0, 1.0), (1.0, 0.0), (0.0, math.inf), (-math.inf, 1.0), (math.nan, 1.0)):
        with pytest.raises(ValueError, match=r"^reward range must be finite with lo < hi, got \["):
            mean_bounds([0.5], 0.05, lo, hi)


def test_no_values_know_only_the_range():
    assert mean_bounds([], 0.05, 2.0, 5.0) == (2.0, 5.0)


def test_values_may_pass_the_range_by_1e_12_of_its_width_and_no_more():
    ok = [(0.0, 1.0, -1e-12), (0.0, 1.0, 1 + 1e-12), (0.0, 10.0, -5e-12), (0.0, 10.0, 10 + 5e-12),
          (0.0, 1.0, 0.0), (0.0, 1.0, 1.0)]
    for lo, hi, v in ok:
        mean_bounds([v, (lo + hi) / 2], 0.05, lo, hi)
    bad = [(0.0, 1.0, -0.5), (0.0, 1.0, 1.5), (2.0, 4.0, 2 - 4e-12), (2.0, 4.0, 4 + 4e-12)]
    for lo, hi, v in bad:
        with pytest.raises(ValueError, match=r"^values outside the declared range \[\d+, \d+\] \(min .*, max .*\)$"):
            mean_bounds([v, (lo + hi) / 2], 0.05, lo, hi)


def test_values_within_the_tolerance_bound_like_the_range_ends():
    """A value 1e-12 past an end is read as the end itself (clipped), not as a value outside."""
    u = [0.0] * 10 + [0.3, 0.6, 1.0] * 5
    nudged = [-1e-12] * 10 + [0.3, 0.6, 1 + 1e-12] * 5
    assert mean_bounds(nudged, 0.05) == mean_bounds(u, 0.05)


def test_side_returns_one_bound_and_the_range_end_for_the_other():
    u = [0.2, 0.4, 0.3, 0.5, 0.35] * 6
    low, up = mean_bounds(u, 0.05)
    assert 0 < low < up < 1
    assert mean_bounds(u, 0.05, side="lower") == (low, 1.0)
    assert mean_bounds(u, 0.05, side="upper") == (0.0, up)
    assert mean_bounds(u, 0.05, side="both") == (low, up)
    assert mean_bounds(u, 0.05, lo=-1.0, hi=1.0, side="upper")[0] == -1.0


# -- scaled and many-row forms ---------------------------------------------------------------------------------
def test_diff_bounds_scale_to_twice_the_reward_width():
    d = [0.5, 1.0, 1.5, 0.8, 1.2] * 4
    assert diff_bounds(d, 0.05, (2.0, 4.0)) == mean_bounds(d, 0.05, -2.0, 2.0)
    assert diff_bounds(d, 0.05, (2.0, 4.0), 50) == mean_bounds(d, 0.05, -2.0, 2.0, 50)


def test_many_rows_are_each_row_alone():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1.0, 3.0, size=(4, 15))
    lo, hi = np.array([-1.0, -2.0, -1.5, -1.0]), np.array([3.0, 3.0, 4.0, 5.0])
    for planned in (None, 40):
        low, up = mean_bounds_many(x, 0.05, lo, hi, planned)
        for i in range(4):
            assert (low[i], up[i]) == pytest.approx(mean_bounds(x[i], 0.05, lo[i], hi[i], planned), abs=1e-12)
    d = rng.uniform(-0.5, 0.9, size=(3, 12))
    for planned in (None, 30):
        low, up = diff_bounds_many(d, 0.1, 1.0, planned)
        for i in range(3):
            assert (low[i], up[i]) == pytest.approx(diff_bounds(d[i], 0.1, (0.0, 1.0), planned), abs=1e-12)
    wide = rng.uniform(-0.5, 0.9, size=(2, 7))             # rows and columns differ: the shapes are read right
    low, up = diff_bounds_many(wide, 0.1, 1.0)
    assert (low[1], up[1]) == pytest.approx(diff_bounds(wide[1], 0.1, (0.0, 1.0)), abs=1e-12)


def test_rows_beyond_one_memory_chunk_are_each_row_alone():
    """Rows are scored in chunks of bounded memory (62 rows of 1,000 seeds here): the chunks join row-wise."""
    rng = np.random.default_rng(11)
    x = rng.uniform(size=(64, 1000))
    low, up = mean_bounds_many(x, 0.05, np.zeros(64), np.ones(64))
    for i in (0, 61, 62, 63):
        assert (low[i], up[i]) == pytest.approx(mean_bounds(x[i], 0.05), abs=1e-12)


def test_many_rows_read_a_value_past_the_range_as_its_end():
    """mean_bounds_many checks no range: a value beyond a row's range is clipped to it, never bet beyond it."""
    base = np.array([[0.2, 0.9, 0.4, 1.0, 0.0, 0.6] * 3])
    wild = base.copy()
    wild[0, 3], wild[0, 4] = 1.7, -0.4
    assert mean_bounds_many(wild, 0.05, np.zeros(1), np.ones(1)) == mean_bounds_many(base, 0.05, np.zeros(1), np.ones(1))
