"""The pooled-shape rules of a history's unbounded gate (issue 44, `gating/pooled_shape.py` mutation survivors).

What one look records (`look_skew`: none below 3 seeds, for equal differences or a non-finite one); when the
pooled route is taken (from UNBOUNDED_MIN_N seeds, with an earlier look) and when the default gate decides
unchanged (margin, alpha and arms passed through); within the allowance (the allowance itself included) the
bounds are Student t, beyond it the default gate's t + bootstrap-t hull; the refusal note's words (the side, the
pooled skewness, how many earlier looks); the seeds-needed figure of each route; the unbounded-rewards note
(0.9^n against alpha); and the one-sample gate's arm check on the pooled route's verdicts.
References: scipy's skewness, the one-sample gate (`gate_decision`, with `bounds="t"` for Student t), and
numbers worked out in the comments.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, gate_decision, skew_z
from baselines.analysis.gating.pooled_shape import POOLED, POOLED_HULL, Shape, look_skew, pooled_allowance, \
    pooled_decision
from baselines.analysis.statistics.student_t import t_interval

#: 10 seeds, skewness about -0.45 standard errors: Student t at 0.05 one-sided PASSes at margin 0.03 (lower
#: bound -0.0292), the t + bootstrap-t hull does not (-0.0306)
NEAR = np.array([-0.02, -0.036, -0.066, 0.006, -0.017, 0.002, 0.009, -0.037, 0.035, -0.001])
#: 10 seeds undecided at margin 0.03: Student t names 24 seeds, the default gate's hull 30
UNDECIDED = np.array([0.025, -0.066, -0.044, 0.018, -0.089, 0.04, -0.027, 0.014, 0.007, -0.028])
#: 10 seeds PASSing at margin 0.03 at alpha 0.05 but not at alpha 0.01
ALPHA_SENSITIVE = np.array([0.053, 0.022, 0.026, 0.008, 0.023, -0.034, -0.029, 0.032, -0.033, 0.059])


def z_ref(d):
    """Standardised sample skewness (moment skewness over its normal-theory standard error), from scipy."""
    n = len(d)
    return stats.skew(d, bias=True) / math.sqrt(6 * (n - 2) / ((n + 1) * (n + 3)))


def exactly_pooled(d, z):
    """A 3-look history whose pooled skewness with `d` (4 looks: divided by exactly 2) is the float `z`."""
    s = skew_z(np.asarray(d, dtype=float))
    z_sum = 2.0 * z - s
    for _ in range(64):
        got = (z_sum + s) / 2.0
        if got == z:
            return Shape(z_sum, 3)
        z_sum = math.nextafter(z_sum, math.inf if got < z else -math.inf)
    raise AssertionError("no history sums to that skewness")


def unbounded_note(n, missed):
    return (f"rewards are unbounded and n = {n}: a loss that hits fewer than about 1 in {n} seeds can be absent "
            f"from all of them (a loss in 10% of seeds is missed {missed} of the time); declare reward_range for a "
            "distribution-free gate")


# -- what one look records ------------------------------------------------------------------------------------

def test_a_look_records_its_standardised_skewness_from_three_seeds_on():
    for d in ([0.0, 0.1, 1.0], [0.3, -0.2, 0.05, 0.4], list(UNDECIDED)):
        assert look_skew(d) == pytest.approx(z_ref(d))
    assert look_skew([0.1, 0.5]) is None and look_skew([0.7]) is None and look_skew([]) is None


def test_a_look_records_nothing_for_equal_differences_or_a_non_finite_one():
    assert look_skew([0.2] * 10) is None
    assert look_skew([0.2, 0.2, 0.2]) is None
    assert look_skew([0.1, 0.4, math.nan, 0.3]) is None
    assert look_skew([0.1, 0.4, math.inf, 0.3]) is None


# -- which route decides ----------------------------------------------------------------------------------------

def test_from_six_seeds_on_a_history_pools_the_shape():
    d = NEAR[:6]
    g = pooled_decision(d, 0.03, 0.05, Shape(0.0, 3))
    assert g.method.endswith("over the history (4 looks)") and g.method != gate_decision(d, 0.03, 0.05).method
    assert pooled_decision(d[:5], 0.03, 0.05, Shape(0.0, 3)) == gate_decision(d[:5], 0.03, 0.05)


@pytest.mark.parametrize("shape", [None, Shape()])
def test_without_an_earlier_look_the_default_gate_decides_with_the_margin_and_alpha_given(shape):
    assert gate_decision(ALPHA_SENSITIVE, 0.03, 0.01).verdict == INCONCLUSIVE
    assert gate_decision(ALPHA_SENSITIVE, 0.03, 0.05).verdict == PASS          # alpha matters here
    assert gate_decision(ALPHA_SENSITIVE, 0.01, 0.05).verdict == PASS          # and so does the margin
    assert pooled_decision(ALPHA_SENSITIVE, 0.03, 0.01, shape) == gate_decision(ALPHA_SENSITIVE, 0.03, 0.01)


@pytest.mark.parametrize("shape", [None, Shape()])
def test_without_an_earlier_look_the_default_gate_checks_the_arms(shape):
    base = [1.39, 1.12, 1.15, 0.22, 0.63, 1.12, 0.46, 0.62, 0.44, 0.72]    # test_pooled_shape's shown tail
    cand = [0.47, 0.25, 0.23, 0.17, 0.72, 0.56, 0.34, 0.54, 3.06, 0.82]
    d = np.subtract(cand, base)
    armed = pooled_decision(d, 0.82, 0.05, shape, arms=(base, cand))
    assert armed == gate_decision(d, 0.82, 0.05, arms=(base, cand))
    assert armed.verdict == INCONCLUSIVE and pooled_decision(d, 0.82, 0.05, shape).verdict == PASS


# -- within the allowance: Student t; beyond it: the hull -------------------------------------------------------

def test_a_pooled_skewness_of_exactly_the_allowance_is_within_it():
    allow = pooled_allowance(4, 10)
    assert allow == pytest.approx(4 / 6 * 5 / 2)               # (n - 6) / 6 x (looks + 1) / 2 at 4 looks
    _, lo, hi = t_interval(NEAR, 0.9)
    g = pooled_decision(NEAR, 0.03, 0.05, exactly_pooled(NEAR, -allow))       # leaning against the PASS
    assert g.verdict == PASS and g.method.startswith(POOLED + " (4 looks")
    assert (g.lower, g.upper) == pytest.approx((lo, hi)) and g.notes == [unbounded_note(10, "35%")]
    worse = NEAR - 0.05                                                        # a FAIL by Student t
    g = pooled_decision(worse, 0.03, 0.05, exactly_pooled(worse, allow))       # leaning against the FAIL
    assert g.verdict == FAIL and g.method.startswith(POOLED + " (4 looks")
    # a hair beyond, the hull decides and the lean refuses the verdict
    g = pooled_decision(NEAR, 0.03, 0.05, Shape(exactly_pooled(NEAR, -allow).z_sum - 1e-9, 3))
    assert g.verdict == INCONCLUSIVE and g.method == POOLED_HULL + " (4 looks)"


def test_beyond_the_allowance_the_bounds_are_the_default_gates_hull_and_so_is_its_seeds_figure():
    shape = Shape(-27.0, 9)                          # pooled skewness about -8.5 standard errors
    g = pooled_decision(UNDECIDED, 0.03, 0.05, shape)
    default = gate_decision(UNDECIDED, 0.03, 0.05)
    assert default.verdict == INCONCLUSIVE and not default.notes      # undecided by its bounds, not refused
    assert g.verdict == INCONCLUSIVE and g.method == POOLED_HULL + " (10 looks)"
    assert (g.lower, g.upper) == (default.lower, default.upper)
    _, lo, hi = t_interval(UNDECIDED, 0.9)
    assert g.lower < lo and g.upper >= hi                              # wider than Student t
    assert g.seeds_needed == default.seeds_needed == 30


def test_within_the_allowance_an_undecided_look_names_student_ts_seeds():
    g = pooled_decision(UNDECIDED, 0.03, 0.05, Shape(0.0, 9))
    t = gate_decision(UNDECIDED, 0.03, 0.05, bounds="t")
    assert g.verdict == INCONCLUSIVE and t.verdict == INCONCLUSIVE
    assert g.seeds_needed == t.seeds_needed == 24


def test_a_decided_look_needs_no_more_seeds():
    g = pooled_decision(NEAR, 0.03, 0.05, Shape(0.0, 9))
    assert g.verdict == PASS and g.seeds_needed is None
    g = pooled_decision(NEAR - 0.05, 0.03, 0.05, Shape(0.0, 9))
    assert g.verdict == FAIL and g.seeds_needed is None


# -- the refusal's words ----------------------------------------------------------------------------------------

def test_a_left_skewed_history_refuses_the_pass_in_these_words():
    shape = Shape(-27.0, 9)
    g = pooled_decision(NEAR + 0.02, 0.03, 0.05, shape)
    z = (-27.0 + z_ref(NEAR + 0.02)) / math.sqrt(10)
    assert g.verdict == INCONCLUSIVE and g.seeds_needed is None
    assert g.notes == [
        f"the bounds say PASS but the differences are left-skewed (an occasional large loss): skewness {z:+.1f} "
        "standard errors pooled over this look and 9 earlier look(s) of the history, beyond the 2.33 allowed; the "
        "tail can be bigger than these seeds show, so no PASS: declare reward_range for distribution-free bounds, "
        "add seeds, or pass --bounds t to accept t bounds"]


def test_a_right_skewed_history_refuses_the_fail_in_these_words_even_below_one_standard_error():
    # 7 seeds, 2 looks: allowance (7 - 6) / 6 x 3 / 2 = 0.25; a pooled skewness of +0.6 leans against a FAIL
    d = np.array([-0.21, -0.18, -0.2, -0.23, -0.19, -0.2, -0.22])
    s = z_ref(d)
    g = pooled_decision(d, 0.05, 0.05, Shape(0.6 * math.sqrt(2) - s, 1))
    assert g.verdict == INCONCLUSIVE and g.seeds_needed is None
    assert g.notes == [
        "the bounds say FAIL but the differences are right-skewed (an occasional large gain): skewness +0.6 "
        "standard errors pooled over this look and 1 earlier look(s) of the history, beyond the 0.25 allowed; the "
        "tail can be bigger than these seeds show, so no FAIL: declare reward_range for distribution-free bounds, "
        "add seeds, or pass --bounds t to accept t bounds"]


# -- the unbounded-rewards note ---------------------------------------------------------------------------------

def test_a_pass_warns_of_a_rare_loss_while_its_seeds_can_miss_it_more_often_than_alpha():
    # a loss on 10% of seeds is absent from all n with probability 0.9^n: 0.349 at 10, 0.0523 at 28, 0.0471 at 29
    rng = np.random.default_rng(5)
    for n, missed in ((10, "35%"), (28, "5%"), (29, None)):
        d = 0.01 * rng.standard_normal(n)
        g = pooled_decision(d, 0.05, 0.05, Shape(0.0, 4))
        assert g.verdict == PASS and g.method.startswith(POOLED), n
        assert g.notes == ([unbounded_note(n, missed)] if missed else []), n
    # at alpha 0.9^10 exactly the chance of missing it is not above alpha: no note
    d = 0.01 * rng.standard_normal(10)
    g = pooled_decision(d, 0.05, 0.9 ** 10, Shape(0.0, 4))
    assert g.verdict == PASS and g.notes == []
    assert pooled_decision(d, 0.05, 0.34, Shape(0.0, 4)).notes == [unbounded_note(10, "35%")]


# -- the arm check on the pooled route ----------------------------------------------------------------------------

def test_arms_without_a_lean_leave_the_pooled_verdict_alone():
    base = 0.5 + 0.1 * np.array([-1.5, -1, -0.5, -0.2, 0, 0.2, 0.5, 1, 1.5, 0.0])   # symmetric rewards
    plain = pooled_decision(NEAR, 0.03, 0.05, Shape(0.0, 9))
    armed = pooled_decision(NEAR, 0.03, 0.05, Shape(0.0, 9), arms=(base, base + NEAR))
    assert plain.verdict == PASS and armed == plain


def test_arms_that_lean_make_a_pass_hold_at_the_smaller_alpha_on_the_one_sample_gates_hull():
    # right-skewed baseline rewards: the PASS must also hold at alpha 0.05 / 8 = 0.00625; at that alpha Student t
    # alone would still PASS (lower bound -0.0457 > -0.05) but the t + bootstrap-t hull does not (-0.0510)
    base = np.array([0.239, 0.012, 1.094, 0.209, 0.122, 1.952, 0.029, 0.038, 0.411, 0.134])
    d = np.array([0.016, 0.027, 0.045, 0.01, -0.029, -0.06, -0.006, -0.063, -0.008, -0.034])
    _, lo, _ = t_interval(d, 1 - 2 * 0.00625)
    assert lo > -0.05
    assert pooled_decision(d, 0.05, 0.05, Shape(0.0, 9)).verdict == PASS
    armed = pooled_decision(d, 0.05, 0.05, Shape(0.0, 9), arms=(base, base + d))
    assert armed.verdict == INCONCLUSIVE
    assert "arms' own rewards lean against it" in armed.notes[-1] and "alpha 0.00625" in armed.notes[-1]
