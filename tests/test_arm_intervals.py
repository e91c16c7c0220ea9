"""Per-arm intervals for bounded rewards: coverage by seeded simulation, and what compare reports."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from baselines import compare
from baselines.analysis.statistics.arm_intervals import BETTING, EXACT_BINOMIAL, bounded_arm_intervals, clopper_pearson
from tests.builders import make_arms

B = {"calls": 10}


@pytest.mark.parametrize("n", [3, 5, 10, 25])
def test_clopper_pearson_covers_at_least_its_level_for_every_success_rate(n):
    rng = np.random.default_rng(n)
    for p in (0.0, 0.02, 0.1, 0.3, 0.5, 0.8, 0.97, 1.0):
        k = rng.binomial(n, p, size=4000)
        lo, hi = clopper_pearson(k, np.full(k.size, n))
        coverage = np.mean((lo <= p) & (p <= hi))
        assert coverage >= 0.95 - 0.01, (n, p, coverage)   # exact: never below 95% (1% simulation slack)


def test_zero_of_ten_is_not_a_zero_width_interval():
    lo, hi = clopper_pearson(np.array([0]), np.array([10]))
    assert lo[0] == 0 and 0.30 < hi[0] < 0.31             # [0, 0.308]: the textbook exact interval


def _groups(values: np.ndarray, reward_range):
    arms = [SimpleNamespace(ci=(np.nan, np.nan), interval="t") for _ in range(len(values))]
    return [SimpleNamespace(scores=values, reward_range=reward_range, arms=arms)], arms


@pytest.mark.parametrize("n", [5, 10])
def test_betting_intervals_cover_skewed_bounded_rewards(n):
    """Rewards in [0, 1] from a skewed beta: the 95% betting interval covers the mean at least 95% of the time."""
    rng = np.random.default_rng(7 + n)
    a, b = 0.3, 3.0
    values = rng.beta(a, b, size=(3000, n))
    groups, arms = _groups(values, (0.0, 1.0))
    bounded_arm_intervals(groups)
    mean = a / (a + b)
    covered = np.mean([arm.ci[0] <= mean <= arm.ci[1] for arm in arms])
    assert all(arm.interval == BETTING for arm in arms)
    assert covered >= 0.95, covered


def test_compare_uses_exact_intervals_for_pass_fail_and_t_for_unbounded():
    passfail = make_arms({"a": {"calls": 10}, "b": {"calls": 10}}, budget=B, seeds=10,
                         reward_fn=lambda arm, s: 0.0 if arm == "a" else float(s < 9))
    arms = compare(passfail, fixed="calls").groups[0].arms
    assert [a.interval for a in arms] == [EXACT_BINOMIAL, EXACT_BINOMIAL]
    assert arms[0].ci[0] == 0 and arms[0].ci[1] > 0.3          # 0 of 10: not [0, 0]
    assert arms[1].ci[1] < 1 or arms[1].mean == 1
    noisy = make_arms({"a": {"calls": 10}, "b": {"calls": 10}}, budget=B, seeds=10,
                      reward_fn=lambda arm, s: 0.1 * s + (arm == "b"))
    assert {a.interval for a in compare(noisy, fixed="calls").groups[0].arms} == {"t"}


def test_the_caption_names_the_interval_each_arm_got():
    from reports.flags import group_caption

    passfail = make_arms({"a": {"calls": 10}, "b": {"calls": 10}}, budget=B, seeds=10,
                         reward_fn=lambda arm, s: float(s % 2))
    group = compare(passfail, fixed="calls").groups[0]
    assert "95% exact binomial (Clopper-Pearson) interval" in group_caption(group, "calls", 0.1)
    noisy = make_arms({"a": {"calls": 10}, "b": {"calls": 10}}, budget=B, seeds=10, reward_fn=lambda arm, s: 0.3 * s)
    assert "95% Student-t interval" in group_caption(compare(noisy, fixed="calls").groups[0], "calls", 0.1)


def test_a_crashed_arm_does_not_let_the_headline_say_every_run_was_verified():
    from reports.flags import comparison_headline

    records = make_arms({"a": {"calls": 10}, "b": {"calls": 10}}, budget=B, seeds=4)
    for r in records:
        if r.arm == "b":
            r.reward, r.error = None, {"type": "RuntimeError", "message": "broke"}
    text = comparison_headline(compare(records, fixed="calls"))
    assert text.startswith("INCOMPLETE") and "verified equal spend in model calls on the runs that were scored" in text
