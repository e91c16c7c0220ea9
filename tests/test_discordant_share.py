"""The share of seeds that differ, read for pass/fail pairs (issue 44: `pair_verdict._discordant`).

Why: a bounded pair's "would likely be missed" figure is read from the pass/fail table at the share q of
seeds whose outcomes differ, or from the clipped-normal table when q is None. Mutation testing found every
line of the rule unchecked (68 surviving mutants at 762d6da): a wrong q prints a wrong X, a q for a pair
that is not pass/fail prints the wrong table's X. Each case below is a pair of per-seed differences whose
q is known by counting; the pair's n, mean, sd and sign counts are computed here with numpy from those
differences.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from baselines.analysis.compare.pair_result import PairResult
from baselines.analysis.compare.pair_verdict import _discordant

MCNEMAR = "exact McNemar"


def pair(d, *, lo=0.0, hi=1.0, method=MCNEMAR, counts="signs", sd=None) -> PairResult:
    """A paired bounded pair whose n, diff and sd are those of the differences `d`; its sign counts are those
    of `d` (as compare() attaches them), or `counts` (wins, losses), or none at all (counts=None)."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    sd = float(np.std(d, ddof=1)) if sd is None and n > 1 else (math.nan if sd is None else sd)
    if isinstance(counts, str):
        counts = (int((d > 0).sum()), int((d < 0).sum()))
    typical = None if counts is None else SimpleNamespace(counts=SimpleNamespace(wins=counts[0], losses=counts[1]))
    return PairResult("a", "b", n, float(d.mean()), (math.nan, math.nan), 0.5, method, 0.5, sd, True, math.nan,
                      reward_range=(lo, hi), typical=typical)


def pass_fail(wins: int, losses: int, ties: int, width: float = 1.0) -> list[float]:
    return [width] * wins + [-width] * losses + [0.0] * ties


@pytest.mark.parametrize("wins,losses,ties", [(3, 1, 6), (1, 0, 9), (0, 2, 8), (5, 5, 0), (1, 0, 1), (4, 0, 0)])
def test_the_share_of_differing_seeds_is_counted_from_the_signs(wins, losses, ties):
    n = wins + losses + ties
    assert _discordant(pair(pass_fail(wins, losses, ties))) == pytest.approx((wins + losses) / n, abs=1e-12)
    # without sign counts there is no share: the sum of squares alone is ambiguous (next test)
    assert _discordant(pair(pass_fail(wins, losses, ties), counts=None)) is None


def test_without_sign_counts_a_narrower_difference_is_not_read_as_pass_fail():
    """0/1 rewards declared in [0, 2]: 8 of 20 seeds differ by 1, a sum of squares of 8 = 2 x 2^2. Read from
    the squares alone that was 2 seeds differing by the width (a share of 0.1 where the truth is 0.4 of
    seeds differing by half the width: not pass/fail at all); with the counts the magnitude shows it."""
    d = pass_fail(5, 3, 12)
    assert _discordant(pair(d, lo=0.0, hi=2.0, counts=None)) is None
    assert _discordant(pair(d, lo=0.0, hi=2.0)) is None
    assert _discordant(pair(d, lo=0.0, hi=1.0)) == pytest.approx(0.4)


@pytest.mark.parametrize("wins,losses,ties", [(3, 1, 6), (2, 2, 6), (7, 0, 3)])
def test_sign_counts_when_present_give_the_same_share(wins, losses, ties):
    n = wins + losses + ties
    assert _discordant(pair(pass_fail(wins, losses, ties), counts=(wins, losses))) == pytest.approx((wins + losses) / n)


@pytest.mark.parametrize("lo,hi", [(0.0, 2.0), (1.0, 3.0), (0.0, 0.5), (-1.0, 1.0)])
def test_the_magnitude_is_the_range_width_not_one(lo, hi):
    w = hi - lo
    assert _discordant(pair(pass_fail(3, 1, 6, w), lo=lo, hi=hi)) == pytest.approx(0.4)
    assert _discordant(pair(pass_fail(3, 1, 6, w), lo=lo, hi=hi, counts=(3, 1))) == pytest.approx(0.4)
    # differences of width 1 on a range of another width are not pass/fail outcomes of that range
    assert _discordant(pair(pass_fail(3, 1, 6, 1.0), lo=lo, hi=hi, counts=(3, 1))) is None


def test_no_seed_differs_gives_a_share_of_zero():
    assert _discordant(pair([0.0] * 10)) == 0.0
    assert _discordant(pair([0.0] * 10, counts=None)) is None


@pytest.mark.parametrize("d", [[1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],   # sum of squares 1.25
                               [0.3] * 10,                                            # 0.9: not a whole count
                               [1.0, 1.0, 1.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])  # 3.09
def test_differences_that_are_not_pass_fail_give_none(d):
    assert _discordant(pair(d)) is None


def test_counts_that_disagree_with_the_magnitudes_give_none():
    # four seeds differ, but by 1/sqrt(2) each: counts say 4, the sum of squares says 2
    assert _discordant(pair(pass_fail(3, 1, 6, 1 / math.sqrt(2)), counts=(3, 1))) is None
    # wins minus losses is not the number of differing seeds
    assert _discordant(pair(pass_fail(3, 1, 6), counts=(3, 1))) == pytest.approx(0.4)
    assert _discordant(pair(pass_fail(3, 1, 6), counts=(2, 2))) == pytest.approx(0.4)


def test_rounding_in_the_sum_of_squares_is_tolerated_within_its_stated_bounds():
    d = pass_fail(3, 1, 6)
    sd = float(np.std(d, ddof=1))
    n, mean = 10, float(np.mean(d))
    exact_squares = (n - 1) * sd ** 2 + n * mean ** 2                       # 4.0
    # a relative error of 5e-7 in the sum of squares: the magnitude is 2.5e-7 off the width, inside 1e-6
    nudged = math.sqrt((exact_squares * (1 + 5e-7) - n * mean ** 2) / (n - 1))
    assert _discordant(pair(d, sd=nudged)) == pytest.approx(0.4)
    # a relative error of 5e-6: the magnitude is off by 2.5e-6 > 1e-6
    off = math.sqrt((exact_squares * (1 + 5e-6) - n * mean ** 2) / (n - 1))
    assert _discordant(pair(d, sd=off)) is None
    assert _discordant(pair(d, sd=off, counts=(3, 1))) is None


def test_sign_counts_are_exact_where_the_sum_of_squares_carries_rounding():
    # every seed differs (k = n = 10); a relative error of 1.5e-6 in the sum of squares would put k read from
    # the squares 1.5e-5 off a whole number; with the counts k is exact and the magnitude within 1e-6 (0.75e-6)
    d = pass_fail(6, 4, 0)
    n, mean = 10, float(np.mean(d))
    squares = (n - 1) * float(np.var(d, ddof=1)) + n * mean ** 2
    sd = math.sqrt((squares * (1 + 1.5e-6) - n * mean ** 2) / (n - 1))
    assert _discordant(pair(d, sd=sd, counts=None)) is None
    assert _discordant(pair(d, sd=sd, counts=(6, 4))) == pytest.approx(1.0)


def test_only_a_mcnemar_pair_with_two_seeds_and_a_finite_spread_has_a_share():
    d = pass_fail(3, 1, 6)
    assert _discordant(pair(d, method="sign-flip exact")) is None
    assert _discordant(pair(d, method="sign-flip exact", counts=(3, 1))) is None
    assert _discordant(pair(d, method="sign-flip exact (McNemar: 0/1 differences)")) == pytest.approx(0.4)
    assert _discordant(pair([1.0, 0.0])) == pytest.approx(0.5)                 # n = 2 is enough
    assert _discordant(pair([1.0, 1.0], counts=(2, 0))) == pytest.approx(1.0)
    assert _discordant(pair([1.0], sd=0.0)) is None                             # n = 1, even with a finite sd
    assert _discordant(pair([1.0], sd=0.0, counts=(1, 0))) is None
    assert _discordant(pair(d, sd=math.nan)) is None
    assert _discordant(pair(d, counts=None)) is None
    assert _discordant(pair(d, sd=math.inf, counts=(3, 1))) is None


def test_equal_differences_on_unbounded_rewards_say_the_interval_is_not_a_confidence_statement():
    """`_degenerate_note`, found with its wording unchecked: the reader is told the zero-width interval
    carries no confidence and which test the verdict rests on, whatever the verdict."""
    from baselines.analysis.compare.pair_verdict import decide
    note = ("all 10 differences are equal: the interval has zero width and is not a confidence statement; "
            "the verdict rests on the exact sign-flip test")
    decided = PairResult("a", "b", 10, 0.5, (0.5, 0.5), 0.002, "sign-flip exact", 0.0, 0.0, True, math.nan)
    [out] = decide([decided])
    assert out.verdict == "a>b" and note in out.notes
    undecided = PairResult("a", "b", 10, 0.0, (0.0, 0.0), 1.0, "sign-flip exact", 1.0, 0.0, True, math.nan)
    [out] = decide([undecided])
    assert note in out.notes
    bounded = PairResult("a", "b", 10, 0.5, (0.1, 0.9), 0.002, "sign-flip exact", 0.0, 0.0, True, math.nan,
                         reward_range=(0.0, 1.0))
    [out] = decide([bounded])
    assert not any("zero width" in n for n in out.notes)
