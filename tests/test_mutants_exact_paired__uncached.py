"""The exact pass/fail test's cached rules, which mutation runs could not reach until the copy dropped the cache.

`ni_pvalue` and `lower_bound` carry `lru_cache`; mutmut skips decorated functions, so their guards and the
bound's bisection had no mutant tried (issue 44). These tests pin them against independent references: a
brute-force supremum over the nuisance parameter, and a bisection run to full float precision.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multinomial

from baselines.analysis.statistics import exact_paired as ep


def brute_pvalue(x10: int, x01: int, n: int, delta0: float, grid: int = 4001) -> float:
    """max over p01 on a fine grid of P(Z >= z_obs) with p10 = p01 + delta0, every outcome enumerated."""
    outcomes = [(a, b) for a in range(n + 1) for b in range(n + 1 - a)]
    a = np.array([o[0] for o in outcomes]); b = np.array([o[1] for o in outcomes])
    z = ep.score_statistic(a, b, n, delta0)
    z_obs = float(ep.score_statistic(np.array([x10]), np.array([x01]), n, delta0)[0])
    reject = ep.at_least_as_extreme(z, z_obs)
    lo, hi = max(0.0, -delta0), (1 - delta0) / 2
    best = 0.0
    for p01 in np.linspace(lo, hi, grid):
        p10 = p01 + delta0
        probs = [max(p10, 0.0), max(p01, 0.0), max(1 - p10 - p01, 0.0)]
        total = sum(multinomial.pmf([a[i], b[i], n - a[i] - b[i]], n, probs) for i in np.flatnonzero(reject))
        best = max(best, total)
    return best


@pytest.mark.parametrize("x10, x01, n, delta0", [(1, 0, 1, -0.5), (0, 1, 1, -0.5), (1, 0, 1, 0.2), (2, 0, 2, -0.3),
                                                 (1, 1, 2, -0.4), (3, 1, 4, -0.2), (0, 0, 3, -0.6)])
def test_small_n_pvalues_are_the_supremum_over_the_nuisance(x10, x01, n, delta0):
    """n = 1 and 2 included: a guard that returned 1 for n <= 1 would answer here without computing."""
    got = ep.ni_pvalue(x10, x01, n, delta0)
    ref = brute_pvalue(x10, x01, n, delta0)
    assert ref - 1e-9 <= got <= ref + 2e-4


def test_the_guards_answer_exactly_at_and_beyond_the_ends():
    """n = 0: no evidence (1); delta0 at or below -1: every delta exceeds it (0); at or above 1: none can (1)."""
    assert ep.ni_pvalue(0, 0, 0, -0.5) == 1.0
    for delta0 in (-1.0, -1.5, -3.0):
        assert ep.ni_pvalue(0, 3, 3, delta0) == 0.0
    for delta0 in (1.0, 1.5, 3.0):
        assert ep.ni_pvalue(3, 0, 3, delta0) == 1.0
        assert ep.ni_pvalue(0, 0, 3, delta0) == 1.0 and ep.ni_pvalue(0, 3, 3, delta0) == 1.0


@pytest.mark.parametrize("x10, x01, n", [(0, 5, 5), (0, 3, 3), (0, 1, 1), (0, 4, 4)])
def test_a_bound_no_delta0_above_minus_one_admits_is_exactly_minus_one(x10, x01, n):
    """All losses: not even delta0 just above -1 is rejected at 0.05, so the bound is -1 itself."""
    assert ep.ni_pvalue(x10, x01, n, -1 + 1e-9) > 0.05
    assert ep.lower_bound(x10, x01, n, 0.05) == -1.0


def fine_lower_bound(x10: int, x01: int, n: int, alpha: float) -> float:
    """The same duality, bisected to full precision."""
    lo, hi = -1.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ep.ni_pvalue(x10, x01, n, mid) <= alpha else (lo, mid)
    return lo


@pytest.mark.parametrize("x10, x01, n", [(5, 0, 5), (7, 1, 10), (4, 2, 9), (10, 0, 12), (3, 0, 3), (6, 3, 12),
                                         (8, 0, 8), (2, 0, 6)])
def test_the_bound_is_within_its_stated_resolution_below_the_exact_one(x10, x01, n):
    """BISECTION_STEPS halvings of [-1, 1]: the bound is rejected (never above the exact one) and within
    2 / 2**BISECTION_STEPS of it; a wider start interval would lose that resolution."""
    got = ep.lower_bound(x10, x01, n, 0.05)
    ref = fine_lower_bound(x10, x01, n, 0.05)
    assert got <= ref + 1e-12 and ref - got <= 2 / 2 ** ep.BISECTION_STEPS
    assert ep.ni_pvalue(x10, x01, n, got) <= 0.05
