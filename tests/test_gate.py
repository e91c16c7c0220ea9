"""The CI gate: verdicts, broken comparisons, exit codes, and its error rates by simulation."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from baselines import RunRecord, write_records
from baselines.cli import main
from baselines.analysis.statistics.alpha import format_level
from baselines.analysis.gating.gate import _amount, run_gate
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, decide_gate, gate_decision, spending_schedule
from baselines.analysis.gating.sequential import simulate

MC = 2 * math.sqrt(0.05 * 0.95 / 1000)  # two Monte Carlo standard errors at 1,000 gates
SMALL = [0.0, 0.01, -0.01, 0.0, 0.01, -0.005]  # no real change, with some spread


def records(diffs, base=0.5, spend=None, cand_spend=None, arm_b="base", arm_c="cand", noise_seed=0):
    rng = np.random.default_rng(noise_seed)
    out = []
    for seed, d in enumerate(diffs):
        level = base + rng.normal(0, 0.1)
        out.append(RunRecord("w", arm_b, seed, dict(spend or {"tokens": 1000}), level, budget={"tokens": 1000}))
        out.append(RunRecord("w", arm_c, seed, dict(cand_spend or spend or {"tokens": 1000}), level + d,
                             budget={"tokens": 1000}))
    return out


def test_three_way_verdicts():
    assert decide_gate([0.01, 0.02, 0.0, 0.01, 0.02, 0.0], margin=0.05)[0] == PASS
    assert decide_gate([-0.2, -0.21, -0.19, -0.2, -0.22, -0.18], margin=0.05)[0] == FAIL
    verdict, mean, lo, hi, needed = decide_gate([0.1, -0.3, 0.2, -0.25], margin=0.05)
    assert verdict == INCONCLUSIVE and lo < -0.05 < hi and needed is not None and needed > 4


def test_broken_comparison_is_fail_whatever_the_rewards():
    recs = records([0.3] * 6, cand_spend={"tokens": 1500})
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.05)
    assert res.verdict == FAIL and res.reason.startswith("broken comparison") and "cand spent 1,500" in res.reason
    recs = records([0.3] * 6, cand_spend={"tokens": None})
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.05)
    assert res.verdict == FAIL and "did not report the fixed unit tokens" in res.reason


def test_confounds_are_printed_beside_the_verdict(tmp_path, capsys):
    recs = records([0.0, 0.01, -0.01, 0.0, 0.01, -0.01], spend={"tokens": 1000, "calls": 10},
                   cand_spend={"tokens": 1000, "calls": 40})
    path = tmp_path / "r.jsonl"
    write_records(path, recs)
    code = main(["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand",
                 "--margin", "0.05"])
    out = capsys.readouterr().out
    assert code == 0 and "PASS" in out and "confound: model calls: cand 40 vs base 10 (4× the baseline's; medians over seeds)" in out


def test_confounds_and_broken_reasons_name_units_in_words(tmp_path, capsys):
    """check printed "confound: ucb1: prompt_tokens 3,228,394 vs ..." (raw keys) where the report says "prompt tokens"."""
    recs = records([0.0, 0.01, -0.01, 0.0, 0.01, -0.01], spend={"tokens": 1000, "prompt_tokens": 100, "gpu_hours": 1},
                   cand_spend={"tokens": 1000, "prompt_tokens": 400, "gpu_hours": 3})
    path = tmp_path / "r.jsonl"
    write_records(path, recs)
    main(["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand", "--margin", "0.05"])
    out = capsys.readouterr().out
    assert "confound: prompt tokens: cand 400 vs base 100 (4×" in out and "prompt_tokens" not in out, out
    assert "confound: gpu_hours: cand 3 vs base 1 (3×" in out, out  # a unit of the user's own: its own name
    recs = records([0.3] * 6, spend={"prompt_tokens": 1000}, cand_spend={"prompt_tokens": 1500})
    [res], _ = run_gate(recs, "prompt_tokens", "base", "cand", 0.05)
    assert "spent 1,000 prompt tokens under the reference" in res.reason, res.reason


@pytest.mark.parametrize("diffs, code", [
    ([0.0, 0.01, -0.01, 0.0, 0.01, -0.01], 0),
    ([-0.3, -0.31, -0.29, -0.3, -0.32, -0.28], 1),
    ([0.2, -0.3, 0.25, -0.2], 3),
])
def test_exit_codes_and_json(tmp_path, capsys, diffs, code):
    path = tmp_path / "r.jsonl"
    write_records(path, records(diffs))
    got = main(["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand",
                "--margin", "0.05", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert got == code and data["verdict"] == {0: PASS, 1: FAIL, 3: INCONCLUSIVE}[code]
    if code == 3:
        assert data["groups"][0]["seeds_needed"] > 4
        assert main(["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand",
                     "--margin", "0.05", "--inconclusive", "pass"]) == 0


def test_relative_margin_and_lower_is_better(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, records([0.02, 0.021, 0.019, 0.02, 0.022, 0.018], base=1.0))  # candidate 2% *higher*: worse if lower is better
    args = ["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand"]
    assert main(args + ["--margin", "5%", "--lower-is-better"]) == 0
    assert main(args + ["--margin", "1%", "--lower-is-better"]) == 1
    capsys.readouterr()


def test_stored_baseline_with_against(tmp_path, capsys):
    stored, new = tmp_path / "base.jsonl", tmp_path / "new.jsonl"
    recs = records(SMALL)
    write_records(stored, [r for r in recs if r.arm == "base"])
    write_records(new, [r for r in recs if r.arm == "cand"])
    assert main(["check", str(new), "--against", str(stored), "--fixed", "tokens", "--baseline", "base",
                 "--candidate", "cand", "--margin", "0.05"]) == 0
    capsys.readouterr()


def test_github_step_summary_is_appended(tmp_path, monkeypatch, capsys):
    path, summary = tmp_path / "r.jsonl", tmp_path / "summary.md"
    write_records(path, records(SMALL))
    summary.write_text("earlier\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    main(["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand", "--margin", "0.05"])
    text = summary.read_text()
    assert text.startswith("earlier\n") and "### costmatch check: ✅ PASS" in text and "| w |" in text
    capsys.readouterr()


@pytest.mark.parametrize("argv, words", [
    (["--baseline", "nope", "--candidate", "cand", "--margin", "0.1"], "arm 'nope' is not in the results"),
    (["--baseline", "base", "--candidate", "cand", "--margin", "lots"], "--margin must be a number"),
    (["--baseline", "base", "--candidate", "cand", "--margin", "0.1", "--alpha", "0.7"], "--alpha must be"),
])
def test_bad_gate_input_is_exit_2(tmp_path, capsys, argv, words):
    path = tmp_path / "r.jsonl"
    write_records(path, records([0.0] * 3))
    assert main(["check", str(path), "--fixed", "tokens", *argv]) == 2
    assert words in capsys.readouterr().err


# -- error rates, by seeded simulation (docs/gate.md quotes these) ---------------------------
def test_identical_candidate_fails_at_most_alpha():
    assert simulate(0.0, sd=1.0, margin=1.0, n=10, seed=1)["fail"] <= 0.05 + MC
    assert simulate(0.0, sd=1.0, margin=0.0, n=10, seed=2)["fail"] <= 0.05 + MC  # even with no margin


def test_worse_by_twice_the_margin_fails_at_least_80_percent_with_20_seeds():
    assert simulate(-2.0, sd=1.0, margin=1.0, n=20, seed=3)["fail"] >= 0.80


def test_worse_by_exactly_the_margin_passes_at_most_alpha():
    assert simulate(-1.0, sd=1.0, margin=1.0, n=10, seed=4)["pass"] <= 0.05 + MC


# 400 gates per case in the default run (four unadjusted looks false-FAIL in 8%+: the next test); 1,000 with -m slow
@pytest.mark.parametrize("sims", [400, pytest.param(1000, marks=pytest.mark.slow)])
def test_sequential_gate_keeps_false_fail_at_alpha_and_saves_seeds(sims):
    looks = [5, 10, 15, 20]
    mc = 2 * math.sqrt(0.05 * 0.95 / sims)
    boundary = simulate(-1.0, sd=1.0, margin=1.0, looks=looks, seed=5, sims=sims)   # FAIL here is a false FAIL
    assert boundary["fail"] <= 0.05 + mc and boundary["pass"] <= 0.05 + mc
    same = simulate(0.0, sd=1.0, margin=1.0, looks=looks, seed=6, sims=sims)
    assert same["fail"] <= 0.05 + mc and same["mean_seeds"] < 20


def test_peeking_without_a_plan_would_inflate_false_fails():
    """The reason for the plan: four unadjusted looks at alpha each exceed alpha."""
    rng = np.random.default_rng(7)
    false_fail = 0
    for _ in range(1000):
        d = rng.normal(-1.0, 1.0, 20)
        false_fail += any(decide_gate(d[:n], 1.0, 0.05)[0] == FAIL for n in (5, 10, 15, 20))
    assert false_fail / 1000 > 0.08


def test_spending_schedule_sums_to_alpha_and_starts_small():
    spend = spending_schedule([5, 10, 15, 20], 0.05)
    assert sum(spend) == pytest.approx(0.05) and spend[0] < spend[-1] and all(s > 0 for s in spend)
    with pytest.raises(ValueError):
        spending_schedule([10, 5], 0.05)


def test_sequential_run_stops_early_on_a_clear_result(tmp_path, capsys):
    suite = tmp_path / "s.toml"
    suite.write_text("""
seeds = 20
[arms.good]
path = "tests.helpers:Guess"
[arms.bad]
path = "tests.helpers:Once"
[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = { rollouts = 30 }
arms = ["good", "bad"]
""")
    code = main(["run", str(suite), "--out", str(tmp_path / "o"), "--quiet", "--looks", "5,10,15,20",
                 "--gate", "good:bad", "--margin", "0.02", "--json", "--backend", "sequential"])
    data = json.loads(capsys.readouterr().out)
    # "bad" stops after one rollout: a broken comparison (under-spend), which is FAIL at the first look
    assert code == 1 and data["verdict"] == FAIL and data["seeds_used"] == 5


# -- issue 17: no zero-width decisions, bounded rewards, option checks ----------------------
def test_zero_width_interval_never_decides():
    assert decide_gate([0.0, 0.0], 0.1)[0] == INCONCLUSIVE
    assert decide_gate([0.0] * 6, 0.1)[0] == INCONCLUSIVE
    g = gate_decision([0.0] * 6, 0.1)
    assert g.method == "t (degenerate)" and "zero-width" in g.notes[0]


def test_pass_fail_rewards_use_distribution_free_bounds():
    # 0/1 rewards, candidate never worse on 5 seeds: the t route saw a zero-width interval and PASSed
    g = gate_decision([0.0] * 5, 0.1, reward_range=(0.0, 1.0))
    assert g.verdict == INCONCLUSIVE and g.method.startswith("exact unconditional")   # one look: the exact test
    assert gate_decision([0.0] * 5, 0.1, reward_range=(0.0, 1.0), anytime=True).method.startswith("betting")
    # enough seeds with no loss: a loss on 10% of seeds would have shown up (0.9^40 < 0.05)
    assert gate_decision([0.0] * 40, 0.1, reward_range=(0.0, 1.0)).verdict == PASS
    recs = []
    for seed in range(6):
        recs.append(RunRecord("w", "base", seed, {"tokens": 1000}, 1.0, budget={"tokens": 1000}))
        recs.append(RunRecord("w", "cand", seed, {"tokens": 1000}, 1.0, budget={"tokens": 1000}))
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.1)
    assert res.verdict == INCONCLUSIVE and res.reward_range == (0.0, 1.0) and "exact unconditional" in res.reason
    assert res.seeds_needed is not None and res.seeds_needed > 6


def test_gate_options_are_checked():
    recs = records(SMALL)
    with pytest.raises(ValueError, match="same arm"):
        run_gate(recs, "tokens", "base", "base", 0.05)
    with pytest.raises(ValueError, match="alpha"):
        run_gate(recs, "tokens", "base", "cand", 0.05, alpha=7)
    with pytest.raises(ValueError, match="margin"):
        run_gate(recs, "tokens", "base", "cand", -1.0)
    with pytest.raises(ValueError, match="margin"):
        run_gate(recs, "tokens", "base", "cand", float("nan"))
    with pytest.raises(ValueError, match="bounds"):
        run_gate(recs, "tokens", "base", "cand", 0.05, bounds="magic")


def test_bounds_print_as_99_99_percent_not_100():
    assert format_level(0.9999) == "99.99%" and format_level(0.95) == "95%" and format_level(0.975) == "97.5%"
    assert format_level(1 - 1e-7) != "100%"


def test_gate_on_columns_equals_gate_on_records():
    from baselines.analysis.tables.table import RunTable
    recs = records([0.01, -0.02, 0.03, 0.0, 0.02, -0.01, 0.015], spend={"tokens": 1000})
    by_records, _ = run_gate(recs, "tokens", "base", "cand", 0.05)
    by_columns, _ = run_gate(RunTable.from_records(recs), "tokens", "base", "cand", 0.05)
    assert [r.to_json() for r in by_columns] == [r.to_json() for r in by_records]


def test_sequential_bounded_gate_needs_no_alpha_spending():
    from baselines.analysis.gating.sequential import sequential_verdict
    d = np.zeros(40)
    assert sequential_verdict(d, [10, 20, 30, 40], 0.1, 0.05, reward_range=(0.0, 1.0)) == (PASS, 40)


def test_check_cli_bounds_and_reward_range(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    recs = []
    for seed in range(8):
        level = 0.3 + 0.05 * (seed % 3)
        recs.append(RunRecord("w", "base", seed, {"tokens": 1000}, level, budget={"tokens": 1000}))
        recs.append(RunRecord("w", "cand", seed, {"tokens": 1000}, level + 0.01 * (seed % 2), budget={"tokens": 1000}))
    write_records(path, recs)
    args = ["check", str(path), "--fixed", "tokens", "--baseline", "base", "--candidate", "cand", "--margin", "0.05",
            "--json"]
    assert main(args) == 0                                  # unbounded: t (+ bootstrap-t if skewed) bounds PASS
    assert json.loads(capsys.readouterr().out)["groups"][0]["method"].startswith("t")
    assert main(args + ["--reward-range", "0,1"]) == 3      # distribution-free: 8 seeds cannot rule out a rare loss
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["method"].startswith("betting") and group["reward_range"] == [0.0, 1.0]
    assert main(args + ["--bounds", "betting"]) == 2        # betting needs a range
    assert "reward range" in capsys.readouterr().err
    assert main(args + ["--reward-range", "1,0"]) == 2
    capsys.readouterr()


def test_a_declared_reward_range_reaches_the_pairs_and_the_gate():
    from baselines import compare
    recs = records([0.01, -0.02, 0.03, 0.0, 0.02, -0.01, 0.015], spend={"tokens": 1000})
    for r in recs:
        r.extra["reward_range"] = [0, 1]
    [pair] = compare(recs, fixed="tokens").groups[0].pairs
    assert pair.interval_method.startswith("betting") and pair.reward_range == (0.0, 1.0)
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.05)
    assert res.method.startswith("betting") and res.verdict == INCONCLUSIVE   # 7 seeds: no distribution-free PASS
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.05, bounds="t")
    assert res.method.startswith("t") and res.verdict == PASS


def test_check_speaks_of_units_in_the_workloads_own_words(tmp_path, capsys, monkeypatch):
    """bbob makes no model calls: `check` and its job summary say "function evaluations", and a summary
    without --fixed names no made-up unit ("at equal the suite's units" was printed)."""
    records = []
    for workload, budget, nouns in (("bbob", {"calls": 500}, {"calls": "function evaluations"}),
                                    ("qa", {"tokens": 1000}, None)):
        for arm in ("a", "b"):
            for s in range(6):
                r = RunRecord(workload=workload, arm=arm, seed=s, spend=dict(budget), budget=dict(budget),
                              reward=0.1 * s + (0.05 if arm == "b" else 0.0) + 0.01 * (s % 2) * (arm == "b"))
                if nouns:
                    r.extra["unit_nouns"] = nouns
                records.append(r)
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    main(["check", str(path), "--baseline", "a", "--candidate", "b", "--margin", "0.01"])
    out = capsys.readouterr().out
    assert "bbob at 500 function evaluations:" in out and "qa at 1,000 tokens:" in out
    assert "model calls" not in out
    text = summary.read_text()
    assert "| 500 function evaluations |" in text and "the suite's units" not in text
    assert "at equal spend in the unit each group's budget names" in text


def test_gate_amounts_read_alike_whatever_their_size():
    assert (_amount(600_645), _amount(1_914_520), _amount(40), _amount(0.125)) == ("600,645", "1,914,520", "40", "0.125")
