"""The gate-bounds rules that mutation testing found unchecked (issue 44, `gating/gate_bounds.py`).

One test per promised rule, with exact values or against the primitive the rule names (Student t,
bootstrap-t, the betting bounds, the exact test): the margin rule's boundaries, the argument checks, the
exact test's reach (2 to EXACT_MAX_N paired pass/fail seeds, any reward range: it works on the range's
width), the betting bounds' planned n, what fewer than 2 seeds give, the look-alpha shares, the
unbounded notes, the skew check's thresholds and the "seeds that would decide" searches of each route.
All calls are direct and small (the whole file runs in a few seconds).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import special

from baselines.analysis.gating import gate_bounds as gb
from baselines.analysis.gating.gate_bounds import (EXACT, FAIL, INCONCLUSIVE, PASS, betting_seeds, decide_gate,
                                                   gate_decision, is_paired_binary, look_alpha, margin_verdict,
                                                   seeds_to_decide, skew_allowance, skew_z, spending_schedule)
from baselines.analysis.statistics.betting import diff_bounds
from baselines.analysis.statistics.bootstrap import bootstrap_t_interval, sample_skewness
from baselines.analysis.statistics.student_t import t_interval, t_seeds_to_clear

A = 0.05


def bounds_of(g):
    return g.verdict, g.lower, g.upper


# -- the one margin rule --------------------------------------------------------------------------------------

def test_margin_verdict_is_strict_at_the_margin_and_nan_never_decides():
    assert margin_verdict(-0.09, 0.5, 0.1) == PASS
    assert margin_verdict(-0.1, 0.5, 0.1) == INCONCLUSIVE       # a lower bound at -margin is not above it
    assert margin_verdict(-0.5, -0.11, 0.1) == FAIL
    assert margin_verdict(-0.5, -0.1, 0.1) == INCONCLUSIVE      # an upper bound at -margin is not below it
    assert margin_verdict(0.0, 0.0, 0.0) == INCONCLUSIVE
    assert margin_verdict(math.nan, math.nan, 0.1) == INCONCLUSIVE


# -- argument checks -------------------------------------------------------------------------------------------

def test_decision_arguments_are_checked_with_their_reason():
    d = [0.1, 0.2, 0.3]
    with pytest.raises(ValueError, match=r"^bounds must be one of auto, t, betting, got 'z'$"):
        gate_decision(d, 0.1, bounds="z")
    with pytest.raises(ValueError, match=r"^betting bounds need a reward range: declare reward_range = \[lo, hi\]$"):
        gate_decision(d, 0.1, bounds="betting")
    for bad in (-0.01, math.inf, math.nan):
        with pytest.raises(ValueError, match="margin must be finite and non-negative"):
            gate_decision(d, bad)
    with pytest.raises(ValueError):
        gate_decision(d, 0.1, alpha=0.7)
    assert gate_decision(d, 0.0).verdict in (PASS, FAIL, INCONCLUSIVE)   # a zero margin is allowed
    forced = gate_decision(d, 0.1, bounds="betting", reward_range=(0, 1))   # forced betting: the sequence
    assert forced.method.startswith("betting confidence sequence (anytime-valid")
    t_on_range = gate_decision([0.1, 0.2, 0.3, 0.25], 0.1, bounds="t", reward_range=(0, 1))   # t drops the range
    assert t_on_range.method == "t" and (t_on_range.lower, t_on_range.upper) == \
        t_interval([0.1, 0.2, 0.3, 0.25], 0.9)[1:]


def test_decide_gate_is_gate_decision_as_a_tuple():
    d = [0.1, 0.2, 0.3, 0.25, 0.15, 0.2]
    g = gate_decision(d, 0.1)
    assert decide_gate(d, 0.1) == (g.verdict, g.mean, g.lower, g.upper, g.seeds_needed)   # default alpha 0.05
    passfail = [1, 0, 0, 0, 0, 1, 0, 0]
    g = gate_decision(passfail, 0.1, A, (0, 1))
    assert g.method == EXACT                                              # one look by default: the exact test
    assert decide_gate(passfail, 0.1, A, (0, 1)) == (g.verdict, g.mean, g.lower, g.upper, g.seeds_needed)
    d = [0.3, 0.5, 0.1, 0.6, 0.2, 0.4, 0.45, 0.35]
    g = gate_decision(d, 0.1, A, (0, 1), planned_n=50, anytime=True)
    assert decide_gate(d, 0.1, A, (0, 1), planned_n=50, anytime=True) == \
        (g.verdict, g.mean, g.lower, g.upper, g.seeds_needed)
    assert g.lower == diff_bounds(d, A, (0, 1), 50)[0]                   # planned_n reaches the bounds


# -- bounded rewards -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("d01, verdict, needed", [([1] * 8 + [0] * 2, PASS, None), ([-1] * 6 + [0] * 4, FAIL, None),
                                                  ([1, 0, 0, -1, 0, 1, 0, 0], INCONCLUSIVE, 32),
                                                  ([1, 0, 0, 0, 0], INCONCLUSIVE, 10)])
def test_the_exact_test_works_on_the_ranges_width(d01, verdict, needed):
    # rewards in [1, 3] (width 2, not its ends) decide like [0, 1] with differences, margin and bounds doubled
    unit = gate_decision(d01, 0.1, A, (0, 1))
    wide = gate_decision(np.array(d01) * 2.0, 0.2, A, (1, 3))
    assert (unit.method, wide.method) == (EXACT, EXACT)
    assert (unit.verdict, unit.seeds_needed) == (wide.verdict, wide.seeds_needed) == (verdict, needed)
    assert needed is None or type(unit.seeds_needed) is int           # a seed count, not 32.0
    assert wide.lower == pytest.approx(2 * unit.lower, abs=1e-12) and wide.upper == pytest.approx(2 * unit.upper,
                                                                                                   abs=1e-12)
    assert wide.mean == pytest.approx(2 * unit.mean)
    assert unit.lower < unit.mean < unit.upper


def test_the_exact_test_covers_2_to_exact_max_n_paired_seeds():
    assert gb.EXACT_MAX_N == 60
    assert gate_decision([1, 0], 0.1, A, (0, 1)).method == EXACT
    assert gate_decision([1, 0, 0], 0.1, A, (0, 1)).method == EXACT
    assert gate_decision([1] * 40 + [0] * 20, 0.1, A, (0, 1)).method == EXACT
    beyond = gate_decision([1] * 40 + [0] * 21, 0.1, A, (0, 1))
    assert beyond.method == "betting bound for 61 seeds (distribution-free, rewards in [0, 1])"
    assert gate_decision([1, 0, 0], 0.1, A, (0, 1), anytime=True).method.startswith("betting confidence sequence")


def test_fewer_than_two_bounded_seeds_decide_nothing():
    one = gate_decision([0.4], 0.1, A, (0, 1))
    assert one == gb.GateDecision(INCONCLUSIVE, 0.4, -math.inf, math.inf, None, "betting (rewards in [0, 1])",
                                  ["fewer than 2 paired seeds"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # no "mean of empty slice": the mean of nothing is NaN by rule
        none = gate_decision([], 0.1, A, (0, 1))
        unbounded = gate_decision([], 0.1, A)
    assert math.isnan(none.mean) and none.verdict == INCONCLUSIVE and none.notes == ["fewer than 2 paired seeds"]
    assert math.isnan(unbounded.mean) and unbounded.method == "t"
    two = gate_decision([0.1, 0.05], 0.1, A, (0, 1))                     # two non-binary seeds: betting bounds
    assert (two.lower, two.upper) == diff_bounds([0.1, 0.05], A, (0, 1), 2)
    assert two.method == "betting bound for 2 seeds (distribution-free, rewards in [0, 1])"


def test_betting_bounds_use_planned_n_only_with_anytime():
    d = [0.3, 0.5, 0.1, 0.6, 0.2, 0.4, 0.45, 0.35]
    fixed = gate_decision(d, 0.1, A, (0, 1), planned_n=50)
    assert (fixed.lower, fixed.upper) == diff_bounds(d, A, (0, 1), 8)
    assert fixed.method == "betting bound for 8 seeds (distribution-free, rewards in [0, 1])"
    seq = gate_decision(d, 0.1, A, (0, 1), planned_n=50, anytime=True)
    assert (seq.lower, seq.upper) == diff_bounds(d, A, (0, 1), 50) != (fixed.lower, fixed.upper)
    assert seq.method == "betting confidence sequence (anytime-valid, distribution-free, rewards in [0, 1])"


@pytest.mark.parametrize("d01, needed", [([1, 0], 8), ([1, 1], 4), ([-1, 0], 16), ([0, -1, 0, -1, 0, 0], 24),
                                         ([-1, -1, -1, 0, 0, 0, 0, 0], 16), ([1] + [0] * 14, 30),
                                         ([1, -1, 0] + [0] * 12, 60), ([-1, 0, 0, 0, 0], None), ([1, -1], None)])
def test_exact_seeds_is_the_first_doubling_at_which_the_same_shares_decide(d01, needed):
    g = gate_decision(d01, 0.1, A, (0, 1))
    assert (g.verdict, g.method, g.seeds_needed) == (INCONCLUSIVE, EXACT, needed)
    if needed is not None:   # the same shares at `needed` seeds decide; at half as many they do not
        d = np.asarray(d01)
        at = lambda m: np.repeat(d, m // d.size)  # noqa: E731
        assert gate_decision(at(needed), 0.1, A, (0, 1)).verdict != INCONCLUSIVE
        if needed // 2 >= 2 * max(d.size, 2):
            assert gate_decision(at(needed // 2), 0.1, A, (0, 1)).verdict == INCONCLUSIVE


def test_is_paired_binary_means_every_difference_is_0_or_the_full_width():
    assert is_paired_binary(np.array([1.0, 0.0, -1.0]), 1.0)
    assert is_paired_binary(np.array([2.0, -2.0]), 2.0)
    assert is_paired_binary(np.array([1.0]), 1.0)                 # one seed is pass/fail too (the gate needs 2)
    assert not is_paired_binary(np.array([]), 1.0)
    assert not is_paired_binary(np.array([1.0, 0.5]), 1.0)
    assert not is_paired_binary(np.array([1000.0 + 1e-6]), 1000.0)   # no relative slack: 1e-12 of the width
    assert is_paired_binary(np.array([1000.0 + 1e-10]), 1000.0)
    assert not is_paired_binary(np.array([1e-3 + 1e-12]), 1e-3)    # the slack scales with a small width too
    assert not is_paired_binary(np.array([1.0 + 1e-9]), 1.0)


@pytest.mark.parametrize("d, needed", [([0.3, 0.5, 0.1, 0.6, 0.2, 0.4, 0.45, 0.35], 16), ([0.2, 0.05], 16),
                                       ([0.0, 0.05, -0.05, 0.0], 64), ([0.01, 0.02, 0.03], 48),
                                       ([-0.1, -0.05, -0.15, -0.1], None), ([-0.1, -0.05, -0.12, -0.08], 512)])
def test_betting_seeds_is_the_first_doubling_that_decides(d, needed):
    assert betting_seeds(np.asarray(d), 0.1, A, (0, 1)) == needed
    if needed is not None:
        assert margin_verdict(*diff_bounds(np.resize(d, needed), A, (0, 1)), 0.1) != INCONCLUSIVE
        assert margin_verdict(*diff_bounds(np.resize(d, needed // 2), A, (0, 1)), 0.1) == INCONCLUSIVE


def test_betting_seeds_stops_at_its_cap():
    d = np.array([0.3, 0.5, 0.1, 0.6, 0.2, 0.4, 0.45, 0.35])
    assert betting_seeds(d, 0.1, A, (0, 1), cap=16) == 16
    assert betting_seeds(d, 0.1, A, (0, 1), cap=15) is None


# -- unbounded rewards -----------------------------------------------------------------------------------------

def test_look_alpha_shares():
    assert [look_alpha(0.06, j) for j in (0, 1, 2, 3)] == [0.06, 0.03, 0.01, 0.005]
    assert look_alpha(0.06, -2) == 0.06 and look_alpha(0.06, 2.7) == 0.01


def test_fewer_than_two_unbounded_seeds_decide_nothing():
    g = gate_decision([0.4], 0.1)
    assert g == gb.GateDecision(INCONCLUSIVE, 0.4, -math.inf, math.inf, None, "t", ["fewer than 2 paired seeds"])
    two = gate_decision([0.4, 0.5], 0.1)                                # two seeds already get t bounds
    assert two.method == "t, skew-checked" and (two.lower, two.upper) == t_interval([0.4, 0.5], 0.9)[1:]


def test_equal_differences_are_inconclusive_with_zero_width_t_bounds():
    g = gate_decision([0.5] * 7, 0.1)
    assert (g.verdict, g.mean, g.lower, g.upper, g.seeds_needed, g.method) == \
        (INCONCLUSIVE, 0.5, 0.5, 0.5, None, "t (degenerate)")
    assert g.notes == ["all 7 differences are equal: a zero-width interval is not evidence; declare the reward "
                       "range for distribution-free bounds, or add seeds"]


def normal(n, mean, sd=0.1, seed=0):
    return np.random.default_rng(seed).normal(mean, sd, n)


def test_a_small_unbounded_pass_says_a_rare_loss_can_be_missed_until_0_9_to_the_n_is_alpha():
    g28, g29 = gate_decision(normal(28, 0.2), 0.1), gate_decision(normal(29, 0.2), 0.1)
    assert g28.verdict == g29.verdict == PASS
    assert g28.notes == ["rewards are unbounded and n = 28: a loss that hits fewer than about 1 in 28 seeds can be "
                         "absent from all of them (a loss in 10% of seeds is missed 5% of the time); declare "
                         "reward_range for a distribution-free gate"]
    assert g29.notes == []                                              # 0.9 ** 29 = 0.047 < 0.05
    at = gate_decision(normal(28, 0.2), 0.1, alpha=0.9 ** 28)           # a miss rate of exactly alpha: no note
    assert at.verdict == PASS and at.notes == []
    assert gate_decision(normal(28, -0.5), 0.1).notes == []             # a FAIL needs no such note


def test_earlier_looks_spend_their_share_and_say_so():
    d = normal(12, 0.2)
    g = gate_decision(d, 0.1, 0.06, earlier_looks=2)
    assert g.alpha == 0.01
    at_share = gate_decision(d, 0.1, 0.01)
    assert (g.lower, g.upper) == (at_share.lower, at_share.upper)
    assert g.notes[-1] == ("checked 2 time(s) before with fewer seeds: unbounded rewards have no anytime-valid "
                           "bound, so this look spends alpha / (2 x 3) = 0.01 (the later looks share alpha by a "
                           "union bound); declare reward_range, or plan looks (run --looks)")
    assert gate_decision(d, 0.1, 0.06).alpha is None
    anytime = gate_decision(d, 0.1, 0.06, anytime=True)
    assert anytime.alpha is None and anytime.notes[-1] == (
        "earlier looks at these results: unbounded rewards have no anytime-valid bound here, so this verdict does "
        "not account for them; declare reward_range, or plan looks (run --looks)")
    assert (anytime.lower, anytime.upper) == (gate_decision(d, 0.1, 0.06).lower, gate_decision(d, 0.1, 0.06).upper)


def test_skew_allowance_and_skew_z():
    assert [skew_allowance(n) for n in (3, 6, 9, 12, 15, 100)] == [0.0, 0.0, 0.5, 1.0, 1.5, 1.645]
    assert skew_z(np.array([1.0, 2.0])) == 0.0
    three = np.array([0.0, 0.1, 1.0])                                   # 3 values have a skewness already
    assert skew_z(three) == pytest.approx(sample_skewness(three) / math.sqrt(6 * 1 / (4 * 6))) != 0.0
    d = np.array([0.1, 0.12, 0.09, 2.0, 0.3])
    assert skew_z(d) == pytest.approx(sample_skewness(d) / math.sqrt(6 * 3 / (6 * 8)))


SKEWED = np.array([0.1, 0.12, 0.09, 2.0])     # sample skewness 1.15 (> SKEW_THRESHOLD 0.5)


def test_bounds_t_widens_by_bootstrap_t_only_on_skewed_samples_of_4_to_500_seeds():
    assert (gb.SKEW_MIN_N, gb.SKEW_MAX_N, gb.SKEW_THRESHOLD) == (4, 500, 0.5)
    g = gate_decision(SKEWED, 0.1, bounds="t")
    mean, tlo, thi = t_interval(SKEWED, 0.9)
    blo, bhi = bootstrap_t_interval(SKEWED, 0.9, seed=0)
    assert g.method == "t + bootstrap-t (skewed differences)"
    assert (g.mean, g.lower, g.upper) == (mean, min(tlo, blo), max(thi, bhi)) and (blo, bhi) != (tlo, thi)
    three = gate_decision(SKEWED[1:], 0.1, bounds="t")                  # 3 seeds: too few to widen
    assert three.method == "t" and (three.lower, three.upper) == t_interval(SKEWED[1:], 0.9)[1:]
    flat = normal(30, 0.0, seed=2)                                        # skewness -0.16: not widened
    assert abs(sample_skewness(flat)) < 0.5
    g = gate_decision(flat, 0.1, bounds="t")
    assert g.method == "t" and (g.lower, g.upper) == t_interval(flat, 0.9)[1:]
    big = np.random.default_rng(1).lognormal(0, 1, 500) - 1                # 500 seeds, skewed: still widened
    assert gate_decision(big, 0.1, bounds="t").method == "t + bootstrap-t (skewed differences)"
    assert gate_decision(np.append(big, 0.0), 0.1, bounds="t").method == "t"   # 501: t alone


def test_bounds_t_inconclusive_says_the_t_seeds_and_a_decided_one_none():
    d = normal(10, 0.0, sd=0.3)
    g = gate_decision(d, 0.1, bounds="t")
    assert g.verdict == INCONCLUSIVE and g.notes == []
    assert g.seeds_needed == seeds_to_decide(float(d.mean()), float(d.std(ddof=1)), 0.1, A) is not None
    assert g.seeds_needed != seeds_to_decide(float(d.mean()), float(d.std(ddof=0)), 0.1, A)
    assert gate_decision(normal(10, 0.5), 0.1, bounds="t").seeds_needed is None


def test_seeds_to_decide_edge_cases():
    assert seeds_to_decide(-0.1, 0.2, 0.1, A) is None                    # at the margin: never
    assert seeds_to_decide(0.1, math.inf, 0.1, A) is None
    assert seeds_to_decide(0.1, math.nan, 0.1, A) is None
    assert seeds_to_decide(0.1, 0.0, 0.1, A) == 2
    assert seeds_to_decide(0.1, 0.5, 0.1, A) == t_seeds_to_clear(0.5, 0.2, A, 10000) == 19
    assert seeds_to_decide(-0.3, 0.5, 0.1, A) == 19                      # distance 0.2 below the margin too
    assert seeds_to_decide(0.1, 0.5, 0.1, 0.01) == t_seeds_to_clear(0.5, 0.2, 0.01, 10000) == 38
    assert seeds_to_decide(0.1, 0.5, 0.1, A, cap=10) is None


def test_skew_checked_seeds_searches_the_hull_and_gives_up_where_nothing_decides():
    d = normal(10, 0.0, sd=0.3)
    g = gate_decision(d, 0.1)
    assert g.verdict == INCONCLUSIVE and g.seeds_needed is not None and g.seeds_needed % 10 == 0
    k = g.seeds_needed // 10
    hull = lambda k: gb._t_bounds(np.tile(d, k), A, widen=4 <= 10 * k <= 200)[1:]  # noqa: E731
    assert margin_verdict(*hull(k), 0.1) != INCONCLUSIVE and margin_verdict(*hull(k - 1), 0.1) == INCONCLUSIVE
    assert gb._skew_checked_seeds(np.array([0.3, 0.1]), 0.1, A) == 6      # 2 seeds: a search, at least 6
    assert gb._skew_checked_seeds(np.array([0.3]), 0.1, A) is None
    assert gb._skew_checked_seeds(np.array([0.3, 0.3, 0.3]), 0.1, A) is None    # no spread: nothing to repeat
    assert gb._skew_checked_seeds(np.array([0.0, -0.2]), 0.1, A) is None        # mean at -margin: never
    assert gb._skew_checked_seeds(np.array([0.0, np.inf]), 0.1, A) is None
    assert gb._skew_checked_seeds(d, 0.1, A, cap=20) == 20 == g.seeds_needed
    assert gb._skew_checked_seeds(d, 0.1, A, cap=19) is None


def test_spending_schedule_values_and_checks():
    z = float(special.ndtri(1 - A / 2))
    first = 2 - 2 * float(special.ndtr(z / math.sqrt(0.5)))
    assert spending_schedule([10, 20], A) == pytest.approx([first, A - first], rel=1e-12)
    assert sum(spending_schedule([5, 10, 20], A)) == pytest.approx(A)
    assert spending_schedule([20], A) == [A]
    assert spending_schedule([2, 3], A)[1] > 0
    for bad in ([], [20, 10], [10, 10], [1, 10], [10, 1]):
        with pytest.raises(ValueError, match=r"looks must be increasing seed counts of at least 2, got \["):
            spending_schedule(bad, A)


def test_the_default_unbounded_route_widens_by_bootstrap_t_from_4_seeds():
    g = gate_decision(SKEWED, 0.1)
    mean, tlo, thi = t_interval(SKEWED, 0.9)
    blo, bhi = bootstrap_t_interval(SKEWED, 0.9, seed=0)
    assert (g.method, g.mean, g.lower, g.upper) == ("t + bootstrap-t, skew-checked", mean, min(tlo, blo),
                                                     max(thi, bhi))
    three = gate_decision(SKEWED[1:], 0.1)
    assert three.method == "t, skew-checked" and (three.lower, three.upper) == t_interval(SKEWED[1:], 0.9)[1:]
    decided = gate_decision(normal(12, 0.3), 0.1)
    assert decided.verdict == PASS and decided.seeds_needed is None


def test_fewer_than_6_unbounded_seeds_never_decide_and_say_so():
    g = gate_decision([0.3, 0.31, 0.29, 0.3, 0.32], 0.1)
    assert (g.verdict, g.seeds_needed) == (INCONCLUSIVE, 6) and g.lower > -0.1
    assert g.notes == ["unbounded rewards need at least 6 seeds to PASS: at 5, t bounds PASSed skewed differences at "
                       "the margin up to 38% of the time; declare reward_range for distribution-free bounds, add "
                       "seeds, or pass --bounds t to accept t bounds"]


def test_a_verdict_the_skewness_argues_against_is_refused_in_full_words():
    left = 0.3 - 0.1 * np.random.default_rng(0).lognormal(0, 1.5, 20)
    g = gate_decision(left, 0.5)
    assert (g.verdict, g.seeds_needed) == (INCONCLUSIVE, None) and g.lower > -0.5
    assert g.notes == ["the bounds say PASS but the differences are left-skewed (an occasional large loss): skewness "
                       "-1.83, 3.9 standard errors, beyond the 1.65 allowed at n = 20; the tail can be bigger than "
                       "these seeds show, so no PASS: declare reward_range for distribution-free bounds, add seeds, "
                       "or pass --bounds t to accept t bounds"]
    g = gate_decision(-left - 0.5, 0.5)
    assert (g.verdict, g.seeds_needed) == (INCONCLUSIVE, None) and g.upper < -0.5
    assert g.notes[0].startswith("the bounds say FAIL but the differences are right-skewed (an occasional large "
                                 "gain): skewness +1.83")
    # at 9 seeds (allowance 0.5) a right skew of 0.91 standard errors is already too much: still "right-skewed"
    mild = -0.8 + 0.1 * np.random.default_rng(12).lognormal(0, 0.5, 9)
    assert 0.5 < skew_z(mild) < 1
    g = gate_decision(mild, 0.5)
    assert g.verdict == INCONCLUSIVE and "differences are right-skewed (an occasional large gain)" in g.notes[0]


def test_the_hulls_bootstrap_is_seeded_with_0():
    left = 0.3 - 0.1 * np.random.default_rng(0).lognormal(0, 1.5, 20)
    blo, _ = bootstrap_t_interval(left, 0.9, seed=0)
    assert blo < t_interval(left, 0.9)[1] and blo != bootstrap_t_interval(left, 0.9, seed=1)[0]
    assert gate_decision(left, 0.5).lower == gate_decision(left, 0.5, bounds="t").lower == blo


def standardized(seed, n, scale, lognormal=False):
    r = np.random.default_rng(seed)
    d = r.lognormal(0, 1.2, n) if lognormal else r.normal(0, 1, n)
    return (d - d.mean()) / d.std() * scale


@pytest.mark.parametrize("d, k", [(standardized(0, 10, 0.35), 4), (standardized(23, 10, 0.4, lognormal=True), 6)])
def test_skew_checked_seeds_is_the_smallest_repetition_whose_hull_decides(d, k):
    # the hull (t widened by bootstrap-t from 4 to 200 seeds) decides at k repetitions and not at k - 1;
    # for the second sample t alone would decide at 5 (so a search on t bounds says 50, not 60)
    g = gate_decision(d, 0.1)
    assert (g.verdict, g.seeds_needed) == (INCONCLUSIVE, 10 * k)
    hull = lambda j: gb._t_bounds(np.tile(d, j), A, widen=4 <= 10 * j <= 200)[1:]  # noqa: E731
    assert margin_verdict(*hull(k), 0.1) != INCONCLUSIVE
    assert all(margin_verdict(*hull(j), 0.1) == INCONCLUSIVE for j in range(1, k))
    if k == 6:
        assert margin_verdict(*gb._t_bounds(np.tile(d, 5), A, widen=False)[1:], 0.1) != INCONCLUSIVE


def test_skew_checked_seeds_at_a_mean_of_plus_margin_still_searches():
    assert gb._skew_checked_seeds(np.array([0.0, 0.2]), 0.1, A) == 6


def test_seeds_to_decide_more_edges():
    assert seeds_to_decide(-0.1, 0.0, 0.1, A) is None                    # at the margin, even without spread
    assert seeds_to_decide(0.9, 0.5, 0.1, A) == t_seeds_to_clear(0.5, 1.0, A) == 3   # a distance of exactly 1
    assert seeds_to_decide(0.1, 1.0, 0.1, A) == t_seeds_to_clear(1.0, 0.2, A) == 70  # a spread of exactly 1


# -- main's arm-skew check (issue 37 item 4) --------------------------------------------------------------------

RIGHT = np.exp(np.random.default_rng(0).normal(0, 1, 10))      # right-skewed rewards, skew z +1.82
LEFT = 10 - RIGHT                                                # their mirror, skew z -1.82


def test_arm_skew_z_is_each_arms_lean_against_each_verdict_never_below_0():
    assert skew_z(RIGHT) > 1.5 and skew_z(LEFT) < -1.5
    z = skew_z(RIGHT)
    # (against a PASS, against a FAIL): both arms right-skewed lean against both (the baseline's tail against a
    # PASS, the candidate's against a FAIL), both left-skewed likewise; opposite skews show in the differences
    # (which the skew check reads already), so they lean against nothing here
    assert gb.arm_skew_z((RIGHT, RIGHT), 10) == (pytest.approx(z), pytest.approx(z))
    assert gb.arm_skew_z((LEFT, LEFT), 10) == (pytest.approx(z), pytest.approx(z))
    assert gb.arm_skew_z((RIGHT, LEFT), 10) == (0.0, 0.0)
    assert gb.arm_skew_z((LEFT, RIGHT), 10) == (0.0, 0.0)
    assert gb.arm_skew_z(None, 10) == (0.0, 0.0)
    assert gb.arm_skew_z((RIGHT[:2], RIGHT[:2]), 2) == (0.0, 0.0)               # below 3 seeds: no skewness
    three = gb.arm_skew_z((RIGHT[:3], RIGHT[:3]), 3)[0]
    assert three > 0 and three == pytest.approx(skew_z(RIGHT[:3]))


def test_arm_skew_z_needs_an_arm_seed_for_seed_with_the_differences():
    for arms in ((RIGHT[:9], LEFT), (RIGHT, LEFT[:9]), (RIGHT[:9], LEFT[:9])):
        with pytest.raises(ValueError, match=r"^arms must hold 10 rewards each, seed for seed with the differences$"):
            gb.arm_skew_z(arms, 10)


def test_arm_skew_alpha_steps_above_each_threshold_only():
    assert [gb.arm_skew_alpha(0.08, z) for z in (0.0, 0.5, 0.51, 1.5, 1.51, 2.5, 2.51, 9.0)] == \
        [0.08, 0.08, 0.04, 0.04, 0.02, 0.02, 0.01, 0.01]
