"""Issue 37 item 3, bounded rewards: the mean claim's "would likely be missed" figure is the deciding procedure's.

Claim: at the printed difference, the mean verdict (t and exact sign-flip /
McNemar p below Holm's first-step level, and the betting interval excluding
0) decides the pair in 0.80 +- 0.05 of data sets. Data models: Beta(2, 5)-
shaped per-seed differences with sd 0.1 on [0, 1] rewards (the issue's
shape; the table assumes normal noise, so this is a check of the model too)
and pass/fail outcomes with a fixed share of differing seeds (the table's
own model); n = 10 and 20, one pair. At n = 5 no number is printed (no
sign-flip p reaches 0.05), and where no difference inside the range reaches
0.8 (pass/fail at n = 10 with half the seeds differing) the note says so.
The default tests check the plumbing; the slow test the shares, 2,000 data
sets per cell (docs/calibration.md, "bounded rewards").
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines.analysis.compare import pair_verdict
from baselines.analysis.statistics import mean_power, stats
from baselines.analysis.statistics.typical_seed import typical_claim
from benchmarks import mean_power_bounded as bench

RR = (0.0, 1.0)


_beta_diffs = bench.beta_diffs
_passfail = bench.passfail_diffs


def _pair(d, rr=RR):
    """The tool's own pair on these differences (b = 0.5 - d/2 style rewards inside the range), with the
    typical-seed claim's sign counts attached as compare() attaches them (pass/fail shares are read from them)."""
    b = np.full(d.size, 0.5) - d / 2
    pair = stats.paired_test("a", "b", b + d, b, reward_range=rr)
    pair.typical = typical_claim(np.asarray(d, dtype=float), 0.95)
    return pair_verdict.decide([pair])[0]


def test_the_benchmark_decides_as_the_verdict_does():
    rng = np.random.default_rng(3)
    d = np.vstack([_beta_diffs(rng, 20, 12, 0.45), _passfail(rng, 20, 12, 0.9, 0.7)])
    mine = bench.decided_many(d)[0]
    theirs = [_pair(row).verdict == "a>b" for row in d]
    assert mine.tolist() == theirs and 3 < sum(theirs) < 37


def test_the_note_prints_the_bounded_tables_figure():
    rng = np.random.default_rng(4)
    d = _beta_diffs(rng, 1, 20, 0.05)[0]
    pair = _pair(d)
    x, source = mean_power.bounded_factor(20, 0.05, 0.05, *RR, float(np.std(d, ddof=1)))
    assert pair.verdict == "no difference detected" and pair.mde == pytest.approx(x)
    note = next(n for n in pair.notes if "would likely be missed" in n)
    assert "t, sign-flip and betting interval together" in note and "normal differences with this sd" in note


def test_pass_fail_pairs_read_the_share_of_differing_seeds():
    d = np.array([1.0] * 6 + [-1.0] * 2 + [0.0] * 12)    # 8 of 20 seeds differ
    pair = _pair(d)
    assert pair_verdict._discordant(pair) == pytest.approx(0.4)
    assert any("40% of seeds differing" in n for n in pair.notes)
    # ten seeds, half of them differing: no difference inside the range is decided in 0.8 of data sets
    half = _pair(np.array([1.0, -1.0, 1.0, 0, 0, 1.0, 0, 0, -1.0, 0]))
    assert half.mde == math.inf and any("no difference inside the reward range would likely be decided" in n
                                        for n in half.notes)


def test_five_seeds_print_no_number_on_bounded_rewards():
    pair = _pair(_beta_diffs(np.random.default_rng(5), 1, 5, 0.3)[0])
    assert pair.verdict == "underpowered" and not any("missed" in n for n in pair.notes)


def _share_at_printed(kind: str, n: int, sims: int, seed: int, q: float = 1.0, family: int = 1) -> float | None:
    level = 0.05 / family
    if kind == "Beta":
        x, _ = mean_power.bounded_factor(n, level, 0.05, *RR, 0.1)
        d = bench.beta_diffs(np.random.default_rng(seed), sims, n, x)
    else:
        x, _ = mean_power.bounded_factor(n, level, 0.05, *RR, math.nan, q)
        if x is None:
            return None
        d = bench.passfail_diffs(np.random.default_rng(seed), sims, n, q, x)
    return float(bench.decided_many(d, levels=(level,))[0].mean())


@pytest.mark.slow
@pytest.mark.parametrize("kind,n,q,family", [("Beta", 10, None, 1), ("Beta", 20, None, 1), ("0/1", 10, 1.0, 1),
                                             ("0/1", 20, 0.6, 1), ("0/1", 20, 1.0, 1), ("Beta", 10, None, 21),
                                             ("Beta", 20, None, 21)])
def test_decided_at_the_printed_difference_is_0_8(kind, n, q, family):
    """docs/calibration.md, "bounded rewards" (family 21: Holm's first step over 21 pairs, as on the demo)."""
    sims = 2000
    share = _share_at_printed(kind, n, sims, seed=977 + n + family, q=q or 1.0, family=family)
    assert share is not None and abs(share - 0.8) <= 0.05 + 2 * math.sqrt(0.16 / sims), share
