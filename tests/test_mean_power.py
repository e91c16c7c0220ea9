"""Issue 37 item 3: the mean claim's "would likely be missed" figure is the deciding procedure's own.

Claim: at the printed difference (the table's delta / sd times the true sd of
normal per-seed differences), the mean verdict (t and exact sign-flip p below
Holm's first-step level, and the printed t + bootstrap-t hull excluding 0)
decides the pair in 0.80 +- 0.05 of data sets. Data model: normal paired
differences; n = 10 and 20, alpha 0.05, one pair and 21 pairs (Holm level
0.05/21); at n = 5 no figure is printed (the sign-flip test cannot reach 0.05).
The default test checks one cheap cell (n = 10, 400 data sets); the slow test
the grid at 2,000. Bounded rewards print the smallest difference the betting
interval decides in 0.8 of data sets like these (tests/test_mean_power_bounded.py), at least the smallest
difference it can decide at all (constant differences), or say none can.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines.analysis.compare import pair_verdict
from baselines.analysis.statistics import mean_power, stats
from baselines.analysis.statistics.pair_interval import block_intervals
from benchmarks import mean_power as bench


def _share(n: int, level: float, sims: int, seed: int) -> float:
    factor, _ = mean_power.normal_factor(n, level)
    z = np.random.default_rng(seed).normal(0.0, 1.0, (sims, n))
    d = z + factor                                          # sd 1: the printed difference is factor * 1
    lo, _, _ = block_intervals(d, d.mean(axis=1), d.std(axis=1, ddof=1), 0.95, None, 0)
    return float(bench.decided(d, level, lo).mean())


def test_the_benchmark_decides_as_the_verdict_does():
    """benchmarks/mean_power.py's `decided` is pair_verdict.decide's mean verdict, data set by data set."""
    rng = np.random.default_rng(11)
    d = rng.normal(1.0, 1.0, (40, 10))
    lo, _, _ = block_intervals(d, d.mean(axis=1), d.std(axis=1, ddof=1), 0.95, None, 0)
    mine = bench.decided(d, 0.05, lo)
    theirs = [pair_verdict.decide([stats.paired_test("a", "b", row, np.zeros(10))])[0].verdict == "a>b"
              for row in d]
    assert mine.tolist() == theirs and 5 < sum(theirs) < 35


def test_decided_at_the_printed_difference_about_0_8_at_ten_seeds():
    sims = 400
    share = _share(10, 0.05, sims, seed=901)
    assert abs(share - 0.8) <= 0.05 + 2 * math.sqrt(0.16 / sims)


def test_the_note_prints_the_tables_figure_and_names_it():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 1, 10), rng.normal(0, 1, 10)
    [pair] = pair_verdict.decide([stats.paired_test("a", "b", a, b)])
    sd = float(np.std(a - b, ddof=1))
    assert pair.mde == pytest.approx(mean_power.normal_factor(10, 0.05)[0] * sd)
    note = next(n for n in pair.notes if "would likely be missed" in n)
    assert "simulated: t, sign-flip and interval together, on normal differences" in note


def test_five_seeds_print_no_figure():
    rng = np.random.default_rng(3)
    [pair] = pair_verdict.decide([stats.paired_test("a", "b", rng.normal(0, 1, 5), rng.normal(0, 1, 5))])
    assert pair.verdict == "underpowered" and not any("missed" in n for n in pair.notes)


def test_bounded_rewards_print_the_betting_floor_or_say_none_decides():
    rr = (0.0, 1.0)
    floor = mean_power.bounded_floor(10, 0.05, 0.05, *rr)
    assert floor is not None and 0.3 < floor < 0.7
    above = pair_verdict.decide([stats.paired_test("a", "b", np.full(10, floor * 1.02 + 0.1), np.full(10, 0.1),
                                                   reward_range=rr)])[0]
    below = pair_verdict.decide([stats.paired_test("a", "b", np.full(10, floor * 0.95 + 0.1), np.full(10, 0.1),
                                                   reward_range=rr)])[0]
    assert above.verdict == "a>b" and below.verdict != "a>b"
    rng = np.random.default_rng(4)
    x, y = rng.uniform(0.2, 0.8, 10), rng.uniform(0.2, 0.8, 10)
    [pair] = pair_verdict.decide([stats.paired_test("a", "b", x, y, reward_range=rr)])
    assert pair.verdict == "no difference detected"
    # the printed figure is the simulated 80% point (tests/test_mean_power_bounded.py), never below the floor
    assert pair.mde >= floor and any(f"differences smaller than {pair.mde:.3g} would likely be missed" in n
                                     and "betting interval together" in n for n in pair.notes)
    # 8 seeds, 21 pairs: the sign-flip test cannot reach 0.05/21, so no difference is decided and none is printed
    assert mean_power.bounded_floor(8, 0.05 / 21, 0.05, *rr) is None
    rows = rng.uniform(0, 1, (7, 8))
    pairs = pair_verdict.decide([stats.paired_test(f"a{i}", f"a{j}", rows[i], rows[j], reward_range=rr)
                                 for i in range(7) for j in range(i + 1, 7)])
    quiet = next(p for p in pairs if p.verdict == "no difference detected")
    assert not any("missed" in n for n in quiet.notes) and any("cannot reach" in n for n in quiet.notes)


@pytest.mark.slow
@pytest.mark.parametrize("n,family", [(10, 1), (20, 1), (10, 21), (20, 21)])
def test_decided_at_the_printed_difference_is_0_8(n, family):
    """docs/calibration.md, "The mean claim's would-likely-be-missed difference": 2,000 normal data sets."""
    sims = 2000
    share = _share(n, 0.05 / family, sims, seed=902 + n + family)
    assert abs(share - 0.8) <= 0.05 + 2 * math.sqrt(0.16 / sims), share
