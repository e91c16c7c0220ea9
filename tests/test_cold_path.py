"""The first `compare` of a large file holds less (issue 38, "peak <= 1.5x the file"): narrow per-row codes, the
score matrices as read-only views of the reward column, counts without cumulative-sum temporaries, and the same
numbers as before."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from baselines.analysis.compare.comparing import _group_codes, _GroupSplit, compare
from baselines.analysis.tables.columns import arm_sums, run_bounds, sorted_codes
from baselines.analysis.tables.table import RunTable
from baselines.core.records import RunRecord, record_from_json


def _frame(workloads, budgets, arms, seeds) -> pd.DataFrame:
    return pd.DataFrame({"workload": pd.Categorical(workloads), "budget": pd.Categorical(budgets),
                         "arm": pd.Categorical(arms), "seed": np.asarray(seeds, dtype=np.int64),
                         "reward": np.linspace(0, 1, len(seeds))})


@pytest.mark.parametrize("n_workloads,n_budgets", [(1, 1), (11, 11), (12, 11), (127, 1), (128, 1), (200, 200),
                                                   (182, 181)])
def test_group_codes_are_the_int64_codes_in_a_narrow_type(n_workloads, n_budgets):
    rng = np.random.default_rng(n_workloads * 1000 + n_budgets)
    w = rng.integers(0, n_workloads, 500).astype(np.int8 if n_workloads <= 127 else np.int16)
    b = rng.integers(0, n_budgets, 500).astype(np.int8 if n_budgets <= 127 else np.int16)
    w[:2], b[:2] = n_workloads - 1, n_budgets - 1          # the largest code is present
    group = _group_codes(w, b, n_workloads, n_budgets)
    assert group.tolist() == (w.astype(np.int64) * n_budgets + b).tolist()
    assert group.dtype.itemsize <= 4


@pytest.mark.parametrize("arms", [1, 3, 127, 128, 129, 300])
def test_arm_ranks_are_sorted_codes(arms):
    """Each row's rank is its arm's place among the sorted names, in a type as narrow as the arms allow."""
    rng = np.random.default_rng(arms)
    names = [f"arm-{i:04d}" for i in rng.permutation(arms)]
    rows = rng.choice(names, 2000).tolist() + names
    mine, rank = sorted_codes(pd.Series(pd.Categorical(rows)))
    theirs = sorted(names)
    assert mine == theirs and rank.tolist() == [theirs.index(r) for r in rows]
    assert rank.dtype.itemsize == (1 if arms <= 127 else 2)


def test_segments_with_many_groups_and_arms_in_narrow_codes():
    """Over 127 groups and arms (int16 codes): the segments are those of the int64 combined key."""
    rows = [(f"w{w:03d}", "b", f"a{a:03d}", s) for w in range(130) for a in range(3) for s in range(2)]
    rows += [("w000", "b", f"a{a:03d}", 0) for a in range(3, 140)]
    rows.sort()
    frame = _frame(*zip(*rows))
    split = _GroupSplit(frame)
    group = frame["workload"].cat.codes.to_numpy().astype(np.int64) * split.n_budgets + \
        frame["budget"].cat.codes.to_numpy()
    _, rank = sorted_codes(frame["arm"])
    combined = group * (len(split.arm_names) + 1) + rank
    assert split.order is None
    assert split.segments.tolist() == run_bounds(combined).tolist()
    assert split.bounds.tolist() == run_bounds(group).tolist()


def _records(arms: int = 3, seeds: int = 6, workloads: int = 2) -> list[RunRecord]:
    rng = np.random.default_rng(7)
    out = []
    for w in range(workloads):
        for a in range(arms):
            for s in range(seeds):
                out.append(record_from_json({
                    "workload": f"w{w}", "arm": f"arm-{a}", "seed": s, "budget": {"tokens": 1000},
                    "spend": {"tokens": float(1000 - rng.integers(0, 50)), "calls": float(rng.integers(5, 9))},
                    "reward": float(rng.normal(0.5 + 0.1 * a, 0.2))}, "test"))
    return out


def test_score_matrices_are_read_only_views_of_the_reward_column():
    """No private copy of the reward column is held: each score matrix is a view that refuses writes."""
    table = RunTable.from_records(_records())
    comparison = compare(table)
    reward = table.frame["reward"].to_numpy()
    for group in comparison.groups:
        assert np.shares_memory(group.scores, reward)
        assert not group.scores.flags.writeable
        with pytest.raises(ValueError):
            group.scores[0, 0] = 1.0
    assert table.frame["reward"].to_numpy().tolist() == reward.tolist()


def test_the_same_comparison_from_rows_in_order_and_shuffled():
    """The view path (rows in order) and the sorted-copy path (rows shuffled) print the same JSON."""
    records = _records(arms=4, seeds=8, workloads=3)
    shuffled = [records[i] for i in np.random.default_rng(3).permutation(len(records))]
    assert compare(records).to_json() == compare(shuffled).to_json()


@pytest.mark.parametrize("sizes", [[5, 0, 3], [0, 0, 4], [4, 0, 0], [1] * 40, [0], [], [100, 1, 0, 7]])
def test_segment_counts_are_arm_sums(sizes):
    """`arm_sums`' reduceat path (few long segments) and cumulative-sum path count what a loop counts,
    empty segments included."""
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    mask = np.random.default_rng(len(sizes)).random(int(bounds[-1])) < 0.5
    loop = [int(mask[a:z].sum()) for a, z in zip(bounds[:-1].tolist(), bounds[1:].tolist())]
    assert arm_sums(mask, bounds).tolist() == loop


@pytest.mark.parametrize("seed", range(12))
def test_the_group_loop_and_the_row_indices_find_the_same_reshaped_groups(seed, monkeypatch):
    """`_same_seeds` checks large groups one at a time and small ones with row indices: the same answer."""
    from baselines.analysis.compare import screen
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(int(rng.integers(1, 6))):
        arms, seeds = int(rng.integers(1, 4)), rng.choice(10, int(rng.integers(1, 5)), replace=False)
        for a in range(arms):
            own = seeds if rng.random() < 0.7 else rng.choice(10, len(seeds) + int(rng.integers(0, 2)),
                                                              replace=False)
            rows += [(f"w{g}", "b", f"a{a}", int(s)) for s in own]
    frame = _frame(*zip(*sorted(rows)))
    split = _GroupSplit(frame)
    found = []
    for loop_rows in (1, 10 ** 9):
        monkeypatch.setattr(screen, "LOOP_ROWS", loop_rows)
        found.append(screen.screen_groups(split, [{}] * len(split.group_keys), set(), [], {}, {}, 0.1)
                     .reshaped.tolist())
    expected = []
    for a, z in zip(split.bounds[:-1].tolist(), split.bounds[1:].tolist()):
        cols = [split.whole("seed")[x:y].tolist() for x, y in zip(split.segments[:-1].tolist(),
                                                                   split.segments[1:].tolist()) if a <= x < z]
        expected.append(all(c == cols[0] for c in cols))
    assert found[0] == found[1] == expected


def _skewness_by_power(x: np.ndarray) -> np.ndarray:
    """The formula skewness_rows had (c ** 3), kept here as the reference."""
    ok = np.isfinite(x)
    n = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, x, 0.0).sum(axis=1) / n
        c = np.where(ok, x - mean[:, None], 0.0)
        m2 = (c * c).sum(axis=1) / n
        g = ((c ** 3).sum(axis=1) / n) / m2 ** 1.5
    return np.where((n >= 3) & (m2 > 0) & np.isfinite(g), g, 0.0)


@pytest.mark.parametrize("seed", range(30))
def test_skewness_by_products_is_the_power_formula_and_labels_alike(seed):
    from baselines.analysis.statistics.arm_intervals import skewness_rows
    from baselines.analysis.statistics.pair_interval import SKEW_THRESHOLD
    rng = np.random.default_rng(seed)
    x = rng.lognormal(0, rng.uniform(0.1, 2), (int(rng.integers(1, 12)), int(rng.integers(1, 50))))
    x *= 10.0 ** rng.uniform(-6, 6)
    x[rng.random(x.shape) < 0.2 * (seed % 2)] = np.nan
    before = x.copy()
    got, want = skewness_rows(x), _skewness_by_power(x)
    assert np.allclose(got, want, rtol=1e-12, atol=0)
    assert ((np.abs(got) > SKEW_THRESHOLD) == (np.abs(want) > SKEW_THRESHOLD)).all()
    assert np.array_equal(x, before, equal_nan=True)        # the scores are not written


@pytest.mark.parametrize("seed", range(10))
def test_heavy_tails_and_three_values_as_the_formulas_say(seed):
    from baselines.analysis.statistics import sign_flip as sf
    rng = np.random.default_rng(seed)
    d = rng.standard_t(1 + seed % 4, (6, 1500))
    d[0] = rng.choice([-1.0, 0.0, 1.0], 1500)
    m2, m3 = np.mean(d ** 2, axis=1), np.mean(np.abs(d) ** 3, axis=1)
    assert sf._heavy_tailed(d).tolist() == (m3 / m2 ** 1.5 > sf.HEAVY_TAIL_RATIO).tolist()
    a = np.abs(d)
    top = a.max(axis=1)[:, None]
    expected = np.all((a <= sf.TIE_RTOL * top) | (np.abs(a - top) <= sf.TIE_RTOL * top), axis=1)
    before = d.copy()
    assert sf._three_valued(d).tolist() == sf._three_valued(d, np.abs(d)).tolist() == expected.tolist()
    assert np.array_equal(d, before)


@pytest.mark.parametrize("level", [0.05, 0.025, 0.01, 0.1, 0.001, 0.5, 1.0, 0.05 / 3, 0.05 / 99, 0.05 / 4950])
def test_critical_counts_of_every_n_at_once_are_critical_wins(level):
    from baselines.analysis.statistics import typical_seed as ts
    got = ts.critical_wins_upto(2000, level)
    assert got.tolist() == [ts.critical_wins(n, level) or 0 for n in range(1, 2001)]
    assert not got.flags.writeable


@pytest.mark.parametrize("share", [0.5, 0.5001, 0.51, 0.52, 0.55, 0.6, 0.75, 0.95, 0.999, 1.0, 1.2, math.nan])
@pytest.mark.parametrize("level", [0.05, 0.01, 0.05 / 99])
def test_seeds_to_decide_is_the_scan_over_n(share, level):
    from baselines.analysis.statistics import typical_seed as ts
    expected = None
    if math.isfinite(share) and share > 0.5:
        expected = next((n for n in range(1, 2001) if ts.sign_power(n, min(share, 1.0), level) >= ts.POWER), None)
    assert ts.seeds_to_decide(share, level) == expected
    assert ts.seeds_to_decide(share, level, cap=40) == (expected if expected is not None and expected <= 40
                                                        else None)
