"""Sign-flip and permutation p-values against independent computations (issue 44, `statistics/sign_flip.py`).

Every exact p here is recomputed by brute force (itertools over all sign patterns or all splits, with
the module's relative tie rule restated), every McNemar p from binomial coefficients, the normal limit
from scipy; the Monte Carlo paths are checked for their promises (seeded, never 0, (hits + 1) / (draws + 1)
resolution, close to the exact value).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from baselines.analysis.statistics import sign_flip as sf


def brute_sign_flip(d):
    """Share of the 2**n sign patterns whose |sum| reaches |observed sum| (ties within 1e-9 of sum|d|)."""
    d = np.asarray(d, dtype=float)
    obs, tol = abs(d.sum()), 1e-9 * np.abs(d).sum()
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
    return int(np.count_nonzero(np.abs(signs @ d) >= obs - tol)) / 2 ** d.size


def mcnemar(pos, neg):
    k, top = pos + neg, max(pos, neg)
    if k == 0 or pos == neg:
        return 1.0
    return min(1.0, 2 * sum(math.comb(k, j) for j in range(top, k + 1)) / 2 ** k)


def brute_permutation(xa, xb):
    pooled, na = list(xa) + list(xb), len(xa)
    obs = abs(np.mean(xa) - np.mean(xb))
    tol = 1e-9 * max(max(abs(v) for v in pooled), obs)
    stats = []
    for idx in itertools.combinations(range(len(pooled)), na):
        a = [pooled[i] for i in idx]
        b = [pooled[i] for i in range(len(pooled)) if i not in idx]
        stats.append(abs(np.mean(a) - np.mean(b)))
    return float(np.mean(np.array(stats) >= obs - tol))


def test_min_exact_p_is_two_over_two_to_the_n():
    assert [sf.min_exact_p(n) for n in (0, 1, 2, 3, 10)] == [1.0, 1.0, 0.5, 0.25, 2 / 1024]
    assert sf.min_exact_p(-3) == 1.0


@pytest.mark.parametrize("d", [
    [0.3, -0.1, 0.7, 0.2, 0.5, -0.4, 0.9],
    [1.0, 2.0, -3.0],                   # ties exactly on the observed sum: they count
    [0.5, 1.5, 2.5, -0.5, 1.0, 3.0, -2.0, 0.25, 0.75, 1.25],
    [2.0, 0.0, -1.0, 3.0, 0.5],         # a zero and three magnitudes: not McNemar
    [0.1] * 3 + [0.2] * 3 + [-0.3],
])
def test_exact_sign_flip_equals_brute_force_enumeration(d):
    p, method = sf.sign_flip_p(d)
    assert method == "exact"
    assert p == brute_sign_flip(d)


def test_exact_at_the_enumeration_limit_and_monte_carlo_just_above():
    d14 = np.random.default_rng(4).normal(0.4, 1, sf.EXACT_MAX_N)
    p, method = sf.sign_flip_p(d14)
    assert method == "exact" and p == brute_sign_flip(d14)
    d15 = np.random.default_rng(4).normal(0.4, 1, sf.EXACT_MAX_N + 1)
    p15, method15 = sf.sign_flip_p(d15, seed=3)
    assert method15 == "monte-carlo"
    assert abs(p15 - brute_sign_flip(d15)) < 0.015     # 20000 draws: sd of the estimate <= 0.0035
    hits = p15 * (sf.MONTE_CARLO_DRAWS + 1) - 1         # (hits + 1) / (draws + 1): an integer count of hits
    assert hits == pytest.approx(round(hits), abs=1e-6) and 0 <= round(hits) <= sf.MONTE_CARLO_DRAWS
    assert sf.sign_flip_p(d15, seed=3) == (p15, method15)
    assert sf.sign_flip_p(d15, seed=4)[0] != p15          # the seed is used


def test_monte_carlo_p_is_never_zero():
    d = np.linspace(1.0, 2.0, 40)            # every sign positive: no draw reaches the observed sum (almost)
    p, method = sf.sign_flip_p(d, seed=0)
    assert method == "monte-carlo" and 0 < p <= 2 / (sf.MONTE_CARLO_DRAWS + 1)


@pytest.mark.parametrize("d", [
    [1, 1, 1, 1, 1, 1, -1, 0, 0],
    [-1, -1, -1, -1, -1, 0],
    [1, -1, 1, -1],
    [0.25, 0.25, -0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25],
    [1] * 30 + [-1] * 12 + [0] * 5,           # large n: closed form, never Monte Carlo
    [0, 0, 0],
])
def test_three_valued_differences_get_the_exact_mcnemar_p(d):
    p, method = sf.sign_flip_p(d)
    pos, neg = sum(x > 0 for x in d), sum(x < 0 for x in d)
    assert method == "exact McNemar"
    assert p == pytest.approx(mcnemar(pos, neg), rel=1e-12)
    if len(d) <= 14:
        assert p == pytest.approx(brute_sign_flip(d), rel=1e-12)


def test_mcnemar_needs_one_magnitude_within_the_relative_tolerance():
    assert sf.sign_flip_p([1.0, 1.0 + 1e-12, -1.0, 1.0, 1.0])[1] == "exact McNemar"
    assert sf.sign_flip_p([1.0, 1.0 + 1e-6, -1.0, 1.0, 1.0])[1] == "exact"
    # a value below tol * max counts as zero (no sign): still McNemar
    assert sf.sign_flip_p([1.0, 1e-12, -1.0, 1.0, 1.0])[1] == "exact McNemar"
    big = [3.0] * 20 + [-3.0] * 3
    assert sf.sign_flip_p(big) == (pytest.approx(mcnemar(20, 3), rel=1e-12), "exact McNemar")


def test_beyond_the_monte_carlo_limit_light_tails_use_the_normal_limit():
    d = np.random.default_rng(2).normal(0.05, 1, sf.MONTE_CARLO_MAX_N + 1)
    p, method = sf.sign_flip_p(d)
    assert method == "normal-limit"
    assert p == pytest.approx(2 * sps.norm.sf(abs(d.sum()) / math.sqrt((d ** 2).sum())), rel=1e-9)


def test_heavy_tailed_long_rows_stay_on_seeded_monte_carlo():
    rng = np.random.default_rng(5)
    d = rng.normal(0, 1, 1200)
    d[:3] = [80.0, -60.0, 90.0]                    # mean|d|^3 / mean(d^2)^1.5 well above 3
    m2, m3 = np.mean(d ** 2), np.mean(np.abs(d) ** 3)
    assert m3 / m2 ** 1.5 > sf.HEAVY_TAIL_RATIO
    p, method = sf.sign_flip_p(d, seed=2)
    assert method == "monte-carlo"
    draws = int(max(2000, min(sf.MONTE_CARLO_DRAWS, sf.MONTE_CARLO_WORK // d.size)))
    hits = p * (draws + 1) - 1
    assert hits == pytest.approx(round(hits), abs=1e-6)
    assert 0 < p < 1


def test_rows_share_one_sign_matrix_and_each_is_its_own_p():
    rng = np.random.default_rng(6)
    d = rng.normal(0.3, 1, (4, 9))
    d[2] = [1, -1, 1, 1, 0, 1, 1, -1, 1]              # a McNemar row among exact rows
    p, methods = sf.sign_flip_rows(d)
    assert methods == ["exact", "exact", "exact McNemar", "exact"]
    for r in range(4):
        assert p[r] == pytest.approx(brute_sign_flip(d[r]), rel=1e-12)


def test_per_arm_sums_give_the_pairs_own_p():
    # differences of arms (d[r] = x[first[r]] - x[second[r]]): the per-arm path must equal the plain one
    rng = np.random.default_rng(7)
    x = rng.normal(0, 1, (3, 8)) + np.array([[0.0], [0.8], [1.5]])
    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    d = x[first] - x[second]
    # 3 pairs > 2 arms would be needed: use 4 arms for the per-arm path (rows > arms)
    x4 = np.vstack([x, rng.normal(0.2, 1, 8)])
    f4, s4 = np.array([0, 0, 0, 1, 1, 2]), np.array([1, 2, 3, 2, 3, 3])
    d4 = x4[f4] - x4[s4]
    p, _ = sf.sign_flip_rows(d4, 0, x4, f4, s4)
    for r in range(d4.shape[0]):
        assert p[r] == pytest.approx(brute_sign_flip(d4[r]), rel=1e-12)
    assert sf.sign_flip_rows(d, 0, x, first, second)[0] == pytest.approx([brute_sign_flip(r) for r in d])


def test_no_seeds_is_p_one():
    p, methods = sf.sign_flip_rows(np.empty((2, 0)))
    assert p.tolist() == [1.0, 1.0] and methods == ["none", "none"]


@pytest.mark.parametrize("xa, xb", [
    ([0.1, 0.5, 0.9], [0.2, 0.3]),
    ([1.0, 2.0, 3.0, 4.0], [2.5, 3.5, 6.0, 1.0, 0.0]),
    ([1.0, 1.0, 2.0], [1.0, 2.0, 2.0]),          # ties of the statistic
    ([5.0], [1.0, 2.0, 3.0]),
])
def test_exact_permutation_p_equals_brute_force(xa, xb):
    assert sf.permutation_p(np.array(xa), np.array(xb), seed=0) == pytest.approx(brute_permutation(xa, xb), rel=1e-12)


def test_permutation_p_without_runs_is_nan_and_large_arms_are_seeded_monte_carlo():
    assert math.isnan(sf.permutation_p(np.array([]), np.array([1.0]), 0))
    assert math.isnan(sf.permutation_p(np.array([1.0]), np.array([]), 0))
    rng = np.random.default_rng(8)
    xa, xb = rng.normal(0.5, 1, 12), rng.normal(0, 1, 12)       # C(24, 12) = 2.7 million splits
    p = sf.permutation_p(xa, xb, seed=1)
    assert p == sf.permutation_p(xa, xb, seed=1) and p != sf.permutation_p(xa, xb, seed=2)
    hits = p * (sf.MONTE_CARLO_DRAWS + 1) - 1
    assert hits == pytest.approx(round(hits), abs=1e-6) and p > 0
    # close to Welch's p on normal data (Monte Carlo error ~0.0035, test difference ~0.02 at n = 12)
    assert abs(p - sps.ttest_ind(xa, xb).pvalue) < 0.05


# -- second round (mutation run of this module): seeds, per-row statistics, boundaries, the +1 rule -----------

def test_the_default_seed_is_zero_and_draws_do_not_depend_on_the_cache():
    d15 = np.random.default_rng(4).normal(0.4, 1, 15)
    assert sf.sign_flip_p(d15) == sf.sign_flip_p(d15, seed=0)
    assert sf.sign_flip_rows(d15[None, :])[0][0] == sf.sign_flip_p(d15, seed=0)[0]
    first = sf._draw_signs(15, 3, 50)
    assert np.array_equal(first, sf._draw_signs(15, 3, 50))        # seeded, not from the global generator
    # the stream is numpy's int8 draw of {0, 1} mapped to -1/+1: the same inputs give the same p, byte for byte
    want = (np.random.default_rng(3).integers(0, 2, size=(50, 15), dtype=np.int8) * 2 - 1).astype(float)
    assert np.array_equal(first, want)
    # rows too long to cache (n * draws > 4e6) are drawn from the seed as well
    d300 = np.random.default_rng(1).normal(0.1, 1, 300)
    assert sf.sign_flip_p(d300, seed=5) == sf.sign_flip_p(d300, seed=5)


def test_monte_carlo_p_is_hits_plus_one_over_draws_plus_one():
    d = np.linspace(1.0, 2.0, 40)            # no random pattern reaches the all-positive sum (chance 2**-39)
    assert sf.sign_flip_p(d, seed=0)[0] == 1 / 20001
    d15 = np.random.default_rng(4).normal(0.4, 1, 15)
    signs = sf._draw_signs(15, 3, 20000)
    hits = np.count_nonzero(np.abs(signs @ d15) >= abs(d15.sum()) - 1e-9 * np.abs(d15).sum())
    assert sf.sign_flip_p(d15, seed=3)[0] == (hits + 1) / 20001


def test_the_observed_pattern_always_counts_even_when_the_tolerance_underflows():
    # subnormal differences: 1e-9 of their sum is 0, and the observed sum itself must still count (p = 2 / 8)
    assert sf.sign_flip_p([1e-320, 2e-320, 4e-320]) == (0.25, "exact")
    # arms that always score the same: every split ties the observed 0
    assert sf.permutation_p(np.zeros(3), np.zeros(2), 0) == 1.0
    assert sf.permutation_p(np.zeros(12), np.zeros(12), 0) == 1.0          # Monte Carlo: 20000 hits of 20000


def test_separated_arms_give_the_smallest_monte_carlo_permutation_p():
    xa, xb = np.linspace(100, 101, 12), np.linspace(-1, 0, 12)      # only the observed split (or its mirror)
    assert sf.permutation_p(xa, xb, seed=0) == 1 / 20001


def hypergeometric_permutation_p(ka, na, kb, nb):
    """Exact two-sided permutation p of a difference of means of 0/1 rewards: the count of ones in arm a is
    hypergeometric; |mean difference| = |k / na - (K - k) / nb| is at least the observed (same tie rule)."""
    K, N = ka + kb, na + nb
    obs = abs(ka / na - kb / nb)
    return sum(sps.hypergeom.pmf(k, N, K, na) for k in range(max(0, K - nb), min(K, na) + 1)
               if abs(k / na - (K - k) / nb) >= obs - 1e-9 * max(1.0, obs))


@pytest.mark.parametrize("ka, kb", [(9, 4), (7, 6), (11, 3)])
def test_monte_carlo_permutation_p_on_binary_rewards_is_close_to_the_exact_one(ka, kb):
    # C(24, 12) splits: Monte Carlo; many splits tie the observed statistic exactly, so ties must count
    xa = np.array([1.0] * ka + [0.0] * (12 - ka))
    xb = np.array([1.0] * kb + [0.0] * (12 - kb))
    exact = hypergeometric_permutation_p(ka, 12, kb, 12)
    assert abs(sf.permutation_p(xa, xb, seed=1) - exact) < 0.015       # sd of the estimate <= 0.0035


def test_each_row_gets_its_own_mcnemar_counts():
    d = np.array([[1, 1, 1, 1, 1, 1, 1, 0, -1], [1, -1, 0, 0, 1, -1, 0, 1, 0], [-1, -1, -1, -1, 0, 0, 0, 0, 0]],
                 dtype=float)
    p, methods = sf.sign_flip_rows(d)
    assert methods == ["exact McNemar"] * 3
    assert p.tolist() == pytest.approx([mcnemar(7, 1), mcnemar(3, 2), mcnemar(0, 4)], rel=1e-12)


def test_booleans_are_read_as_numbers():
    p, methods = sf.sign_flip_rows(np.array([[True, False, True, True]]))
    assert methods == ["exact McNemar"] and p[0] == pytest.approx(mcnemar(3, 0))


def test_mcnemar_tolerances_are_relative_to_the_largest_magnitude():
    # a value exactly 1e-9 of the largest counts as zero, 1e-9 at magnitude 2 too; 1.5e-9 below 2 is magnitude 2
    assert sf.sign_flip_p([1.0, 1e-9, -1.0, 1.0, 1.0])[1] == "exact McNemar"
    assert sf.sign_flip_p([2.0, 1e-9, -2.0, 2.0, 2.0])[1] == "exact McNemar"
    assert sf.sign_flip_p([2.0, 2.0 - 1.5e-9, -2.0, 2.0, 2.0])[1] == "exact McNemar"
    # a magnitude exactly 1e-9 (relative) from the largest is the same magnitude
    top, close = float.fromhex("0x1.000001635e000p+0"), float.fromhex("0x1.0000015f127d0p+0")
    assert abs(close - top) == sf.TIE_RTOL * top
    assert sf.sign_flip_p([top, close, -top, top, top])[1] == "exact McNemar"


def test_the_monte_carlo_limit_is_inclusive():
    d = np.random.default_rng(2).normal(0.05, 1, 1000)
    assert sf.sign_flip_p(d)[1] == "monte-carlo"


def test_the_normal_limit_at_any_scale():
    d = np.random.default_rng(2).normal(0.05, 1, 1001) * 1e-3      # sum of squares below 1
    p, method = sf.sign_flip_p(d)
    assert method == "normal-limit"
    assert p == pytest.approx(2 * sps.norm.sf(abs(d.sum()) / math.sqrt((d ** 2).sum())), rel=1e-9)


def test_the_tail_ratio_is_per_row_and_scale_free(monkeypatch):
    monkeypatch.setattr(sf, "MONTE_CARLO_WORK", 2.4e6)      # 2000 draws for the heavy row: the test stays cheap
    rng = np.random.default_rng(5)
    light = rng.normal(0, 1, 1200)
    heavy = rng.normal(0, 1, 1200)
    heavy[:3] = [80.0, -60.0, 90.0]
    for scale in (1e-2, 1.0, 10.0):
        _, methods = sf.sign_flip_rows(np.vstack([light * scale, heavy * scale, light * scale]))
        assert methods == ["normal-limit", "monte-carlo", "normal-limit"], scale
    # rows of different scales in one matrix: each row's ratio is its own (a pooled mean(d^2) hides the tail)
    _, methods = sf.sign_flip_rows(np.vstack([light * 100.0, heavy]))
    assert methods == ["normal-limit", "monte-carlo"]


def test_a_tail_ratio_of_exactly_three_keeps_the_normal_limit():
    # 128 ones, 32 twos, 864 zeros: mean|d|^3 / mean(d^2)^1.5 = (384/1024) / (256/1024)^1.5 = 3 exactly
    d = np.zeros(1024)
    d[:128], d[128:160] = 1.0, 2.0
    assert np.mean(np.abs(d) ** 3) / np.mean(d * d) ** 1.5 == 3.0
    assert sf.sign_flip_p(d)[1] == "normal-limit"


def test_long_heavy_rows_draw_work_over_n_but_at_least_2000(monkeypatch):
    rng = np.random.default_rng(5)
    d = rng.normal(0, 1, 1200)
    d[:3] = [80.0, -60.0, 90.0]
    for work, draws in [(2e6, 2000), (3e6, 2500)]:      # 2e6 // 1200 = 1666 -> the floor; 3e6 // 1200 = 2500
        monkeypatch.setattr(sf, "MONTE_CARLO_WORK", work)
        p, method = sf.sign_flip_p(d, seed=2)
        signs = sf._draw_signs(1200, 2, draws)
        hits = np.count_nonzero(np.abs(signs @ d) >= abs(d.sum()) - 1e-9 * np.abs(d).sum())
        assert method == "monte-carlo" and p == (hits + 1) / (draws + 1)


def test_per_arm_sums_count_near_ties_within_the_relative_tolerance():
    # pair (0, 1) differs by [0.3, 0.5, -(0.3 - 1e-10)] (sum 0.5 + 1e-10): flipping the second (or the first and
    # last) gives |sum| 0.5 - 1e-10, a tie by the 1e-9 relative rule; the per-arm subtraction must keep it
    x = np.array([[0.3, 0.5, 0.0], [0.0, 0.0, 0.3 - 1e-10], [0.2, 0.9, 0.4], [0.6, 0.1, 0.8]])
    first, second = np.array([0, 0, 0, 1, 1, 2]), np.array([1, 2, 3, 2, 3, 3])
    d = x[first] - x[second]
    p, _ = sf.sign_flip_rows(d, 0, x, first, second)
    assert p.tolist() == [brute_sign_flip(r) for r in d]
    assert p[0] == 0.75                 # 6 of 8; without the near ties 4 of 8
