"""Which rewards are bounded (statistics/reward_range.py), and the target and margin checks against the range.

Rules protected: a declared range is two finite numbers lo < hi (ints read as floats, bools refused); a group's
range backs a bound only if every value lies inside (NaN ignored); pass/fail rewards (all 0 or 1) are bounded
by [0, 1]; the observed span reads a trace by `reward` only when every point has one; a target outside the
declared range is refused and one outside the observed span explained; a margin of at least the range's
width is refused, and one wider than the observed spread noted.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines.analysis.statistics.reward_range import (PASS_FAIL_RANGE, check_margin, check_target, detect_range,
                                                         observed_span, parse_reward_range, usable_range)


def test_parse_reward_range_reads_two_finite_numbers_lo_below_hi():
    assert parse_reward_range(None) is None
    assert parse_reward_range([0, 1]) == (0.0, 1.0) and isinstance(parse_reward_range([0, 1])[0], float)
    assert parse_reward_range((-2.5, 3)) == (-2.5, 3.0)
    for bad in ([1, 1], [2, 1], [0], [0, 1, 2], [True, 2], [0, math.inf], [math.nan, 1], ["0", 1], "01", {0: 1}):
        with pytest.raises(ValueError) as info:
            parse_reward_range(bad, "suite.toml: w")
        assert str(info.value) == ("suite.toml: w: reward_range must be [lo, hi], two finite numbers with lo < hi, "
                                   f"got {bad!r}")
    with pytest.raises(ValueError, match=r"^reward_range: reward_range must be"):
        parse_reward_range([1, 0])


def test_usable_range_needs_every_value_inside():
    assert usable_range([0.2, 0.9], (0, 1)) == (0.0, 1.0)
    assert usable_range([0.0, 1.0, math.nan], [0, 1]) == (0.0, 1.0)          # the ends are inside; NaN is ignored
    assert usable_range([], (0, 1)) == (0.0, 1.0)
    assert usable_range([-0.1, 0.5], (0, 1)) is None
    assert usable_range([0.5, 1.1], (0, 1)) is None
    for bad in (None, (0,), ("a", 1), (1, None), (1, 1), (2, 1), (0, math.inf), (-math.inf, 0)):
        assert usable_range([0.5], bad) is None, bad


def test_detect_range_a_declared_range_wins_and_pass_fail_is_bounded():
    assert detect_range([0.2], [0.4], (0, 1)) == (0.0, 1.0)
    assert detect_range([0.0, math.nan], [1.0], (0, 1)) == (0.0, 1.0)
    assert detect_range([], [], (0, 1)) == (0.0, 1.0)
    assert detect_range([[0, 1], [1, 1]], [0], None) == PASS_FAIL_RANGE == (0.0, 1.0)
    assert detect_range([0, 1, math.nan], [1], None) == (0.0, 1.0)
    assert detect_range([0, 0.5], [1], None) is None
    assert detect_range([], [], None) is None
    assert detect_range([math.nan], [], None) is None
    with pytest.raises(ValueError) as info:
        detect_range([1.5], [0.5], (0, 1))
    assert str(info.value) == ("rewards outside the declared reward_range [0, 1] (min 0.5, max 1.5); "
                               "fix the range or the rewards")
    with pytest.raises(ValueError, match=r"^rewards outside the declared reward_range \[0, 1\] \(min -0\.5, max 0\.5\)"):
        detect_range([-0.5], [0.5], (0, 1))
    for bad in ((1, 1), (2, 1), (0, math.inf), (math.nan, 1)):
        with pytest.raises(ValueError) as info:
            detect_range([0.5], [0.5], bad)
        assert str(info.value) == f"reward_range must be two finite numbers lo < hi, got {list(bad)}"


def test_observed_span_reads_rewards_and_each_trace_by_its_field():
    assert observed_span([0.2, math.nan, 0.8]) == (0.2, 0.8)
    assert observed_span([]) is None and observed_span([math.nan]) is None
    traces = [[{"best": 0.1, "reward": 0.05}, {"best": 0.3, "reward": 0.9}],    # every point has reward: read reward
              [{"best": -0.4}, {"best": 0.2, "reward": 5.0}],                   # not every point: read best
              []]
    assert observed_span([0.5], traces) == (-0.4, 0.9)
    assert observed_span([], [[{"best": 0.3}, {"best": None}, {"best": math.inf}, {"best": "x"}]]) == (0.3, 0.3)
    assert observed_span([0.5], [[{"best": 0.7}]]) == (0.5, 0.7)
    assert observed_span([0.5], [[{"best": 0.2}]]) == (0.2, 0.5)


def test_a_target_outside_the_declared_range_is_refused_with_what_is_known():
    with pytest.raises(ValueError) as info:
        check_target(-1.0, (0, 1), None, "workload w")
    assert str(info.value) == ("--target -1 is outside the reward range [0, 1] that workload w declares "
                               "(every run meets it before spending anything); give a target within [0, 1]")
    with pytest.raises(ValueError) as info:
        check_target(2.0, [0, 1], None, "workload w")
    assert str(info.value) == ("--target 2 is outside the reward range [0, 1] that workload w declares "
                               "(no run can reach it); give a target within [0, 1]")
    assert check_target(0.0, (0, 1), None, "w") is None and check_target(1.0, (0, 1), None, "w") is None


def test_a_target_outside_the_observed_scores_is_explained():
    assert check_target(0.9, None, (0.2, 0.8), "g") == "g: no run reached --target 0.9 (the best score observed is 0.8)"
    assert check_target(0.1, None, (0.2, 0.8), "g") == \
        "g: every run met --target 0.1 with its first score (the lowest observed is 0.2)"
    assert check_target(0.8, (0, 1), (0.2, 0.8), "g") is None and check_target(0.2, None, (0.2, 0.8), "g") is None
    assert check_target(0.5, None, None, "g") is None


def test_a_margin_of_the_ranges_width_is_refused():
    with pytest.raises(ValueError) as info:
        check_margin(2.0, (-1, 1), [0.5], "--margin", "workload w")
    assert str(info.value) == ("--margin 2 is at least the width 2 of the reward range [-1, 1] of workload w: no "
                               "difference can exceed it, so the verdict is decided before any data; give a --margin below 2")
    assert check_margin(1.99, (-1, 1), [0.5], "--margin", "w") is None


def test_a_margin_wider_than_the_observed_spread_is_noted():
    assert check_margin(0.5, None, [0.1, 0.3, math.nan, math.inf], "--margin", "w") == (
        "--margin 0.5 is wider than every reward observed here spans (0.2, from 0.1 to 0.3): a difference that "
        "large was never seen, so the verdict says little")
    assert check_margin(0.5, None, np.array([0.0, 0.5]), "--margin", "w") is None
    assert check_margin(0.5, None, [0.1], "--margin", "w") is None
    assert check_margin(0.5, None, [0.1, math.nan], "--margin", "w") is None


def test_an_unscored_run_given_as_none_is_left_out_everywhere():
    """A run without a score (reward null) reads as NaN: it neither bounds nor spreads anything."""
    assert observed_span([0.5, None, 0.7]) == (0.5, 0.7)
    assert usable_range([0.5, None], (0, 1)) == (0.0, 1.0)
    assert detect_range([0, None], [1, None], None) == (0.0, 1.0)
    assert detect_range([0.5, None], [None], (0, 1)) == (0.0, 1.0)
    assert check_margin(0.5, None, [0.1, None, 0.3], "--margin", "w").startswith("--margin 0.5 is wider than")


def test_a_range_of_zero_width_backs_nothing():
    assert usable_range([1.0], (1, 1)) is None


def test_an_empty_trace_does_not_end_the_reading():
    assert observed_span([0.5], [[], [{"best": -0.4}]]) == (-0.4, 0.5)
