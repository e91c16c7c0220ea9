"""The typical-seed claim's statistics (issue 37): exact sign tests, order-statistic intervals, exact power.

Size is computed exactly (binomial sums over every tie rate), not simulated,
so these tests cost milliseconds and fail the moment a rule breaks.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from baselines.analysis.statistics.typical_seed import (clopper_pearson, critical_wins, detectable_share, margin_seeds_to_decide,
                                             margin_sign_bounds, median_interval, order_rank, seeds_to_decide,
                                             sign_counts, sign_power, sign_test_p, typical_claim)


def _reject_rate(n: int, q_win: float, q_loss: float, level: float) -> float:
    """Exact P(sign test rejects at `level`) for n seeds with P(win) = q_win, P(loss) = q_loss, rest ties."""
    total = 0.0
    q_tie = 1 - q_win - q_loss
    for w in range(n + 1):
        for l in range(n + 1 - w):
            if sign_test_p(w, l) <= level and w > l:   # the one-sided claim "a beats b"
                total += stats.multinomial.pmf([w, l, n - w - l], n, [q_win, q_loss, q_tie])
    return total


@pytest.mark.parametrize("n", [3, 6, 10, 20])
@pytest.mark.parametrize("tie_rate", [0.0, 0.5, 0.9])
def test_the_claim_a_beats_b_has_exact_size_at_most_alpha_over_two_for_every_tie_rate(n, tie_rate):
    # under H0 P(win) = P(loss): 0/1 rewards (most seeds tie) and 0..5 scores are this case
    q = (1 - tie_rate) / 2
    assert _reject_rate(n, q, q, 0.05) <= 0.025 + 1e-12
    # a worse a (loses more often) is rejected even less often
    assert _reject_rate(n, q * 0.8, q * 1.2, 0.05) <= 0.025 + 1e-12


def test_ten_of_ten_seeds_decide_and_the_median_interval_excludes_zero():
    d = np.array([0.37, 0.38, 0.44, 0.51, 0.44, 0.53, 0.37, 0.31, 0.24, 0.32])
    r = typical_claim(d)
    assert (r.counts.wins, r.counts.losses, r.counts.ties) == (10, 0, 0)
    assert r.p == pytest.approx(2 / 1024)
    assert r.ci[0] > 0 and r.ci[0] == pytest.approx(np.sort(d)[1])     # k = 2 at n = 10, alpha/2 = .025
    assert r.median == pytest.approx(np.median(d))
    lo, hi = r.win_share_ci
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 10))


def test_ties_are_dropped_relative_to_the_data_scale():
    assert sign_counts([0.0, 0.0, 1e-13, 0.5, -0.2]) == sign_counts([0, 0, 0, 0.5, -0.2])
    c = sign_counts([1e-12, 2e-12, 3e-12])  # tiny but not tied relative to 1: the tolerance has a floor of 1e-9
    assert c.ties == 3
    assert typical_claim([0, 0, 0]).p == 1.0


@settings(deadline=None, max_examples=200)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=25),
       st.sampled_from([0.9, 0.95, 0.99]))
def test_the_verdict_and_its_interval_agree_exactly(values, level):
    # the order-statistic interval of the untied differences excludes 0 exactly when the sign test rejects
    r = typical_claim(np.array(values, dtype=float), level)
    decided = r.p <= 1 - level
    assert decided == (r.ci[0] > 0 or r.ci[1] < 0)


def test_the_median_interval_covers_on_discrete_data():
    rng = np.random.default_rng(7)
    values = np.array([-1.0, 0.0, 0.0, 1.0, 2.0])          # median 0, many ties
    hits = sum(lo <= 0 <= hi for lo, hi in (median_interval(rng.choice(values, 10)) for _ in range(400)))
    assert hits / 400 >= 0.95 - 0.02


def test_order_rank_is_the_binomial_quantile():
    assert order_rank(10, 0.025) == 2       # P(K <= 1) = 11/1024 <= .025 < P(K <= 2) = 56/1024
    assert order_rank(5, 0.025) == 0        # 1/32 > .025: no two-sided 95% bound at 5 seeds
    assert order_rank(5, 0.05) == 1         # one-sided: 1/32 <= .05
    assert median_interval([1, 2, 3, 4, 5]) == (-math.inf, math.inf)


def test_clopper_pearson_matches_scipy():
    for k, n in [(0, 5), (3, 10), (10, 10), (7, 20)]:
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert clopper_pearson(k, n) == pytest.approx((ci.low, ci.high))


def test_power_figures_are_the_tests_own():
    assert critical_wins(10, 0.05) == 9          # 9 of 10: p = 22/1024 = .021; 8 of 10: .109
    assert critical_wins(5, 0.05) is None
    share = detectable_share(10, 0.05)
    assert sign_power(10, share, 0.05) == pytest.approx(0.8, abs=1e-6)
    n = seeds_to_decide(0.8, 0.05)
    assert sign_power(n, 0.8, 0.05) >= 0.8 > sign_power(n - 1, 0.8, 0.05)
    assert detectable_share(5, 0.05) is None and seeds_to_decide(0.5, 0.05) is None


def test_identical_arms_pass_a_margin_at_ten_seeds_and_a_seed_at_the_margin_counts_against():
    b = margin_sign_bounds(np.zeros(10), 0.1, 0.05)
    assert b.lower == 0.0 > -0.1 and b.p_pass == pytest.approx(1 / 1024)
    assert margin_sign_bounds(np.zeros(4), 0.1, 0.05).lower == -math.inf     # 1/16 > .05
    at = margin_sign_bounds(np.array([-0.1] * 6 + [0.0] * 4), 0.1, 0.05)
    assert at.above == 4 and at.below == 0 and at.lower == pytest.approx(-0.1) and at.p_pass > 0.05
    worse = margin_sign_bounds(np.full(10, -0.3), 0.1, 0.05)
    assert worse.upper == pytest.approx(-0.3) and worse.p_fail == pytest.approx(1 / 1024)


def test_margin_bounds_are_dual_to_their_tests():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(3, 25))
        d = np.round(rng.normal(0, 0.2, n), 1)
        b = margin_sign_bounds(d, 0.1, 0.05)
        assert (b.lower > -0.1) == (b.p_pass <= 0.05)
        assert (b.upper < -0.1) == (b.p_fail <= 0.05)


def test_margin_seeds_to_decide_is_exact():
    n = margin_seeds_to_decide(0.9, 0.05)
    k = order_rank(n, 0.05)
    assert stats.binom.sf(n - k, n, 0.9) >= 0.8


def test_the_binomial_and_beta_helpers_equal_scipy_stats():
    """typical_seed uses scipy.special (scipy.stats costs ~1 s of start-up per compare); same values, ends too."""
    from scipy import stats as sps

    from baselines.analysis.statistics import typical_seed as ts

    for n in (0, 1, 5, 17, 40):
        ks = np.arange(-2, n + 3)
        for p in (0.0, 1e-9, 0.3, 0.5, 0.999, 1.0):
            assert np.allclose(ts._binom_cdf(ks, n, p), sps.binom.cdf(ks, n, p), rtol=1e-12, atol=1e-15)
            assert np.allclose(ts._binom_sf(ks, n, p), sps.binom.sf(ks, n, p), rtol=1e-12, atol=1e-15)
        assert isinstance(ts._binom_sf(1, n, 0.5), float)
    for s, n, q in ((1, 10, 0.025), (7, 10, 0.975), (19, 20, 0.5)):
        assert ts._beta_ppf(q, s, n - s + 1) == pytest.approx(sps.beta.ppf(q, s, n - s + 1), rel=1e-12)


@pytest.mark.slow
@pytest.mark.process
def test_a_compare_does_not_import_scipy_stats(tmp_path):
    import subprocess
    import sys

    from baselines import RunRecord, write_records

    path = tmp_path / "r.jsonl"
    write_records(path, [RunRecord("w", a, s, {"tokens": 100}, 0.5 + 0.01 * s + (a == "b") * 0.1,
                                   budget={"tokens": 100}) for a in "ab" for s in range(10)])
    code = ("import sys, io, contextlib\nfrom baselines.cli import main\n"
            f"with contextlib.redirect_stdout(io.StringIO()): main(['compare', {str(path)!r}, '--json'])\n"
            "print('scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "False", done.stdout + done.stderr
