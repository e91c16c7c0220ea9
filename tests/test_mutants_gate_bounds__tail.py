"""The arms' skew rules of the unbounded gate, as mutation testing of `gating/gate_bounds.py` found them
unchecked after the shown-tail check (`arm_tail_z` / `arm_tail_alpha`) and the shared `_arm_skews` /
`_stepped_alpha` (issue 44; survivors of benchmarks/mutation.py at d489bd7).

The rules: which arm's skewness leans against a PASS and which against a FAIL, for the tail the seeds may
miss (`arm_skew_z`) and the tail they show (`arm_tail_z`); only arms skewed the same way count (one skewed
arm, or a symmetric one, shows in the differences, which the skew check reads); the stricter of the two
alphas is the one a PASS or FAIL must also hold at (`arm_strict_alpha`), checked on the t + bootstrap-t
hull; the mirror (lower is better, read as higher is better) swaps PASS and FAIL; and the note names the
side and the alpha. All calls are direct and small.
"""
from __future__ import annotations

import numpy as np
import pytest

from baselines.analysis.gating import gate_bounds as gb
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, arm_strict_alpha, arm_skew_z, \
    arm_tail_z, gate_decision, skew_z

A = 0.05

# arms of 10 rewards with known skewness (standard errors): exactly 0, small (0 < |z| < 1) and large (1.82)
SYM = np.arange(10.0)                                                     # z exactly 0
SMALL = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 11], dtype=float)           # z +0.62
RIGHT = np.exp(np.random.default_rng(0).normal(0, 1, 10))                # z +1.82
ARMS = {"sym": SYM, "small right": SMALL, "small left": -SMALL, "right": RIGHT, "left": -RIGHT}


def _same_side(zb, zc):
    return "right" if zb > 0 and zc > 0 else "left" if zb < 0 and zc < 0 else None


def _missed(zb, zc):
    """arm_skew_z's rule, written out: both right-skewed, the baseline's tail (which the seeds may miss) leans
    against a PASS and the candidate's against a FAIL; both left-skewed, the candidate's against a PASS and
    the baseline's against a FAIL; anything else leans against nothing."""
    side = _same_side(zb, zc)
    return (zb, zc) if side == "right" else (-zc, -zb) if side == "left" else (0.0, 0.0)


def _shown(zb, zc):
    """arm_tail_z's rule: the other arm of each pair, the tail the seeds show (a right-skewed candidate whose
    rare large rewards showed overstates its mean: against a PASS)."""
    side = _same_side(zb, zc)
    return (zc, zb) if side == "right" else (-zb, -zc) if side == "left" else (0.0, 0.0)


def test_the_arm_samples_have_the_skewness_the_grid_needs():
    assert skew_z(SYM) == 0.0
    assert 0.5 < skew_z(SMALL) < 1 and skew_z(-SMALL) == pytest.approx(-skew_z(SMALL))
    assert 1.5 < skew_z(RIGHT) < 2.5


@pytest.mark.parametrize("base", ARMS, ids=str)
@pytest.mark.parametrize("cand", ARMS, ids=str)
def test_which_arms_skewness_leans_against_which_verdict(base, cand):
    """Only arms skewed the same way lean (a symmetric arm, z exactly 0, is not skewed either way), and never
    below 0; small leans (under 1 standard error) count as they are; the missed and the shown tail are the
    two arms of one pair. Mirror: both arms negated (lower is better, oriented) swap PASS and FAIL."""
    b, c = ARMS[base], ARMS[cand]
    zb, zc = skew_z(b), skew_z(c)
    assert arm_skew_z((b, c), 10) == pytest.approx(_missed(zb, zc), abs=1e-12)
    assert arm_tail_z((b, c), 10) == pytest.approx(_shown(zb, zc), abs=1e-12)
    assert min(arm_skew_z((b, c), 10) + arm_tail_z((b, c), 10)) >= 0.0
    z_pass, z_fail = arm_skew_z((b, c), 10)
    t_pass, t_fail = arm_tail_z((b, c), 10)
    assert arm_skew_z((-b, -c), 10) == pytest.approx((z_fail, z_pass), abs=1e-12)
    assert arm_tail_z((-b, -c), 10) == pytest.approx((t_fail, t_pass), abs=1e-12)


def test_a_symmetric_or_opposite_arm_leans_against_nothing():
    """Explicit cases of the grid: one skewed arm alone shows in the differences' own skewness."""
    for pair in ((SYM, RIGHT), (RIGHT, SYM), (SYM, -RIGHT), (-RIGHT, SYM), (RIGHT, -RIGHT), (-RIGHT, RIGHT),
                 (SMALL, -RIGHT), (-SMALL, RIGHT), (RIGHT, -SMALL), (-RIGHT, SMALL)):
        assert arm_skew_z(pair, 10) == (0.0, 0.0)
        assert arm_tail_z(pair, 10) == (0.0, 0.0)
    # a small lean of the other arm is still the same side: the large arm's lean counts in full
    z = skew_z(RIGHT)
    assert arm_skew_z((RIGHT, SMALL), 10)[0] == pytest.approx(z)       # the baseline's missed tail, vs a PASS
    assert arm_tail_z((SMALL, RIGHT), 10)[0] == pytest.approx(z)       # the candidate's shown tail, vs a PASS
    assert arm_tail_z((RIGHT, SMALL), 10)[1] == pytest.approx(z)       # the baseline's shown tail, vs a FAIL
    assert arm_skew_z((SMALL, RIGHT), 10)[1] == pytest.approx(z)       # the candidate's missed tail, vs a FAIL


def test_arm_tail_z_without_arms_or_below_3_seeds_is_0_and_reads_3():
    """No arms, or fewer than 3 seeds: no lean either way; at exactly 3 seeds the arms' skewness counts."""
    assert arm_tail_z(None, 10) == (0.0, 0.0)
    assert arm_tail_z((RIGHT[:2], RIGHT[:2]), 2) == (0.0, 0.0)
    three = skew_z(RIGHT[:3])
    assert three > 0 and arm_tail_z((RIGHT[:3], RIGHT[:3]), 3) == (pytest.approx(three), pytest.approx(three))


def test_arm_strict_alpha_takes_the_smaller_alpha_of_the_two_rules_for_the_verdict():
    """The missed tail (baseline right-skewed 1.82, alpha / 4) against a PASS, the shown tail (the same
    baseline, 1.82) against a FAIL; the candidate's small lean (0.62) asks nothing of the tail rule (it
    starts at 1.5) and alpha / 2 of the missed-tail rule (above 0.5)."""
    z, small = skew_z(RIGHT), skew_z(SMALL)
    assert arm_strict_alpha(A, (RIGHT, SMALL), 10, PASS) == (A / 4, pytest.approx(z), False)
    assert arm_strict_alpha(A, (RIGHT, SMALL), 10, FAIL) == (A / 4, pytest.approx(z), True)
    # the mirror: the candidate's right tail shown against a PASS, missed against a FAIL
    assert arm_strict_alpha(A, (SMALL, RIGHT), 10, PASS) == (A / 4, pytest.approx(z), True)
    assert arm_strict_alpha(A, (SMALL, RIGHT), 10, FAIL) == (A / 4, pytest.approx(z), False)
    # a small lean alone: the missed-tail rule's alpha / 2, the shown-tail rule none
    assert arm_strict_alpha(A, (SMALL, SMALL), 10, PASS) == (A / 2, pytest.approx(small), False)
    assert arm_strict_alpha(A, (SYM, RIGHT), 10, PASS) == (A, 0.0, False)


def test_arm_strict_alpha_at_equal_alphas_names_the_tail_the_seeds_may_miss():
    """A tie (both arms right-skewed 1.82: alpha / 4 from either rule) keeps the baseline's rule, the one
    older than the shown-tail check, so its note reads "may have missed"."""
    assert arm_strict_alpha(A, (RIGHT, RIGHT), 10, PASS) == (A / 4, pytest.approx(skew_z(RIGHT)), False)
    assert arm_strict_alpha(A, (RIGHT, RIGHT), 10, FAIL) == (A / 4, pytest.approx(skew_z(RIGHT)), False)
    assert arm_strict_alpha(A, None, 10, PASS) == (A, 0.0, False)


# 10 seeds whose differences PASS margin 1.236 alone; the baseline leans 1.45 standard errors right and the
# candidate 0.69 (both right: the missed tail asks alpha / 2). At alpha 0.025 Student t alone would still
# PASS (lower bound -1.195), the t + bootstrap-t hull does not (-1.276).
BASE = np.array([0.7, 3.33, 4.04, 1.37, 1.51, 0.61, 0.4, 0.41, 0.37, 2.53])
CAND = np.array([0.97, 1.91, 1.63, 0.68, 0.69, 0.53, 1.58, 0.94, 0.62, 1.39])
MARGIN = 1.236


def test_the_stricter_alpha_is_checked_on_the_hull_not_on_t_alone():
    """A PASS the arms refuse must fail the *hull* at the stricter alpha (t + bootstrap-t, as the gate's own
    bounds): here t alone would keep it."""
    d = CAND - BASE
    assert gate_decision(d, MARGIN).verdict == PASS
    assert arm_strict_alpha(A, (BASE, CAND), 10, PASS)[:1] == (A / 2,)
    assert gb._t_bounds(d, A / 2, widen=False)[1] > -MARGIN > gb._t_bounds(d, A / 2, widen=True)[1]
    g = gate_decision(d, MARGIN, arms=(BASE, CAND))
    assert g.verdict == INCONCLUSIVE and g.seeds_needed is None
    assert g.notes == [gb._arm_note(PASS, skew_z(BASE), False, A / 2)]
    assert "alpha 0.025" in g.notes[0] and "may have missed" in g.notes[0]


def test_the_mirror_fail_is_refused_by_the_same_rule():
    """Both arms negated and the candidate moved down by twice the margin: the differences mirror the PASS
    above into a FAIL, the baseline's lean against a PASS becomes the candidate's against a FAIL."""
    base, cand = -BASE, -CAND - 2 * MARGIN
    d = cand - base
    assert gate_decision(d, MARGIN).verdict == FAIL
    assert arm_strict_alpha(A, (base, cand), 10, FAIL)[0] == A / 2
    g = gate_decision(d, MARGIN, arms=(base, cand))
    assert g.verdict == INCONCLUSIVE and g.seeds_needed is None
    assert g.notes == [gb._arm_note(FAIL, skew_z(BASE), False, A / 2)]


def test_an_inconclusive_verdict_never_reads_the_arms(monkeypatch):
    """The arms' rule can only take a PASS or FAIL back; an INCONCLUSIVE gate skips it (no second
    bootstrap-t at the stricter alpha, and arms that are not seed for seed are never looked at)."""
    d = CAND - BASE
    alone = gate_decision(d, 0.5)
    assert alone.verdict == INCONCLUSIVE

    def boom(*_):
        raise AssertionError("the arms' rule read an INCONCLUSIVE verdict")

    monkeypatch.setattr(gb, "arm_strict_alpha", boom)
    g = gate_decision(d, 0.5, arms=(BASE, CAND))
    assert (g.verdict, g.lower, g.upper, g.seeds_needed, g.notes) == \
        (alone.verdict, alone.lower, alone.upper, alone.seeds_needed, alone.notes)


TAIL = ("declare reward_range for distribution-free bounds, add seeds, or pass --bounds t to accept t bounds")


def test_the_arm_note_names_the_side_the_tail_and_the_alpha():
    """Four notes: PASS or FAIL, by the tail the seeds may miss or the one they show."""
    assert gb._arm_note(PASS, 1.82, False, 0.0125) == (
        "the bounds say PASS but the arms' own rewards lean against it (a right-skewed baseline or a "
        "left-skewed candidate, 1.8 standard errors): rare large rewards these seeds may have missed, so a PASS "
        "must also hold at alpha 0.0125 and does not; " + TAIL)
    assert gb._arm_note(FAIL, 1.82, False, 0.0125) == (
        "the bounds say FAIL but the arms' own rewards lean against it (a right-skewed candidate or a "
        "left-skewed baseline, 1.8 standard errors): rare large rewards these seeds may have missed, so a FAIL "
        "must also hold at alpha 0.0125 and does not; " + TAIL)
    assert gb._arm_note(PASS, 3.16, True, 0.00625) == (
        "the bounds say PASS but the arms' own rewards lean against it (a right-skewed candidate or a "
        "left-skewed baseline, the other arm skewed the same way, 3.2 standard errors): rare large rewards these "
        "seeds show, which overstate that arm's mean, so a PASS must also hold at alpha 0.00625 and does not; "
        + TAIL)
    assert gb._arm_note(FAIL, 3.16, True, 0.00625) == (
        "the bounds say FAIL but the arms' own rewards lean against it (a right-skewed baseline or a "
        "left-skewed candidate, the other arm skewed the same way, 3.2 standard errors): rare large rewards these "
        "seeds show, which overstate that arm's mean, so a FAIL must also hold at alpha 0.00625 and does not; "
        + TAIL)


# tests/test_skew_rewards.py's half-size candidate: its right tail shows (4.1 standard errors) against a PASS
BASE_HALF = np.array([1.39, 1.12, 1.15, 0.22, 0.63, 1.12, 0.46, 0.62, 0.44, 0.72])
CAND_HALF = np.array([0.47, 0.25, 0.23, 0.17, 0.72, 0.56, 0.34, 0.54, 3.06, 0.82])


def test_a_shown_tail_refuses_a_pass_and_its_mirror_a_fail():
    """The shown tail at the gate: alpha / 8 (above 2.5 standard errors); mirrored (both arms negated, the
    candidate moved down by twice the margin), the candidate is left-skewed and its shown tail refuses the
    FAIL, with the FAIL's wording."""
    d = CAND_HALF - BASE_HALF
    zc = skew_z(CAND_HALF)
    g = gate_decision(d, 0.82, arms=(BASE_HALF, CAND_HALF))
    assert g.verdict == INCONCLUSIVE and g.notes == [gb._arm_note(PASS, zc, True, A / 8)]
    base, cand = -BASE_HALF, -CAND_HALF - 2 * 0.82
    assert gate_decision(cand - base, 0.82).verdict == FAIL
    g = gate_decision(cand - base, 0.82, arms=(base, cand))
    assert g.verdict == INCONCLUSIVE and g.notes == [gb._arm_note(FAIL, zc, True, A / 8)]
