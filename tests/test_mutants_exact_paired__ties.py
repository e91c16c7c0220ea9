"""The exact pass/fail test's reject region at its edges: statistics tied with the observed one, an infinite
observed statistic, and a p-value equal to alpha.

Why: the p-value is P(Z >= z_obs) under the worst nuisance, so an outcome whose statistic *equals* the
observed one is at least as extreme and must count. Equal statistics computed along different float paths
differ by a few ulp, which TIE_RTOL (1e-12, relative) absorbs; with no tolerance the p-value of one seed won out of ten
at margin 0.2 drops from 0.055 to 0.029 and the gate PASSes at alpha 0.05 on evidence the test does not
hold. The reference here computes the statistic to 60 digits (`decimal`), so its ties are ties of the
mathematics, not of the float path. Rejection is "p <= alpha" everywhere (exact_decision, and the bound's
bisection, its dual): the bound must agree with the decision when p equals alpha exactly.
"""
from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
import pytest
from scipy.stats import multinomial

from baselines.analysis.statistics import exact_paired as ep


def precise_z(x10: int, x01: int, n: int, delta0: Decimal) -> Decimal:
    """Tango's restricted-score Z to 60 digits (the formula of the module's docstring, computed anew)."""
    with localcontext() as ctx:
        ctx.prec = 60
        d = delta0
        x10d, x01d, nd = Decimal(x10), Decimal(x01), Decimal(n)
        xc = nd - x10d - x01d
        b = x10d * (1 - d) + x01d * (1 - 3 * d) - 2 * xc * d
        c = x01d * d * (1 - d)
        p01 = (b + max(b * b + 8 * nd * c, Decimal(0)).sqrt()) / (4 * nd)
        p01 = min(max(p01, max(Decimal(0), -d)), (1 - d) / 2)
        var = nd * (2 * p01 + d - d * d)
        num = x10d - x01d - nd * d
        if var == 0:
            return Decimal("Infinity") if num > 0 else Decimal("-Infinity") if num < 0 else Decimal(0)
        return num / var.sqrt()


def precise_pvalue(x10: int, x01: int, n: int, delta0: str, grid: int = 2001) -> tuple[float, float]:
    """(p with mathematical ties counted, p with the observed outcome's ties left out): sup over p01 on a
    fine grid that includes both ends of the nuisance range."""
    d = Decimal(delta0)
    outcomes = [(a, b) for a in range(n + 1) for b in range(n + 1 - a)]
    z = [precise_z(a, b, n, d) for a, b in outcomes]
    z_obs = precise_z(x10, x01, n, d)
    tie = Decimal("1e-40")   # differences are exact at any precision: no rounding of z_obs -/+ tie
    at_least = np.array([[a, b, n - a - b] for (a, b), zi in zip(outcomes, z) if zi - z_obs >= -tie])
    beyond = np.array([[a, b, n - a - b] for (a, b), zi in zip(outcomes, z)
                       if zi - z_obs > tie or (a, b) == (x10, x01)])
    lo, hi = max(0.0, -float(d)), (1 - float(d)) / 2
    best_at, best_beyond = 0.0, 0.0
    for p01 in np.linspace(lo, hi, grid):
        p10 = p01 + float(d)
        probs = np.array([max(p10, 0.0), max(p01, 0.0), max(1 - p10 - p01, 0.0)])
        probs = probs / probs.sum()   # the end p01 = (1 - delta0) / 2 leaves pc an ulp off 0
        best_at = max(best_at, float(multinomial.pmf(at_least, n, probs).sum()))
        if beyond.size:
            best_beyond = max(best_beyond, float(multinomial.pmf(beyond, n, probs).sum()))
    return best_at, best_beyond


@pytest.mark.parametrize("x10, x01, n, delta0", [(1, 0, 10, "-0.2"), (3, 7, 10, "-0.1"), (12, 6, 19, "0")])
def test_an_outcome_tied_with_the_observed_one_counts_as_at_least_as_extreme(x10, x01, n, delta0):
    """Each case has another outcome whose statistic equals the observed one mathematically ((7, 3) for
    (1, 0) at n = 10 and -0.2) but computes an ulp lower; leaving it out would lower p by 0.01-0.03."""
    with_ties, without = precise_pvalue(x10, x01, n, delta0)
    assert with_ties - without > 0.01, "the case must have a tie that matters"
    got = ep.ni_pvalue(x10, x01, n, float(delta0))
    assert abs(got - with_ties) < 2e-4


def test_one_win_in_ten_seeds_does_not_pass_margin_0_2_at_alpha_0_05():
    """The tie above as the gate meets it: p = 0.055 > 0.05 (0.029 with the tie dropped would PASS)."""
    diffs = [1.0] + [0.0] * 9
    passes, _, lower, _ = ep.exact_decision(diffs, margin=0.2, alpha=0.05)
    assert not passes
    assert lower <= -0.2


@pytest.mark.parametrize("n", [1, 2, 3])
def test_all_wins_do_not_reject_a_delta0_one_ulp_below_one(n):
    """Just below delta0 = 1 the variance underflows and the observed statistic is +inf: the observed
    outcome is still in its own reject region, so p is about 1 (p10 = 1 - 2**-53 makes n wins certain),
    never 0. As the gate meets it: n losses cannot show the candidate worse by a margin of 1 - 2**-53."""
    delta0 = 1 - 2 ** -53
    z_obs = ep.score_statistic(np.array([n]), np.array([0]), n, delta0)[0]
    assert np.isposinf(z_obs)
    assert ep.ni_pvalue(n, 0, n, delta0) > 0.99
    assert not ep.exact_decision([-1.0] * n, margin=delta0, alpha=0.05)[1]


def test_the_bound_agrees_with_the_decision_when_p_equals_alpha_at_its_start():
    """lower_bound answers -1 only when even delta0 = -1 + 1e-9 is not rejected, and rejection is p <= alpha;
    when that start is rejected and no midpoint is, the bound is the start itself, above -1."""
    start = -1 + 1e-9
    alpha = ep.ni_pvalue(0, 2, 3, start)   # two losses, one tie in three seeds: about 3e-9
    assert 0 < alpha < 1e-6
    assert ep.lower_bound(0, 2, 3, alpha) == start
    assert ep.lower_bound(0, 2, 3, np.nextafter(alpha, 0)) == -1.0


def test_the_bisection_keeps_a_midpoint_whose_p_equals_alpha():
    """The first midpoint of the bisection (0: its points are the dyadic k / 2**j), rejected at alpha = its
    own p-value, is below the bound."""
    mid = 0.0
    alpha = ep.ni_pvalue(5, 0, 5, mid)
    assert ep.ni_pvalue(5, 0, 5, -1 + 1e-9) <= alpha
    assert ep.lower_bound(5, 0, 5, alpha) >= mid
    assert ep.lower_bound(5, 0, 5, np.nextafter(alpha, 0)) < mid
