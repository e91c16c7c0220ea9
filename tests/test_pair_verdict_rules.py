"""pair_verdict rules left unchecked by the suite (issue 44: survivors of `benchmarks/mutation.py` at 762d6da).

`_discordant` is the rule that reads a pass/fail pair's share of differing seeds (every difference -w, 0 or +w,
w the reward range's width); the bounded and unbounded "would likely be missed" notes print it. Pairs come from
`stats.paired_test` on chosen 0/1 (or declared-range) rewards where possible, else are built directly.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from baselines.analysis.compare import pair_verdict as pv
from baselines.analysis.compare.pair_result import PairResult
from baselines.analysis.statistics import stats
from baselines.analysis.statistics.mean_power import bounded_floor
from baselines.analysis.statistics.typical_seed import typical_claim

SIM = "simulated: t, sign-flip and betting interval together"


def passfail(n, wins, losses, lo=0.0, hi=1.0, declare=None, typical=True):
    """n seeds of rewards lo/hi: `wins` seeds a=hi, b=lo; `losses` the reverse; the rest tie at lo; with the
    typical-seed claim's sign counts attached, as compare() attaches them (typical=False: a bare pair)."""
    a, b = np.full(n, lo), np.full(n, lo)
    a[:wins] = hi
    b[wins:wins + losses] = hi
    pair = stats.paired_test("a", "b", a, b, reward_range=declare)
    if typical:
        pair.typical = typical_claim(a - b, 0.95)
    return pair


def one(pair, **kw):
    [out] = pv.decide([pair], **kw)
    return out


def counted(wins, losses):
    """The sign counts `_discordant` reads from the typical-seed claim."""
    return SimpleNamespace(counts=SimpleNamespace(wins=wins, losses=losses))


def built(n=20, diff=0.1, sd=0.5, p_method="sign-flip exact McNemar", reward_range=(0.0, 1.0),
          typical=counted(5, 3), **kw):
    """A pair with 5 wins and 3 losses by default (8 of 20 seeds differ, mean 0.1 with width 1)."""
    return PairResult("a", "b", n, diff, (-1.0, 1.0), 0.5, p_method, 0.5, sd, True, math.nan,
                      reward_range=reward_range, typical=typical, **kw)


# -- _discordant ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("typical", [False, True])
@pytest.mark.parametrize("lo, hi", [(0.0, 1.0), (1.0, 4.0), (0.0, 0.5), (-1.0, 2.0)])
def test_the_share_of_differing_seeds_of_a_pass_fail_pair(lo, hi, typical):
    # 5 wins and 3 losses of 20 seeds: 8 differ, on any range; without the sign counts there is no share
    # (the sum of squares alone cannot tell 8 seeds differing by w from 2 differing by 2w)
    pair = passfail(20, 5, 3, lo, hi, declare=None if (lo, hi) == (0.0, 1.0) else (lo, hi), typical=typical)
    assert "McNemar" in pair.p_method
    shares = [pv._discordant(pair), pv._discordant(passfail(20, 3, 0, lo, hi, declare=(lo, hi), typical=typical)),
              pv._discordant(passfail(20, 1, 0, lo, hi, declare=(lo, hi), typical=typical))]
    if typical:
        assert shares == [pytest.approx(0.4), pytest.approx(0.15), pytest.approx(0.05)]
    else:
        assert shares == [None, None, None]


def test_no_seed_differing_is_a_share_of_zero():
    pair = passfail(20, 0, 0)
    assert pv._discordant(pair) == 0.0
    note = one(pair).notes[0]
    assert "0% of seeds differing" in note and "no difference inside the reward range would likely be decided" in note


def test_two_seeds_are_enough_for_the_share():
    assert pv._discordant(passfail(2, 1, 0, declare=(0.0, 1.0))) == pytest.approx(0.5)


def test_differences_narrower_than_the_range_are_not_pass_fail():
    # 0/1 rewards declared in [0, 2]: every difference is +-1, not +-2; 8 differ, so the sum of squares (8)
    # is 2 * 2^2: only the sign counts show the magnitude is not the range's width. Without them the pair
    # has no share at all (it read as 10% pass/fail before that rule), so the note is the clipped-normal one
    for typical in (True, False):
        pair = passfail(20, 5, 3, declare=(0.0, 2.0), typical=typical)
        assert "McNemar" in pair.p_method and pv._discordant(pair) is None
        assert "normal differences with this sd" in one(pair).notes[0]


def test_only_an_exact_mcnemar_pair_with_a_spread_has_a_share():
    pass_fail_sd = math.sqrt((8 - 20 * 0.01) / 19)     # the spread of 8 of 20 seeds differing by 1, mean 0.1
    assert pv._discordant(built(sd=pass_fail_sd)) == pytest.approx(0.4)
    assert pv._discordant(built(sd=pass_fail_sd, p_method="sign-flip exact")) is None
    assert pv._discordant(built(sd=pass_fail_sd, p_method="permutation (unpaired)")) is None
    assert pv._discordant(built(n=1, sd=0.0)) is None
    assert pv._discordant(built(sd=math.nan)) is None
    assert pv._discordant(built(sd=math.inf)) is None


def test_float_noise_in_the_sd_still_reads_as_pass_fail_but_a_magnitude_off_the_width_does_not():
    n, k = 20, 8                          # 8 of 20 differ by 1, mean 0.1: sum of squares 8 = 19 sd^2 + 20 * 0.01
    sd = math.sqrt((k - n * 0.01) / (n - 1))
    exact = built(n=n, diff=0.1, sd=sd)
    assert pv._discordant(exact) == pytest.approx(0.4)
    # a sum of squares of 8 + 1e-5 (magnitude 1 + 6e-7): still pass/fail
    noisy = built(n=n, diff=0.1, sd=math.sqrt((k + 1e-5 - n * 0.01) / (n - 1)))
    assert pv._discordant(noisy) == pytest.approx(0.4)
    # 8.5 over 8 differing seeds: a magnitude of 1.03, not the width
    assert pv._discordant(built(n=n, diff=0.1, sd=math.sqrt((k + 0.5 - n * 0.01) / (n - 1)))) is None
    # with the sign counts: a magnitude 1e-7 off the width (relative) is noise, 1e-3 off is not
    counts_pair = passfail(20, 5, 3, typical=True)
    near = built(n=n, diff=0.1, sd=math.sqrt((k * (1 + 2e-7) - n * 0.01) / (n - 1)))
    near.typical = counts_pair.typical
    assert pv._discordant(near) == pytest.approx(0.4)
    far = built(n=n, diff=0.1, sd=math.sqrt((k * (1 + 2e-3) - n * 0.01) / (n - 1)))
    far.typical = counts_pair.typical
    assert pv._discordant(far) is None


# -- the bounded note a user reads ----------------------------------------------------------------------------

def test_a_pass_fail_pair_reads_the_table_at_its_share():
    pair = one(passfail(20, 5, 3))
    assert pair.verdict == "no difference detected" and pair.mde == pytest.approx(0.394)
    assert pair.notes == [f"differences smaller than 0.394 would likely be missed at n=20 ({SIM}, on pass/fail "
                          "outcomes, 40% of seeds differing; betting interval, rewards in [0, 1])"]
    wide = one(passfail(20, 5, 3, 1.0, 4.0, declare=(1.0, 4.0)))
    assert wide.notes == [f"differences smaller than 1.18 would likely be missed at n=20 ({SIM}, on pass/fail "
                          "outcomes, 40% of seeds differing; betting interval, rewards in [1, 4])"]


def test_a_bounded_pair_outside_the_table_gets_the_betting_floor():
    pair = one(passfail(40, 5, 3))
    floor = bounded_floor(40, 0.05, 0.05, 0.0, 1.0)
    assert pair.mde == floor
    assert pair.notes == [f"on the mean, differences smaller than {floor:.3g} are missed at n=40 even when every "
                          "seed differs by exactly that much (betting interval, rewards in [0, 1]); a spread of "
                          "differences needs more"]
    # no sd: the floor note too
    assert one(built(n=20, sd=math.nan)).notes[0].startswith(f"on the mean, differences smaller than "
                                                             f"{bounded_floor(20, 0.05, 0.05, 0.0, 1.0):.3g} are missed")


def test_when_no_difference_inside_the_range_can_be_decided_the_note_says_so():
    # alpha 0.01, 8 seeds: the exact test can reach p < 0.01 (2/256), the betting interval never excludes 0
    pair = one(passfail(8, 1, 1), alpha=0.01)
    assert pair.mde == math.inf
    assert pair.notes == ["on the mean, no difference inside the reward range can be decided at n=8 (betting "
                          "interval, rewards in [0, 1]: not even every seed differing by the whole range); the "
                          "typical-seed claim can be"]


def test_a_share_the_table_does_not_reach_says_no_difference_would_likely_be_decided():
    pair = one(passfail(20, 1, 0))        # 5% differing: below the table's 10% row
    assert pair.mde == math.inf
    assert pair.notes == [f"on the mean, no difference inside the reward range would likely be decided at n=20 "
                          f"({SIM}, on pass/fail outcomes, 5% of seeds differing; betting interval, rewards in "
                          "[0, 1]): add seeds, or use the typical-seed claim"]


def test_a_range_below_zero_reads_the_figure_against_its_width():
    # rewards in [-1, 1]: the figure (twice the [0, 1] one) is inside the range's width 2
    pair = one(passfail(20, 5, 3, -1.0, 1.0, declare=(-1.0, 1.0)))
    assert pair.mde == pytest.approx(0.788)
    assert pair.notes[0].startswith("differences smaller than 0.788 would likely be missed at n=20 (")


# -- unbounded paired notes -----------------------------------------------------------------------------------

def test_another_alpha_takes_the_noncentral_t_figure_at_holms_step():
    rng = np.random.default_rng(3)
    pairs = [stats.paired_test("a", "b", rng.normal(0, 1, 10), rng.normal(0, 1, 10)),
             stats.paired_test("c", "b", rng.normal(0, 1, 10), rng.normal(0, 1, 10))]
    first = pv.decide(pairs, alpha=0.1)[0]
    assert first.verdict == "no difference detected"
    assert first.notes[0].endswith("at n=10 with 2 pairs (Holm: p<0.05 first) (noncentral t (outside the "
                                   "simulated table))")


def test_all_differences_zero_gives_no_detectable_effect_but_the_zero_width_note():
    pair = one(stats.paired_test("a", "b", [2.0] * 8, [2.0] * 8))
    assert pair.verdict == "no difference detected"
    assert not any("would likely be missed" in n for n in pair.notes)
    assert pair.notes == ["all 8 differences are equal: the interval has zero width and is not a confidence "
                          "statement; the verdict rests on the exact sign-flip test"]


def test_equal_differences_decide_with_the_zero_width_note_in_full():
    pair = one(stats.paired_test("a", "b", [2.0] * 8, [0.0] * 8))
    assert pair.verdict == "a>b"
    assert pair.notes[-1] == ("all 8 differences are equal: the interval has zero width and is not a confidence "
                              "statement; the verdict rests on the exact sign-flip test")


# -- the clustered item pairs' test name ----------------------------------------------------------------------

@pytest.mark.parametrize("method, name", [
    ("two-way seed x question clustered t on paired item differences", "two-way clustered t"),
    ("seed-clustered t on paired item differences", "seed-clustered t"),
])
def test_an_item_pair_names_its_clustered_t(method, name):
    pair = PairResult("a", "b", 10, 0.1, (-0.2, 0.4), 0.5, method, 0.5, 1.0, True, 0.3, items=200, method=method)
    out = one(pair)
    assert out.notes == [f"differences smaller than 0.3 would likely be missed at n=10 ({name})"]
