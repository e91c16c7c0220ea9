"""Every parameter of `run`, `compare` and `check` names itself and the value given when it is wrong (issue 41).

Failed before: `run(arms={5: Greedy})` raised "TypeError: expected string or
bytes-like object, got 'int'" from inside suite parsing; `compare(records,
tolerance="x")`, `check(..., bounds=3)` and the rest failed as deep or not at
all. Each case here is one parameter with one bad value, checked before any
work (no suite is parsed, no record read).
"""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from baselines import Budget, check, compare, run
from baselines.core.api_arguments import RUN_RULES, ArgumentError, check_rules, comparison_rules
from baselines.core.errors import InputError

from .builders import make_arms

RECORDS = make_arms({"a": {"tokens": 100}, "b": {"tokens": 100}}, seeds=3)
GOOD_RUN = {"workload": "workloads.search_sim:SearchSim", "arms": {"greedy": "arms.selection:Greedy"},
            "budget": Budget(rollouts=4)}
GOOD_CHECK = {"records": RECORDS, "baseline": "a", "candidate": "b", "margin": 0.1}


class _Thing:  # an object that is no spec, no budget and no record
    def __repr__(self) -> str:
        return "<thing>"


RUN_CASES = {
    "workload": 5, "arms": {5: "arms.selection:Greedy"}, "budget": 30, "seeds": 0, "fixed": 3, "out": 7,
    "jobs": 0, "backend": "threads", "timeout": -1, "name": "", "tolerance": "x", "fresh": "yes",
    "keep_stale": 1, "retry_errors": "yes", "plots": None,
}
COMPARE_CASES = {
    "records": [5], "fixed": 3, "options": {"tolerance": 0.1}, "tolerance": "x", "alpha": 0.7,
    "allow_early_stop": "no", "baseline": 5, "equivalence_margin": -0.1, "seed": 1.5, "metric": 3,
    "start": float("nan"), "pairs": "some", "bootstrap": 1, "workloads": [1], "budgets": [("tokens", "x")],
    "confound_units": 5, "reward_range": (1, 0), "claim": "median",
    "questions": "all",
}
CHECK_CASES = {**{k: v for k, v in COMPARE_CASES.items() if k not in ("equivalence_margin", "seed", "pairs",
                                                                        "bootstrap")},
               "records": 5, "baseline": None, "candidate": 3, "margin": -0.5, "lower_is_better": "yes",
               "bounds": 3, "max_loss": -1, "history": 5, "commit": "", "branch": 3, "reference": 5,
               "reference_arm": "", "reference_label": 4, "drift_horizon": 0}


def _message(call) -> str:
    with pytest.raises(ArgumentError) as caught:
        call()
    assert isinstance(caught.value, (InputError, TypeError, ValueError))
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("name", sorted(RUN_CASES))
def test_every_run_parameter_names_itself_and_the_value(name, monkeypatch):
    import baselines.api as api

    def no_suite(*args, **kwargs):
        raise AssertionError("the suite was built before the arguments were checked")

    monkeypatch.setattr(api, "build_suite", no_suite)
    value = RUN_CASES[name]
    message = _message(lambda: run(**{**GOOD_RUN, name: value}))
    assert message.startswith(f"run: {name} must be "), message
    assert f"got {name}=" in message


def test_the_issues_case_names_the_arm_key():
    from arms.selection import Greedy

    message = _message(lambda: run("workloads.search_sim:SearchSim", arms={5: Greedy}, budget=Budget(rollouts=4)))
    assert "run: arms must be a dict" in message and "the arm name 5 is int, not a string" in message


@pytest.mark.parametrize("name", sorted(COMPARE_CASES))
def test_every_compare_parameter_names_itself_and_the_value(name):
    given = {"records": RECORDS, name: COMPARE_CASES[name]}
    message = _message(lambda: compare(**given))
    assert message.startswith(f"compare: {name} must be "), message
    assert f"got {name}=" in message


@pytest.mark.parametrize("name", sorted(CHECK_CASES))
def test_every_check_parameter_names_itself_and_the_value(name):
    message = _message(lambda: check(**{**GOOD_CHECK, name: CHECK_CASES[name]}))
    assert message.startswith(f"check: {name} must be "), message
    assert f"got {name}=" in message


@pytest.mark.parametrize("function, rules", [(run, RUN_RULES), (compare, comparison_rules(object, object)),
                                             (check, check_rules(object, object))])
def test_every_parameter_has_a_rule_and_a_test(function, rules):
    """A parameter added later without a rule would be unchecked (and check_arguments would fail on it)."""
    params = set(inspect.signature(function).parameters)
    assert set(rules) == params
    cases = {run: RUN_CASES, compare: COMPARE_CASES, check: CHECK_CASES}[function]
    assert set(cases) == params


@pytest.mark.parametrize("given", [{"margin": "2%"}, {"margin": 0}, {"records": Path("nowhere.jsonl")},
                                   {"workloads": "w"}, {"budgets": [("tokens", 1000)]}, {"reward_range": [0, 1]}])
def test_good_values_pass_the_boundary(given):
    try:
        check(**{**GOOD_CHECK, **given})
    except ArgumentError as exc:  # pragma: no cover - the failure this test is for
        pytest.fail(f"refused a good value: {exc}")
    except (InputError, ValueError):
        pass  # refused later, for what the records hold (no such file, no such workload): not the boundary
