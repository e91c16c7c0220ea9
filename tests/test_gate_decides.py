"""Issue 27: a gate that decides at 5-10 seeds: the one margin rule, the exact paired 0/1 test, items paired by
question with seed-clustered inference, crashes that count, and the sequential gate's tolerance and errors.

Exact figures (size, power of the exact test) are computed by enumeration, not simulation; the item-level
claims are seeded simulations through the functions the gate calls, and one end-to-end run through `check`.
"""
from __future__ import annotations

import json
import math
import types

import numpy as np
import pytest
from scipy import stats as sps

from baselines import RunRecord, write_records
from baselines.cli import main
from baselines.analysis.statistics.clustered import clustered_bounds
from baselines.analysis.statistics.exact_paired import ni_pvalue
from baselines.analysis.gating.gate import run_gate
from baselines.analysis.gating.gate_bounds import EXACT, FAIL, INCONCLUSIVE, PASS, gate_decision, margin_verdict

ALPHA = 0.05


def _mc(sims: int) -> float:
    return 2 * math.sqrt(ALPHA * (1 - ALPHA) / sims)


# -- one margin rule -----------------------------------------------------------------------------
def test_margin_verdict_is_the_one_rule_and_its_sign_matters():
    """PASS needs the lower bound above -margin: a flipped sign (lower > +margin) turns this PASS into
    INCONCLUSIVE, and a flipped FAIL side turns the FAIL below into INCONCLUSIVE."""
    assert margin_verdict(-0.05, 0.3, 0.1) == PASS
    assert margin_verdict(-0.3, -0.15, 0.1) == FAIL
    assert margin_verdict(-0.15, 0.2, 0.1) == INCONCLUSIVE
    assert margin_verdict(math.nan, math.nan, 0.1) == INCONCLUSIVE


def test_the_unpaired_welch_route_uses_the_same_rule():
    """`check --against` on arms that share no seeds (Welch): a clearly better candidate PASSes, a clearly
    worse one FAILs (the route had its own copy of the margin rule)."""
    rng = np.random.default_rng(0)
    for shift, want in ((0.2, PASS), (-0.4, FAIL)):
        recs = [RunRecord("w", "base", s, {"tokens": 1}, float(0.5 + rng.normal(0, 0.02)), budget={"tokens": 1})
                for s in range(8)]
        recs += [RunRecord("w", "cand", 100 + s, {"tokens": 1}, float(0.5 + shift + rng.normal(0, 0.02)),
                           budget={"tokens": 1}) for s in range(8)]
        [res], _ = run_gate(recs, "tokens", "base", "cand", 0.1)
        assert not res.paired and res.method.startswith("Welch") and res.verdict == want


# -- the exact unconditional test on paired 0/1 outcomes -------------------------------------------
def _rejection_size(n: int, margin: float) -> float:
    """Worst-case probability (over the nuisance p01) that the test rejects delta <= -margin at delta = -margin."""
    reject = [(a, b) for a in range(n + 1) for b in range(n + 1 - a) if ni_pvalue(a, b, n, -margin) <= ALPHA]
    worst = 0.0
    for theta in np.linspace(margin, (1 + margin) / 2, 31):
        p = [theta - margin, theta, 1 - 2 * theta + margin]
        worst = max(worst, sum(sps.multinomial.pmf([a, b, n - a - b], n, p) for a, b in reject))
    return worst


@pytest.mark.parametrize("n", [5, 10])
def test_exact_test_size_is_at_most_alpha_at_the_margin(n):
    assert _rejection_size(n, 0.1) <= ALPHA + 1e-9


def test_exact_test_power_on_shared_difficulty_at_n10():
    """0/1 with a shared per-seed difficulty, .8 vs .9 (the candidate never loses a seed the baseline wins):
    x10 ~ Bin(10, .1), x01 = 0. Power by enumeration: .264 (the old betting gate had .017)."""
    power = sum(sps.binom.pmf(k, 10, 0.1) for k in range(11) if gate_decision(
        np.r_[np.ones(k), np.zeros(10 - k)], 0.1, reward_range=(0.0, 1.0)).verdict == PASS)
    assert power >= 0.26


def test_two_identical_pass_fail_arms_pass_by_30_seeds():
    d = np.zeros(30)
    g = gate_decision(d, 0.1, reward_range=(0.0, 1.0))
    assert g.verdict == PASS and g.method == EXACT and g.lower > -0.1
    assert gate_decision(d[:25], 0.1, reward_range=(0.0, 1.0)).verdict == INCONCLUSIVE


def test_exact_bounds_are_the_duals_of_the_verdict():
    rng = np.random.default_rng(5)
    for _ in range(10):
        n = int(rng.integers(3, 16))
        d = rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.1, 0.6, 0.3])
        g = gate_decision(d, 0.1, reward_range=(0.0, 1.0))
        assert g.verdict == margin_verdict(g.lower, g.upper, 0.1)
        assert g.lower <= g.mean <= g.upper


def test_exact_test_scales_to_a_declared_range():
    g = gate_decision(np.zeros(30), 1.0, reward_range=(0.0, 10.0))
    assert g.method == EXACT and g.verdict == PASS and -1.0 < g.lower <= 0


def test_non_binary_bounded_rewards_get_fixed_n_betting_and_looks_get_the_sequence():
    d = np.full(8, 0.05)
    assert gate_decision(d, 0.1, reward_range=(0.0, 1.0)).method.startswith("betting bound for 8 seeds")
    assert "anytime-valid" in gate_decision(d, 0.1, reward_range=(0.0, 1.0), anytime=True).method


# -- items paired by question, seed-clustered -----------------------------------------------------
def _items(rng, n, questions, p_base, delta, shared=0.7):
    u = rng.random((n, questions))
    v = np.where(rng.random((n, questions)) < shared, u, rng.random((n, questions)))
    return (u < p_base).astype(float), (v < p_base + delta).astype(float)


def _item_gate_rate(n, delta, sims, seed):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        base, cand = _items(rng, n, 20, 0.7, delta)
        b = clustered_bounds(list(cand - base), ALPHA)
        hits += b is not None and margin_verdict(b[1], b[2], 0.1) == PASS
    return hits / sims


def test_items_power_at_5_seeds_of_20_questions():
    """Effect +0.1, margin 0.1: PASS >= .80 at n = 5 seeds (per seed only: .000)."""
    assert _item_gate_rate(5, 0.1, 300, seed=1) >= 0.80


@pytest.mark.parametrize("n", [3, 5, 10])
def test_items_pass_at_the_margin_is_at_most_alpha(n):
    sims = 600
    assert _item_gate_rate(n, -0.1, sims, seed=10 + n) <= ALPHA + _mc(sims)


def test_items_with_a_seed_effect_are_clustered_not_counted_as_independent():
    """A per-seed shift of the candidate's advantage: clustering holds the level where treating 100 items
    as independent PASSes at the margin about 12% of the time."""
    rng = np.random.default_rng(7)
    sims, hits, naive = 600, 0, 0
    for _ in range(sims):
        u = rng.random((5, 20))
        shift = rng.normal(0, 0.1, (5, 1))
        base = (u < 0.6).astype(float)
        cand = (rng.random((5, 20)) < np.clip(0.5 + shift, 0, 1)).astype(float)
        b = clustered_bounds(list(cand - base), ALPHA)
        hits += b is not None and b[1] > -0.1
        d = (cand - base).ravel()
        naive += d.mean() - 1.66 * d.std(ddof=1) / math.sqrt(d.size) > -0.1
    assert hits / sims <= ALPHA + _mc(sims) < naive / sims


def _item_records(n=5, questions=20, delta=0.1, seed=3, crash=()):
    rng = np.random.default_rng(seed)
    base, cand = _items(rng, n, questions, 0.7, delta)
    out = []
    for s in range(n):
        for arm, row in (("base", base[s]), ("cand", cand[s])):
            items = [{"id": f"q{s}-{i}", "reward": float(x)} for i, x in enumerate(row)]
            reward = float(row.mean())
            error = None
            if arm == "cand" and s in crash:
                reward, items, error = None, None, {"type": "RuntimeError", "message": "boom"}
            out.append(RunRecord("qa", arm, s, {"tokens": 100}, reward, budget={"tokens": 100},
                                 error=error, extra={"reward_range": [0, 1]}, items=items))
    return out


def test_check_pairs_by_item_end_to_end(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _item_records())
    code = main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1", "--json"])
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["method"].startswith("seed-clustered") and group["items"] == 100
    assert code == 0 and group["verdict"] == PASS and group["bounds"][0] > -0.1
    [res], _ = run_gate([r for r in _item_records()], "tokens", "base", "cand", 0.1)
    assert res.items == 100 and "paired by item: 100 question(s) over 5 seed(s)" in res.reason


def test_without_items_the_gate_is_per_seed():
    recs = _item_records()
    for r in recs:
        r.items = None
    [res], _ = run_gate(recs, "tokens", "base", "cand", 0.1)
    assert res.items is None and not res.method.startswith("seed-clustered")


# -- crashes count ---------------------------------------------------------------------------------
def _crash_records(n=20, crashed=(1, 4, 7, 9, 15), bounded=True):
    out = []
    for s in range(n):
        extra = {"reward_range": [0, 1]} if bounded else {}
        level = 0.6 + 0.01 * (s % 5)
        out.append(RunRecord("w", "base", s, {"tokens": 1}, level, budget={"tokens": 1}, extra=dict(extra)))
        out.append(RunRecord("w", "cand", s, {"tokens": 1}, None if s in crashed else level + 0.02,
                             budget={"tokens": 1}, error={"type": "E", "message": "x"} if s in crashed else None,
                             extra=dict(extra)))
    return out


def test_a_crashing_candidate_never_passes_in_silence_with_a_range(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _crash_records())
    code = main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1", "--json"])
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["crashed_seeds"] == {"candidate": [1, 4, 7, 9, 15], "baseline": []}
    assert group["verdict"] != PASS and code != 0
    assert "unscored on seed(s) 1, 4, 7, 9, 15: counted as a loss at the range floor 0" in group["reason"]
    main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1"])
    assert "1, 4, 7, 9, 15" in capsys.readouterr().out


def test_without_a_range_more_crashes_than_the_baseline_is_fail():
    [res], _ = run_gate(_crash_records(bounded=False), "tokens", "base", "cand", 0.1)
    assert res.verdict == FAIL and res.method == "crash rule" and "1, 4, 7, 9, 15" in res.reason
    [res], _ = run_gate(_crash_records(crashed=()), "tokens", "base", "cand", 0.1)
    assert res.crashed == {"candidate": [], "baseline": []}


# -- the sequential gate: the suite's tolerance, errors not swallowed --------------------------------
def test_sequential_look_uses_each_workloads_tolerance_and_raises(monkeypatch):
    import baselines.analysis.gating.sequential as seq
    from baselines import InputError

    seen = []

    def fake_gate(records, unit, baseline, candidate, margin, alpha, **kw):
        seen.append(kw["tolerance"])
        if kw["tolerance"] == 0.5:
            raise ValueError("something is wrong")
        return [], None

    monkeypatch.setattr(seq, "run_gate", fake_gate)
    budget = types.SimpleNamespace(key=lambda: "{}")
    w = types.SimpleNamespace(name="w", fixed="tokens", tolerance=0.3, arms=("a", "b"), budgets=(budget,))
    other = types.SimpleNamespace(name="v", fixed="calls", tolerance=0.5, arms=("a",), budgets=(budget,))
    suite = types.SimpleNamespace(workloads=[w, other])
    assert seq._gate_look(suite, [], "a", "b", 0.1, 0.01, 0.05, False, None, 20, "auto") == []
    assert seen == [0.3]   # the workload without both arms is not gated
    suite.workloads = [w, types.SimpleNamespace(**{**vars(other), "arms": ("a", "b")})]
    with pytest.raises(InputError, match="something is wrong"):
        seq._gate_look(suite, [], "a", "b", 0.1, 0.01, 0.05, False, None, 20, "auto")


# -- repeated looks: the ledger ----------------------------------------------------------------------
def _binary_records(n):
    return [RunRecord("w", arm, s, {"tokens": 1}, 1.0, budget={"tokens": 1}) for s in range(n)
            for arm in ("base", "cand")]


def test_a_grown_file_is_gated_with_anytime_bounds_after_an_earlier_look(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COSTMATCH_LOOKS_LEDGER")
    path = tmp_path / "r.jsonl"
    args = ["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1", "--json"]
    write_records(path, _binary_records(5))
    assert main(args) == 3
    first = json.loads(capsys.readouterr().out)["groups"][0]
    assert first["method"].startswith("exact") and first["earlier_looks"] == []
    ledger = json.loads((tmp_path / ".costmatch-looks.json").read_text())
    assert [e["n"] for e in next(iter(ledger["looks"].values()))] == [5]
    write_records(path, _binary_records(30))
    code = main(args)
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["earlier_looks"] == [5] and "anytime-valid" in group["method"]
    assert "looked at before with 5 seed(s) (.costmatch-looks.json)" in group["reason"]
    assert code == 3   # the exact test alone would PASS 30 agreeing seeds; after a look it may not
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    write_records(fresh / "r.jsonl", _binary_records(30))
    assert main(["check", str(fresh / "r.jsonl")] + args[2:]) == 0   # a first look at 30 seeds: the exact test
    capsys.readouterr()


def test_the_same_seed_count_again_is_not_a_new_look(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COSTMATCH_LOOKS_LEDGER")
    path = tmp_path / "r.jsonl"
    write_records(path, _binary_records(30))
    args = ["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1"]
    assert main(args) == 0 and main(args) == 0
    capsys.readouterr()


def _repeated_check_pass_rate(draw, sims, seed, first=5, last=20):
    """`check` after every new seed from `first` to `last`, stopping at the first decision (the ledger rule)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(sims):
        base, cand = draw(rng, last)
        d = cand - base
        verdict = gate_decision(d[:first], 0.1, reward_range=(0.0, 1.0)).verdict
        for n in range(first + 1, last + 1):
            if verdict != INCONCLUSIVE:
                break
            verdict = gate_decision(d[:n], 0.1, reward_range=(0.0, 1.0), anytime=True).verdict
        hits += verdict == PASS
    return hits / sims


@pytest.mark.slow
def test_repeated_checks_on_a_growing_file_hold_alpha_at_the_margin():
    """Independent 0/1, .9 vs .8 (worse by exactly the margin): a check per new seed from 5 to 20."""
    def draw(rng, n):
        return (rng.random(n) < 0.9).astype(float), (rng.random(n) < 0.8).astype(float)
    sims = 200
    assert _repeated_check_pass_rate(draw, sims, seed=11) <= ALPHA + _mc(sims)


# -- smaller: one shared seed, different declared ranges ---------------------------------------------
def test_one_shared_seed_prints_no_nan(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, [RunRecord("w", "base", 0, {"tokens": 1}, 0.5, budget={"tokens": 1}),
                         RunRecord("w", "cand", 0, {"tokens": 1}, 0.6, budget={"tokens": 1})])
    assert main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1"]) == 3
    out = capsys.readouterr().out
    assert "nan" not in out and "+0.1" in out and "share only 1 seed" in out


def test_arms_declaring_different_ranges_use_the_hull_and_say_so():
    from baselines import compare
    recs = []
    for s in range(6):
        recs.append(RunRecord("w", "a", s, {"tokens": 1}, 0.5, budget={"tokens": 1}, extra={"reward_range": [0, 1]}))
        recs.append(RunRecord("w", "b", s, {"tokens": 1}, 0.6, budget={"tokens": 1}, extra={"reward_range": [0, 10]}))
    group = compare(recs, fixed="tokens").groups[0]
    assert group.reward_range == (0.0, 10.0)
    assert any("different reward ranges ([0, 1], [0, 10])" in n for n in group.notes)
    assert group.pairs[0].interval_method.startswith("betting")


# -- the docs' table (benchmarks/gate_power.py), asserted ---------------------------------------------
@pytest.mark.slow
def test_gate_power_table_claims():
    from benchmarks import gate_power as gp
    sims = 600
    rows = {(name, proc, n): rate for name, proc, n, (rate, _) in gp.run(sims)}
    tol = _mc(sims)
    assert rows[("power: 20 questions, .7 vs .8 (effect +0.1)", "gate (items, seed-clustered)", 5)] >= 0.80
    assert rows[("power: 0/1 shared difficulty, .8 vs .9 (effect +0.1)", "gate", 10)] >= 0.26 - 2 * math.sqrt(
        0.26 * 0.74 / sims)
    assert rows[("power: two identical 0/1 arms (shared, .8 vs .8)", "gate", 30)] == 1.0
    for (name, proc, n), rate in rows.items():
        if name.startswith("size") and proc.startswith("gate"):
            assert rate <= ALPHA + tol, (name, proc, n, rate)


def test_compare_pairs_by_item_when_runs_carry_items():
    from baselines import compare
    # the mean claim is the one paired by question (the typical-seed claim is per seed: 5 seeds decide nothing)
    [group] = compare(_item_records(n=5, delta=0.25), fixed="tokens", claim="mean").groups
    [pair] = group.pairs
    assert pair.interval_method.startswith("seed-clustered") and pair.items == 100
    assert pair.verdict == "a>b" if pair.a == "cand" else pair.verdict == "b>a"
    assert pair.ci[0] > 0 if pair.a == "cand" else pair.ci[1] < 0
    assert pair.to_json()["items"] == 100 and pair.family == "1 pair, Holm"
    recs = _item_records(n=5, delta=0.25)
    for r in recs:
        r.items = None
    [pair] = compare(recs, fixed="tokens").groups[0].pairs
    assert pair.items is None and not pair.interval_method.startswith("seed-clustered")


def test_the_ledger_can_be_turned_off(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COSTMATCH_LOOKS_LEDGER", "off")
    path = tmp_path / "r.jsonl"
    write_records(path, _binary_records(5))
    main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1"])
    capsys.readouterr()
    assert not (tmp_path / ".costmatch-looks.json").exists()
