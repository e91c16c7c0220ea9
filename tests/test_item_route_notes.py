"""The item-paired route's reason: its verdict and every note agree, and it says which route decided.

Rules (`gate._item_verdict`, docs/gate.md "Items paired by question"): when both arms carry items on every
shared seed the item route decides, and the per-seed route's notes (its bounds' caveats and its refusals:
"unbounded rewards need at least 6 seeds", "the differences are left-skewed ... so no PASS", "the arms' own
rewards lean against it") are replaced by the item route's own. On unbounded rewards the item route's PASS or
FAIL passes the per-seed skew rule on the seeds' mean item differences (benchmarks/item_skew.py: without it the
item route PASSed left-skewed per-seed effects at the margin 0.16-0.39 of the time with 20 questions).
Before this rule the gate printed "no regression beyond the margin ... so no PASS ..." on one line.
"""
from __future__ import annotations

import re

import numpy as np

from baselines import check
from baselines.analysis.gating.gate import run_gate
from baselines.core.records import RunRecord

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
PER_SEED_REFUSALS = ("the bounds say", "unbounded rewards need at least", "the arms' own rewards lean")


def runs(base_rows, cand_rows, rewards=None, items=True, reward_range=None):
    """Runs on seeds 0.. with items q0..; a run's reward is its items' mean unless `rewards` ({arm: per seed})."""
    out = []
    for arm, rows in (("base", base_rows), ("cand", cand_rows)):
        for s, row in enumerate(np.asarray(rows, dtype=float).tolist()):
            reward = rewards[arm][s] if rewards else float(np.mean(row))
            out.append(RunRecord("w", arm, s, {"tokens": 1}, reward, budget={"tokens": 1},
                                 extra={"reward_range": list(reward_range)} if reward_range else {},
                                 items=[{"id": f"q{i}", "reward": v} for i, v in enumerate(row)] if items else None))
    return out


def gate(recs, margin, **kw):
    [res], _ = run_gate(recs, "tokens", "base", "cand", margin, **kw)
    return res


def refused(note: str) -> str | None:
    """The verdict a note refuses ("... so no PASS ..."), or None."""
    m = re.search(r"so no (PASS|FAIL)", note)
    return m.group(1) if m else None


def assert_consistent(res):
    """No note refuses the verdict printed; an item-paired verdict carries no per-seed refusal."""
    for note in res.notes:
        assert refused(note) != res.verdict, (res.verdict, note)
    assert not re.search(rf"so no {res.verdict}\b", res.reason), res.reason
    if res.items is not None:
        assert not any(n.startswith(PER_SEED_REFUSALS) for n in res.notes), res.notes


def stale_case():
    rng = np.random.default_rng(1)
    base = np.round(rng.uniform(0.2, 0.8, (8, 5)), 2)
    cand = np.round(base + 0.1 + rng.normal(0, 0.03, (8, 5)), 2)
    return base, cand


def test_the_skew_refused_case_no_longer_prints_pass_beside_so_no_pass():
    """The reported case: 8 seeds x 5 questions, no reward_range (unbounded), the per-seed route refuses a PASS
    on left-skewed differences; the item route rests on the same seeds' means, so it refuses too, in its own
    words, and the reason carries that one refusal (it printed PASS beside the per-seed "so no PASS")."""
    base, cand = stale_case()
    per_seed = gate(runs(base, cand, items=False), 0.02)
    assert per_seed.verdict == INCONCLUSIVE and any(n.startswith("the bounds say PASS") for n in per_seed.notes)
    res = gate(runs(base, cand), 0.02)
    assert_consistent(res)
    assert res.verdict == INCONCLUSIVE and res.items == 40
    assert res.method == "two-way seed x question clustered t on paired item differences"
    assert res.reason.startswith("too few seeds to decide either way (8)")
    assert res.reason.count("so no PASS") == 1
    [note] = [n for n in res.notes if refused(n)]
    assert note.startswith("the item bounds say PASS but the seeds' mean item differences are left-skewed")
    assert res.seeds_needed is None
    # the public check() prints the same
    got = check(runs(base, cand), baseline="base", candidate="cand", margin=0.02)
    assert got.verdict == INCONCLUSIVE
    [group] = got.groups
    assert group.reason == res.reason


def test_an_item_pass_drops_the_per_seed_skew_refusal_it_overrides():
    """Per-seed rewards left-skewed (the per-seed route refuses its PASS) while the items' seed means are
    symmetric: the item route PASSes, and its reason says no "so no PASS" and names the item route."""
    rng = np.random.default_rng(3)
    base = np.round(rng.uniform(0.2, 0.8, (8, 5)), 2)
    shifts = 0.1 + np.array([-0.01, 0.01, -0.005, 0.005, 0.0, -0.002, 0.002, 0.0])
    cand = base + shifts[:, None] + np.array([0.02, -0.02, 0.01, -0.01, 0.0])
    run_rewards = {"base": [0.5] * 8, "cand": [0.6, 0.6, 0.61, 0.61, 0.61, 0.61, 0.61, 0.55]}
    per_seed = gate(runs(base, cand, rewards=run_rewards, items=False), 0.02)
    assert per_seed.verdict == INCONCLUSIVE and any(refused(n) == PASS for n in per_seed.notes)
    res = gate(runs(base, cand, rewards=run_rewards), 0.02)
    assert_consistent(res)
    assert res.verdict == PASS and "so no" not in res.reason
    assert "(two-way seed x question clustered t on paired item differences)" in res.reason
    assert "paired by item: 40 question(s) over 8 seed(s)" in res.reason


def test_an_item_verdict_on_fewer_than_six_unbounded_seeds_is_refused_by_the_item_route():
    """4 seeds, unbounded: the per-seed route says "unbounded rewards need at least 6 seeds to PASS"; the item
    route PASSed beside that note. Now the item route applies the same minimum and says so itself."""
    base, cand = stale_case()
    shifts = np.array([0.1, 0.11, 0.09, 0.1])
    base, cand = base[:4], base[:4] + shifts[:, None] + np.array([0.02, -0.02, 0.01, -0.01, 0.0])
    per_seed = gate(runs(base, cand, items=False), 0.02)
    assert per_seed.verdict == INCONCLUSIVE
    assert any(n.startswith("unbounded rewards need at least 6 seeds to PASS") for n in per_seed.notes)
    res = gate(runs(base, cand), 0.02)
    assert_consistent(res)
    assert res.verdict == INCONCLUSIVE and res.items == 20
    assert [n for n in res.notes if refused(n)] == [
        "paired by item on unbounded rewards, a PASS needs at least 6 seeds (the per-seed skew rule: the item bounds "
        "rest on 4 seed(s), and a rare large loss is absent from most of so few), so no PASS: declare reward_range "
        "for distribution-free bounds, add seeds, or pass --bounds t to use the per-seed t bounds"]
    # a declared range: bounded rewards, the rule does not apply (the item route decides as before)
    bounded = gate(runs(base, cand, reward_range=(0, 1)), 0.02)
    assert_consistent(bounded)
    assert bounded.verdict == PASS and not any(refused(n) for n in bounded.notes)


def test_verdict_and_notes_agree_over_many_data_sets():
    """Seeded data sets (skewed and symmetric per-seed effects, 4-12 seeds, 5 questions, both directions, run
    rewards equal to or apart from the items' means): every item-paired reason agrees with its verdict. The
    scan covers item verdicts the per-seed route refused (so it tests the fix, not an easy corner)."""
    rng = np.random.default_rng(20261203)
    overridden = 0
    for k in range(60):
        n = int(rng.integers(4, 13))
        base = np.round(rng.uniform(0.2, 0.8, (n, 5)), 3)
        effect = rng.normal(0, 0.03, n) if k % 2 else -(np.exp(rng.normal(0, 1, n)) - np.exp(0.5)) * 0.03
        cand = np.round(base + 0.05 * (k % 3 - 1) + effect[:, None] + rng.normal(0, 0.02, (n, 5)), 3)
        rewards = None
        if k % 4 == 3:
            rewards = {"base": rng.uniform(0.4, 0.6, n).tolist(), "cand": rng.uniform(0.3, 0.7, n).tolist()}
        per_seed = gate(runs(base, cand, rewards=rewards, items=False), 0.02)
        res = gate(runs(base, cand, rewards=rewards), 0.02)
        assert_consistent(per_seed)
        assert_consistent(res)
        overridden += any(refused(x) for x in per_seed.notes) or any(x.startswith(PER_SEED_REFUSALS)
                                                                     for x in per_seed.notes)
    assert overridden >= 5


def test_a_typical_claim_verdict_carries_no_mean_route_refusal():
    """`--claim typical` decides by the sign test; the mean route's notes ("the differences are left-skewed ...
    so no PASS", per seed or by item) were about the mean claim and are not printed beside its PASS. `--claim
    both` keeps them: the mean claim's INCONCLUSIVE is part of its verdict, and the reason says both must agree."""
    base, cand = stale_case()
    for items in (False, True):
        typical = gate(runs(base, cand, items=items), 0.02, claim="typical")
        assert_consistent(typical)
        assert typical.verdict == PASS and "so no" not in typical.reason
        assert typical.method == "exact sign test on the median difference (typical seed)"
        both = gate(runs(base, cand, items=items), 0.02, claim="both")
        assert_consistent(both)
        assert both.verdict == INCONCLUSIVE and both.reason.count("so no PASS") == 1
        assert "mean claim INCONCLUSIVE, typical-seed claim PASS: both must agree to PASS or FAIL" in both.notes
