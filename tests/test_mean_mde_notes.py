"""The "would likely be missed" note of an undecided mean verdict, as printed (issue 44: `pair_verdict`).

Why: mutation testing at 762d6da left 43 mutants of `_family_mde`, `_bounded_note` and `_unbounded_note`
alive: the note could lose its place ("at n=10"), its source, its range, read the clipped-normal table for
a pass/fail pair, or print an MDE of 0 for a zero-spread pair, and every test stayed green. Each test
below builds one undecided pair (p = 0.5) and asserts the note and the MDE a reader sees; the figures
come from `mean_power`'s tables, whose own accuracy is `tests/test_mean_power*.py`'s business.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from baselines.analysis.compare.pair_result import PairResult
from baselines.analysis.compare.pair_verdict import decide
from baselines.analysis.statistics.mean_power import bounded_factor, bounded_floor, normal_factor

BETTING = "betting interval, rewards in [{lo:g}, {hi:g}]"


def undecided(n=10, sd=0.1, lo=None, hi=None, method="sign-flip exact", items=None, paired=True, mde=math.nan,
              interval_method="t"):
    rng = None if lo is None else (lo, hi)
    return PairResult("a", "b", n, 0.01, (-0.5, 0.5), 0.5, method, 0.5, sd, paired, mde, reward_range=rng,
                      items=items, method=method, interval_method=interval_method)


def missed(out) -> list[str]:
    return [n for n in out.notes if "missed" in n or "decided" in n and "on the mean" in n]


def test_a_bounded_pair_prints_the_simulated_figure_with_its_place_source_and_range():
    [out] = decide([undecided(n=10, sd=0.1, lo=0.0, hi=1.0)])
    x, source = bounded_factor(10, 0.05, 0.05, 0.0, 1.0, 0.1, None)
    mde = max(x, bounded_floor(10, 0.05, 0.05, 0.0, 1.0))
    assert out.mde == pytest.approx(mde)
    assert f"differences smaller than {mde:.3g} would likely be missed at n=10 ({source}; " \
           f"{BETTING.format(lo=0, hi=1)})" in out.notes


def test_a_pass_fail_pair_reads_the_pass_fail_table_at_its_share_of_differing_seeds():
    # 10 seeds, all differ by the whole range: the pass/fail row at q = 1, not the clipped-normal row
    d = [1.0] * 6 + [-1.0] * 4
    mean = sum(d) / 10
    sd = math.sqrt(sum((v - mean) ** 2 for v in d) / 9)
    signs = SimpleNamespace(counts=SimpleNamespace(wins=6, losses=4))    # the typical claim's, as compare() attaches
    pair = PairResult("a", "b", 10, mean, (-0.5, 0.9), 0.5, "exact McNemar", 0.5, sd, True, math.nan,
                      reward_range=(0.0, 1.0), typical=signs)
    [out] = decide([pair])
    x, source = bounded_factor(10, 0.05, 0.05, 0.0, 1.0, sd, 1.0)
    other = bounded_factor(10, 0.05, 0.05, 0.0, 1.0, sd, None)   # the clipped-normal reading: none at this sd
    assert "pass/fail" in source and (other is None or other[0] != x)
    assert out.mde == pytest.approx(x)
    assert f"differences smaller than {x:.3g} would likely be missed at n=10 ({source}; " \
           f"{BETTING.format(lo=0, hi=1)})" in out.notes


def test_a_figure_beyond_the_range_width_says_none_would_likely_be_decided():
    [out] = decide([undecided(n=6, sd=0.5, lo=0.0, hi=1.0)])
    x, source = bounded_factor(6, 0.05, 0.05, 0.0, 1.0, 0.5, None)
    assert x is None and out.mde == math.inf
    assert (f"on the mean, no difference inside the reward range would likely be decided at n=6 ({source}; "
            f"{BETTING.format(lo=0, hi=1)}): add seeds, or use the typical-seed claim") in out.notes


def test_the_range_width_not_its_upper_end_bounds_the_figure():
    # rewards in [-1, 1]: the figure (about 1.06) is inside the width 2 and printed
    [out] = decide([undecided(n=10, sd=0.2, lo=-1.0, hi=1.0)])
    x, source = bounded_factor(10, 0.05, 0.05, -1.0, 1.0, 0.2, None)
    assert 0 < x < 2 and out.mde == pytest.approx(max(x, bounded_floor(10, 0.05, 0.05, -1.0, 1.0)))
    assert any(n.startswith(f"differences smaller than {out.mde:.3g} would likely be missed at n=10") and
               BETTING.format(lo=-1, hi=1) in n for n in out.notes)


def test_without_a_spread_the_bounded_note_prints_the_betting_floor():
    [out] = decide([undecided(n=10, sd=math.nan, lo=0.0, hi=1.0)])
    floor = bounded_floor(10, 0.05, 0.05, 0.0, 1.0)
    assert out.mde == pytest.approx(floor)
    assert (f"on the mean, differences smaller than {floor:.3g} are missed at n=10 even when every seed differs "
            f"by exactly that much ({BETTING.format(lo=0, hi=1)}); a spread of differences needs more") in out.notes


def test_an_unbounded_pair_prints_the_deciding_procedures_factor_times_its_sd():
    [out] = decide([undecided(n=10, sd=2.0)])
    factor, source = normal_factor(10, 0.05, 0.05)
    assert out.mde == pytest.approx(factor * 2.0)
    assert f"differences smaller than {factor * 2.0:.3g} would likely be missed at n=10 ({source})" in out.notes


def test_holm_level_enters_the_unbounded_factor_and_the_place():
    pairs = [undecided(n=10, sd=1.0) for _ in range(21)]
    out = decide(pairs)[0]
    factor, source = normal_factor(10, 0.05 / 21, 0.05)
    assert out.mde == pytest.approx(factor)
    assert any(n.startswith(f"differences smaller than {factor:.3g} would likely be missed at n=10 with 21 pairs "
                            "(Holm: p<0.0024 first)") for n in out.notes)


def test_a_zero_spread_unbounded_pair_gets_no_figure():
    [out] = decide([undecided(n=10, sd=0.0)])
    assert not any("would likely be missed" in n for n in out.notes) and math.isnan(out.mde)


@pytest.mark.parametrize("method,label", [("two-way clustered t (seeds x questions)", "two-way clustered t"),
                                          ("seed-clustered t", "seed-clustered t")])
def test_an_item_paired_pair_names_its_clustered_test(method, label):
    [out] = decide([undecided(n=10, sd=0.2, items=20, method=method, mde=0.3)])
    assert f"differences smaller than 0.3 would likely be missed at n=10 ({label})" in out.notes


def test_an_unpaired_pair_names_welchs_test():
    [out] = decide([undecided(n=10, sd=0.2, paired=False, mde=0.3)])
    assert "differences smaller than 0.3 would likely be missed at n=10 (Welch t)" in out.notes


def test_the_table_is_read_for_the_alpha_asked_for():
    # alpha 0.1 with 2 pairs: Holm's first level is 0.05, but the simulated table is for alpha 0.05 only,
    # so the figure is the noncentral t's (0.996 sd), not the table's 1.073 sd
    out = decide([undecided(n=10, sd=1.0), undecided(n=10, sd=1.0)], alpha=0.1)[0]
    factor, source = normal_factor(10, 0.05, 0.1)
    assert factor != normal_factor(10, 0.05, 0.05)[0]
    assert out.mde == pytest.approx(factor)
    assert any(f"({source})" in n and n.startswith(f"differences smaller than {factor:.3g}") for n in out.notes)


def test_without_a_betting_floor_the_bounded_mde_is_infinite_not_missing():
    # n = 5, alpha 0.1, 2 pairs: the sign test can reach 0.1 so the pair is "no difference", but Holm's 0.05
    # has no betting floor at n = 5: nothing inside the range would be decided
    out = decide([undecided(n=5, sd=0.1, lo=0.0, hi=1.0), undecided(n=5, sd=0.1, lo=0.0, hi=1.0)], alpha=0.1)[0]
    assert bounded_floor(5, 0.05, 0.1, 0.0, 1.0) is None
    assert out.mde == math.inf
