"""The gate rules that mutation testing found unchecked (issue 44, `gating/gate.py`).

One test per promised rule, with exact values or against the primitive the rule names: the JSON a gate
writes, the unpaired route (Welch, or the difference of per-arm betting bounds at alpha/2 each, in either
direction of "better"), fewer than 2 seeds per arm, a unit in the workload's own words, the arms x seeds
matrix read back per arm. Small record sets through `run_gate`, or the function itself.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines import RunRecord
from baselines.analysis.compare.comparison import Group
from baselines.analysis.gating import gate as gate_module
from baselines.analysis.gating.gate import run_gate
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS
from baselines.analysis.statistics.betting import mean_bounds
from baselines.analysis.statistics.stats import unpaired_test


def records(base, cand, cand_seed0=100, budget=None, spend=None, workload="w"):
    """Runs of `base` on seeds 0.. and `cand` on seeds cand_seed0.. (100: no shared seed)."""
    budget = {"tokens": 1} if budget is None else budget
    spend = dict(budget) if spend is None else spend
    out = [RunRecord(workload, "base", s, dict(spend), float(v), budget=dict(budget)) for s, v in enumerate(base)]
    return out + [RunRecord(workload, "cand", cand_seed0 + s, dict(spend), float(v), budget=dict(budget))
                  for s, v in enumerate(cand)]


def gate(recs, margin=0.1, **kw):
    [res], _ = run_gate(recs, "tokens", "base", "cand", margin, **kw)
    return res


# -- the JSON of a result ----------------------------------------------------------------------------------

def test_the_json_of_a_result_names_every_field():
    res = gate(records([0.5, 0.6, 0.55, 0.45], [0.7, 0.8, 0.75, 0.72]), reward_range=(0, 1))
    assert res.to_json() == {
        "verdict": res.verdict, "reason": res.reason, "workload": "w", "budget": {"tokens": 1}, "n": 4,
        "diff": res.diff, "bounds": [res.lower, res.upper], "margin": 0.1, "alpha": 0.05, "seeds_needed": None,
        "paired": False, "method": "betting, unpaired", "notes": [], "reward_range": [0.0, 1.0], "confounds": [],
        "crashed_seeds": {"candidate": [], "baseline": []}, "items": None, "earlier_looks": [], "claim": "mean",
        "claims": [], "worst_loss": None, "worst_seed": None, "max_loss": None, "questions": None,
        "question_count": None, "about": ""}
    assert res.diff == pytest.approx(0.2175) and math.isfinite(res.lower) and math.isfinite(res.upper)


def test_the_json_names_each_roles_crashed_seeds_and_the_worst_loss():
    recs = records([0.5, 0.6, 0.55, 0.45, 0.5, 0.52], [0.45, 0.8, 0.75, 0.72, 0.7, 0.6], cand_seed0=0)
    for i, role in ((1, "base"), (2, "base"), (9, "cand"), (10, "cand")):   # base seeds 1, 2; cand seeds 3, 4
        assert recs[i].arm == role
        recs[i].reward, recs[i].error = None, {"type": "E", "message": "x"}
    js = gate(recs).to_json()
    assert js["crashed_seeds"] == {"candidate": [3, 4], "baseline": [1, 2]} and js["n"] == 2
    assert (js["worst_loss"], js["worst_seed"]) == (pytest.approx(0.05), 0)


def test_the_json_writes_non_finite_numbers_as_null():
    res = gate(records([0.5], [0.7]))                       # one seed per arm: no bounds
    js = res.to_json()
    assert (js["n"], js["bounds"], js["margin"], js["paired"]) == (1, [None, None], 0.1, False)
    assert js["diff"] == pytest.approx(0.2)
    res.diff, res.margin, res.upper = math.nan, math.inf, 0.25
    js = res.to_json()
    assert (js["diff"], js["margin"], js["bounds"]) == (None, None, [None, 0.25])


# -- the unpaired route ------------------------------------------------------------------------------------

RNG = np.random.default_rng(3)
LOW = np.round(RNG.uniform(0.4, 0.6, 60), 3)
HIGH = np.round(RNG.uniform(0.75, 0.95, 60), 3)


def betting_unpaired(base, cand, sign, lo=0.0, hi=1.0, alpha=0.05):
    """The rule: sign-adjusted rewards in the sign-adjusted range, per-arm betting bounds at alpha / 2 each."""
    rng = (lo, hi) if sign > 0 else (-hi, -lo)
    c, b = [sign * x for x in cand], [sign * x for x in base]
    lc, uc = mean_bounds(c, alpha / 2, *rng)
    lb, ub = mean_bounds(b, alpha / 2, *rng)
    return float(np.mean(c) - np.mean(b)), lc - ub, uc - lb


@pytest.mark.parametrize("base, cand, lower_is_better, verdict", [(LOW, HIGH, False, PASS), (HIGH, LOW, False, FAIL),
                                                                  (LOW, HIGH, True, FAIL), (HIGH, LOW, True, PASS)])
def test_unpaired_bounded_arms_get_the_difference_of_per_arm_betting_bounds(base, cand, lower_is_better, verdict):
    res = gate(records(base, cand), reward_range=(0, 1), lower_is_better=lower_is_better)
    sign = -1.0 if lower_is_better else 1.0
    diff, lower, upper = betting_unpaired(base, cand, sign)
    assert (res.verdict, res.paired, res.method, res.n) == (verdict, False, "betting, unpaired", 60)
    assert (res.diff, res.lower, res.upper) == (pytest.approx(diff), pytest.approx(lower), pytest.approx(upper))
    assert res.lower < res.diff < res.upper
    # either direction of "better" gives the same bounds on the same question
    mirrored = gate(records(1 - np.asarray(base), 1 - np.asarray(cand)), reward_range=(0, 1),
                    lower_is_better=not lower_is_better)
    assert (mirrored.verdict, mirrored.lower, mirrored.upper) == (verdict, pytest.approx(lower), pytest.approx(upper))


def test_unpaired_bounded_lower_is_better_reflects_the_range_not_its_ends():
    # rewards in [0.3, 1]: lower is better reads -reward in [-1, -0.3] (a range not starting at 0)
    res = gate(records(HIGH, LOW), reward_range=(0.3, 1.0), lower_is_better=True)
    diff, lower, upper = betting_unpaired(HIGH, LOW, -1.0, lo=0.3, hi=1.0)
    assert res.verdict == PASS and (res.lower, res.upper) == (pytest.approx(lower), pytest.approx(upper))
    assert (res.lower, res.upper) != tuple(pytest.approx(x) for x in betting_unpaired(HIGH, LOW, -1.0)[1:])


def test_unpaired_bounded_alpha_is_split_between_the_arms():
    res = gate(records(LOW, HIGH), reward_range=(0, 1), alpha=0.1)
    assert (res.lower, res.upper) == tuple(pytest.approx(x) for x in betting_unpaired(LOW, HIGH, 1.0, alpha=0.1)[1:])
    assert res.lower != pytest.approx(betting_unpaired(LOW, HIGH, 1.0, alpha=0.05)[1])


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_unpaired_unbounded_arms_get_welch(lower_is_better):
    base, cand = [1.0, 1.4, 1.1, 0.9, 1.3, 1.2], [2.0, 2.5, 1.8, 2.2, 2.6]
    res = gate(records(base, cand), margin=0.1, lower_is_better=lower_is_better)
    sign = -1.0 if lower_is_better else 1.0
    pair = unpaired_test("candidate", "baseline", [sign * c for c in cand], [sign * b for b in base], level=0.9)
    assert (res.method, res.paired, res.n) == ("Welch t, unpaired", False, 5)
    assert (res.diff, res.lower, res.upper) == (pytest.approx(pair.diff), pytest.approx(pair.ci[0]),
                                                pytest.approx(pair.ci[1]))
    assert res.verdict == (FAIL if lower_is_better else PASS)


@pytest.mark.parametrize("nb, nc", [(1, 5), (5, 1), (2, 2)])
def test_unpaired_needs_two_seeds_in_each_arm(nb, nc):
    base, cand = list(LOW[:nb]), list(HIGH[:nc])
    for kw in ({}, {"reward_range": (0, 1)}):
        res = gate(records(base, cand), **kw)
        if min(nb, nc) < 2:
            assert (res.verdict, res.lower, res.upper, res.seeds_needed) == (INCONCLUSIVE, -math.inf, math.inf, None)
            assert res.diff == pytest.approx(np.mean(cand) - np.mean(base))
            assert "no bounds (fewer than 2 seeds per arm)" in res.reason
        else:
            assert math.isfinite(res.lower) and math.isfinite(res.upper)
    res = gate(records(base, cand), lower_is_better=True)
    assert res.diff == pytest.approx(np.mean(base) - np.mean(cand))


# -- units in the workload's words, the arms x seeds matrix --------------------------------------------------

def test_unit_words_use_the_workloads_nouns_and_leave_other_units_alone():
    assert gate_module._unit_words("tokens", None) == "tokens"
    assert gate_module._unit_words("steps", None) == "steps"
    assert gate_module._unit_words("steps", {}) == "steps"
    assert gate_module._unit_words("steps", {"steps": "optimizer steps"}) == "optimizer steps"
    assert gate_module._unit_words("tokens", {"tokens": "subword tokens"}) == "subword tokens"


def test_rewards_by_arm_reads_each_arms_scored_seeds():
    g = Group("w", {}, [_Arm("a"), _Arm("b")], [])
    g.seeds = np.array([3, 5, 9])
    g.scores = np.array([[0.1, np.nan, 0.3], [np.nan, np.nan, 0.7]])
    assert gate_module.rewards_by_arm(g) == {"a": {3: 0.1, 9: 0.3}, "b": {9: 0.7}}
    out = gate_module.rewards_by_arm(g)
    assert all(type(s) is int for s in out["a"])


class _Arm:
    def __init__(self, arm):
        self.arm = arm


# -- the reason a user reads, per verdict and claim ---------------------------------------------------------

BASE = [0.5, 0.6, 0.55, 0.45, 0.5, 0.52, 0.48, 0.5, 0.51, 0.49]
GAIN = [x + 0.05 + 0.01 * ((i % 3) - 1) for i, x in enumerate(BASE)]     # +0.04 .. +0.06 on every seed
UNBOUNDED_NOTE = ("rewards are unbounded and n = 10: a loss that hits fewer than about 1 in 10 seeds can be absent "
                  "from all of them (a loss in 10% of seeds is missed 35% of the time); declare reward_range for a "
                  "distribution-free gate")


def paired(base=BASE, cand=GAIN, **kw):
    return gate(records(base, cand, cand_seed0=0), 0.02, **kw)


def test_a_pass_reason_names_direction_bounds_method_margin_and_notes():
    res = paired()
    assert (res.verdict, res.n, res.paired, res.shared) == (PASS, 10, True, 10)
    assert res.reason == ("no regression beyond the margin: candidate - baseline = +0.049, one-sided 95% bounds "
                          "[+0.04381, +0.05408] (t + bootstrap-t, skew-checked), margin 0.02; " + UNBOUNDED_NOTE +
                          "; worst seed's loss 0")
    assert res.claims == [{"claim": "mean", "verdict": PASS, "estimate": pytest.approx(0.049),
                           "bounds": [res.lower, res.upper], "method": "t + bootstrap-t, skew-checked",
                           "seeds_needed": None, "about": ""}]


def test_a_fail_reason_with_lower_is_better_names_the_worst_seed():
    res = paired(lower_is_better=True)
    assert (res.verdict, res.worst_seed) == (FAIL, 2) and res.worst_loss == pytest.approx(0.06)
    assert res.reason == ("regression beyond the margin: baseline - candidate (lower is better) = -0.049, one-sided "
                          "95% bounds [-0.05408, -0.04381] (t + bootstrap-t, skew-checked), margin 0.02; worst "
                          "seed's loss 0.06 (seed 2)")


def test_an_inconclusive_reason_says_the_seeds_that_would_decide():
    res = paired(BASE[:3], GAIN[:3])
    assert (res.verdict, res.seeds_needed) == (INCONCLUSIVE, 6)
    assert res.reason.startswith("too few seeds to decide either way (3): candidate - baseline = +0.05, one-sided 95% "
                                 "bounds [+0.03314, +0.06686] (t, skew-checked), margin 0.02; about 6 paired seeds "
                                 "would likely decide (the same procedure, on differences like these); unbounded "
                                 "rewards need at least 6 seeds to PASS")


def test_one_shared_seed_is_unpaired_and_says_how_many_are_shared():
    res = gate(records(BASE[:4], GAIN[:4], cand_seed0=3), 0.02)
    assert (res.paired, res.shared, res.method) == (False, 1, "Welch t, unpaired")
    assert res.reason.endswith("(Welch t, unpaired), margin 0.02 [unpaired: the arms share only 1 seed]")
    assert gate(records(BASE[:4], GAIN[:4]), 0.02).reason.endswith("[unpaired: the arms share no seeds]")


def test_the_typical_claim_decides_alone_and_drops_the_mean_routes_notes():
    res = paired(claim="typical")
    assert (res.verdict, res.claim, res.n, res.items) == (PASS, "typical", 10, None)
    assert res.method == "exact sign test on the median difference (typical seed)"
    assert [c["claim"] for c in res.claims] == ["typical"]
    assert (res.diff, res.lower, res.upper) == (pytest.approx(0.05), pytest.approx(0.04), pytest.approx(0.06))
    assert res.notes == ["typical seed: 10 of 10 seeds lose less than the margin, 0 lose more", "worst seed's loss 0"]
    assert res.reason.startswith("no regression beyond the margin: median of candidate - baseline (typical seed) = "
                                 "+0.05, one-sided 95% bounds [+0.04, +0.06] (exact sign test on the median "
                                 "difference (typical seed)), margin 0.02; typical seed: 10 of 10")


def test_both_claims_keep_both_notes_and_both_decisions():
    res = paired(claim="both")
    assert (res.verdict, res.claim, res.method) == (PASS, "both", "t + bootstrap-t, skew-checked")
    assert [(c["claim"], c["verdict"]) for c in res.claims] == [("mean", PASS), ("typical", PASS)]
    assert res.notes == [UNBOUNDED_NOTE, "typical seed: 10 of 10 seeds lose less than the margin, 0 lose more",
                         "worst seed's loss 0"]
    assert res.diff == pytest.approx(0.049)     # the mean claim's estimate and bounds are the ones printed


def test_claims_that_disagree_decide_nothing_and_say_so():
    # a small loss on 24 of 30 seeds and a big gain on 6: the mean PASSes, the typical seed FAILs
    base = [0.5] * 30
    cand = [0.45 + 0.001 * i for i in range(24)] + [1.0 + 0.001 * i for i in range(6)]
    res = gate(records(base, cand, cand_seed0=0), 0.02, claim="both")
    assert [(c["claim"], c["verdict"]) for c in res.claims] == [("mean", PASS), ("typical", FAIL)]
    assert res.verdict == INCONCLUSIVE
    assert res.notes[-3] == "mean claim PASS, typical-seed claim FAIL: both must agree to PASS or FAIL"


def test_both_claims_undecided_need_the_larger_of_their_seed_counts():
    res = paired(BASE[:4], GAIN[:4], claim="both")
    mean, typical = res.claims
    assert res.verdict == INCONCLUSIVE and mean["seeds_needed"] and typical["seeds_needed"]
    assert mean["seeds_needed"] != typical["seeds_needed"]
    assert res.seeds_needed == max(mean["seeds_needed"], typical["seeds_needed"])
    assert "mean claim INCONCLUSIVE" not in res.reason   # agreeing claims need no such note


def test_max_loss_fails_on_one_seeds_loss_and_says_which():
    cand = list(GAIN)
    cand[4] = 0.25                                                         # seed 4 loses 0.25 of 0.5
    res = paired(cand=cand, max_loss=0.2)
    assert (res.verdict, res.worst_seed, res.worst_loss, res.max_loss) == (FAIL, 4, 0.25, 0.2)
    assert res.notes[-2:] == ["worst seed's loss 0.25 (seed 4)", "FAIL by --max-loss 0.2: seed 4 lost 0.25"]
    assert res.reason.startswith("a seed lost more than --max-loss 0.2: candidate - baseline = ")
    assert paired(cand=cand).verdict != FAIL
    at = paired(cand=cand, max_loss=0.25)                                  # a loss of exactly max-loss is allowed
    assert at.verdict != FAIL and not any(n.startswith("FAIL by") for n in at.notes)
    assert res.to_json()["max_loss"] == 0.2


# -- the smaller rules: overall, margins, arguments, amounts ------------------------------------------------

def _r(verdict):
    return gate_module.GateResult(verdict, "")


def test_overall_is_fail_on_any_fail_then_inconclusive_on_any_inconclusive():
    o = gate_module.overall
    assert o([]) == INCONCLUSIVE
    assert o([_r(PASS), _r(PASS)]) == PASS
    assert o([_r(PASS), _r(INCONCLUSIVE)]) == INCONCLUSIVE
    assert o([_r(INCONCLUSIVE), _r(FAIL), _r(PASS)]) == FAIL


def test_relative_margin_reads_numbers_and_percentages_of_the_baseline():
    rm = gate_module.relative_margin
    assert rm("0.02", 0.5) == 0.02 and rm(0.03, 0.5) == 0.03
    assert rm("2%", 0.5) == pytest.approx(0.01) and rm("2%", -0.5) == pytest.approx(0.01)
    assert rm("0%", 0.5) == 0.0
    for bad in ("abc", "abc%", None, "%"):
        with pytest.raises(ValueError, match=r"margin must be a number like 0.02 or a percentage like '2%', got "):
            rm(bad, 0.5)
    for bad in ("-0.1", "inf", "nan", "-2%", "1e999%", math.inf):
        with pytest.raises(ValueError, match=r"margin must be finite and non-negative, got "):
            rm(bad, 0.5)


def test_gate_arguments_are_checked_before_any_group():
    recs = records(BASE, GAIN, cand_seed0=0)
    with pytest.raises(ValueError, match=r"the candidate and the baseline are the same arm \('base'\)"):
        run_gate(recs, "tokens", "base", "base", 0.02)
    with pytest.raises(ValueError, match=r"claim must be one of mean, typical, both, got 'median'"):
        run_gate(recs, "tokens", "base", "cand", 0.02, claim="median")
    for bad in (-0.1, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"--max-loss must be a finite non-negative number, got "):
            run_gate(recs, "tokens", "base", "cand", 0.02, max_loss=bad)
    with pytest.raises(ValueError, match=r"bounds must be one of auto, t, betting, got 'x'"):
        run_gate(recs, "tokens", "base", "cand", 0.02, bounds="x")
    with pytest.raises(ValueError, match="margin must be a number"):
        run_gate(recs, "tokens", "base", "cand", "abc%")
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.02, claim="auto", max_loss=0.0)
    assert res.claim == "mean" and res.max_loss == 0.0


def test_a_missing_arm_is_named_with_a_suggestion_and_the_arms_present():
    recs = records(BASE, GAIN, cand_seed0=0)
    with pytest.raises(ValueError, match=r"arm 'cnad' is not in the results.*arms present: base, cand$"):
        run_gate(recs, "tokens", "base", "cnad", 0.02)
    many = recs + [RunRecord("w", f"arm{i:02d}", 0, {"tokens": 1}, 0.5, budget={"tokens": 1}) for i in range(25)]
    with pytest.raises(ValueError, match=r"arms present: arm00, .*, arm19, \.\.\. \(7 more\)$"):
        run_gate(many, "tokens", "base", "zzz", 0.02)


def test_gate_options_replace_only_the_fields_given():
    from baselines.analysis.compare.compare_options import CompareOptions
    base = CompareOptions()
    assert gate_module.gate_options(None) == base
    o = gate_module.gate_options(None, 0.2, {"workloads": ["w"], "budgets": None})
    assert (o.tolerance, o.workloads) == (0.2, ("w",)) and o.budgets == base.budgets
    assert gate_module.gate_options(CompareOptions(tolerance=0.3)).tolerance == 0.3


def test_amounts_print_thousands_with_commas_and_the_rest_in_6_digits():
    a = gate_module._amount
    assert (a(1000), a(-1500), a(999.5), a(0.000123456789)) == ("1,000", "-1,500", "999.5", "0.000123457")
    assert (a(math.inf), a(math.nan)) == ("inf", "nan")


# -- crashes, broken comparisons, looks -----------------------------------------------------------------------

LEVEL = [0.6, 0.61, 0.62, 0.63, 0.64, 0.6, 0.61, 0.62, 0.63, 0.64]
UP = [x + 0.02 for x in LEVEL]


def runs(base, cand, extra=None, cand_spend=1):
    """Paired runs on seeds 0..; a None reward is a crashed run (an error, no score)."""
    def one(arm, s, v, spend):
        return RunRecord("w", arm, s, {"tokens": spend}, None if v is None else float(v), budget={"tokens": 1},
                         error=None if v is not None else {"type": "E", "message": "x"}, extra=dict(extra or {}))
    return [one("base", s, v, 1) for s, v in enumerate(base)] + [one("cand", s, v, cand_spend)
                                                                   for s, v in enumerate(cand)]


def crashed(values, seeds):
    return [None if s in seeds else v for s, v in enumerate(values)]


def test_with_a_range_shared_crashes_count_at_the_floor_and_the_rest_are_named():
    res = gate(runs(crashed(LEVEL, (4, 7)), crashed(UP, (1, 4)), extra={"reward_range": [0, 1]}))
    assert res.crashed == {"candidate": [1, 4], "baseline": [4, 7]} and res.n == 8
    assert res.diff == pytest.approx((7 * 0.02 - 0.61) / 8)            # seed 1 counted as 0 - 0.61
    assert res.notes == ["baseline unscored on seed(s) 4, 7 (left out)",
                         "candidate unscored on seed(s) 1: counted as a loss at the range floor 0",
                         "candidate unscored on seed(s) 4 where the baseline has no score either (left out)",
                         "worst seed's loss 0.61 (seed 1)"]


def test_lower_is_better_crashes_count_at_the_ranges_top():
    res = gate(runs(LEVEL, crashed(UP, (1,)), extra={"reward_range": [0, 1]}), lower_is_better=True)
    assert "candidate unscored on seed(s) 1: counted as a loss at the range floor 1" in res.notes
    assert res.diff == pytest.approx((9 * -0.02 - (1 - 0.61)) / 10)


def test_without_a_range_more_candidate_crashes_fail_and_equal_ones_are_left_out():
    res = gate(runs(LEVEL, crashed(UP, (1, 4))))
    assert (res.verdict, res.method) == (FAIL, "crash rule")
    assert res.reason == ("the candidate crashed: unscored on 2 seed(s) (1, 4) where the baseline is unscored on 0; "
                          "without a reward range a crash cannot be counted as a loss of known size, so it FAILs "
                          "(declare reward_range to count crashes at its floor)")
    res = gate(runs(crashed(LEVEL, (4, 7)), crashed(UP, (1, 4))))
    assert res.method != "crash rule" and res.n == 7
    assert "candidate unscored on seed(s) 1, 4 (left out: the baseline is unscored on as many or more)" in res.notes


def test_an_arm_without_scored_runs_is_a_broken_comparison():
    res = gate(runs(LEVEL[:3], [None, None, None]))
    assert res.verdict == FAIL
    assert res.reason == "broken comparison: arm 'cand' has no scored runs in this group"
    assert gate(runs([None, None, None], LEVEL[:3])).reason == \
        "broken comparison: arm 'base' has no scored runs in this group"


def test_unequal_or_unreported_spend_is_a_broken_comparison_whatever_the_rewards():
    res = gate(runs(LEVEL, UP, cand_spend=2))
    assert (res.verdict, res.reason) == (FAIL, "broken comparison: cand spent 2 tokens over the reference 1 (seed 0): "
                                               "not a like-for-like comparison")
    recs = runs(LEVEL, UP)
    for r in recs:
        if r.arm == "cand":
            r.spend = {}
    res = gate(recs)
    assert (res.verdict, res.reason) == (FAIL, "broken comparison: cand did not report the fixed unit tokens in "
                                               "full (unreported)")


def test_a_sequential_bounded_look_uses_the_whole_alpha_and_says_so():
    res = gate(runs(LEVEL, UP, extra={"reward_range": [0, 1]}), alpha=0.01, alpha_total=0.05)
    assert res.alpha == 0.05 and res.seeds_needed == 40
    assert res.method == ("betting confidence sequence (anytime-valid, distribution-free, rewards in [0, 1]), valid "
                          "at every look (no alpha spending)")
    unbounded = gate(runs(LEVEL, [x + 0.02 + 0.001 * (i % 3) for i, x in enumerate(LEVEL)]), alpha=0.01,
                     alpha_total=0.05)
    assert unbounded.alpha == 0.01 and "valid at every look" not in unbounded.method


def test_an_undecided_betting_gate_says_the_betting_seeds():
    res = gate(runs(LEVEL[:4], UP[:4], extra={"reward_range": [0, 1]}))
    assert (res.verdict, res.method, res.seeds_needed) == (INCONCLUSIVE, "betting bound for 4 seeds (distribution-free, "
                                                           "rewards in [0, 1])", 32)


# -- item-paired routes: the question-population note, items without spread ----------------------------------

def test_the_questions_note_says_more_questions_exactly_when_their_error_alone_spans_the_distance():
    from baselines.analysis.statistics.clustered import twoway_bounds
    from baselines.analysis.statistics.student_t import t_quantile
    from tests.test_questions_population import _pairing, _records

    pairing = _pairing(_records(delta=0.0, tau=0.3, seed=6), "base", "cand")     # base - cand: mean -0.0375
    tw = twoway_bounds(pairing.clusters, pairing.ids, 0.05)
    assert tw.mean == pytest.approx(-0.0375)
    reach = t_quantile(0.95, 19) * math.sqrt(tw.question_var)         # 20 questions: t at 19 df times their sd
    questions = ("more seeds alone would not decide: the 20 questions' own sampling error keeps the bound across "
                 "-margin; more questions would (--questions these makes the claim about these questions only)")
    seeds = "no number of seeds up to 10,000 would likely decide at this mean and spread"
    note = lambda distance: gate_module.questions_note(pairing, distance - tw.mean, 0.05, 20)  # noqa: E731
    assert note(reach * (1 - 1e-4)) == questions                     # within the questions' reach (df 20 is not)
    assert note(reach * (1 + 1e-4)) == seeds                         # beyond it (df 18 would still reach)
    assert note(0.0) == seeds                                        # at the margin itself: not the questions
    assert note(0.02) == questions and note(0.5) == seeds
