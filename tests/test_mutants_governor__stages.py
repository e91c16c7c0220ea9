"""The governor's stages at their edges (core/governor.py): floors, the budget fraction, the refusal messages.

A floor is a fraction of the budget in (0, 1]: 1 is allowed (drop the stage only when a unit is used up),
0 and booleans are not. The fraction is spent / allowance, largest over the budgeted units, an allowance of 0
counting as all spent (1.0, never more), 0 without a budget; in a tie the unit named is the budget's first.
Messages name the stage and list what is declared or allowed. Every value below is worked out by hand.
"""
from __future__ import annotations

import pytest

from baselines.core.budget import Budget
from baselines.core.meter import Meter


# -- floors ------------------------------------------------------------------------------------------------------
def test_a_floor_of_one_is_allowed_and_refuses_only_at_the_whole_budget():
    meter = Meter(Budget(rollouts=10))
    gov = meter.governor(stages={"last": 1})
    assert gov.stages["last"] == 1.0
    meter.rollouts(9)
    assert gov.allow("last")          # 90% spent, below a floor of 100%
    meter.rollouts(1)
    assert not gov.allow("last")      # 100%: the whole allowance is spent
    gov.declare("late", 1.0)
    assert gov.stages["late"] == 1.0


@pytest.mark.parametrize("bad", [0, 0.0, True, False, -0.1, 1.01, "0.5", None])
def test_a_floor_outside_zero_to_one_or_not_a_number_is_refused_naming_the_stage(bad):
    with pytest.raises(ValueError) as err:
        Meter(Budget(rollouts=10)).governor(stages={"explore": bad})
    assert str(err.value) == (f"governor stage 'explore' needs a floor in (0, 1] (a fraction of the budget), "
                              f"got {bad!r}")
    gov = Meter(Budget(rollouts=10)).governor()
    with pytest.raises(ValueError) as err:
        gov.declare("sweep", bad)
    assert str(err.value).startswith("governor stage 'sweep' needs a floor in (0, 1]")


def test_an_unknown_estimate_is_refused_listing_the_two_there_are():
    with pytest.raises(ValueError) as err:
        Meter(Budget(rollouts=10)).governor(estimate="median")
    assert str(err.value) == "governor estimate must be one of max, mean, got 'median'"


def test_an_undeclared_stage_is_refused_listing_the_declared_ones():
    gov = Meter(Budget(rollouts=10)).governor(stages={"explore": 0.5})
    with pytest.raises(ValueError) as err:
        gov.allow("verfy")
    assert str(err.value) == ("unknown governor stage 'verfy'; declared: 'rank', 'verify', 'explore' "
                              "(declare it with a floor)")


# -- the budget fraction -----------------------------------------------------------------------------------------
def test_without_a_budget_the_fraction_is_zero_and_names_no_unit():
    gov = Meter(None).governor()
    assert gov.fraction() == (0.0, None)


def test_an_allowance_of_zero_counts_as_all_spent_and_no_more():
    meter = Meter(Budget(rollouts=0, widgets=100), measures=("calls", "seconds", "rollouts", "widgets"))
    gov = meter.governor()
    assert gov.fraction() == (1.0, "rollouts")
    assert not gov.allow("verify")
    assert gov.fired[0].fraction == 1.0 and gov.fired[0].unit == "rollouts"
    assert gov.fired[0].to_json()["fraction"] == 1


@pytest.mark.parametrize("limit, spent, share", [(1, 0, 0.0), (1, 0.5, 0.5), (0.5, 0.25, 0.5), (4, 3, 0.75)])
def test_a_small_allowance_is_divided_not_taken_as_used_up(limit, spent, share):
    """Allowances of 1 or below (a dollar, half a widget) are fractions like any other."""
    meter = Meter(Budget(widgets=limit), measures=("calls", "seconds", "widgets"))
    gov = meter.governor(stages={"half": 0.6})
    if spent:
        meter.charge("widgets", spent)
    assert gov.fraction() == (share, "widgets")
    assert gov.allow("rank") is (share < 0.75) and gov.allow("half") is (share < 0.6)


def test_in_a_tie_the_fraction_names_the_budgets_first_unit():
    """Equal shares in two units: the unit recorded is the first in the budget's own order (Budget.units)."""
    budget = Budget(widgets=10, rollouts=20)
    first = budget.units[0]
    assert first == "rollouts"                         # standard units come before custom ones
    meter = Meter(budget, measures=("calls", "seconds", "rollouts", "widgets"))
    gov = meter.governor()
    meter.charge("widgets", 8)
    meter.rollouts(16)
    assert gov.fraction() == (0.8, first)
    assert not gov.allow("rank") and gov.fired[0].unit == first


def test_ended_is_a_flag_false_until_a_round_does_not_fit():
    meter = Meter(Budget(rollouts=10))
    gov = meter.governor()
    assert gov.ended is False
    assert gov.fits() and gov.ended is False
    meter.rollouts(10 - 1)
    gov.round_done()                                   # a round of 9: the next would reach 18 of 10
    assert not gov.fits() and gov.ended is True
