"""The typical-seed claim as the gate prints it (issue 44, `gating/typical_gate.py` mutation survivors).

A decided claim needs no more seeds; an undecided one names the seeds an exact sign test needs for 80% power at
the share of seeds seen on the leading side (none when neither side leads); below the fewest seeds any exact
one-sided sign test can decide at, a note says how many that is; the worst seed's loss names its seed only when
the candidate lost there. References are computed here from the binomial distribution, not by the module.
"""
from __future__ import annotations


import pytest
from scipy.stats import binom

from baselines import RunRecord
from baselines.analysis.gating.gate import run_gate
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS

BASE = [0.30 + 0.04 * s for s in range(10)]


def records(base, cand):
    def one(arm, s, v):
        return RunRecord("w", arm, s, {"tokens": 1}, float(v), budget={"tokens": 1})
    return [one("base", s, v) for s, v in enumerate(base)] + [one("cand", s, v) for s, v in enumerate(cand)]


def gate(base, cand, margin=0.1, **kw):
    [res], _ = run_gate(records(base, cand), "tokens", "base", "cand", margin, **kw)
    return res


def shifted(shifts):
    """Candidate = baseline + shift, seed for seed."""
    return [b + s for b, s in zip(BASE, shifts)]


def typical_claim(res):
    [c] = [c for c in res.to_json()["claims"] if c["claim"] == "typical"]
    return c


def critical_count(n, alpha):
    """Fewest seeds above -margin out of n for a one-sided exact sign test at alpha (None: not reachable)."""
    return next((c for c in range(n + 1) if binom.sf(c - 1, n, 0.5) <= alpha), None)


def seeds_for_power(share, alpha, power=0.8):
    """Fewest seeds at which that test has `power` when a seed is above -margin with probability `share`."""
    for n in range(1, 2001):
        c = critical_count(n, alpha)
        if c is not None and binom.sf(c - 1, n, share) >= power:
            return n
    return None


BASE20 = [0.30 + 0.02 * s for s in range(20)]


@pytest.mark.parametrize("claim", ["typical", "both"])
def test_a_decided_typical_claim_needs_no_more_seeds(claim):
    # 15 of 20 seeds win by 0.2: P(Bin(20, 1/2) >= 15) = 0.021 < 0.05, PASS (14 of 20 would not: 0.058); at a
    # share of 0.75 the test needs more than 20 seeds for 80% power, so a "seeds needed" figure would name one
    assert critical_count(20, 0.05) == 15 and seeds_for_power(0.75, 0.05) > 20
    res = gate(BASE20, [b + s for b, s in zip(BASE20, [0.2] * 15 + [-0.3] * 5)], claim=claim)
    assert typical_claim(res)["verdict"] == PASS
    assert typical_claim(res)["seeds_needed"] is None
    if claim == "typical":
        assert res.verdict == PASS and res.seeds_needed is None and res.to_json()["seeds_needed"] is None
    # and the mirror image: 15 of 20 seeds lose by more than the margin, FAIL, nothing more needed
    res = gate(BASE20, [b + s for b, s in zip(BASE20, [-0.3] * 15 + [0.2] * 5)], claim="typical")
    assert res.verdict == FAIL and res.seeds_needed is None and typical_claim(res)["seeds_needed"] is None


def test_an_undecided_typical_claim_names_the_seeds_for_80_percent_power_at_the_share_seen():
    # 7 of 10 seeds above -margin: P(Bin(10, 1/2) >= 7) = 0.17, INCONCLUSIVE
    res = gate(BASE, shifted([0.2] * 7 + [-0.3] * 3), claim="typical")
    assert res.verdict == INCONCLUSIVE
    expected = seeds_for_power(0.7, 0.05)
    assert expected is not None and expected > 10
    assert res.seeds_needed == expected and typical_claim(res)["seeds_needed"] == expected
    assert "typical seed: 7 of 10 seeds lose less than the margin, 3 lose more" in res.notes
    # the losing side leading names the seeds for its share too: 3 of 10 above, 7 below
    res = gate(BASE, shifted([0.2] * 3 + [-0.3] * 7), claim="typical")
    assert res.verdict == INCONCLUSIVE and res.seeds_needed == expected


def test_no_seeds_figure_when_neither_side_leads():
    # 5 win and 5 lose by more than the margin: no share above one half, no number of seeds decides
    res = gate(BASE, shifted([0.2, -0.3] * 5), claim="typical")
    assert res.verdict == INCONCLUSIVE and res.seeds_needed is None
    assert typical_claim(res)["seeds_needed"] is None
    assert not any("no exact sign test" in n for n in res.notes)


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2])
def test_too_few_seeds_for_any_exact_sign_test_say_how_many_are_needed(alpha):
    fewest = next(m for m in range(1, 100) if 0.5 ** m <= alpha)   # all m seeds on one side: p = 2^-m
    n = fewest - 1
    res = gate(BASE[:n], [b + 0.2 for b in BASE[:n]], alpha=alpha, claim="typical")
    assert res.verdict == INCONCLUSIVE
    assert f"with {n} seeds no exact sign test can reach p<{alpha:g} one-sided (at least {fewest} are needed)" \
        in res.notes
    assert res.seeds_needed == fewest          # every seed won: the fewest seeds that can decide decide
    # from that many seeds on the note is gone, decided or not
    res = gate(BASE[:fewest], [b + 0.2 for b in BASE[:fewest]], alpha=alpha, claim="typical")
    assert res.verdict == PASS and not any("no exact sign test" in x for x in res.notes)
    res = gate(BASE, shifted([0.2] * 6 + [-0.3] * 4), alpha=alpha, claim="typical")
    assert not any("no exact sign test" in x for x in res.notes)


def test_the_worst_seed_is_named_only_where_the_candidate_lost():
    res = gate(BASE, shifted([0.05] * 3 + [-0.07] + [0.05] * 6), claim="typical")
    assert "worst seed's loss 0.07 (seed 3)" in res.notes
    assert res.to_json()["worst_seed"] == 3
    # a tie on the worst seed is no loss: the loss is 0 and no seed is blamed
    res = gate(BASE, shifted([0.05] * 4 + [0.0] + [0.05] * 5), claim="typical")
    assert "worst seed's loss 0" in res.notes
    assert not any(n.startswith("worst seed's loss") and "seed 4" in n for n in res.notes)
    assert res.to_json()["worst_seed"] is None and res.to_json()["worst_loss"] == 0
