"""Issue 37 item 4: the unbounded gate on lognormal *rewards* (benchmarks/skew_rewards.py, docs/calibration.md).

Claim: PASS at the margin (candidate worse on the mean by exactly the
margin) at most alpha + MC error for a scaled-down lognormal candidate and a
per-seed lognormal effect, n = 6-20, now that the skew check also reads each
arm's skewness (`gate_bounds.arm_skew_alpha`). Before, 0.058-0.112. The
scaled-down candidate at r = 0.5 (half the baseline), rho 0.5, still PASSes
0.059-0.070 at 2,000 simulations: a strict xfail, so a fix cannot go unnoticed.
The default tests check the data model (the mean difference is exactly
-margin) and one sample the differences alone PASS.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from baselines.analysis.gating import gate_bounds
from benchmarks import skew_rewards

# 10 seeds of the scaled-down candidate (r 0.3, rho 0): the differences alone PASS margin 0.49
BASE = [3.4, 0.74, 0.44, 2.12, 1.29, 2.45, 0.71, 0.23, 0.9, 0.64]
CAND = [7.39, 1.53, 0.11, 2.55, 0.8, 0.25, 2.66, 0.64, 1.92, 0.38]


def test_every_shape_sits_exactly_at_the_margin():
    rng = np.random.default_rng(0)
    for name, draw, margin in skew_rewards.SHAPES:
        d = skew_rewards.diffs(draw, rng, 20000, 10)
        assert d.mean() == pytest.approx(-margin, abs=0.03 * margin + 4 * d.std() / math.sqrt(d.size)), name


def test_a_right_skewed_baseline_needs_the_pass_at_a_smaller_alpha():
    d = np.subtract(CAND, BASE)
    alone = gate_bounds.gate_decision(d, 0.49)
    assert alone.verdict == gate_bounds.PASS
    g = gate_bounds.gate_decision(d, 0.49, arms=(BASE, CAND))
    assert g.verdict == gate_bounds.INCONCLUSIVE and (g.lower, g.upper) == (alone.lower, alone.upper)
    assert "right-skewed baseline" in g.notes[-1] and "alpha 0.0125" in g.notes[-1]
    # the same arms mirrored (lower is better read as higher is better) lean against a FAIL, not a PASS
    z_pass, z_fail = gate_bounds.arm_skew_z((BASE, CAND), 10)
    assert gate_bounds.arm_skew_z(([-x for x in BASE], [-x for x in CAND]), 10) == pytest.approx((z_fail, z_pass))
    assert gate_bounds.arm_skew_alpha(0.05, 0.4) == 0.05 and gate_bounds.arm_skew_alpha(0.05, 3.0) == 0.05 / 8


def test_symmetric_arms_keep_the_pass():
    rng = np.random.default_rng(5)
    base = rng.normal(10, 0.1, 12)
    cand = base + np.linspace(-0.05, 0.05, 12)   # symmetric arms and differences: z about 0
    assert gate_bounds.gate_decision(cand - base, 0.2, arms=(base, cand)).verdict == gate_bounds.PASS


def _problems(shapes, sims=1000):
    out = []
    for name, draw, margin in shapes:
        for n in (6, 10, 20):
            rate, _ = skew_rewards.pass_rate(draw, margin, n, sims, seed=37_900 + n)
            if rate > 0.05 + 2 * math.sqrt(0.05 * 0.95 / sims):
                out.append((name, n, rate))
    return out


@pytest.mark.slow
def test_pass_at_the_margin_on_lognormal_rewards_is_at_most_alpha():
    """docs/calibration.md, "Lognormal rewards at the gate": every shape but r 0.5, 1,000 data sets per cell."""
    assert not _problems([s for s in skew_rewards.SHAPES if "r 0.5" not in s[0]])


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 37 item 4 residual: r 0.5 (half the baseline), rho 0.5 PASSes "
                                       "0.059-0.070 at the margin (2,000 data sets)")
def test_pass_at_the_margin_when_the_candidate_is_half_the_baseline():
    assert not _problems([s for s in skew_rewards.SHAPES if "r 0.5, rho 0.5" in s[0]])
