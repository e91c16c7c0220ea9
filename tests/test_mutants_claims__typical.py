"""The typical-seed verdict at its edges (analysis/compare/claims.py): what decides, what is underpowered, and
the notes and JSON fields a reader is given.

Rules (docs/statistics.md): fewer than 3 paired seeds is underpowered; a verdict needs the Holm-adjusted p
strictly below alpha, more wins than losses (or fewer), and the median interval on the winner's side of 0; with
so few differing seeds that 2 / 2^n > alpha no sign test can decide; otherwise "no difference detected" with
the detectable win share and the seeds that would likely decide. Sign-test p values are 2 / 2^n for n of n
seeds; the detectable share and seed counts come from statistics/typical_seed.py (tested on their own).
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from baselines.analysis.compare.claims import attach_typical, decide_typical
from baselines.analysis.statistics.typical_seed import detectable_share, seeds_to_decide, typical_claim

METHOD = "exact sign test (ties dropped)"
INTERVAL = "order statistics (median of untied differences)"


def pair(d) -> SimpleNamespace:
    d = np.asarray(d, dtype=float)
    return SimpleNamespace(typical=typical_claim(d, 0.95), n=len(d))


# -- fewer than 3 seeds ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d, note", [([0.1], "only 1 paired seed; at least 3 are needed"),
                                     ([0.1, 0.2], "only 2 paired seeds; at least 3 are needed")])
def test_fewer_than_three_paired_seeds_is_underpowered(d, note):
    v = decide_typical(pair(d), 0.001, 0.05, 1)
    assert v.verdict == "underpowered" and v.notes == [note]


def test_three_seeds_are_judged_by_the_sign_test_not_the_seed_count():
    v = decide_typical(pair([0.1, 0.2, 0.3]), 0.25, 0.05, 1)      # 2 / 2^3 = 0.25 > 0.05
    assert v.verdict == "underpowered"
    assert v.notes == ["typical seed: with 3 seed(s) where the arms differ no exact sign test can reach p<0.05"]


def test_the_sign_tests_floor_equal_to_alpha_is_not_underpowered():
    """6 of 6 seeds: the smallest p is 2 / 2^6 = 0.03125; at alpha 0.03125 it is reachable, yet not below alpha."""
    v = decide_typical(pair([0.1] * 6), 0.03125, 0.03125, 1)
    assert v.verdict == "no difference detected"
    assert v.notes == [f"typical seed: an arm winning fewer than {detectable_share(6, 0.03125):.0%} of the seeds "
                       "where they differ would likely be missed at n=6 (exact)"]
    # at the observed 6 of 6 the seeds that would likely decide are these 6: no "about N seeds" note
    assert v.seeds_to_decide == seeds_to_decide(1.0, 0.03125) == 6


# -- deciding ------------------------------------------------------------------------------------------------------
def test_ten_of_ten_decides_for_the_winner_in_either_direction():
    a = decide_typical(pair([0.3] * 10), 2 / 1024, 0.05, 1)
    assert a.verdict == "a>b"
    assert a.notes == [f"typical seed: decided by the {METHOD} (10 wins, 0 losses; Holm-adjusted p 0.00195); "
                       "the median interval excludes 0"]
    b = decide_typical(pair([-0.3] * 10), 2 / 1024, 0.05, 1)
    assert b.verdict == "b>a"
    assert b.notes == [f"typical seed: decided by the {METHOD} (0 wins, 10 losses; Holm-adjusted p 0.00195); "
                       "the median interval excludes 0"]


@pytest.mark.parametrize("p_adjusted", [0.05, 0.5])
def test_a_holm_adjusted_p_at_or_above_alpha_does_not_decide(p_adjusted):
    v = decide_typical(pair([0.3] * 10), p_adjusted, 0.05, 1)
    assert v.verdict == "no difference detected"


def test_a_median_interval_across_zero_does_not_decide_even_at_a_small_p():
    """6 losses, 4 wins: the interval [-0.5, +0.5] spans 0, so a small adjusted p alone decides nothing."""
    v = decide_typical(pair([-0.5] * 6 + [0.5] * 4), 0.001, 0.05, 1)
    assert v.ci == (-0.5, 0.5)
    assert v.verdict == "no difference detected"


# -- no difference detected: what would be missed, what would decide ---------------------------------------------
def test_undecided_notes_give_the_detectable_share_and_the_seeds_that_would_decide():
    v = decide_typical(pair([0.2] * 7 + [-0.1] * 3), 0.34, 0.05, 1)
    assert v.verdict == "no difference detected"
    assert v.detectable == detectable_share(10, 0.05)
    assert v.seeds_to_decide == seeds_to_decide(0.7, 0.05) == 49
    assert v.notes == [
        f"typical seed: an arm winning fewer than {detectable_share(10, 0.05):.0%} of the seeds where they differ "
        "would likely be missed at n=10 (exact)",
        "typical seed: at the observed 7 wins, 3 losses, about 49 differing seeds would likely decide "
        "(exact, power 0.8)"]


def test_with_more_claims_the_notes_use_holms_first_level():
    v = decide_typical(pair([0.2] * 7 + [-0.1] * 3), 0.68, 0.05, 2)      # level 0.05 / 2
    assert v.seeds_to_decide == seeds_to_decide(0.7, 0.025) == 58
    assert v.notes == [
        f"typical seed: an arm winning fewer than {detectable_share(10, 0.025):.0%} of the seeds where they differ "
        "would likely be missed at n=10 with 2 claims (Holm: p<0.025 first) (exact)",
        "typical seed: at the observed 7 wins, 3 losses, about 58 differing seeds would likely decide "
        "(exact, power 0.8)"]


def test_a_level_no_sign_test_reaches_says_add_seeds():
    """6 differing seeds, 3 claims: Holm's first level 0.05 / 3 is below 2 / 2^6, though alpha is not."""
    assert detectable_share(6, 0.05 / 3) is None
    v = decide_typical(pair([0.1] * 5 + [-0.1]), 0.66, 0.05, 3)
    assert v.verdict == "no difference detected" and v.detectable is None
    assert v.notes[0] == ("typical seed: the exact sign test cannot reach p<0.017 at n=6 with 3 claims "
                          "(Holm: p<0.017 first): add seeds, or compare against one arm (--baseline)")


def test_an_even_split_has_no_seed_count_that_would_decide():
    v = decide_typical(pair([0.1] * 5 + [-0.1] * 5 + [0.0] * 2), 1.0, 0.05, 1)
    assert (v.wins, v.losses, v.ties) == (5, 5, 2)
    assert v.verdict == "no difference detected" and v.seeds_to_decide is None and len(v.notes) == 1


# -- the JSON of a typical claim ------------------------------------------------------------------------------------
def test_the_json_of_a_decided_typical_claim():
    v = decide_typical(pair([-0.3] * 10), 0.004, 0.05, 1)
    out = v.to_json()
    upper = 1 - 0.025 ** (1 / 10)         # Clopper-Pearson upper bound for 0 wins of 10
    assert out == {"claim": "typical", "verdict": "b>a", "estimate": -0.3, "ci": [-0.3, -0.3],
                   "interval_method": INTERVAL, "method": METHOD, "p": 2 / 1024, "p_adjusted": 0.004,
                   "notes": v.notes, "about": "", "wins": 0, "losses": 10, "ties": 0,
                   "win_share_ci": [0.0, pytest.approx(upper)], "detectable_win_share": None,
                   "seeds_to_decide": None}


def test_the_json_of_an_undecided_typical_claim_with_an_open_interval():
    v = decide_typical(pair([0.2] * 7 + [-0.1] * 3 + [0.0]), 0.34, 0.05, 1)
    out = v.to_json()
    assert out["ties"] == 1 and out["wins"] == 7 and out["losses"] == 3
    assert out["detectable_win_share"] == detectable_share(10, 0.05) and out["seeds_to_decide"] == 49
    assert out["win_share_ci"][0] < 0.7 < out["win_share_ci"][1]
    short = decide_typical(pair([0.1, 0.2]), 0.5, 0.05, 1).to_json()
    assert short["ci"] == [None, None] and short["estimate"] == pytest.approx(0.15)   # infinite ends: null
    assert math.isfinite(short["p"]) and short["p"] == 0.5


# -- which pairs get typical statistics ----------------------------------------------------------------------------
def test_attach_typical_skips_unpaired_pairs_and_arms_it_does_not_have():
    names = ["a", "b"]
    matrix = np.array([np.arange(1, 21) / 10, np.zeros(20)])
    matrix[0, 3] = np.nan                                    # a seed a did not score: dropped, not a loss
    missing = SimpleNamespace(paired=True, a="a", b="z", typical=None)
    unpaired = SimpleNamespace(paired=False, a="a", b="b", typical=None)
    paired = SimpleNamespace(paired=True, a="a", b="b", typical=None)
    attach_typical([missing, unpaired, paired], names, matrix, 0.8)
    assert missing.typical is None and unpaired.typical is None
    t = paired.typical
    assert (t.counts.wins, t.counts.losses, t.counts.ties) == (19, 0, 0)
    # the interval at the level asked for (80%), not the default 95%: narrower
    assert t.ci == typical_claim(np.delete(np.arange(1, 21) / 10, 3), 0.8).ci
    assert t.ci != typical_claim(np.delete(np.arange(1, 21) / 10, 3), 0.95).ci


def test_the_notes_count_tied_seeds_too():
    v = decide_typical(pair([0.3] * 7 + [0.0] * 3), 2 / 128, 0.05, 1)      # 7 of 7 differing seeds: p = 2/128
    assert v.verdict == "a>b"
    assert v.notes == [f"typical seed: decided by the {METHOD} (7 wins, 0 losses, 3 tied; Holm-adjusted p 0.0156); "
                       "the median interval excludes 0"]
    u = decide_typical(pair([0.2] * 7 + [-0.1] * 3 + [0.0] * 2), 0.34, 0.05, 1)
    assert u.notes[1] == ("typical seed: at the observed 7 wins, 3 losses, 2 tied, about 49 differing seeds would "
                          "likely decide (exact, power 0.8)")


def test_a_typical_claim_without_a_win_share_interval_writes_null():
    from baselines.analysis.compare.claims import ClaimVerdict
    v = ClaimVerdict("typical", "underpowered", 0.0, (-math.inf, math.inf), INTERVAL, METHOD, 1.0, 1.0,
                     wins=0, losses=0, ties=4)
    out = v.to_json()
    assert out["win_share_ci"] is None and out["ties"] == 4 and out["ci"] == [None, None]
