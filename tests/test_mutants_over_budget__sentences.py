"""Over budget said at its edges (analysis/compare/over_budget.py): allowances of 0 and 1, amounts, the worst
group, a workload's nouns, a run without a seed, and nothing said when nothing went over.

An allowance of 0 has no "how far" (JSON `over` null, no "by at most"); a small allowance (1) is a budget like
any other. Whole amounts print with thousands separators, others as they are. The headline names the group
whose worst run went furthest over. Every expected sentence is written out by hand.
"""
from __future__ import annotations

import numpy as np
import pytest

from baselines import compare
from baselines.analysis.compare.over_budget import comparison_sentence, group_sentence, over_budget
from baselines.core.records import RunRecord


def records(unit: str, allowance: float, over: dict[tuple[str, int], float], workload: str = "w") -> list[RunRecord]:
    return [RunRecord(workload, arm, seed, {unit: over.get((arm, seed), allowance)}, 0.5 + 0.01 * seed,
                      {unit: allowance}, {}) for arm in ("x", "y") for seed in range(5)]


# -- how far, when the allowance is 0 or 1 ------------------------------------------------------------------------
def test_an_allowance_of_zero_has_no_share_in_json_headline_or_caption():
    comparison = compare(records("calls", 0, {("x", 3): 1}))
    found = comparison.to_json()["groups"][0]["over_budget"]
    assert found == {"unit": "calls", "allowance": 0.0, "runs": 1, "of_runs": 10,
                     "worst": {"arm": "x", "seed": 3, "spend": 1.0, "over": None}, "arms": {"x": 1}}
    assert ("Over budget: 1 of 10 runs in 1 group(s) spent beyond their budget in the fixed unit "
            "(worst: x on w, seed 3).") in comparison.to_markdown()
    assert group_sentence(comparison.groups[0].over_budget) == (
        "Over budget: 1 of 10 runs spent beyond the allowance of 0 model calls (x: 1 on seed 3; "
        "runs over per arm: x 1).")


def test_an_allowance_of_one_is_a_budget_like_any_other():
    comparison = compare(records("widgets", 1, {("x", 3): 1.05}))    # within the tolerance: a valid group
    found = comparison.to_json()["groups"][0]["over_budget"]
    assert found["worst"]["over"] == pytest.approx(0.05) and found["allowance"] == 1.0
    markdown = comparison.to_markdown()
    assert ("Over budget: 1 of 10 runs in 1 group(s) spent beyond their budget in the fixed unit by at most 5.0% "
            "(worst: x on w, seed 3).") in markdown
    assert ("Over budget: 1 of 10 runs spent beyond the allowance of 1 'widgets' units, by at most 5.0% "
            "(x: 1.05 on seed 3; runs over per arm: x 1).") in markdown


# -- amounts ------------------------------------------------------------------------------------------------------
def test_whole_amounts_keep_every_digit_and_others_their_decimals():
    big = compare(records("tokens", 1_500_000, {("y", 2): 1_500_012})).groups[0].over_budget
    assert group_sentence(big) == (
        "Over budget: 1 of 10 runs spent beyond the allowance of 1,500,000 tokens, by at most 0.0% "
        "(y: 1,500,012 on seed 2; runs over per arm: y 1). Tokens are charged as reported, so the call that "
        "crosses the budget ends the run beyond it: expected, and measured.")
    small = compare(records("widgets", 10, {("x", 1): 10.25})).groups[0].over_budget
    assert group_sentence(small) == (
        "Over budget: 1 of 10 runs spent beyond the allowance of 10 'widgets' units, by at most 2.5% "
        "(x: 10.25 on seed 1; runs over per arm: x 1).")


# -- the headline's worst group -----------------------------------------------------------------------------------
def test_the_headline_names_the_group_that_went_furthest_over():
    recs = records("calls", 10, {("x", 3): 11}, "w1") + records("calls", 10, {("y", 4): 12}, "w2")
    comparison = compare(recs)
    assert comparison_sentence(comparison.groups) == (
        "Over budget: 2 of 20 runs in 2 group(s) spent beyond their budget in the fixed unit by at most 20.0% "
        "(worst: y on w2, seed 4).")
    reversed_order = compare(records("calls", 10, {("y", 4): 12}, "w2") + records("calls", 10, {("x", 3): 11}, "w1"))
    assert "by at most 20.0% (worst: y on w2, seed 4)" in comparison_sentence(reversed_order.groups)


# -- nothing over, a workload's nouns, no seed --------------------------------------------------------------------
def test_nothing_over_says_nothing():
    comparison = compare(records("calls", 10, {}))
    assert comparison.groups[0].over_budget is None
    assert group_sentence(None) == "" and comparison_sentence(comparison.groups) == ""
    assert comparison_sentence([]) == ""


def test_a_workloads_own_noun_names_the_unit():
    found = over_budget(["x"], [np.array([10.0, 11.0])], [np.array([0, 1])], "calls", 10)
    assert group_sentence(found, {"calls": "function evaluations"}) == (
        "Over budget: 1 of 2 runs spent beyond the allowance of 10 function evaluations, by at most 10.0% "
        "(x: 11 on seed 1; runs over per arm: x 1).")
    assert group_sentence(found, {}).startswith("Over budget: 1 of 2 runs spent beyond the allowance of 10 model calls")


def test_a_worst_run_without_a_seed_is_named_without_one():
    found = over_budget(["x", "y"], [np.array([12.0]), np.array([11.0, 10.0])], [np.array([]), np.array([0, 1])],
                        "calls", 10)
    assert (found.worst_arm, found.worst_seed, found.worst_spend) == ("x", None, 12.0)
    assert found.to_json()["worst"] == {"arm": "x", "seed": None, "spend": 12.0, "over": 0.2}
    assert group_sentence(found) == ("Over budget: 2 of 3 runs spent beyond the allowance of 10 model calls, by at "
                                     "most 20.0% (x: 12; runs over per arm: x 1, y 1).")

    class Group:  # what comparison_sentence reads of a group
        workload, over_budget = "w", found
    assert comparison_sentence([Group()]) == (
        "Over budget: 2 of 3 runs in 1 group(s) spent beyond their budget in the fixed unit by at most 20.0% "
        "(worst: x on w).")
