"""sign_flip.py's row machinery after issue 38's memory work (issue 44: 18 survivors of the uncached run at 8cad04c).

Three things the older tests did not reach:
- `_three_valued(d)` without the caller's |d| (the optional argument's documented default), against the rule
  restated value by value in plain Python;
- long rows (n > MONTE_CARLO_MAX_N) that do *not* all go to the normal limit: McNemar rows and heavy rows among
  them, and more rows than columns, each p against its own reference (scipy's normal tail by hand, binomial
  sums, a Monte Carlo recount from numpy's documented stream);
- issue 38's peak-memory promise ("one temporary the size of d, not three"; "every row: d itself, not a copy"),
  measured with tracemalloc (numpy reports its buffers to it): deterministic, no clock.
"""
from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from scipy import stats as sps

from baselines.analysis.statistics import sign_flip as sf


def three_valued_rule(row) -> bool:
    """The documented rule, one value at a time: every value above 1e-9 of the largest magnitude lies within
    1e-9 of the largest magnitude of it (values at or below 1e-9 of it count as zeros)."""
    top = max(abs(float(v)) for v in row)
    limit = 1e-9 * top
    return all(abs(float(v)) <= limit or abs(abs(float(v)) - top) <= limit for v in row)


def mcnemar(pos: int, neg: int) -> float:
    k, top = pos + neg, max(pos, neg)
    if k == 0 or pos == neg:
        return 1.0
    return min(1.0, 2 * sum(math.comb(k, j) for j in range(top, k + 1)) / 2 ** k)


def normal_limit(row) -> float:
    """Two-sided normal tail of the sign-flip sum: variance sum d^2 (by hand, with scipy's normal)."""
    row = np.asarray(row, dtype=float)
    return float(2 * sps.norm.sf(abs(row.sum()) / math.sqrt(float(np.dot(row, row)))))


def monte_carlo(row, seed: int, draws: int) -> float:
    """(hits + 1) / (draws + 1) over numpy's int8 {0, 1} stream mapped to -1/+1 (the documented draws)."""
    signs = np.random.default_rng(seed).integers(0, 2, size=(draws, row.size), dtype=np.int8) * 2 - 1
    sums = np.abs(signs.astype(float) @ row)
    hits = np.count_nonzero(sums >= abs(row.sum()) - 1e-9 * np.abs(row).sum())
    return (hits + 1) / (draws + 1)


def heavy_ratio(row) -> float:
    return float(np.mean(np.abs(row) ** 3) / np.mean(row ** 2) ** 1.5)


def test_three_valued_without_the_callers_magnitudes_follows_the_rule_and_leaves_d_alone():
    rng = np.random.default_rng(11)
    d = np.array([
        [1.0, -1.0, 0.0, 1.0, 1.0, 0.0],
        [0.25, 0.25, -0.25, 0.0, 0.25, -0.25],
        [1.0, -1.0, 2.0, 1.0, 0.0, 1.0],                       # two magnitudes
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],                        # no discordant pair: three-valued
        [3.0, 3.0 * (1 + 5e-10), -3.0, 3e-9, 0.0, 3.0],       # within 1e-9 of 3; 3e-9 is a zero
        [3.0, 3.0 * (1 + 5e-9), -3.0, 0.0, 0.0, 3.0],         # 5e-9 off: a second magnitude
        [1.0, 2e-9, -1.0, 1.0, 1.0, 1.0],                      # 2e-9 of the top: neither zero nor the top
        rng.normal(0, 1, 6),
        rng.choice([-7.5, 0.0, 7.5], 6),
    ])
    want = [three_valued_rule(r) for r in d]
    assert want == [True, True, False, True, True, False, False, False, True]
    before = d.copy()
    assert sf._three_valued(d).tolist() == want                # magnitudes omitted: |d| of its own
    assert np.array_equal(d, before)                           # and d itself is not overwritten
    assert sf._three_valued(d, np.abs(d)).tolist() == want


def test_long_rows_among_mcnemar_and_heavy_rows_each_get_their_own_p(monkeypatch):
    monkeypatch.setattr(sf, "MONTE_CARLO_WORK", 2e6)           # 2000 draws for a heavy long row: cheap
    n = sf.MONTE_CARLO_MAX_N + 1
    rng = np.random.default_rng(12)
    binary = rng.choice([-1.0, 0.0, 1.0], n, p=[0.3, 0.3, 0.4])
    light_a, light_b = rng.normal(0.06, 1, n), rng.normal(-0.03, 2, n)
    heavy = rng.normal(0, 1, n)
    heavy[:3] = [70.0, -50.0, 90.0]
    assert heavy_ratio(heavy) > sf.HEAVY_TAIL_RATIO > max(heavy_ratio(light_a), heavy_ratio(light_b))
    pos, neg = int((binary > 0).sum()), int((binary < 0).sum())
    want = {"binary": (mcnemar(pos, neg), "exact McNemar"),
            "light_a": (normal_limit(light_a), "normal-limit"), "light_b": (normal_limit(light_b), "normal-limit"),
            "heavy": (monte_carlo(heavy, 4, 2000), "monte-carlo")}
    rows = {"binary": binary, "light_a": light_a, "light_b": light_b, "heavy": heavy}
    for order in (["binary", "light_a", "light_b"],             # some rows left for the normal limit, all light
                  ["light_a", "binary", "heavy", "light_b"],    # some left, light and heavy
                  ["heavy", "light_b"],                         # every row left, one heavy
                  ["light_b", "light_a"]):                      # every row left and light
        p, methods = sf.sign_flip_rows(np.vstack([rows[k] for k in order]), seed=4)
        assert methods == [want[k][1] for k in order], order
        assert p.tolist() == pytest.approx([want[k][0] for k in order], rel=1e-9, abs=0), order


def test_more_long_rows_than_columns():
    # 1002 rows of n = 1001: one McNemar row, so 1001 = n rows go to the normal limit (rows and columns told apart)
    n = sf.MONTE_CARLO_MAX_N + 1
    rng = np.random.default_rng(13)
    d = rng.normal(0.05, 1, (n + 1, n))
    d[1] = rng.choice([-2.0, 0.0, 2.0], n)
    p, methods = sf.sign_flip_rows(d)
    assert methods[1] == "exact McNemar"
    assert p[1] == pytest.approx(mcnemar(int((d[1] > 0).sum()), int((d[1] < 0).sum())), rel=1e-12)
    light = [r for r in range(n + 1) if r != 1]
    assert [methods[r] for r in light] == ["normal-limit"] * n
    want = 2 * sps.norm.sf(np.abs(d[light].sum(axis=1)) / np.sqrt((d[light] ** 2).sum(axis=1)))
    assert p[light] == pytest.approx(want, rel=1e-9, abs=0)
    assert [normal_limit(d[r]) for r in (0, 500, n)] == pytest.approx([p[0], p[500], p[n]], rel=1e-9, abs=0)


def traced_peak(f, *args) -> tuple[object, int]:
    """f(*args) and the most memory it held at once beyond what was held before (tracemalloc: numpy's buffers too)."""
    was = tracemalloc.is_tracing()
    if not was:
        tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = f(*args)
        return out, tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was:
            tracemalloc.stop()


def test_mcnemar_rows_hold_one_copy_of_d_at_most(monkeypatch):
    # issue 38: |d| is made once, by sign_flip_rows, and _three_valued works in it (measured: 1.375 x d.nbytes,
    # |d| plus three boolean masks); a second float copy of d (a fresh |d| or |d - top|) makes it 2.375 x
    d = np.random.default_rng(14).choice([-1.0, 0.0, 1.0], (20, 50_000), p=[3e-4, 0.9995, 2e-4])   # ~25 discordant
    (p, methods), peak = traced_peak(sf.sign_flip_rows, d)
    assert methods == ["exact McNemar"] * 20
    assert p[3] == pytest.approx(mcnemar(int((d[3] > 0).sum()), int((d[3] < 0).sum())), rel=1e-12)
    assert d.nbytes <= peak < 1.75 * d.nbytes, peak / d.nbytes


def test_long_light_rows_use_d_itself_not_a_copy(monkeypatch):
    # issue 38: when every row goes to the normal limit the tail ratio reads d itself (measured: 2.0 x d.nbytes,
    # d * d and |d| in _heavy_tailed); d[rest], a copy of every row, makes it 3.0 x
    d = np.random.default_rng(15).normal(0.01, 1, (8, 125_000))
    (p, methods), peak = traced_peak(sf.sign_flip_rows, d)
    assert methods == ["normal-limit"] * 8
    assert p[5] == pytest.approx(normal_limit(d[5]), rel=1e-9)
    assert 1.5 * d.nbytes <= peak < 2.5 * d.nbytes, peak / d.nbytes
