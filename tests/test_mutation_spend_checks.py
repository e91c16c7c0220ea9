"""The spend-check rules that mutation testing found unchecked (issue 44, `compare/spend_checks.py`).

Each test pins one promised rule with exact values: only scored runs are judged in the fixed unit; a
run that raised did not stop on its own; unreported is never 0; the worst run is the one furthest from
the reference; a confound is judged on medians of fully reported arms, a partial arm's median is a
lower bound, a drift of exactly the tolerance is within it. `check_confound` is also called directly
because the whole-column screen skips it on groups it finds clean (so its boundary cases are
unreachable through `compare`).
"""
from __future__ import annotations

from types import SimpleNamespace

from baselines import compare
from baselines.analysis.compare.comparison import MEASURED, PARTIAL, UNREPORTED, Group, UnitSpend
import numpy as np

from baselines.analysis.compare.spend_checks import check_confound, set_over_budget
from tests.builders import make_arms, rec

B = {"tokens": 1000}


def group_of(records, **kw):
    [g] = compare(records, fixed=kw.pop("fixed", "tokens"), **kw).groups
    return g


# -- check_runs: only scored runs are judged, and the "no scored runs" note counts errors ------------------

def test_a_failed_runs_spend_is_not_judged_and_an_all_failed_arm_is_noted():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}, "c": {"tokens": 1000}}, budget=B)
    for r in records:
        if r.arm == "c":
            r.reward, r.error, r.spend["tokens"] = None, {"type": "Timeout"}, 100.0   # crashed early
    records[5].reward, records[5].error, records[5].spend["tokens"] = None, {"type": "Timeout"}, 10.0  # b, seed 0
    g = group_of(records)
    assert g.unequal == [] and g.unverified == []
    assert "c: no scored runs (5 run(s), 5 with errors)" in g.notes


def test_over_allowance_within_tolerance_counts_scored_runs_only():
    # the screen finds this group clean (every run within 10%), so only set_over_budget runs on it
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B)
    records[8].spend["tokens"] = 1050.0                                   # b, seed 3: scored, 5% over
    records[1].spend["tokens"], records[1].reward, records[1].error = 1080.0, None, {"type": "Boom"}  # a, seed 1
    ob = group_of(records).over_budget
    assert (ob.unit, ob.allowance, ob.runs, ob.of_runs) == ("tokens", 1000.0, 1, 9)
    assert (ob.worst_arm, ob.worst_seed, ob.worst_spend) == ("b", 3, 1050.0)


def test_failed_runs_over_the_allowance_alone_are_not_over_budget():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B)
    records[1].spend["tokens"], records[1].reward, records[1].error = 1080.0, None, {"type": "Boom"}
    assert group_of(records).over_budget is None


# -- _check_fixed ------------------------------------------------------------------------------------------

def test_an_arm_with_one_scored_run_is_still_checked():
    records = make_arms({"a": {"tokens": 1000}}, budget=B) + [rec("b", 0, 0.5, tokens=1300)]
    [flag] = group_of(records).unequal
    assert (flag.arm, flag.direction, flag.seed, flag.runs, flag.of_runs) == ("b", "over", 0, 1, 1)


def test_arms_after_an_all_failed_arm_are_still_verified():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": None}, "c": {"tokens": 1000}}, budget=B)
    for r in records:
        if r.arm == "a":
            r.reward, r.error = None, {"type": "Timeout"}
    [u] = group_of(records).unverified
    assert (u.arm, u.unit, u.reason, u.reported_runs, u.runs) == ("b", "tokens", "unreported", 0, 5)


def test_a_budget_is_the_reference_and_its_source_is_said():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1300}}, budget=B)
    g = group_of(records)
    assert (g.reference, g.reference_source) == (1000.0, "budget")
    [flag] = g.unequal
    assert (flag.arm, flag.unit, flag.reference, flag.reference_source) == ("b", "tokens", 1000.0, "budget")
    ob = g.over_budget  # the runs above the budget are counted on the check_runs path too
    assert (ob.unit, ob.runs, ob.of_runs, ob.worst_arm, ob.worst_spend) == ("tokens", 5, 10, "b", 1300.0)


def test_two_fully_reporting_arms_without_a_budget_make_the_median_reference():
    g = group_of(make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1500}}, budget={}))
    assert (g.reference, g.reference_source) == (1250.0, "median of arms")
    assert sorted((f.arm, f.direction, f.reference_source) for f in g.unequal) == \
        [("a", "under", "median of arms"), ("b", "over", "median of arms")]
    assert g.over_budget is None   # no budget: nothing to be over


def test_without_a_budget_one_or_no_full_reporter_cannot_be_checked_and_says_why():
    one = group_of(make_arms({"a": {"tokens": 1000}, "b": {"tokens": None}}, budget={}))
    assert "no budget in tokens and fewer than two arms report tokens in full, so equal spend in tokens " \
           "cannot be checked" in one.notes
    assert one.reference is None and one.unequal == []
    none = group_of(make_arms({"a": {"tokens": None, "calls": 3}, "b": {"tokens": None, "calls": 3}}, budget={}))
    assert "no arm reports tokens in full, so equal spend in tokens cannot be checked" in none.notes


# -- _drift: early stops, the worst run ----------------------------------------------------------------------

def early_records():
    records = make_arms({"a": {"calls": 100}, "nm": {"calls": 100}}, budget={"calls": 100})
    for r in records:
        r.stop_reason = "converged" if r.arm == "nm" else "budget:calls"
    return records


def test_only_drifted_own_stops_are_counted_as_early_stops():
    records = early_records()
    records[6].spend["calls"], records[8].spend["calls"] = 60.0, 40.0       # nm seeds 1 and 3
    g = group_of(records, fixed="calls", allow_early_stop=True)
    assert g.unequal == [] and g.early_stopped == ["nm"]
    assert g.notes == ["nm: 2 run(s) stopped on their own below the calls budget (min 40 of 100); "
                       "accepted as early stops"]


def test_a_run_stopped_by_the_budget_under_it_is_no_early_stop():
    records = early_records()
    records[2].spend["calls"] = 40.0                                        # a, seed 2, stop "budget:calls"
    g = group_of(records, fixed="calls", allow_early_stop=True)
    [flag] = g.unequal
    assert (flag.arm, flag.direction, flag.seed, flag.spend) == ("a", "under", 2, 40.0)
    assert g.early_stopped == []


def test_a_run_that_raised_did_not_stop_on_its_own():
    records = early_records()
    records[6].spend["calls"], records[6].error = 40.0, {"type": "Timeout"}   # nm seed 1: scored, but it raised
    g = group_of(records, fixed="calls", allow_early_stop=True)
    [flag] = g.unequal
    assert (flag.arm, flag.direction, flag.seed, flag.spend, flag.runs) == ("nm", "under", 1, 40.0, 1)


def test_the_flagged_run_is_the_one_furthest_from_the_reference():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B)
    records[6].spend["tokens"], records[8].spend["tokens"] = 800.0, 400.0   # b seeds 1 and 3, both under
    [flag] = group_of(records).unequal
    assert (flag.arm, flag.seed, flag.spend, flag.runs, flag.of_runs) == ("b", 3, 400.0, 2, 5)


# -- check_confound -----------------------------------------------------------------------------------------

def arm(runs=5, scored=5, median=None, status=MEASURED, reported=None):
    reported = (runs if status == MEASURED else 0) if reported is None else reported
    return SimpleNamespace(runs=runs, scored=scored, spend={"calls": UnitSpend(median, status, reported)})


def confound(arms, tol=0.1):
    g = Group("w", {}, arms, ["calls"])
    check_confound(g, [f"a{i}" for i in range(len(arms))], "calls", tol)
    return g


def flagged(g):
    return [(f.arm, f.direction, f.spend, f.reference, f.reference_source, f.lower_bound) for f in g.confounded]


def test_confound_over_and_under_with_direction_and_source():
    g = confound([arm(median=100.0), arm(median=100.0), arm(median=150.0), arm(median=50.0)])
    assert flagged(g) == [("a2", "over", 150.0, 100.0, "median of arms", False),
                          ("a3", "under", 50.0, 100.0, "median of arms", False)]
    assert all(f.lower_bound is False for f in g.confounded)


def test_a_drift_of_exactly_the_tolerance_is_no_confound():
    assert flagged(confound([arm(median=100.0), arm(median=100.0), arm(median=110.0)])) == []
    assert flagged(confound([arm(median=100.0), arm(median=100.0), arm(median=90.0)])) == []


def test_a_partial_arms_median_is_a_lower_bound_flagged_over_only():
    g = confound([arm(median=100.0), arm(median=100.0), arm(median=150.0, status=PARTIAL, reported=3),
                  arm(median=50.0, status=PARTIAL, reported=2), arm(runs=4, scored=4, status=UNREPORTED)])
    assert flagged(g) == [("a2", "over", 150.0, 100.0, "median of arms", True)]
    assert [(u.arm, u.unit, u.reason, u.reported_runs, u.runs) for u in g.unreported] == \
        [("a2", "calls", PARTIAL, 3, 5), ("a3", "calls", PARTIAL, 2, 5), ("a4", "calls", UNREPORTED, 0, 4)]


def test_a_zero_reference_flags_any_positive_median_only():
    g = confound([arm(median=0.0), arm(median=0.0), arm(median=0.5)])
    assert flagged(g) == [("a2", "over", 0.5, 0.0, "median of arms", False)]


def test_arms_without_scored_runs_are_left_out_and_the_rest_still_judged():
    g = confound([arm(scored=0, median=1000.0), arm(median=100.0), arm(median=300.0), arm(median=110.0),
                  arm(runs=1, scored=1, median=10.0)])
    # reference: median of 100, 300, 110, 10 = 105; the arm with one scored run counts like any other
    assert flagged(g) == [("a2", "over", 300.0, 105.0, "median of arms", False),
                          ("a4", "under", 10.0, 105.0, "median of arms", False)]


def test_a_clean_group_over_the_allowance_says_which_run_went_over():
    # every run scored and within 10%: the screen finds the group clean and only set_over_budget runs on it
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, budget=B)
    records[8].spend["tokens"] = 1050.0                                   # b, seed 3: 5% over
    g = group_of(records)
    assert g.unequal == [] and (g.reference, g.reference_source) == (1000.0, "budget")
    ob = g.over_budget
    assert (ob.unit, ob.allowance, ob.runs, ob.of_runs) == ("tokens", 1000.0, 1, 10)
    assert (ob.worst_arm, ob.worst_seed, ob.worst_spend) == ("b", 3, 1050.0)


class _Columns:
    """One group's columns per arm (what `comparing._GroupColumns.per_arm` gives), for direct calls."""

    def __init__(self, arms, **columns):
        self.arms, self.columns = arms, columns

    def per_arm(self, column):
        return [np.asarray(v) for v in self.columns[column]]


def test_set_over_budget_reads_the_scored_runs_only():
    # its contract on its own (through `compare` only clean groups reach it, and those have every run scored):
    # an unscored run over the allowance is not counted, nor in the runs it is counted of
    g = Group("w", {"tokens": 1000}, [], ["tokens"])
    cols = _Columns(["a", "b"], reward=[[0.5, np.nan], [0.5, 0.5]], seed=[[0, 1], [0, 1]],
                    **{"spend:tokens": [[1000.0, 1900.0], [1000.0, 1040.0]]})
    set_over_budget(g, cols, "tokens", 1000.0)
    ob = g.over_budget
    assert (ob.runs, ob.of_runs, ob.worst_arm, ob.worst_seed, ob.worst_spend) == (1, 3, "b", 1, 1040.0)
