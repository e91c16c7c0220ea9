"""The sequential gate's rules (issue 44, `gating/sequential.py` mutation survivors).

Looks fixed in advance: each look runs the first n of a workload's seeds (seeds 0 .. last look - 1 for a
workload with fewer seeds than the last look), spends its share of alpha on unbounded rewards
(`spending_schedule`), and the whole alpha on bounded ones, whose betting bounds are tuned to the plan's last
look; the gate stops at the first look that decides, and reports the last look's seed count when none does.
Each look gates every (fixed unit, tolerance) of the suite with the run's lower_is_better, reward_range and
bounds. `run_sequential` is driven here by a stand-in for the runner that writes records for the seeds it is
asked to run; `simulate` against its documented meaning (seeded normal differences through the gate).
"""
from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest

from baselines import RunRecord
from baselines.analysis.gating.gate import run_gate
from baselines.analysis.gating.gate_bounds import (FAIL, INCONCLUSIVE, PASS, decide_gate, gate_decision,
                                                   spending_schedule)
from baselines.analysis.gating.sequential import parse_looks, run_sequential, sequential_verdict, simulate
from baselines.running.suite import parse_suite

RANGE = (0.0, 1.0)


# -- parse_looks --------------------------------------------------------------------------------------------------

def test_looks_are_parsed_and_a_bad_one_is_named():
    assert parse_looks("5,10, 20,") == [5, 10, 20]
    with pytest.raises(ValueError) as err:
        parse_looks("5,ten")
    assert str(err.value) == "--looks must be comma-separated seed counts like 5,10,15,20, got '5,ten'"
    with pytest.raises(ValueError, match="increasing"):
        parse_looks("10,5")


# -- sequential_verdict -------------------------------------------------------------------------------------------

def test_no_look_deciding_reports_the_last_looks_seed_count():
    assert sequential_verdict(np.zeros(30), [6, 12, 18, 30], 0.1, 0.05) == (INCONCLUSIVE, 30)
    assert sequential_verdict(np.zeros(30), [6, 12, 18, 30], 0.1, 0.05, reward_range=RANGE)[1] == 30


#: differences in [-0.05, 0.2] (rewards in [0, 1]), a gain on about 3 seeds in 4
GAINS = np.array([0.166, 0.18, 0.167, -0.03, -0.005, 0.161, 0.181, 0.154, -0.008, -0.011, 0.162, -0.006, 0.153,
                  0.167, 0.158, -0.027, 0.19, 0.162, 0.153, 0.17, 0.16, 0.155, 0.179, 0.165, 0.184, -0.04, -0.003,
                  0.168, 0.155, 0.181, 0.196, 0.172, 0.198, 0.175, 0.171, 0.181, -0.0, -0.003, 0.173, 0.188])
#: another such sequence, where the betting bounds' tuning to the plan's last look decides when it stops
TUNED = np.array([0.177, 0.172, 0.183, -0.049, 0.158, 0.165, -0.016, -0.015, -0.016, 0.188, -0.046, 0.155, -0.007,
                  -0.032, 0.178, 0.175, 0.181, 0.154, -0.012, -0.044, -0.016, 0.17, 0.175, 0.184, 0.169, 0.152,
                  -0.002, 0.176, 0.187, 0.177, 0.191, -0.022, 0.156, 0.182, -0.041, -0.009, 0.184, -0.003, 0.181,
                  -0.039])
LOOKS = [10, 20, 40]


def first_decision(d, looks, alphas, planned_n):
    """(verdict, seeds) at the first look where the anytime-valid betting gate decides."""
    for n, a in zip(looks, alphas):
        g = gate_decision(d[:n], 0.1, a, RANGE, planned_n, anytime=True)
        if g.verdict != INCONCLUSIVE:
            return g.verdict, n
    return INCONCLUSIVE, looks[-1]


def test_bounded_rewards_spend_the_whole_alpha_at_every_look():
    # with the whole alpha the betting bound PASSes at 20 seeds; with the spending schedule's share only at 40
    whole = first_decision(GAINS, LOOKS, [0.05] * 3, 40)
    assert whole == (PASS, 20)
    assert first_decision(GAINS, LOOKS, spending_schedule(LOOKS, 0.05), 40) == (PASS, 40)
    assert sequential_verdict(GAINS, LOOKS, 0.1, 0.05, reward_range=RANGE) == whole


def test_every_looks_betting_bounds_are_tuned_to_the_plans_last_look():
    tuned = first_decision(TUNED, LOOKS, [0.05] * 3, 40)
    assert tuned == (PASS, 40)
    assert first_decision(TUNED, LOOKS, [0.05] * 3, 20) == (PASS, 20)       # tuned to 20 it would stop earlier
    assert first_decision(TUNED, LOOKS, [0.05] * 3, None) == (PASS, 20)
    assert sequential_verdict(TUNED, LOOKS, 0.1, 0.05, reward_range=RANGE) == tuned


# -- simulate -----------------------------------------------------------------------------------------------------

def reference(true_diff, sd, margin, looks=None, n=10, alpha=0.05, sims=1000, seed=0):
    """simulate's documented meaning: `sims` seeded draws of normal differences, each gated once at n seeds or
    sequentially at `looks`; the rates of each verdict and the mean seeds used."""
    rng = np.random.default_rng(seed)
    verdicts, used = [], []
    for _ in range(sims):
        d = rng.normal(true_diff, sd, looks[-1] if looks else n)
        v, k = sequential_verdict(d, looks, margin, alpha) if looks else (decide_gate(d, margin, alpha)[0], n)
        verdicts.append(v)
        used.append(k)
    return {"pass": verdicts.count(PASS) / sims, "fail": verdicts.count(FAIL) / sims,
            "inconclusive": verdicts.count(INCONCLUSIVE) / sims, "mean_seeds": sum(used) / sims}


def test_simulate_with_its_defaults_is_a_seeded_thousand_draws_of_ten_seeds(monkeypatch):
    import baselines.analysis.gating.sequential as seq
    seen = []

    def fake_gate(diffs, margin, alpha=0.05, *rest, **kw):     # a cheap gate: PASS on a positive mean
        seen.append((np.array(diffs), margin, alpha))
        return (PASS if np.mean(diffs) > 0 else FAIL if np.mean(diffs) < -1 else INCONCLUSIVE), 0, 0, 0, None

    monkeypatch.setattr(seq, "decide_gate", fake_gate)
    got = simulate(0.2, 1.0, 0.5)
    rng = np.random.default_rng(0)
    draws = [rng.normal(0.2, 1.0, 10) for _ in range(1000)]
    assert len(seen) == 1000 and all(np.array_equal(d, x[0]) for d, x in zip(draws, seen))
    assert all(x[1:] == (0.5, 0.05) for x in seen)
    means = [float(np.mean(d)) for d in draws]
    assert got == {"pass": sum(m > 0 for m in means) / 1000, "fail": sum(m < -1 for m in means) / 1000,
                   "inconclusive": sum(-1 <= m <= 0 for m in means) / 1000, "mean_seeds": 10.0}
    assert 0 < got["inconclusive"] < 1
    seen.clear()
    assert simulate(0.2, 1.0, 0.5) == got                                   # the same numbers every time


def test_simulate_counts_each_draw_once_from_zero():
    for true_diff in (5.0, -5.0, 0.0):
        got = simulate(true_diff, 1.0, 0.5, n=8, sims=50, seed=3)
        assert got == reference(true_diff, 1.0, 0.5, n=8, sims=50, seed=3)
        assert got["pass"] + got["fail"] + got["inconclusive"] == pytest.approx(1.0, abs=1e-12)
        assert got["mean_seeds"] == 8.0
    assert simulate(5.0, 1.0, 0.5, n=8, sims=50, seed=3)["fail"] == 0.0


def test_simulate_one_look_uses_the_margin_and_alpha_given():
    got = simulate(0.3, 1.0, 0.4, n=12, alpha=0.01, sims=200, seed=4)
    assert got == reference(0.3, 1.0, 0.4, n=12, alpha=0.01, sims=200, seed=4)
    assert got != reference(0.3, 1.0, 0.01, n=12, alpha=0.05, sims=200, seed=4)    # margin and alpha matter here
    assert got != reference(0.3, 1.0, 0.4, n=12, alpha=0.05, sims=200, seed=4)


def test_simulate_with_looks_draws_the_last_looks_seeds_and_averages_the_seeds_used():
    looks = [6, 12, 24]
    got = simulate(0.8, 1.0, 0.3, looks=looks, sims=150, seed=7)
    assert got == reference(0.8, 1.0, 0.3, looks=looks, sims=150, seed=7)
    assert 6 < got["mean_seeds"] < 24 and got["pass"] > 0.5


# -- run_sequential -----------------------------------------------------------------------------------------------

SUITE = {
    "seeds": list(range(100, 120)),                  # 20 seeds, none of them 0 .. 19
    "arms": {"base": {"path": "tests.helpers:Guess"}, "cand": {"path": "tests.helpers:Guess"}},
    "workloads": [
        {"name": "own", "path": "tests.helpers:Toy", "fixed": "rollouts", "budget": {"rollouts": 30},
         "arms": ["base", "cand"]},
        {"name": "few", "path": "tests.helpers:Toy", "fixed": "rollouts", "budget": {"rollouts": 30},
         "arms": ["base", "cand"], "seeds": list(range(50, 62)), "tolerance": 0.3},   # 12 seeds, another tolerance
    ],
}


def suite(**own):
    """SUITE, with `own` replacing keys of its first workload."""
    data = {**SUITE, "workloads": [{**SUITE["workloads"][0], **own}, SUITE["workloads"][1]]}
    return parse_suite(data, "suite.toml", check_imports=False)


class Runner:
    """Stands in for runner.run_suite: records for every (workload, arm, seed) of the look's suite."""

    def __init__(self, reward):
        self.reward, self.looks, self.progress = reward, [], []

    def __call__(self, look_suite, out_dir, progress=None):
        self.looks.append({w.name: tuple(w.seeds) for w in look_suite.workloads})
        self.progress.append(progress)
        records = [RunRecord(w.name, arm, s, {"rollouts": 30}, self.reward(w.name, arm, s),
                             budget=dict(w.budgets[0].limits))
                   for w in look_suite.workloads for arm in w.arms for s in w.seeds]
        return types.SimpleNamespace(interrupted=False, records=records)


def same(workload, arm, seed):
    return 0.3 + 0.01 * (seed % 7)                   # both arms alike on every seed: never decided


def gain(workload, arm, seed):
    return 0.3 + 0.01 * (seed % 7) + (0.2 + 0.003 * (seed % 5) if arm == "cand" else 0.0)


def sequential(reward, looks=(5, 10, 20), **kw):
    runner = Runner(reward)
    made = []

    def progress():
        made.append(object())
        return made[-1]

    out = run_sequential(suite(), None, list(looks), "base", "cand", 0.1, 0.05, kw.pop("lower_is_better", False),
                         runner, progress, **kw)
    return out, runner, made


def test_each_look_runs_the_first_seeds_of_each_workload_with_a_fresh_progress():
    (verdict, used, results, _), runner, made = sequential(same)
    assert (verdict, used) == (INCONCLUSIVE, 20)
    own, few = tuple(range(100, 120)), tuple(range(20))      # "few" has 12 seeds, fewer than the last look's 20
    assert runner.looks == [{"own": own[:5], "few": few[:5]}, {"own": own[:10], "few": few[:10]},
                            {"own": own, "few": few}]
    assert runner.progress == made and len(set(map(id, made))) == 3
    assert {r.workload for r in results} == {"own", "few"}                  # both tolerances gated
    assert all(r.alpha == pytest.approx(spending_schedule([5, 10, 20], 0.05)[-1]) for r in results)


def test_the_run_stops_at_the_first_look_that_decides():
    (verdict, used, results, _), runner, _ = sequential(gain)
    assert (verdict, used) == (PASS, 10) and len(runner.looks) == 2
    assert all(r.verdict == PASS and r.alpha == pytest.approx(spending_schedule([5, 10, 20], 0.05)[1])
               for r in results)
    (verdict, used, results, _), _, _ = sequential(gain, lower_is_better=True)
    assert (verdict, used) == (FAIL, 10)


def test_an_interrupted_look_ends_the_run_undecided_at_its_seed_count():
    runner = Runner(gain)

    def interrupted(look_suite, out_dir, progress=None):
        out = runner(look_suite, out_dir, progress)
        out.interrupted = len(runner.looks) == 2
        return out

    verdict, used, results, outcome = run_sequential(suite(), None, [5, 10, 20], "base", "cand", 0.1, 0.05, False,
                                                     interrupted, lambda: None)
    assert (verdict, used) == (INCONCLUSIVE, 10) and outcome.interrupted and len(runner.looks) == 2
    assert results and all(r.n == 5 for r in results)            # the last look that finished: the first


def big_gain(workload, arm, seed):
    return 0.3 + 0.01 * (seed % 7) + (0.26 + 0.003 * (seed % 5) if arm == "cand" else 0.0)


def look_records(reward, seeds):
    w = dataclasses.replace(suite().workloads[0], seeds=tuple(seeds))
    return Runner(reward)(types.SimpleNamespace(workloads=[w]), None).records


def test_bounded_rewards_are_gated_on_the_declared_range_with_the_whole_alpha_tuned_to_the_last_look():
    looks = [5, 10, 40]
    share = spending_schedule(looks, 0.05)
    (verdict, used, results, _), runner, _ = sequential(big_gain, looks=looks, reward_range=RANGE)
    assert (verdict, used) == (PASS, 40) and len(runner.looks) == 3
    # at 10 seeds a betting bound tuned to 10 seeds would already PASS; tuned to the plan's 40 it does not
    at10 = look_records(big_gain, range(100, 110))
    [early], _ = run_gate(at10, "rollouts", "base", "cand", 0.1, share[1], reward_range=RANGE, planned_n=10,
                          alpha_total=0.05)
    [planned], _ = run_gate(at10, "rollouts", "base", "cand", 0.1, share[1], reward_range=RANGE, planned_n=40,
                            alpha_total=0.05)
    assert early.verdict == PASS and planned.verdict == INCONCLUSIVE
    # the last look: the declared range, the betting bounds at the whole alpha, tuned to 40 seeds
    at40 = look_records(big_gain, range(40))
    [expected], _ = run_gate(at40, "rollouts", "base", "cand", 0.1, share[2], reward_range=RANGE, planned_n=40,
                             alpha_total=0.05)
    own = [r for r in results if r.workload == "own"]
    assert [r.reward_range for r in own] == [RANGE] and own[0].method.startswith("betting")
    assert (own[0].lower, own[0].upper) == (expected.lower, expected.upper)
    assert own[0].alpha == expected.alpha == 0.05                  # the whole alpha, not the look's share


def test_the_runs_bounds_choice_reaches_every_look():
    (_, _, results, _), _, _ = sequential(gain, reward_range=RANGE, bounds="t")
    assert results and all(not r.method.startswith("betting") for r in results)
    (_, _, results, _), _, _ = sequential(gain, reward_range=RANGE)
    assert results and all(r.method.startswith("betting") for r in results)


def test_each_look_is_gated_in_the_workloads_fixed_unit():
    # a budget capping two units, matched in one: the gate is told which (without it the group is refused)
    runner = Runner(gain)
    verdict, used, results, _ = run_sequential(suite(budget={"rollouts": 30, "tokens": 5000}), None, [5, 10, 20],
                                               "base", "cand", 0.1, 0.05, False, runner, lambda: None)
    assert (verdict, used) == (PASS, 10)
    assert {(r.workload, r.verdict) for r in results} == {("own", PASS), ("few", PASS)}
    with pytest.raises(ValueError, match="pass --fixed UNIT"):
        run_gate(runner(suite(budget={"rollouts": 30, "tokens": 5000}), None).records, None, "base", "cand", 0.1)
