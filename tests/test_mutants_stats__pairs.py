"""The pair tests' rules (statistics/stats.py) at their edges, against independent references where the rule is
stats.py's own.

Welch's interval, p and degrees of freedom are checked against scipy.stats.ttest_ind(equal_var=False); the
permutation p of small unpaired arms against a plain-Python enumeration of every split; the paired t p
against the closed form of Student t at 1 df. Where stats.py composes other modules' results (sign-flip p,
pair_interval, betting bounds) the test names the composition the docstrings state (alpha/4 per side for
each arm's betting interval, the seeds both arms scored, one-pair numbers for the array route). Also the
zero-spread rules (1e-12 relative to the mean, at least 1e-12), inputs read as floats, the defaults, n = 0,
1, 2, and no numpy warnings on degenerate rows.
"""
from __future__ import annotations

import itertools
import math
import warnings
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats as sps

from baselines.analysis.statistics.betting import mean_bounds
from baselines.analysis.statistics.pair_interval import pair_interval
from baselines.analysis.statistics.sign_flip import permutation_p, sign_flip_p
from baselines.analysis.statistics.stats import all_pairs, degenerate, paired_test, unpaired_test
from baselines.analysis.statistics.student_t import mde_factor, min_detectable_effect

# scipy warns of precision loss on the references with nearly equal values; the code under test is checked
# for warnings separately (warnings as errors)
pytestmark = pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")

FIELDS = ("a", "b", "n", "diff", "ci", "p", "p_method", "p_t", "sd", "paired", "mde", "interval_method",
          "reward_range")


def same(r1, r2) -> None:
    for f in FIELDS:
        v1, v2 = getattr(r1, f), getattr(r2, f)
        if isinstance(v1, tuple) and v1 and isinstance(v1[0], float):
            assert v1 == pytest.approx(v2, nan_ok=True, rel=1e-12, abs=1e-15), f
        elif isinstance(v1, float):
            assert v1 == pytest.approx(v2, nan_ok=True, rel=1e-12, abs=1e-15), f
        else:
            assert v1 == v2, f


def exact_permutation_p(xa, xb) -> float:
    pooled = list(xa) + list(xb)
    observed = abs(sum(xa) / len(xa) - sum(xb) / len(xb))
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), len(xa)):
        a = [pooled[i] for i in idx]
        b = [pooled[i] for i in range(len(pooled)) if i not in idx]
        total += 1
        hits += abs(sum(a) / len(a) - sum(b) / len(b)) >= observed - 1e-9
    return hits / total


# -- degenerate ------------------------------------------------------------------------------------
def test_degenerate_means_all_differences_equal_to_a_relative_1e12():
    assert degenerate(np.array([0.3, 0.3, 0.3]))
    assert not degenerate(np.array([0.3]))                       # one value: nothing to compare
    assert not degenerate(np.array([]))
    assert degenerate(np.array([0.0, 1e-12]))                    # at the tolerance of 1
    assert not degenerate(np.array([0.0, 2e-12]))
    assert degenerate(np.array([0.5, 0.5 + 5e-13]))               # values below 1 do not lower it
    assert degenerate(np.array([1e6, 1e6 + 1e-7]))                # 1e-12 of 1e6 is 1e-6
    assert not degenerate(np.array([1e6, 1e6 + 2e-6]))
    assert degenerate(np.array([-1e6, -1e6 + 1e-7]))              # relative to the largest magnitude
    assert not degenerate(np.array([0.1, 0.2]))


# -- paired_test -----------------------------------------------------------------------------------
def test_paired_test_reads_values_as_floats_and_uses_both_arms():
    xa, xb = [Decimal("0.5"), Decimal("0.9"), Decimal("0.1")], [Decimal("0.2"), Decimal("0.4"), Decimal("0.3")]
    same(paired_test("a", "b", xa, xb), paired_test("a", "b", [0.5, 0.9, 0.1], [0.2, 0.4, 0.3]))
    same(paired_test("a", "b", [0.5, 0.9, 0.1], xb), paired_test("a", "b", [0.5, 0.9, 0.1], [0.2, 0.4, 0.3]))


def test_the_range_is_detected_on_both_arms():
    """0/1 rewards in one arm only are not pass/fail: the other arm's 0.5 says the rewards are not bounded to {0, 1}."""
    r = paired_test("a", "b", [0.0, 1.0, 1.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5, 0.5])
    assert r.reward_range is None and r.interval_method != "t" and not r.interval_method.startswith("betting")
    both = paired_test("a", "b", [0.0, 1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0, 0.0])
    assert both.reward_range == (0.0, 1.0) and both.interval_method.startswith("betting")


def test_paired_test_fields_against_their_definitions():
    xa, xb = np.array([0.9, 0.4, 1.3, 0.2, 0.8]), np.array([0.5, 0.6, 0.2, 0.1, 0.3])
    d = xa - xb
    r = paired_test("x", "y", xa, xb, level=0.9)
    assert (r.a, r.b, r.n, r.paired) == ("x", "y", 5, True)
    assert r.diff == pytest.approx(d.mean()) and r.sd == pytest.approx(d.std(ddof=1))
    assert r.p_t == pytest.approx(sps.ttest_1samp(d, 0.0).pvalue, rel=1e-9)
    p, method = sign_flip_p(d, 0)
    assert (r.p, r.p_method) == (p, f"sign-flip {method}")
    lo, hi, how = pair_interval(d, 0.9, None, 0)
    assert r.ci == (lo, hi) and r.interval_method == how
    assert r.mde == pytest.approx(mde_factor(5, 0.1, 0.8) * d.std(ddof=1), rel=1e-12)   # alpha = 1 - level


def test_two_seeds_get_the_t_p_of_one_df():
    r = paired_test("a", "b", [1.0, 0.0], [0.4, 0.2])           # d = (0.6, -0.2): mean .2, sd sqrt(.32)
    t = 0.2 / (math.sqrt(0.32) / math.sqrt(2))
    assert r.p_t == pytest.approx(2 * (0.5 - math.atan(t) / math.pi), rel=1e-9)


def test_one_or_no_seed_gives_no_interval_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = paired_test("a", "b", [0.5], [0.2])
        none = paired_test("a", "b", [], [])
    assert one.n == 1 and one.diff == pytest.approx(0.3) and math.isnan(one.sd)
    assert math.isnan(one.ci[0]) and math.isnan(one.ci[1]) and one.interval_method == "t" and one.mde == math.inf
    assert none.n == 0 and math.isnan(none.diff) and math.isnan(none.sd) and none.interval_method == "t"


def test_the_default_level_and_seed_are_95_and_0():
    rng = np.random.default_rng(11)
    xa, xb = rng.lognormal(size=30), rng.lognormal(size=30)      # 2**30 patterns: seeded sign flips
    default = paired_test("a", "b", xa, xb)
    same(default, paired_test("a", "b", xa, xb, 0.95, 0))
    assert sign_flip_p(xa - xb, 1)[0] != sign_flip_p(xa - xb, 0)[0]
    xa6, xb6 = rng.lognormal(size=6), rng.lognormal(size=6)       # the hull's bootstrap is seeded too
    assert paired_test("a", "b", xa6, xb6).ci == pair_interval(xa6 - xb6, 0.95, None, 0)[:2]


# -- unpaired_test ---------------------------------------------------------------------------------
UA, UB = [1.0, 2.0, 3.5], [0.2, 0.1, 0.9, 1.4]


@pytest.mark.parametrize("level", [0.95, 0.9])
@pytest.mark.parametrize("xa,xb", [(UA, UB), (UB, UA), ([0.3, 0.35, 0.5, 0.1, 0.2], [2.0, -1.0]),
                                   ([5.0, 5.0, 5.0], [1.0, 2.0, 4.0]), ([1.0, 2.0, 4.0], [3.0, 3.0])])
def test_welch_interval_and_p_are_scipys(xa, xb, level):
    r = unpaired_test("a", "b", xa, xb, level)
    ref = sps.ttest_ind(xa, xb, equal_var=False)
    assert r.diff == pytest.approx(np.mean(xa) - np.mean(xb), rel=1e-12)
    assert r.p_t == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(level)
    assert r.ci == pytest.approx((ci.low, ci.high), rel=1e-9)
    se = math.sqrt(np.var(xa, ddof=1) / len(xa) + np.var(xb, ddof=1) / len(xb))
    n = min(len(xa), len(xb))
    assert (r.n, r.paired, r.interval_method, r.p_method) == (n, False, "Welch t", "permutation (unpaired)")
    assert r.sd == pytest.approx(se * math.sqrt(n), rel=1e-12)
    assert r.mde == pytest.approx(min_detectable_effect(se * math.sqrt(n), n, 1 - level), rel=1e-12)
    assert r.reward_range is None and (r.a, r.b) == ("a", "b")


def test_the_default_level_is_95():
    same(unpaired_test("a", "b", UA, UB), unpaired_test("a", "b", UA, UB, 0.95, 0))
    ci = sps.ttest_ind(UA, UB, equal_var=False).confidence_interval(0.95)
    assert unpaired_test("a", "b", UA, UB).ci == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_the_permutation_p_of_small_arms_is_the_share_of_splits_as_far_apart():
    assert unpaired_test("a", "b", UA, UB).p == pytest.approx(exact_permutation_p(UA, UB), abs=1e-12)


def test_the_permutation_p_of_large_arms_uses_the_seed_default_zero():
    rng = np.random.default_rng(2)
    xa, xb = rng.normal(size=12), rng.normal(0.3, 1.0, size=12)   # C(24, 12) splits: Monte Carlo
    assert unpaired_test("a", "b", xa, xb).p == permutation_p(xa, xb, 0)
    assert unpaired_test("a", "b", xa, xb, seed=3).p == permutation_p(xa, xb, 3) != permutation_p(xa, xb, 0)


def test_unpaired_values_are_read_as_floats():
    same(unpaired_test("a", "b", [Decimal(str(v)) for v in UA], UB), unpaired_test("a", "b", UA, UB))
    same(unpaired_test("a", "b", UA, [Decimal(str(v)) for v in UB]), unpaired_test("a", "b", UA, UB))


def test_an_arm_with_no_values_gives_no_difference_and_one_value_no_welch():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = unpaired_test("a", "b", [], [0.2, 0.4])
        empty_b = unpaired_test("a", "b", [0.0, 1.0], [])
    assert math.isnan(empty.diff) and math.isnan(empty_b.diff) and empty.reward_range is None
    assert empty_b.reward_range is None and empty_b.interval_method == "Welch t"
    for xa, xb in [([0.5], [0.1, 0.2, 0.9]), ([0.1, 0.2, 0.9], [0.5])]:
        one = unpaired_test("a", "b", xa, xb)
        assert one.diff == pytest.approx(np.mean(xa) - np.mean(xb))
        assert math.isnan(one.p_t) and math.isnan(one.sd) and math.isnan(one.ci[0]) and math.isnan(one.ci[1])
    two = unpaired_test("a", "b", [0.5, 0.7], [0.1, 0.4])          # two each are enough for Welch
    ref = sps.ttest_ind([0.5, 0.7], [0.1, 0.4], equal_var=False)
    assert two.p_t == pytest.approx(ref.pvalue, rel=1e-9)


def test_no_spread_in_either_arm():
    """Welch's df is undefined with no spread: the interval is the point, p 1 at equal means and 0 otherwise."""
    same_means = unpaired_test("a", "b", [0.5, 0.5, 0.5], [0.5, 0.5])      # exact in binary: variances 0
    assert same_means.p_t == 1.0 and same_means.ci == (0.0, 0.0) and same_means.sd == 0.0
    apart = unpaired_test("a", "b", [0.75, 0.75, 0.75], [0.5, 0.5])
    assert apart.p_t == 0.0 and apart.ci == (0.25, 0.25) and apart.sd == 0.0


def test_no_spread_in_one_arm_leaves_the_others_df():
    """va = 0: Welch's df is (vb)^2 / (vb^2 / (nb - 1)) = nb - 1 (scipy agrees)."""
    r = unpaired_test("a", "b", [5.0, 5.0, 5.0], [1.0, 2.0, 4.0, 0.5, 3.3])
    ref = sps.ttest_ind([5.0, 5.0, 5.0], [1.0, 2.0, 4.0, 0.5, 3.3], equal_var=False)
    assert ref.df == pytest.approx(4.0) and r.p_t == pytest.approx(ref.pvalue, rel=1e-9)
    r2 = unpaired_test("a", "b", [1.0, 2.0, 4.0, 0.5, 3.3], [5.0, 5.0])
    ref2 = sps.ttest_ind([1.0, 2.0, 4.0, 0.5, 3.3], [5.0, 5.0], equal_var=False)
    assert r2.p_t == pytest.approx(ref2.pvalue, rel=1e-9)
    ci = ref2.confidence_interval(0.95)
    assert r2.ci == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_tiny_spreads_are_still_spreads():
    """se of 1e-4 (below 1): the t p, not the zero-spread rule."""
    xa, xb = [0.5, 0.5001, 0.4999], [0.5, 0.50005, 0.49995]
    r = unpaired_test("a", "b", xa, xb)
    assert r.p_t == pytest.approx(sps.ttest_ind(xa, xb, equal_var=False).pvalue, rel=1e-6)
    xa, xb = [0.50002, 0.5001, 0.49992], [0.5, 0.50005, 0.49995]
    r = unpaired_test("a", "b", xa, xb)
    assert r.p_t == pytest.approx(sps.ttest_ind(xa, xb, equal_var=False).pvalue, rel=1e-6)
    assert 0 < r.p_t < 1


@pytest.mark.parametrize("level", [0.95, 0.9])
@pytest.mark.parametrize("rng_,xa,xb", [(None, [0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
                                         ((2.0, 5.0), [2.5, 4.0, 3.0, 5.0], [2.0, 2.2, 3.9])])
def test_bounded_unpaired_arms_get_the_difference_of_two_betting_intervals_at_alpha_over_4(rng_, xa, xb, level):
    r = unpaired_test("p", "q", xa, xb, level, reward_range=rng_)
    lo, hi = rng_ or (0.0, 1.0)
    quarter = (1 - level) / 4
    la, ua = mean_bounds(np.array(xa), quarter, lo, hi)
    lb, ub = mean_bounds(np.array(xb), quarter, lo, hi)
    assert r.ci == pytest.approx((la - ub, ua - lb), abs=1e-12)
    assert r.reward_range == (lo, hi)
    assert r.interval_method == f"betting (distribution-free, rewards in [{lo:g}, {hi:g}]), unpaired"
    assert r.p == pytest.approx(exact_permutation_p(xa, xb), abs=1e-12)


def test_a_declared_range_reaches_unpaired_arms():
    r = unpaired_test("a", "b", [0.2, 0.3], [0.5, 0.4, 0.45], reward_range=(0.0, 1.0))
    assert r.reward_range == (0.0, 1.0) and r.interval_method.startswith("betting")
    with pytest.raises(ValueError, match="outside"):
        unpaired_test("a", "b", [0.2, 3.0], [0.5, 0.4], reward_range=(0.0, 1.0))
    with pytest.raises(ValueError, match="outside"):
        unpaired_test("a", "b", [0.2, 0.3], [0.5, 4.0], reward_range=(0.0, 1.0))


def test_pass_fail_needs_both_arms_to_be_zero_or_one():
    assert unpaired_test("a", "b", [0.0, 1.0, 1.0], [0.5, 0.25]).reward_range is None
    assert unpaired_test("a", "b", [0.5, 0.25], [0.0, 1.0, 1.0]).reward_range is None
    assert unpaired_test("a", "b", [0.0, 1.0, 1.0], [1.0, 1.0]).reward_range == (0.0, 1.0)


# -- all_pairs -------------------------------------------------------------------------------------
def test_every_pair_or_every_arm_against_the_baseline():
    x = np.array([[0.1, 0.5, 0.9], [0.4, 0.2, 0.3], [0.8, 0.7, 1.1]])
    assert [(r.a, r.b) for r in all_pairs(["a", "b", "c"], x)] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert [(r.a, r.b) for r in all_pairs(["a", "b", "c"], x, baseline="b")] == [("a", "b"), ("c", "b")]


def test_complete_rows_get_the_one_pair_numbers_at_any_level_and_range():
    rng = np.random.default_rng(4)
    x = rng.lognormal(size=(4, 7))
    for level in (0.95, 0.9):
        for r in all_pairs(list("abcd"), x, level, seed=3):
            i, j = "abcd".index(r.a), "abcd".index(r.b)
            same(r, paired_test(r.a, r.b, x[i], x[j], level, 3))
    b = (rng.uniform(size=(3, 6)) < 0.5).astype(float)
    for r in all_pairs(list("abc"), b, 0.9):
        i, j = "abc".index(r.a), "abc".index(r.b)
        same(r, paired_test(r.a, r.b, b[i], b[j], 0.9, 0))
        assert r.reward_range == (0.0, 1.0) and r.interval_method.startswith("betting")
    u = rng.uniform(2.0, 5.0, size=(3, 6))
    for r in all_pairs(list("abc"), u, reward_range=(2.0, 5.0), baseline="a"):
        same(r, paired_test(r.a, r.b, u["abc".index(r.a)], u[0], 0.95, 0, (2.0, 5.0)))


def test_the_defaults_are_95_percent_and_seed_0():
    rng = np.random.default_rng(8)
    x = rng.lognormal(size=(3, 30))
    x[2, 4] = np.nan                                             # one pair through paired_test, one array
    for r, ref in zip(all_pairs(list("abc"), x), all_pairs(list("abc"), x, 0.95, 0)):
        same(r, ref)
    r = all_pairs(list("ab"), x[:2])[0]
    p, _ = sign_flip_p(x[0] - x[1], 0)
    assert r.p == p


def test_missing_scores_use_the_seeds_both_arms_scored():
    nan = np.nan
    x = np.array([[0.1, 0.5, nan, 0.9, 0.3], [0.4, nan, 0.2, 0.3, 0.8], [0.8, 0.7, 1.1, 0.0, 0.6]])
    for level, seed, rng_ in [(0.95, 0, None), (0.9, 5, (0.0, 2.0))]:
        out = all_pairs(list("abc"), x, level, seed, reward_range=rng_)
        for r in out:
            i, j = "abc".index(r.a), "abc".index(r.b)
            both = ~np.isnan(x[i]) & ~np.isnan(x[j])
            same(r, paired_test(r.a, r.b, x[i][both], x[j][both], level, seed, rng_))
    assert [r.n for r in all_pairs(list("abc"), x)] == [3, 4, 4]


def test_two_shared_seeds_are_paired_and_fewer_unpaired_on_every_value():
    nan = np.nan
    x = np.array([[0.1, 0.5, nan, nan, 0.9], [0.4, 0.6, 0.2, 0.3, nan]])
    two = all_pairs(["a", "b"], x)[0]
    assert two.paired and two.n == 2
    same(two, paired_test("a", "b", [0.1, 0.5], [0.4, 0.6]))
    y = np.array([[0.1, nan, nan, 0.7, 0.9], [nan, 0.6, 0.2, 0.3, nan]])
    for level, seed, rng_ in [(0.95, 0, None), (0.9, 4, (0.0, 1.0))]:
        one = all_pairs(["a", "b"], y, level, seed, reward_range=rng_)[0]
        assert not one.paired
        same(one, unpaired_test("a", "b", [0.1, 0.7, 0.9], [0.6, 0.2, 0.3], level, seed, rng_))


def test_unpaired_fallback_keeps_the_group_range_and_the_seed():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 26))
    x[0, 13:] = np.nan
    x[1, :13] = np.nan                                           # no shared seed; C(26, 13) splits: seeded
    for seed in (0, 7):
        r = all_pairs(["a", "b"], x, seed=seed)[0]
        assert r.p == permutation_p(x[0, :13], x[1, 13:], seed)
    b = np.array([[0.0, 1.0, np.nan, np.nan], [np.nan, np.nan, 1.0, 1.0], [1.0, 0.0, 0.0, 1.0]])
    r = all_pairs(list("abc"), b)[0]
    assert not r.paired and r.reward_range == (0.0, 1.0)        # 0/1 over the whole group


def test_the_group_range_is_detected_over_every_arm():
    """Arms a, b are 0/1 but c scores 0.5: the group is not pass/fail, so a - b gets no betting interval."""
    x = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.5, 1.0, 0.0, 1.0]])
    assert all(r.reward_range is None and r.interval_method != "betting" for r in all_pairs(list("abc"), x))


def test_a_matrix_with_missing_values_given_as_none():
    rows = [[0.1, 0.5, None, 0.9], [0.4, 0.6, 0.2, 0.3]]
    same(all_pairs(["a", "b"], rows)[0], paired_test("a", "b", [0.1, 0.5, 0.9], [0.4, 0.6, 0.3]))


def test_no_seeds_at_all():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = all_pairs(["a", "b", "c"], np.empty((3, 0)))
    assert [(x.a, x.b, x.n, x.paired) for x in r] == [("a", "b", 0, False), ("a", "c", 0, False), ("b", "c", 0, False)]
    assert all(math.isnan(x.diff) for x in r)


def test_one_seed_complete_rows():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = all_pairs(["a", "b"], np.array([[0.7], [0.2]]))[0]
    assert r.n == 1 and r.diff == pytest.approx(0.5) and r.mde == math.inf
    assert math.isnan(r.sd) and math.isnan(r.p_t) and math.isnan(r.ci[0]) and r.interval_method == "t"
    assert isinstance(r.sd, float) and isinstance(r.p_t, float)


def test_array_route_zero_spread_p_without_warnings():
    """No spread: p 1 at mean 0, 0 otherwise (divide and 0/0 both reached, neither warns)."""
    x = np.array([[0.5, 0.5, 0.5], [0.25, 0.25, 0.25], [0.5, 0.5, 0.5]])     # exact in binary: sd exactly 0
    assert (x[0] - x[1]).std(ddof=1) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = {(r.a, r.b): r for r in all_pairs(list("abc"), x)}
    assert out[("a", "c")].p_t == 1.0 and out[("a", "b")].p_t == 0.0 and out[("b", "c")].p_t == 0.0
    assert all(isinstance(r.p_t, float) for r in out.values())


def test_array_route_zero_spread_tolerance_matches_the_one_pair_rule():
    """1e-12 of the larger of 1 and |mean|, a spread exactly at it counting as none (as t_pvalue does)."""
    # d = (0, b): sd = b / sqrt(2) computed as exactly 1e-12 at this b (mean 7e-13, below 1)
    b = 1.4142135623730951e-12
    d = np.array([0.0, b])
    assert d.std(ddof=1) == 1e-12
    x = np.array([d, [0.0, 0.0]])
    r = all_pairs(["a", "b"], x)[0]
    assert r.p_t == 0.0 == paired_test("a", "b", d, [0.0, 0.0]).p_t
    for rows in ([[0.0, 2.0e-12], [0.0, 0.0]],                  # sd 1.4e-12 above the tolerance of 1
                 [[0.0, 2.5e-12], [0.0, 0.0]],
                 [[1e6, 1e6 + 1e-5], [0.0, 0.0]],               # sd 7e-6 above 1e-12 of 1e6
                 [[0.1, 0.7, 0.2], [0.0, 0.0, 0.0]]):
        rows = np.array(rows)
        r = all_pairs(["a", "b"], rows)[0]
        ref = paired_test("a", "b", rows[0], rows[1])
        assert r.p_t == pytest.approx(ref.p_t, rel=1e-9) and r.p_t == pytest.approx(
            sps.ttest_1samp(rows[0] - rows[1], 0.0).pvalue, rel=1e-6)
    big = np.array([[1e6, 1e6 + 5e-7], [0.0, 0.0]])               # sd 3.5e-7 below 1e-12 of 1e6
    assert all_pairs(["a", "b"], big)[0].p_t == 0.0 == paired_test("a", "b", big[0], big[1]).p_t


def test_array_route_mde_uses_the_level():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, 6))
    r = all_pairs(["a", "b"], x, 0.9)[0]
    assert r.mde == pytest.approx(mde_factor(6, 0.1, 0.8) * (x[0] - x[1]).std(ddof=1), rel=1e-12)


def test_a_pair_with_missing_scores_passes_the_seed_on():
    """Seeded parts of an incomplete pair (Monte Carlo sign flips past exact enumeration, the hull's bootstrap)
    use the caller's seed: the numbers are those of seed 5, and not those of seed 0."""
    rng = np.random.default_rng(21)
    x = rng.lognormal(size=(2, 31))
    x[0, 3] = np.nan
    d = x[0][~np.isnan(x[0])] - np.delete(x[1], 3)
    r = all_pairs(["a", "b"], x, seed=5)[0]
    assert r.p_method == "sign-flip monte-carlo"
    assert r.p == sign_flip_p(d, 5)[0] != sign_flip_p(d, 0)[0]
    y = rng.lognormal(size=(2, 7))
    y[1, 0] = np.nan
    e = y[0, 1:] - y[1, 1:]
    r = all_pairs(["a", "b"], y, seed=5)[0]
    assert r.ci == pair_interval(e, 0.95, None, 5)[:2] != pair_interval(e, 0.95, None, 0)[:2]
