"""The governor's projection at round barriers (core/governor.py): the max or mean round, and the first round.

`projected()` is the costliest round so far ("max") or the mean of the rounds ("mean"); `fits()` says yes
when spend + projection ends strictly below the allowance in every budgeted unit, and before any round has
finished there is nothing to project, so a round fits unless a unit is already used up. Values by hand.
"""
from __future__ import annotations

import pytest

from baselines.core.budget import Budget
from baselines.core.meter import Meter


def _rounds(estimate: str, costs: list[int], limit: int = 100):
    meter = Meter(Budget(rollouts=limit))
    gov = meter.governor(estimate=estimate)
    for cost in costs:
        meter.rollouts(cost)
        gov.round_done()
    return meter, gov


@pytest.mark.parametrize("estimate, expected", [("max", 6.0), ("mean", 3.0)])
def test_the_projection_is_the_costliest_or_the_mean_round(estimate, expected):
    meter, gov = _rounds(estimate, [1, 2, 6, 3])          # mean (1 + 2 + 6 + 3) / 4 = 3
    assert gov.rounds == [{"rollouts": 1.0}, {"rollouts": 2.0}, {"rollouts": 6.0}, {"rollouts": 3.0}]
    assert gov.projected() == {"rollouts": expected}


@pytest.mark.parametrize("estimate, spend_to, fits", [
    ("mean", 96, True),    # 96 + 3 = 99 < 100
    ("mean", 97, False),   # 97 + 3 = 100: the Meter would stop the run at its allowance
    ("max", 93, True),     # 93 + 6 = 99
    ("max", 94, False),
])
def test_fits_follows_the_estimate_asked_for(estimate, spend_to, fits):
    meter, gov = _rounds(estimate, [1, 2, 6, 3])
    meter.rollouts(spend_to - 12)
    assert gov.fits() is fits and gov.ended is (not fits)


def test_the_first_round_fits_unless_a_unit_is_used_up():
    meter = Meter(Budget(rollouts=10))
    gov = meter.governor()
    meter.rollouts(9)
    assert gov.fits()                  # 9 of 10, no round to project from: it may start
    meter.rollouts(1)
    assert not gov.fits()              # 10 of 10: used up


def test_a_next_round_named_for_one_unit_leaves_the_others_at_zero_before_any_round():
    meter = Meter(Budget(rollouts=10, widgets=10), measures=("calls", "seconds", "rollouts", "widgets"))
    gov = meter.governor()
    meter.charge("widgets", 9)
    assert gov.fits({"rollouts": 9})   # rollouts 0 + 9 < 10; widgets 9 + nothing named < 10
    assert not gov.fits({"rollouts": 10})
