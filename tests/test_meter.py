import pytest

from baselines import Budget, BudgetExhausted, Meter


def test_calls_that_report_tokens_are_measured():
    m = Meter()
    m.call(prompt_tokens=10, completion_tokens=5)
    m.call(prompt_tokens=1, completion_tokens=2)
    s = m.spend()
    assert (s["calls"], s["prompt_tokens"], s["completion_tokens"], s["tokens"]) == (2, 11, 7, 18)
    assert m.partial() == []


def test_calls_without_usage_leave_tokens_unreported_not_zero():
    m = Meter()
    m.call()
    m.call()
    s = m.spend()
    assert s["calls"] == 2
    assert s["tokens"] is None and s["prompt_tokens"] is None and s["usd"] is None


def test_usage_on_some_calls_only_is_partial_lower_bound():
    m = Meter()
    m.call(prompt_tokens=100, completion_tokens=50)
    m.call()
    assert m.spend()["tokens"] == 150
    assert m.partial() == ["prompt_tokens", "completion_tokens", "tokens"]


def test_measured_zero_differs_from_unreported():
    m = Meter(measures=("calls", "rollouts", "tokens"))
    s = m.spend()
    assert s["rollouts"] == 0 and s["tokens"] == 0 and s["calls"] == 0
    assert Meter().spend()["tokens"] is None


def test_extra_call_units_are_judged_per_call():
    m = Meter()
    m.call(prompt_tokens=1, completion_tokens=1, cached_tokens=5)
    m.call(prompt_tokens=1, completion_tokens=1)
    assert m.spend()["cached_tokens"] == 5
    assert "cached_tokens" in m.partial()


def test_exhausting_a_budgeted_unit_raises_and_records_overshoot():
    m = Meter(Budget(tokens=100))
    m.call(prompt_tokens=40, completion_tokens=40)
    with pytest.raises(BudgetExhausted) as info:
        m.call(prompt_tokens=40, completion_tokens=40)
    assert info.value.unit == "tokens"
    assert m.spend()["tokens"] == 160  # measured, including the overshoot
    assert m.exhausted == "tokens"


def test_budget_stop_cannot_be_swallowed_by_except_exception():
    m = Meter(Budget(rollouts=2))

    def careless_arm():
        while True:
            try:
                m.rollouts(1)
            except Exception:  # an arm's generic error handling
                pass

    with pytest.raises(BudgetExhausted):
        careless_arm()
    assert m.spend()["rollouts"] == 2


def test_every_charge_after_exhaustion_raises_again():
    m = Meter(Budget(calls=1))
    m.call()  # the one call the budget allows: its result is usable
    with pytest.raises(BudgetExhausted):
        m.check()
    with pytest.raises(BudgetExhausted):
        m.rollouts()
    with pytest.raises(BudgetExhausted):
        m.call()


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_a_budget_of_n_calls_gives_n_usable_results(n):
    m = Meter(Budget(calls=n))
    used = 0
    with pytest.raises(BudgetExhausted) as info:
        while True:
            m.check()   # before the call: the (n + 1)-th is never made
            m.call(prompt_tokens=3, completion_tokens=4)
            used += 1   # the call's result reaches the arm
    assert used == n and m.spend()["calls"] == n
    assert info.value.unit == "calls" and m.exhausted == "calls"


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_budget_of_n_rollouts_gives_n_uses_charged_before_use(n):
    m = Meter(Budget(rollouts=n), measures=("calls", "rollouts"))
    used = 0
    with pytest.raises(BudgetExhausted):
        while True:
            m.rollouts(1)  # refused before charging once it would go beyond n
            used += 1
    assert used == n and m.spend()["rollouts"] == n


def test_a_charge_that_would_go_beyond_is_refused_whole_and_uncharged():
    parent = Meter(Budget(rollouts=5), measures=("calls", "rollouts"))
    child = parent.sub(Budget(rollouts=10))
    child.rollouts(3)
    with pytest.raises(BudgetExhausted) as info:
        child.rollouts(3)  # 6 > 5: the run's allowance refuses it, nothing is charged anywhere
    assert info.value.limit == 5 and parent.exhausted == "rollouts" and child.exhausted is None
    assert parent.spend()["rollouts"] == 3 and child.spend()["rollouts"] == 3
    m = Meter(Budget(rollouts=5), measures=("calls", "rollouts"))
    m.rollouts(2)
    with pytest.raises(BudgetExhausted):
        m.check(rollouts=4)  # asked before the work: 2 + 4 > 5
    assert m.spend()["rollouts"] == 2


def test_spending_exactly_a_token_budget_is_within_it_and_the_next_check_stops():
    m = Meter(Budget(tokens=100))
    m.call(prompt_tokens=60, completion_tokens=40)  # exactly the budget: no stop, the result is usable
    assert m.exhausted is None
    with pytest.raises(BudgetExhausted):
        m.check()
    assert m.spend()["tokens"] == 100 and m.spend()["calls"] == 1


def test_a_call_made_without_check_beyond_the_call_budget_is_measured_then_stops():
    m = Meter(Budget(calls=2))
    m.call()
    m.call()
    with pytest.raises(BudgetExhausted):
        m.call()  # the call happened: it is recorded (spend is measured), then the run stops
    assert m.spend()["calls"] == 3


def test_remaining_and_token_allowance():
    m = Meter(Budget(tokens=1000, completion_tokens=300))
    m.call(prompt_tokens=100, completion_tokens=50)
    assert m.remaining("tokens") == 850
    assert m.token_allowance() == 250
    assert m.remaining("calls") == float("inf")


def test_progress_builds_trace_and_keeps_choice():
    m = Meter(Budget(rollouts=10), measures=("calls", "rollouts"))
    m.rollouts(2)
    m.progress(0.3, choice="x")
    m.rollouts(3)
    m.progress(0.5)
    assert [p["best"] for p in m.trace] == [0.3, 0.5]
    assert [p["spend"]["rollouts"] for p in m.trace] == [2, 5]
    assert m.choice == "x" and m.best == 0.5


def test_seconds_come_from_the_clock():
    t = iter([0.0, 2.5, 2.5])
    m = Meter(clock=lambda: next(t))
    m.stop()
    assert m.spend()["seconds"] == 2.5


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_bad_amounts_are_rejected(bad):
    with pytest.raises(ValueError, match="finite non-negative"):
        Meter().call(prompt_tokens=bad, completion_tokens=1)


def test_calls_and_tokens_cannot_be_charged_as_custom_units():
    with pytest.raises(ValueError, match="Meter.call"):
        Meter().charge("tokens", 5)


def test_sub_meter_charges_parent_and_stops_on_its_share():
    parent = Meter(Budget(rollouts=10), measures=("calls", "rollouts"))
    shares = parent.budget.split(3)
    child = parent.sub(shares[0])
    with pytest.raises(BudgetExhausted):
        for _ in range(10):
            child.rollouts(1)
    assert child.spend()["rollouts"] == 4 and parent.spend()["rollouts"] == 4
    assert parent.exhausted is None  # the share ran out, not the run


def test_parent_allowance_stops_a_sub_meter():
    parent = Meter(Budget(calls=3))
    child = parent.sub(Budget(calls=100))
    with pytest.raises(BudgetExhausted) as info:
        for _ in range(10):
            child.check()
            child.call()
    assert parent.spend()["calls"] == 3 and child.spend()["calls"] == 3
    assert parent.exhausted == "calls" and info.value.limit == 3
