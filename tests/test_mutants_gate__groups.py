"""Gate rules of one group and of the whole run that mutation testing found unchecked (issue 44, `gating/gate.py`:
`gate_group`, `_gate_group`, `run_gate`, `_gate_range`, `_check_gate_args`, `_two_arms`, `_unfair`).

Each test names the rule it protects: the defaults of `gate_group` (bounds "auto", one look, the mean claim),
its rewards-only call, the margin check against the range and the observed spread, the range a gate uses
(declared, detected from both arms, forced off by `--bounds t`), the looks (`anytime`, planned `alpha_total`,
`planned_n`), item pairing with crashed items, the comparison options a gate reads (tolerance, selection), groups
missing an arm, and the messages for bad arguments. Small record sets through `run_gate`, or `gate_group` on a
group of `compare`.
"""
from __future__ import annotations

import numpy as np
import pytest

from baselines import RunRecord
from baselines.analysis.compare.compare_options import CompareOptions
from baselines.analysis.compare.comparing import compare
from baselines.analysis.gating.gate import gate_group, rewards_by_arm, run_gate
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, gate_decision
from baselines.analysis.gating.gate_data import arm_runs
from baselines.analysis.tables.table import RunTable

LEVEL = [0.6, 0.61, 0.62, 0.63, 0.64, 0.6, 0.61, 0.62, 0.63, 0.64]
UP = [x + 0.02 + 0.001 * (i % 3) for i, x in enumerate(LEVEL)]       # +0.02 .. +0.022 on every seed


def records(base=LEVEL, cand=UP, workload="w", unit="tokens", cand_spend=1, extra=None, **fields):
    """Paired runs of arms base and cand on seeds 0..; a None reward is a run that crashed (error, no score)."""
    def one(arm, s, v, spend):
        return RunRecord(workload, arm, s, {unit: spend}, None if v is None else float(v), budget={unit: 1},
                         error=None if v is not None else {"type": "E", "message": "x"}, extra=dict(extra or {}),
                         **fields)
    return ([one("base", s, v, 1) for s, v in enumerate(base)]
            + [one("cand", s, v, cand_spend) for s, v in enumerate(cand)])


def gate(recs, margin=0.01, **kw):
    [res], _ = run_gate(recs, "tokens", "base", "cand", margin, **kw)
    return res


def one_group(recs, fixed="tokens"):
    table = RunTable.from_records(recs)
    [group] = compare(table, fixed=fixed, options=CompareOptions(pairs="none")).groups
    return table, group


# -- gate_group called as a library: rewards alone, and its defaults ------------------------------------------

def test_gate_group_on_rewards_alone_gives_the_verdict_run_gate_gives():
    """Rule: `gate_group(group, ..., rewards)` without `runs` gates the rewards given per arm, as run_gate does."""
    recs = records()
    full = gate(recs)
    _, group = one_group(recs)
    res = gate_group(group, "base", "cand", 0.01, 0.05, False, rewards_by_arm(group))
    assert (res.verdict, res.n, res.method) == (PASS, 10, "t + bootstrap-t, skew-checked")
    assert (res.diff, res.lower, res.upper, res.reason) == (full.diff, full.lower, full.upper, full.reason)


def test_gate_group_with_an_arm_missing_from_the_rewards_is_a_broken_comparison():
    """Rule: an arm with no scored runs in the group is a broken comparison (FAIL, named), never a crash."""
    _, group = one_group(records())
    res = gate_group(group, "base", "cand", 0.01, 0.05, False, {"base": rewards_by_arm(group)["base"]})
    assert (res.verdict, res.reason) == (FAIL, "broken comparison: arm 'cand' has no scored runs in this group")


def test_gate_group_defaults_to_one_look_and_the_mean_claim():
    """Rule: by default a group is gated at one look (no looks-ledger spending, alpha as given) on the mean claim."""
    _, group = one_group(records())
    res = gate_group(group, "base", "cand", 0.01, 0.05, False, rewards_by_arm(group))
    expect = gate_decision([c - b for b, c in zip(LEVEL, UP)], 0.01, 0.05, arms=(LEVEL, UP))
    assert (res.verdict, res.alpha, res.method) == (PASS, 0.05, expect.method)
    assert (res.lower, res.upper) == (pytest.approx(expect.lower), pytest.approx(expect.upper))
    assert not any("earlier looks" in n or "time(s) before" in n for n in res.notes)
    assert res.claim == "mean"
    assert [c["claim"] for c in res.claims] == ["mean"]
    assert not any("typical seed" in n for n in res.notes)


def item_records(gain=0.1, crashed_item=None, seeds=8, questions=12, rng_seed=1):
    """Paired runs whose records carry per-question outcomes (fixed ids q0..); `crashed_item` (seed, question):
    the candidate's item there is unscored."""
    rng = np.random.default_rng(rng_seed)
    p = rng.uniform(0.2, 0.8, questions)
    out = []
    for arm in ("base", "cand"):
        for s in range(seeds):
            items = []
            for q in range(questions):
                r = float(rng.random() < p[q] + (gain if arm == "cand" else 0.0))
                items.append({"id": f"q{q}", "reward": None if arm == "cand" and (s, q) == crashed_item else r})
            reward = float(np.mean([i["reward"] or 0.0 for i in items]))
            out.append(RunRecord("w", arm, s, {"tokens": 1}, reward, budget={"tokens": 1}, items=items))
    return out


def test_gate_group_defaults_to_bounds_auto_which_pairs_by_question():
    """Rule: bounds="auto" is the default, and with items on every shared seed it pairs by question."""
    table, group = one_group(item_records())
    runs = {arm: arm_runs(table.frame, group, arm) for arm in ("base", "cand")}
    res = gate_group(group, "base", "cand", 0.05, 0.05, False, {}, runs=runs)
    assert res.method == "two-way seed x question clustered t on paired item differences"
    assert (res.items, res.n, res.question_count, res.questions) == (96, 8, 12, "population")
    per_seed = gate_group(group, "base", "cand", 0.05, 0.05, False, {}, runs=runs, bounds="t")
    assert per_seed.items is None and res.method != per_seed.method


def test_a_crashed_candidate_item_counts_at_the_range_floor():
    """Rule (CRASH_RULE, per item): with a reward range, an unscored candidate item is a loss at the range's floor."""
    res = gate(item_records(crashed_item=(2, 3)), 0.05, reward_range=(0, 1))
    assert res.items == 96
    assert "1 unscored candidate item(s) counted as a loss at the range floor" in res.notes
    assert not any("left out (no range floor" in n for n in res.notes)


# -- the margin against the range and the spread ----------------------------------------------------------------

def test_a_margin_wider_than_every_reward_observed_is_noted():
    """Rule: without a range, a margin wider than the rewards' observed spread is said beside the verdict."""
    res = gate(records(), 0.5)
    assert res.notes[0] == ("margin 0.5 is wider than every reward observed here spans (0.061, from 0.6 to 0.661): "
                            "a difference that large was never seen, so the verdict says little")
    assert res.notes[0] in res.reason
    assert not any(n.startswith("margin") for n in gate(records(), 0.05).notes)   # 0.05 < 0.061: nothing said


def test_a_margin_as_wide_as_the_range_is_refused_naming_the_group():
    """Rule: a margin of at least the range's width decides before any data: refused, naming workload and budget."""
    with pytest.raises(ValueError) as err:
        gate(records(), 1.0, reward_range=(0, 1))
    assert str(err.value) == ("margin 1 is at least the width 1 of the reward range [0, 1] of workload 'w' at budget "
                              "tokens=1: no difference can exceed it, so the verdict is decided before any data; give "
                              "a margin below 1")


# -- the range a gate uses ----------------------------------------------------------------------------------------

def test_a_declared_range_the_gated_metric_leaves_is_not_used():
    """Rule: a declared reward_range backs betting bounds only when every gated value lies in it (dev_reward may not)."""
    recs = records(dev_reward=None)
    for r in recs:
        r.dev_reward = 10 * r.reward
        r.extra["reward_range"] = [0, 1]
    res = gate(recs, options=CompareOptions(metric="dev_reward"))
    assert (res.verdict, res.reward_range, res.method) == (PASS, None, "t + bootstrap-t, skew-checked")
    assert res.diff == pytest.approx(10 * np.mean(np.subtract(UP, LEVEL)))
    assert gate(recs).reward_range == (0.0, 1.0)           # the reward itself is in the range: used


def test_pass_fail_rewards_are_detected_from_both_arms():
    """Rule: rewards count as pass/fail (range [0, 1]) only when both arms' rewards are all 0 or 1."""
    base = [0, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    cand = [0.5, 1, 1, 0, 1, 1, 1, 1, 1, 1]
    res = gate(records(base, cand), 0.1)
    assert res.reward_range is None and not res.method.startswith(("betting", "exact"))
    assert gate(records(base, [1 if x == 0.5 else x for x in cand]), 0.1).reward_range == (0.0, 1.0)


def test_bounds_t_uses_no_range_even_for_pass_fail_rewards():
    """Rule: `--bounds t` gates without a reward range: none reported, and a crash is not counted at a floor."""
    base = [0, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    cand = [1, 1, 1, 0, 1, 1, 1, 1, 1, 1]
    res = gate(records(base, cand), 0.1, bounds="t")
    assert res.reward_range is None and res.to_json()["reward_range"] is None
    assert res.method.startswith("t")
    crashed = gate(records(base, [None] + cand[1:]), 0.1, bounds="t")
    assert (crashed.verdict, crashed.method) == (FAIL, "crash rule")
    assert gate(records(base, [None] + cand[1:]), 0.1).method != "crash rule"   # auto: counted at the floor 0


def test_bounds_betting_without_a_range_is_refused():
    """Rule: `--bounds betting` needs a reward range, and the message says how to declare one."""
    with pytest.raises(ValueError) as err:
        gate(records(), bounds="betting")
    assert str(err.value) == "--bounds betting needs a reward range: declare reward_range = [lo, hi]"


# -- looks ------------------------------------------------------------------------------------------------------

def test_earlier_looks_make_an_unbounded_look_spend_half_its_alpha():
    """Rule (look_alpha): with earlier looks and no planned looks, an unbounded gate spends alpha / (1 x 2)."""
    res = gate(records(), anytime=True)
    assert res.alpha == 0.025
    assert any(n.startswith("checked 1 time(s) before with fewer seeds") for n in res.notes)


def test_a_planned_look_spends_its_own_share_of_alpha_only():
    """Rule: a declared sequential look (alpha_total) spends its share; the ledger's halving is not applied on top."""
    res = gate(records(), anytime=True, alpha=0.02, alpha_total=0.05)
    assert res.alpha == 0.02
    assert not any("time(s) before" in n for n in res.notes)
    assert any(n.startswith("earlier looks at these results") for n in res.notes)


def test_planned_n_tunes_the_confidence_sequence_of_a_planned_look():
    """Rule: `planned_n` (the last look's seed count) tunes the width of the betting confidence sequence."""
    diffs = [c - b for b, c in zip(LEVEL, UP)]
    for planned in (None, 40):
        res = gate(records(), reward_range=(0, 1), alpha=0.01, alpha_total=0.05, planned_n=planned)
        want = gate_decision(diffs, 0.01, 0.05, (0.0, 1.0), planned, anytime=True)
        assert (res.lower, res.upper) == (pytest.approx(want.lower), pytest.approx(want.upper))
    assert gate(records(), reward_range=(0, 1), alpha_total=0.05, planned_n=40).lower != \
        pytest.approx(gate(records(), reward_range=(0, 1), alpha_total=0.05).lower)


# -- the comparison a gate reads ----------------------------------------------------------------------------------

def test_tolerance_decides_whether_a_spend_drift_breaks_the_comparison():
    """Rule: run_gate's `tolerance` is the allowed relative drift of the fixed unit (default 10%)."""
    drift = records(cand_spend=1.3)
    assert gate(drift).reason.startswith("broken comparison: cand spent 1.3 tokens over the reference 1")
    assert gate(drift, tolerance=0.5).verdict == PASS
    assert gate(records(cand_spend=1.05), tolerance=0.01).verdict == FAIL


def test_selection_gates_only_the_workloads_chosen():
    """Rule: `selection` (compare's workloads=/budgets=) restricts the groups gated."""
    recs = records(workload="w1") + records(workload="w2", cand=LEVEL)
    results, _ = run_gate(recs, "tokens", "base", "cand", 0.01, selection={"workloads": ["w1"]})
    assert [r.workload for r in results] == ["w1"]
    results, _ = run_gate(recs, "tokens", "base", "cand", 0.01)
    assert [r.workload for r in results] == ["w1", "w2"]


def test_the_gates_comparison_computes_no_pairwise_tests():
    """Rule: the gate decides by its own bounds; the comparison it reads and returns carries no compare pairs."""
    _, comparison = run_gate(records(), "tokens", "base", "cand", 0.01)
    assert [g.pairs for g in comparison.groups] == [[]]
    assert compare(records(), fixed="tokens").groups[0].pairs       # compare alone would test the pair


def test_a_group_missing_either_arm_is_skipped():
    """Rule: only groups where both arms ran are gated; one where the candidate did not run is skipped, not failed."""
    recs = records(workload="w1") + [r for r in records(workload="w2") if r.arm == "base"]
    results, comparison = run_gate(recs, "tokens", "base", "cand", 0.01)
    assert [(r.workload, r.verdict) for r in results] == [("w1", PASS)]
    assert len(comparison.groups) == 2


def test_arms_that_never_ran_in_one_group_are_refused():
    """Rule: when no workload and budget has both arms, the gate raises (the CLI's exit 2), naming both arms."""
    recs = [r for r in records(workload="w1") if r.arm == "base"] + \
        [r for r in records(workload="w2") if r.arm == "cand"]
    with pytest.raises(ValueError) as err:
        run_gate(recs, "tokens", "base", "cand", 0.01)
    assert str(err.value) == "no workload and budget where both 'base' and 'cand' ran"


def test_unequal_spend_of_a_custom_unit_is_said_in_the_workloads_words():
    """Rule: a broken comparison's reason names a custom unit by the workload's own noun for it."""
    recs = records(unit="evals", cand_spend=2, extra={"unit_nouns": {"evals": "function evaluations"}})
    [res], _ = run_gate(recs, "evals", "base", "cand", 0.01)
    assert (res.verdict, res.reason) == (FAIL, "broken comparison: cand spent 2 function evaluations over the "
                                               "reference 1 (seed 0): not a like-for-like comparison")


# -- messages for bad arguments ------------------------------------------------------------------------------------

def test_the_same_arm_twice_is_refused_asking_for_two_arms():
    """Rule: a candidate equal to the baseline is refused (exit 2), with what to do."""
    with pytest.raises(ValueError) as err:
        run_gate(records(), "tokens", "base", "base", 0.01)
    assert str(err.value) == "the candidate and the baseline are the same arm ('base'); name two different arms"


def test_a_missing_arm_suggests_the_closest_name():
    """Rule: an arm not in the results is named with a did-you-mean and the arms present."""
    with pytest.raises(ValueError) as err:
        run_gate(records(), "tokens", "base", "cnad", 0.01)
    assert str(err.value) == ("arm 'cnad' is not in the results (did you mean 'cand'?); arms present: base, cand")


@pytest.mark.parametrize("n, tail", [(20, ""), (21, ", ... (1 more)")])
def test_the_arms_present_list_twenty_then_counts_the_rest(n, tail):
    """Rule: the missing-arm message lists up to 20 arms present, then says how many more."""
    recs = records() + [RunRecord("w", f"arm{i:02d}", 0, {"tokens": 1}, 0.5, budget={"tokens": 1})
                        for i in range(n - 2)]
    shown = ", ".join(sorted(["base", "cand", *[f"arm{i:02d}" for i in range(n - 2)]])[:20])
    with pytest.raises(ValueError) as err:
        run_gate(recs, "tokens", "base", "zzz", 0.01)
    assert str(err.value) == f"arm 'zzz' is not in the results; arms present: {shown}{tail}"
