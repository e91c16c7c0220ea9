"""The Meter's rules, pinned where mutation testing found them unchecked (issue 44).

Each test names the mutants it kills. Oracles are the rules in meter.py's docstrings and the contract:
spend is measured, an unreported unit is None (never 0), a measured unit never charged is a measured 0,
spending exactly the budget is within it, a bad amount is refused by a line that names its unit.
"""
from __future__ import annotations

import math

import pytest

from baselines import Budget
from baselines.core.meter import BudgetExhausted, CellTimeout, Meter


class Clock:
    """A clock the test moves by hand, so elapsed time and deadlines have exact values."""

    def __init__(self, now: float = 10.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_budget_exhausted_names_the_unit_what_was_spent_and_the_limit():
    """Kills: the message dropped, and spent(None) (0) in the stop's figures."""
    meter = Meter(Budget(widgets=3))
    meter.charge("widgets", 2)
    with pytest.raises(BudgetExhausted) as err:
        meter.charge("widgets", 2)                 # 4 > 3: refused before it is charged
    assert (err.value.unit, err.value.spent, err.value.limit) == ("widgets", 2, 3)
    assert str(err.value) == "budget exhausted in widgets: spent 2 of 3"


def test_a_stopped_run_stays_stopped_in_the_unit_that_stopped_it_and_charges_nothing_more():
    """Kills: `exhausted is not None` -> `is None` before a charge, and the re-raise naming None or spent 0."""
    meter = Meter(Budget(widgets=1, rollouts=10))
    meter.charge("widgets", 1)                     # exactly the budget: within it
    with pytest.raises(BudgetExhausted):
        meter.charge("widgets", 1)
    with pytest.raises(BudgetExhausted) as err:
        meter.charge("rollouts", 1)                # fits its own allowance, but the run has stopped
    assert (err.value.unit, err.value.spent, err.value.limit) == ("widgets", 1, 1)
    assert meter.spent("rollouts") == 0            # refused before it was charged


def test_a_fresh_meter_has_no_best_and_no_choice():
    """Kills: best initialised to "" and choice to None (None is a choice an arm may report)."""
    meter = Meter()
    assert meter.best is None and meter.has_choice is False


def test_the_deadline_is_strict_and_its_timeout_says_how_long_the_cell_ran():
    """Kills: the deadline dropped, `>` -> `>=`, and the message dropped."""
    clock = Clock(10.0)
    meter = Meter(clock=clock, deadline=12.5)
    clock.now = 12.5
    meter.call(tokens=1)                           # at the deadline: not past it
    clock.now = 12.75
    with pytest.raises(CellTimeout) as err:
        meter.call(tokens=1)
    assert str(err.value) == "cell ran past its time limit (2.8 s)"   # 12.75 - 10 = 2.75 s, one decimal


def test_tokens_default_to_prompt_plus_completion_only_when_both_are_reported():
    """Kills: `p is not None and c is not None` -> `p is not None and c ... or c is not None`."""
    meter = Meter()
    meter.call(completion_tokens=5)
    assert meter.spend()["tokens"] is None and meter.spend()["completion_tokens"] == 5
    both = Meter()
    both.call(prompt_tokens=3, completion_tokens=4)
    assert both.spend()["tokens"] == 7


def test_dollars_reported_by_a_call_are_measured_under_their_own_name():
    """Kills: the "usd" key renamed."""
    meter = Meter()
    meter.call(usd=0.25)
    meter.call(usd=0.5)
    assert meter.spend()["usd"] == 0.75 and meter.spend()["calls"] == 2


@pytest.mark.parametrize("spend", [
    lambda m: m.call(tokens=-1), lambda m: m.charge("tokens_of_mine", -1), lambda m: m.check(tokens_of_mine=-1)])
def test_a_negative_amount_is_refused_by_a_line_naming_its_unit(spend):
    """Kills: _check_amount(None, ...) in call, charge and check."""
    with pytest.raises(ValueError, match=r"^spend in 'tokens(_of_mine)?' must be a finite non-negative number, got -1$"):
        spend(Meter())


def test_a_boolean_is_not_an_amount():
    """Kills: `isinstance(value, bool) or ...` -> `and` (True would be charged as 1)."""
    with pytest.raises(ValueError, match="got True"):
        Meter().charge("rollouts", True)


def test_calls_and_seconds_cannot_be_charged_by_hand():
    """Kills: the "calls" and "seconds" names mutated, and the seconds message dropped or changed."""
    meter = Meter()
    with pytest.raises(ValueError, match=r"^'calls' is charged through Meter.call\(\)"):
        meter.charge("calls", 1)
    with pytest.raises(ValueError) as err:
        meter.charge("seconds", 1)
    assert str(err.value) == "'seconds' is measured by the Meter's clock, not charged"
    assert meter.spend()["calls"] == 0


def test_a_sub_meter_shares_the_parents_clock_deadline_and_measured_units():
    """Kills: sub() dropping measures, clock or deadline."""
    clock = Clock(0.0)
    parent = Meter(Budget(rollouts=10), measures=("calls", "seconds", "rollouts"), clock=clock, deadline=5.0)
    child = parent.sub(Budget(rollouts=4))
    assert child.spend()["rollouts"] == 0          # measured, never charged: a measured 0, not absent
    clock.now = 3.0
    assert child.elapsed() == 3.0
    clock.now = 6.0
    with pytest.raises(CellTimeout):
        child.call(tokens=1)


def test_one_governor_per_meter_with_the_estimate_asked_for():
    """Kills: the estimate not passed to the Governor, and the repeat's message dropped or changed."""
    meter = Meter(Budget(calls=10))
    assert meter.governor(estimate="mean").estimate == "mean"
    with pytest.raises(ValueError) as err:
        meter.governor(soft=0.5, estimate="mean")
    assert str(err.value) == "this Meter already holds a governor with other settings; ask for it once per run"


def test_what_is_left_is_never_negative_and_token_allowance_reads_the_token_budget():
    """Kills: max(0.0, ...) -> max(1.0, ...) and token_allowance reading another unit."""
    meter = Meter(Budget(rollouts=2, tokens=100))
    meter.charge("rollouts", 2)
    assert meter.remaining("rollouts") == 0
    meter.call(tokens=30)
    assert meter.token_allowance() == 70 and meter.remaining("calls") == math.inf


def test_elapsed_is_clock_minus_start_and_stop_freezes_it_at_the_first_stop():
    """Kills: end + start, the stopped time ignored, stop() clearing or moving the freeze."""
    clock = Clock(10.0)
    meter = Meter(clock=clock)
    clock.now = 13.0
    assert meter.elapsed() == 3.0
    meter.stop()
    clock.now = 20.0
    meter.stop()                                   # a second stop keeps the first
    assert meter.elapsed() == 3.0


def test_progress_refuses_a_non_finite_best_and_records_what_it_was_given():
    """Kills: `best is None or not finite` -> `and`, the message dropped, the trace's filter and choices."""
    meter = Meter()
    with pytest.raises(ValueError, match=r"^progress\(best=...\) needs a finite number, got nan$"):
        meter.progress(float("nan"))
    meter.call(completion_tokens=2)                # tokens unreported: None, kept out of the trace
    meter.progress(0.5, choice="a")
    meter.progress(0.7)
    assert meter.trace_choices == ["a", "a"]
    assert meter.trace[0] == {"spend": {"calls": 1, "completion_tokens": 2}, "best": 0.5}


def test_a_measured_call_unit_never_charged_is_zero_and_an_unmeasured_one_unknown():
    """Kills: the measured-zero rule for call units (None, 1, `!=`, `== 1`, `and False`) and "calls" renamed."""
    measured = Meter(measures=("calls", "seconds", "tokens"))
    assert measured.spend()["tokens"] == 0 and measured.spend()["calls"] == 0
    assert Meter().spend()["tokens"] is None


def test_a_voided_unit_is_unknown_for_the_whole_run():
    """Kills: voided() negated and the voided figure written as "" instead of None."""
    meter = Meter()
    meter.call(usd=0.5)
    meter.void("usd", "a model missing from the price table")
    assert meter.voided("usd") and not meter.voided("tokens")
    assert meter.spend()["usd"] is None


def test_rollouts_charges_one_by_default():
    """Kills: the default n of rollouts() changed."""
    meter = Meter(Budget(rollouts=3))
    meter.rollouts()
    meter.rollouts(2)
    assert meter.spend()["rollouts"] == 3


def test_a_unit_voided_in_a_sub_run_is_unknown_for_the_whole_run():
    """Kills: the parent voiding None, or called without the unit."""
    parent = Meter()
    child = parent.sub(Budget(calls=5))
    child.call(usd=0.5)
    child.void("usd", "no price for 'm'")
    assert parent.voided("usd") and parent.spend()["usd"] is None
