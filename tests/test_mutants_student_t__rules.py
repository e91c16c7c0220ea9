"""Student t's rules (statistics/student_t.py) against independent references, one test per rule a mutant broke.

References: printed t tables (3 decimals) and the closed forms of Student t at 1 and 2 degrees of freedom
(Cauchy: P(T > x) = 1/2 - atan(x)/pi; df 2: P(T > x) = 1/2 - x / (2 sqrt(2 + x^2))); the power of the
two-sided t test computed by integrating the normal tail over the chi distribution of the sd (not scipy's
noncentral t); the seed steps of `t_seeds_to_clear` as its docstring states them (by one to 100 seeds, then
by 10%) with the one-sided quantile from a table. Also the edge rules: n = 0, 1, 2, a zero or non-finite
spread, the zero-spread tolerance (relative to the mean, at least 1e-12) and the search's cap.
"""
from __future__ import annotations

import math
import warnings
from decimal import Decimal

import numpy as np
import pytest
from scipy import integrate

from baselines.analysis.statistics import student_t as st
from baselines.analysis.statistics.student_t import (mde_factor, min_detectable_effect, t_interval, t_pvalue,
                                                     t_quantile, t_seeds_to_clear, t_sf)

# two-sided 95% (q = .975) and one-sided 95% (q = .95) quantiles from a printed t table
TABLE_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 9: 2.262, 19: 2.093, 29: 2.045}
TABLE_95 = {1: 6.314, 2: 2.920, 4: 2.132, 9: 1.833, 19: 1.729, 99: 1.660}


def sf_df1(x: float) -> float:
    return 0.5 - math.atan(x) / math.pi


def sf_df2(x: float) -> float:
    return 0.5 - x / (2 * math.sqrt(2 + x * x))


def two_sided_power(df: int, ncp: float, crit: float) -> float:
    """P(|(Z + ncp) / (S / sqrt(df))| > crit), S ~ chi(df): the normal tails integrated over S."""
    log_norm = (df / 2 - 1) * math.log(2) + math.lgamma(df / 2)

    def density(s: float) -> float:
        return math.exp((df - 1) * math.log(s) - s * s / 2 - log_norm) if s > 0 else (
            math.sqrt(2 / math.pi) if df == 1 else 0.0)

    def tails(s: float) -> float:
        c = crit * s / math.sqrt(df)
        upper = 0.5 * math.erfc((c - ncp) / math.sqrt(2))      # Z + ncp > c
        lower = 0.5 * math.erfc((c + ncp) / math.sqrt(2))      # Z + ncp < -c
        return (upper + lower) * density(s)

    value, _ = integrate.quad(tails, 0, math.inf, epsabs=1e-13, epsrel=1e-12, limit=200)
    return value


# -- quantiles and tails ---------------------------------------------------------------------------
@pytest.mark.parametrize("df", sorted(TABLE_975))
def test_the_two_sided_95_quantile_is_the_table_value(df):
    assert t_quantile(0.975, df) == pytest.approx(TABLE_975[df], abs=6e-4)
    assert t_quantile(0.025, df) == pytest.approx(-TABLE_975[df], abs=6e-4)


@pytest.mark.parametrize("q", [0.6, 0.9, 0.975, 0.999])
def test_quantiles_at_one_and_two_df_invert_the_closed_forms(q):
    assert t_quantile(q, 1) == pytest.approx(math.tan(math.pi * (q - 0.5)), rel=1e-10)
    assert t_quantile(q, 2) == pytest.approx((2 * q - 1) / math.sqrt(2 * q * (1 - q)), rel=1e-10)


@pytest.mark.parametrize("x", [-3.0, -0.5, 0.0, 0.7, 2.0, 15.0])
def test_the_upper_tail_is_the_closed_form_at_one_and_two_df(x):
    assert t_sf(x, 1) == pytest.approx(sf_df1(x), rel=1e-10, abs=1e-15)
    assert t_sf(x, 2) == pytest.approx(sf_df2(x), rel=1e-10, abs=1e-15)


# -- the interval of a mean --------------------------------------------------------------------------
def test_no_values_give_three_nans_and_one_value_its_mean_without_bounds():
    assert all(math.isnan(v) for v in t_interval([]))
    mean, lo, hi = t_interval([0.4])
    assert mean == 0.4 and math.isnan(lo) and math.isnan(hi)


def test_no_values_give_nans_without_a_numpy_warning():
    """The empty case is answered before numpy's mean of nothing (a RuntimeWarning) is taken."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert all(math.isnan(v) for v in t_interval([]))
        assert all(math.isnan(v) for v in t_interval(np.array([], dtype=int)))


def test_values_are_read_as_floats():
    """None is a missing value (NaN, not a crash) and Decimals from a JSON reader are numbers."""
    mean, lo, hi = t_interval([None, 1.0, 2.0])
    assert math.isnan(mean) and math.isnan(lo) and math.isnan(hi)
    assert t_interval([Decimal("1"), Decimal("2"), Decimal("3"), Decimal("6")]) == t_interval([1.0, 2.0, 3.0, 6.0])


def test_two_values_already_get_an_interval_on_one_df():
    mean, lo, hi = t_interval([0.0, 1.0])
    half = TABLE_975[1] * math.sqrt(0.5) / math.sqrt(2)        # sd of (0, 1) is sqrt(1/2)
    assert mean == 0.5 and (lo, hi) == pytest.approx((0.5 - half, 0.5 + half), abs=1e-3)


def test_the_default_level_is_95_and_the_interval_is_mean_pm_t_sd_over_root_n():
    values = [1.0, 2.0, 3.0, 6.0]        # mean 3, sd sqrt(14/3)
    sd = math.sqrt(((1 - 3) ** 2 + (2 - 3) ** 2 + 0 + (6 - 3) ** 2) / 3)
    mean, lo, hi = t_interval(values)
    half = TABLE_975[3] * sd / 2
    assert mean == 3.0 and (lo, hi) == pytest.approx((3 - half, 3 + half), abs=1e-3)
    _, lo90, hi90 = t_interval(values, 0.9)
    half90 = 2.353 * sd / 2                                     # table: t(.95, 3) = 2.353
    assert (lo90, hi90) == pytest.approx((3 - half90, 3 + half90), abs=1e-3)


def test_the_interval_covers_a_normal_mean_95_percent_of_the_time():
    rng = np.random.default_rng(44)
    hits = 0
    for _ in range(2000):
        _, lo, hi = t_interval(rng.normal(1.0, 2.0, size=5))
        hits += lo <= 1.0 <= hi
    assert 0.935 <= hits / 2000 <= 0.965           # binomial sd at .95 and 2000 draws: .005


# -- p-values ----------------------------------------------------------------------------------------
def test_fewer_than_two_values_or_a_non_finite_spread_have_no_p():
    assert math.isnan(t_pvalue(0.5, 1.0, 1))
    assert math.isnan(t_pvalue(0.5, 1.0, 0))
    assert math.isnan(t_pvalue(0.5, math.nan, 5))
    assert math.isnan(t_pvalue(0.5, math.inf, 5))
    assert 0 < t_pvalue(0.5, 1.0, 2) < 1


@pytest.mark.parametrize("mean", [0.3, -0.3, 2.0, -7.5])
def test_the_p_value_is_twice_the_closed_form_tail_of_the_t_statistic(mean):
    sd = 1.3
    assert t_pvalue(mean, sd, 2) == pytest.approx(2 * sf_df1(abs(mean) / (sd / math.sqrt(2))), rel=1e-9)
    assert t_pvalue(mean, sd, 3) == pytest.approx(2 * sf_df2(abs(mean) / (sd / math.sqrt(3))), rel=1e-9)


def test_a_zero_spread_gives_one_at_mean_zero_and_zero_otherwise():
    assert t_pvalue(0.0, 0.0, 5) == 1.0
    assert t_pvalue(0.2, 0.0, 5) == 0.0
    assert t_pvalue(-0.2, 0.0, 5) == 0.0


def test_the_zero_spread_tolerance_is_1e12_of_the_larger_of_one_and_the_mean():
    # at the tolerance itself the spread counts as zero: a mean of 1e-13 is then "not zero", p 0
    assert t_pvalue(1e-13, 1e-12, 4) == 0.0
    # just above the tolerance of 1 (means below 1 do not lower it): the t p of t = 0.2
    assert t_pvalue(1e-13, 1.5e-12, 4) == pytest.approx(2 * st.t_sf(1e-13 / (1.5e-12 / 2), 3), rel=1e-9)
    assert t_pvalue(1e-13, 1.5e-12, 4) > 0.8
    # relative to a large mean of either sign: 1e-12 of 1e6 is 1e-6
    assert t_pvalue(-1e6, 5e-7, 4) == 0.0
    assert t_pvalue(0.0, 5e-13, 4) == 1.0
    # an ordinary spread is never treated as zero
    assert t_pvalue(0.1, 0.5, 10) == pytest.approx(2 * st.t_sf(0.1 / (0.5 / math.sqrt(10)), 9), rel=1e-12)
    assert 0.5 < t_pvalue(0.1, 0.5, 10) < 0.6


# -- the minimum detectable effect -------------------------------------------------------------------
@pytest.mark.parametrize("n,alpha,power", [(2, 0.05, 0.8), (3, 0.05, 0.8), (5, 0.05, 0.8), (10, 0.05, 0.8),
                                           (30, 0.05, 0.8), (2, 0.05, 0.99), (3, 0.01, 0.95), (4, 0.5, 0.6),
                                           (2, 0.6, 0.7), (8, 0.2, 0.5)])
def test_the_effect_found_has_the_asked_power_under_the_noncentral_t(n, alpha, power):
    factor = mde_factor(n, alpha, power)
    crit = t_quantile(1 - alpha / 2, n - 1)
    assert two_sided_power(n - 1, factor * math.sqrt(n), crit) == pytest.approx(power, abs=1e-7)


def test_the_defaults_are_alpha_05_and_power_80():
    for n in (2, 3, 6):
        crit = t_quantile(0.975, n - 1)
        assert two_sided_power(n - 1, mde_factor(n) * math.sqrt(n), crit) == pytest.approx(0.8, abs=1e-7)
        assert min_detectable_effect(2.0, n) == pytest.approx(2 * mde_factor(n, 0.05, 0.8), rel=1e-12)
    assert min_detectable_effect(1.0, 7, 0.05) == mde_factor(7, 0.05, 0.8)


def test_the_effect_of_an_sd_at_another_power_is_that_power_s():
    for n, power in [(4, 0.9), (6, 0.5), (3, 0.95)]:
        effect = min_detectable_effect(0.5, n, 0.05, power)
        crit = t_quantile(0.975, n - 1)
        assert two_sided_power(n - 1, effect / 0.5 * math.sqrt(n), crit) == pytest.approx(power, abs=1e-7)


def test_the_shortcut_would_have_had_power_77_at_three_seeds():
    """The docstring's reason for solving the equation: (t(.975) + t(.8)) sd / sqrt(n) has power .77 at n = 3."""
    short = (t_quantile(0.975, 2) + t_quantile(0.8, 2)) / math.sqrt(3)
    assert two_sided_power(2, short * math.sqrt(3), t_quantile(0.975, 2)) == pytest.approx(0.77, abs=0.005)
    assert mde_factor(3) > short


def test_at_many_seeds_the_effect_is_the_normal_one():
    """(z(.975) + z(.8)) / sqrt(n) = 2.8016 / sqrt(n) once t is close to normal."""
    assert mde_factor(400) * math.sqrt(400) == pytest.approx(2.8016, abs=0.01)


def test_power_equal_to_alpha_needs_no_effect():
    """At ncp 0 the two-sided test rejects with probability alpha: the effect for power alpha is 0."""
    assert mde_factor(5, 0.05, 0.05) == pytest.approx(0.0, abs=1e-6)     # power is flat at 0: ~1e-8 left
    assert mde_factor(2, 0.2, 0.2) == pytest.approx(0.0, abs=1e-6)


def test_fewer_than_two_seeds_or_a_non_finite_spread_detect_nothing():
    assert mde_factor(1) == math.inf and mde_factor(0) == math.inf
    assert math.isfinite(mde_factor(2))
    assert min_detectable_effect(1.0, 1) == math.inf
    assert min_detectable_effect(math.nan, 5) == math.inf
    assert min_detectable_effect(math.inf, 5) == math.inf
    assert min_detectable_effect(0.0, 5) == 0.0
    assert min_detectable_effect(1.0, 2) == pytest.approx(mde_factor(2), rel=1e-12)


# -- seeds to clear a distance -----------------------------------------------------------------------
def documented_steps(cap: int) -> list[int]:
    """By one from 2 to 100 seeds, then by 10% (rounded down), up to the cap."""
    out, n = [], 2
    while n <= cap:
        out.append(n)
        n = n + 1 if n < 100 else int(n * 1.1)
    return out


def test_the_documented_steps_past_a_hundred():
    assert documented_steps(200) == [*range(2, 101), 110, 121, 133, 146, 160, 176, 193]


def reference_seeds(sd: float, distance: float, alpha: float, cap: int = 10000):
    for n in documented_steps(cap):
        if t_quantile(1 - alpha, n - 1) * sd / math.sqrt(n) < distance:
            return n
    return None


def test_the_one_sided_quantile_is_the_table_value():
    # sd = 1, distance just above the table's t(.95, df) / sqrt(n) (its last digit's rounding): n = df + 1
    # clears, n = df does not
    for df, q in TABLE_95.items():
        n = df + 1
        assert t_seeds_to_clear(1.0, (q + 6e-4) / math.sqrt(n), 0.05) == n, df


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.01])
def test_the_fewest_seeds_follow_the_documented_steps(alpha):
    for distance in [2.0, 1.0, 0.5, 0.3, 0.2, 0.19, 0.18, 0.17, 0.16, 0.15, 0.13, 0.1, 0.05, 0.03, 0.02]:
        assert t_seeds_to_clear(1.0, distance, alpha) == reference_seeds(1.0, distance, alpha), distance


def test_the_seeds_scale_with_the_spread():
    assert t_seeds_to_clear(2.0, 0.4, 0.05) == t_seeds_to_clear(1.0, 0.2, 0.05) == reference_seeds(1.0, 0.2, 0.05)


def test_the_steps_past_a_hundred_are_ten_percent():
    """Between 100 and 121 seeds only 110 is tried: a distance first cleared at 105 answers 110."""
    at = lambda n: t_quantile(0.95, n - 1) / math.sqrt(n)     # noqa: E731
    assert t_seeds_to_clear(1.0, at(105), 0.05) == 110
    assert t_seeds_to_clear(1.0, at(100) + 1e-9, 0.05) == 100
    assert t_seeds_to_clear(1.0, at(110) + 1e-9, 0.05) == 110
    assert t_seeds_to_clear(1.0, at(115), 0.05) == 121


def test_the_cap_is_the_last_seed_count_tried():
    at = lambda n: t_quantile(0.95, n - 1) / math.sqrt(n)     # noqa: E731
    assert t_seeds_to_clear(1.0, at(5) + 1e-9, 0.05, cap=5) == 5
    assert t_seeds_to_clear(1.0, at(5) + 1e-9, 0.05, cap=4) is None
    assert t_seeds_to_clear(1.0, 100.0, 0.05, cap=1) is None
    assert t_seeds_to_clear(1.0, 100.0, 0.05, cap=2) == 2
    last = documented_steps(10000)[-1]
    assert t_seeds_to_clear(1.0, at(last) + 1e-12, 0.05) == last
    assert t_seeds_to_clear(1.0, at(last), 0.05) is None            # "<": exactly at the distance is not clear


def test_a_distance_never_reached_within_the_default_cap_gives_none():
    assert t_seeds_to_clear(1.0, 0.001, 0.05) is None
    assert t_seeds_to_clear(1.0, 0.0, 0.05) is None


def test_the_effect_grows_with_the_power_asked_also_where_scipy_loses_the_far_tail():
    """Defect found here: scipy's nctdtr is NaN for a lower tail below ~1e-16 (ncp > 8 at one df), which the
    bisection read as "power reached": mde_factor(2) was 5.78 (power .48), and 95% power at n = 2 needed a
    smaller effect than 90%. The far tail is 0 there."""
    for n, alpha in [(2, 0.05), (2, 0.01), (3, 0.01), (4, 0.01), (4, 0.001)]:
        factors = [mde_factor(n, alpha, p) for p in (0.5, 0.8, 0.9, 0.95, 0.99)]
        assert factors == sorted(factors) and len(set(factors)) == len(factors), (n, alpha, factors)
    crit = t_quantile(0.975, 1)
    assert two_sided_power(1, mde_factor(2) * math.sqrt(2), crit) == pytest.approx(0.8, abs=1e-7)
    assert mde_factor(2) == pytest.approx(11.55, abs=0.01)
