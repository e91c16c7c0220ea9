"""critical_wins and order_rank search a window, not every count (issue 38): the same answers as a whole-range scan.

Claim: for every n checked and every level, the windowed search returns exactly what evaluating
the binomial tail at every count returns (the definition). Deterministic, no simulation.
"""
import numpy as np

from baselines.analysis.statistics import typical_seed as ts

LEVELS = (0.05, 0.01, 0.1, 0.05 / 99, 1e-6, 0.5, 1.0, 0.0)
NS = list(range(0, 100)) + [211, 999, 2000, 10000]


def whole_critical(n, level):
    if n < 1:
        return None
    k = np.arange(n + 1)
    lower = ts._binom_cdf(np.minimum(k, n - k), n, 0.5)
    ok = np.flatnonzero((k > n - k) & (2 * lower <= level * (1 + 1e-12)))
    return int(ok[0]) if ok.size else None


def whole_rank(n, tail):
    if n <= 0:
        return 0
    ok = np.flatnonzero(ts._binom_cdf(np.arange(n), n, 0.5) <= tail * (1 + 1e-12))
    return int(ok[-1]) + 1 if ok.size else 0


def test_windowed_searches_equal_the_whole_range():
    for level in LEVELS:
        for n in NS:
            assert ts.critical_wins(n, level) == whole_critical(n, level), (n, level)
            assert ts.order_rank(n, level / 2) == whole_rank(n, level / 2), (n, level)


def test_seeds_to_decide_unchanged_on_known_cases():
    # From the whole-range implementation before the window (same level and power).
    assert ts.seeds_to_decide(0.6, 0.05) == 199
    assert ts.seeds_to_decide(0.51, 0.05) is None
