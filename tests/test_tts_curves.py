"""One-pool budget curves: the walk equals a plain loop, its mean over all orderings equals majority@n
with a uniform tie-break, pass@n is exact, the adaptive curve is the arm's rule, and the band is paired."""
from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest

from arms.replay_tts import AdaptiveMajority
from baselines.core.meter import Meter
from baselines.analysis.curves.tts_curves import (Curve, adaptive_curve, compare_curves, crossovers, majority_curve, orderings,
                                  pass_at_n, pool_curves, walk)
from benchmarks.bench_replay import plain_loop
from benchmarks.replay_synthetic import write_synthetic
from workloads.replay import Replay


def pool_arrays(rows: list[list[int]], gold: list[int], tokens: list[list[int]] | None = None):
    width = max(len(r) for r in rows)
    codes = np.full((len(rows), width), -1, dtype=np.int32)
    toks = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        codes[i, :len(r)] = r
        toks[i, :len(r)] = tokens[i] if tokens else [10 + j for j in range(len(r))]
    return codes, toks, np.array([len(r) for r in rows]), np.array(gold, dtype=np.int32)


def test_the_walk_equals_a_plain_loop_on_a_synthetic_pool(tmp_path):
    write_synthetic(tmp_path / "s_m.jsonl", problems=40, samples=30, seed=3)
    pools = Replay(benchmark="s", folder=str(tmp_path)).pools
    pool = pools.pools["m"]
    order = orderings(pool.sizes, pool.codes.shape[1], 16, seed=1)
    fast = walk(pool.codes, pool.tokens, pool.sizes, pools.gold_codes, order, chunk=3000)  # several batches
    assert np.array_equal(fast.correct, plain_loop(pool.codes, pools.gold_codes, order))


def brute_majority(row: list[int], gold: int, n: int) -> float:
    """Expected majority@n over every n-subset, ties broken uniformly; non-voting codes (< 0) abstain."""
    total = 0.0
    subsets = list(combinations(row, n))
    for subset in subsets:
        votes = Counter(c for c in subset if c >= 0)
        if votes:
            top = max(votes.values())
            tied = [c for c, v in votes.items() if v == top]
            total += (gold in tied) / len(tied)
    return total / len(subsets)


def test_over_every_ordering_the_walk_is_majority_at_n_with_a_uniform_tie_break():
    rows = [[0, 1, 1, 0, 2], [0, -1, 1, 2, 2], [3, 3, -1, 1, 0]]
    gold = [0, 2, 0]
    codes, tokens, sizes, gold_codes = pool_arrays(rows, gold)
    every = np.array(list(permutations(range(5))))
    order = np.broadcast_to(every, (3,) + every.shape).copy()
    curve = majority_curve(walk(codes, tokens, sizes, gold_codes, order), tokens)
    for p, row in enumerate(rows):
        for n in range(1, 6):
            assert curve.per_problem[p, n - 1] == pytest.approx(brute_majority(row, gold[p], n))
        assert curve.per_problem_tokens[p, 2] == pytest.approx(3 * np.mean(tokens[p]))


def test_pass_at_n_is_exact_and_stops_at_the_pools_end():
    rows = [[0, 1, 1, 2], [1, 1, 0], [2, 2, 2, 2]]
    codes, tokens, sizes, gold = pool_arrays(rows, [0, 0, 0])
    curve = pass_at_n(codes, tokens, sizes, gold)
    for p, row in enumerate(rows):
        for n in range(1, 5):
            m = min(n, len(row))
            expected = np.mean([0 in s for s in combinations(row, m)])
            assert curve.per_problem[p, n - 1] == pytest.approx(expected)
    assert curve.per_problem[1, 0] == pytest.approx(1 - comb(2, 1) / comb(3, 1))


def test_the_adaptive_curve_is_the_arms_rule(tmp_path):
    rows = [[0, 0, 0, 0, 1], [0, 1, 0, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 0]]
    import json
    with open(tmp_path / "b_m.jsonl", "w") as f:
        for i, r in enumerate(rows):
            f.write(json.dumps({"id": f"p{i}", "gold": "0", "samples": [{"answer": str(c), "tokens": 10 + j}
                                                                       for j, c in enumerate(r)]}) + "\n")
    workload = Replay(benchmark="b", folder=str(tmp_path), order="generation")
    pools = workload.pools
    pool = pools.pools["m"]
    order = np.broadcast_to(np.arange(pool.codes.shape[1]), (3, 1, pool.codes.shape[1])).copy()
    order[0, 0, 5:] = [5, 6, 7]   # padding stays after the pool
    walks = walk(pool.codes, pool.tokens, pool.sizes, pools.gold_codes, order)
    for confidence in (0.8, 0.95):
        curve = adaptive_curve(walks, (confidence,), min_samples=2)
        instance, meter = workload.instance(0), Meter(None, measures=("calls", "completion_tokens"))
        out = AdaptiveMajority(confidence=confidence, min_samples=2).run(instance, meter, np.random.default_rng(0))
        assert meter.spend()["calls"] == pytest.approx(curve.per_problem_samples[:, 0].sum())
        assert meter.spend()["completion_tokens"] == pytest.approx(curve.per_problem_tokens[:, 0].sum())
        assert workload.score(instance, out.choice).reward == pytest.approx(curve.accuracy[0])


def test_a_curve_against_itself_differs_by_nothing_and_the_band_is_paired(tmp_path):
    write_synthetic(tmp_path / "s_m.jsonl", problems=60, samples=20, seed=5)
    pools = Replay(benchmark="s", folder=str(tmp_path)).pools
    pool = pools.pools["m"]
    curves = pool_curves(pool.codes, pool.tokens, pool.sizes, pools.gold_codes, draws=16)
    same = compare_curves(curves["majority"], curves["majority"], resamples=200)
    assert np.allclose(same.difference, 0) and np.allclose(same.low, 0) and np.allclose(same.high, 0)
    assert same.crossovers == ()
    oracle = compare_curves(curves["oracle"], curves["majority"], resamples=200)
    assert (oracle.difference >= -1e-12).all() and (oracle.low <= oracle.difference + 1e-12).all()


def test_crossovers_are_where_the_sign_changes():
    grid = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    assert crossovers(grid, np.array([-1.0, -0.5, 0.5, 0.0, 1.0])) == (1.5,)
    shifted = Curve("a", np.array([[0.2, 0.9]]), np.array([[1.0, 3.0]]), np.ones((1, 2)), (1, 2))
    steady = Curve("b", np.array([[0.5, 0.5]]), np.array([[1.0, 3.0]]), np.ones((1, 2)), (1, 2))
    d = compare_curves(shifted, steady, points=201, resamples=10)
    assert d.crossovers == pytest.approx((1.0 + 2 * 0.3 / 0.7,), abs=1e-6)


def test_the_figure_is_written(tmp_path):
    from reports.budget_curves import write_budget_curves

    write_synthetic(tmp_path / "s_m.jsonl", problems=30, samples=12, seed=2)
    pools = Replay(benchmark="s", folder=str(tmp_path)).pools
    pool = pools.pools["m"]
    curves = pool_curves(pool.codes, pool.tokens, pool.sizes, pools.gold_codes, draws=8)
    d = compare_curves(curves["adaptive"], curves["majority"], resamples=50)
    paths = write_budget_curves([curves["majority"], curves["adaptive"]], tmp_path / "figs", curves["oracle"], d)
    assert sorted(p.suffix for p in paths) == [".png", ".svg"] and all(p.stat().st_size > 1000 for p in paths)


def test_the_curves_verb_prints_the_table_and_writes_figures(tmp_path, capsys):
    from baselines.cli import main

    assert main(["curves", "--models", "gpt-oss-20b,Qwen3-4B", "--draws", "8", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "gpt-oss-20b" in out and "Qwen3-4B" in out and "Best-of-1" in out
    assert "gpt-oss-20b:adaptive - gpt-oss-20b:majority" in out
    assert "gpt-oss-20b:majority - Qwen3-4B:majority" in out
    assert len(list(tmp_path.glob("budget-curves-*.png"))) == 2
    assert main(["curves", "--compare", "gpt-oss-20b:best"]) == 2
    assert "--compare" in capsys.readouterr().err


def test_sign_changes_are_printed_one_per_crossing_with_their_unit():
    """"Sign changes at: 116,486, 170,663" read as one number, or four; each crossing ends in its unit."""
    from types import SimpleNamespace
    from baselines.cli.curves import _difference_text
    d = SimpleNamespace(a="x", b="y", level=0.95, tokens=np.array([1e3, 2e5]), difference=np.zeros(2),
                        low=np.zeros(2), high=np.zeros(2), crossovers=(116486.0, 170663.0))
    assert "Sign changes at: 116,486 tokens; 170,663 tokens." in _difference_text(d)
