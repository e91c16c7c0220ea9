"""Issue 37's "Done when" figures for the typical-seed claim, by seeded simulation (benchmarks/typical_claims.py).

The default run checks that the benchmark's decision is compare()'s on a few
data sets and one small simulation that fails when the size rule breaks; the
slow run asserts the calibration.md figures at 400-1,000 simulations per cell.
Every figure names its claim (typical seed), margin, data model and n.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines import compare
from baselines.analysis.compare.claims import claims_of
from benchmarks import typical_claims as tc

from .builders import make_arms

ALPHA = 0.05


def _mc(rate: float, sims: int) -> float:
    return 2 * math.sqrt(max(rate * (1 - rate), 1 / sims) / sims)


def test_the_benchmark_decides_as_compare_does():
    rng = np.random.default_rng(5)
    for draw in (tc.normal, tc.scores_0_5, tc.binary_independent):
        for _ in range(3):
            x = draw(rng, 3, 10)
            recs = make_arms({arm: {"tokens": 1000} for arm in "abc"}, seeds=10,
                             reward_fn=lambda arm, s: float(x["abc".index(arm), s]))
            pairs = compare(recs, fixed="tokens").groups[0].pairs
            assert all(p.claim == "typical" for p in pairs) and claims_of("auto") == ("typical",)
            assert any(p.verdict in ("a>b", "b>a") for p in pairs) == tc.decided(x)


def test_typical_false_alarm_on_discrete_rewards_small_simulation():
    # claim: typical seed; data: scores 0..5 uniform (many ties), two identical arms; n = 10; 300 simulations
    rate, _ = tc.false_alarm(tc.scores_0_5, 2, 10, 300, 11)
    assert rate <= ALPHA + _mc(ALPHA, 300)


@pytest.mark.slow
@pytest.mark.parametrize("name,draw", tc.NULLS, ids=[n for n, _ in tc.NULLS])
@pytest.mark.parametrize("n", [5, 10, 20])
def test_typical_false_alarm_every_shape(name, draw, n):
    sims = 1000
    rate, _ = tc.false_alarm(draw, 2, n, sims, 100 + n)
    assert rate <= ALPHA + _mc(ALPHA, sims), (name, n, rate)


@pytest.mark.slow
@pytest.mark.parametrize("k", [5, 10])
@pytest.mark.parametrize("draw", [tc.normal, tc.binary_independent, tc.scores_0_5])
def test_typical_family_wise_false_alarm_many_arms(draw, k):
    sims = 250
    rate, _ = tc.false_alarm(draw, k, 10, sims, 500 + k)
    assert rate <= ALPHA + _mc(ALPHA, sims), (draw.__name__, k, rate)


@pytest.mark.slow
def test_typical_false_alarm_rare_large_loss_at_the_null():
    rng = np.random.default_rng(9)
    sims = 1000
    for n in (10, 20):
        hits = sum(tc.typical_claim(tc.rare_loss_difference(rng, n), 1 - ALPHA).p < ALPHA for _ in range(sims))
        assert hits / sims <= ALPHA + _mc(ALPHA, sims)


@pytest.mark.slow
def test_typical_power_on_the_beta_shape():
    # claim: typical seed; differences +0.10, sd 0.10, Beta(2, 5)-shaped; exact and simulated
    assert tc.exact_power_beta(10) >= 0.45 and tc.exact_power_beta(20) >= 0.85
    sims = 1000
    for n, floor in ((10, 0.45), (20, 0.85)):
        rate, _ = tc.power_beta(n, sims, 700 + n)
        assert rate >= floor - _mc(floor, sims), (n, rate)


@pytest.mark.slow
def test_identical_bounded_arms_pass_a_typical_margin_of_0_1_at_10_seeds():
    rate, _ = tc.gate_pass(lambda rng, n: np.zeros(n), 10, 0.1, 1000, 610)
    assert rate >= 0.95


@pytest.mark.slow
@pytest.mark.parametrize("name,draw_d", tc.GATE_NULLS, ids=[n for n, _ in tc.GATE_NULLS])
def test_typical_gate_pass_at_the_margin(name, draw_d):
    sims = 1000
    for n in (5, 10, 20):
        rate, _ = tc.gate_pass(draw_d, n, 0.1, sims, 1000 + n)
        assert rate <= ALPHA + _mc(ALPHA, sims), (name, n, rate)


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["normal", "Beta", "0/1"])
def test_at_the_printed_would_be_missed_share_decided_in_0_80(shape):
    sims = 1000
    for n in (10, 20):
        rate, _, share = tc.at_detectable(n, shape, sims, 800 + n)
        assert share is not None and abs(rate - 0.80) <= 0.05, (shape, n, rate)
    assert tc.at_detectable(5, shape, 10, 1)[2] is None    # n = 5: no outcome decides, so no share is printed
