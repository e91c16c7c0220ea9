"""`_GroupSplit` (analysis/compare/comparing.py): rows already in (group, arm, seed) order are split without a
sort or a copy of any column, and its segment bounds are those of the combined (group, arm) key (issue 38)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from baselines.analysis.compare.comparing import _GroupSplit, _in_order
from baselines.analysis.tables.columns import run_bounds, sorted_codes


def _frame(workloads, budgets, arms, seeds) -> pd.DataFrame:
    return pd.DataFrame({"workload": pd.Categorical(workloads), "budget": pd.Categorical(budgets),
                         "arm": pd.Categorical(arms), "seed": np.asarray(seeds, dtype=np.int64),
                         "reward": np.linspace(0, 1, len(seeds))})


def test_seeds_spanning_the_int64_range_in_order_need_no_sort():
    """A difference of such seeds overflows: the old subtracting check called them out of order and sorted."""
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    frame = _frame(["w"] * 4, ["b"] * 4, ["a", "a", "b", "b"], [lo, hi, lo, hi])
    split = _GroupSplit(frame)
    assert split.order is None
    assert split.whole("seed") is not None and np.shares_memory(split.whole("seed"), frame["seed"].to_numpy())


@pytest.mark.parametrize("seed", range(20))
def test_in_order_and_segments_agree_with_the_combined_key(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    w = rng.choice(["w1", "w2"], n)
    b = rng.choice(["x", "y", "z"], n)
    a = rng.choice(["arm-b", "arm-a", "arm-c"], n)
    s = rng.integers(0, 5, n)
    if seed % 2:   # in order half the time
        keys = sorted(set(zip(w, b, a, s.tolist())))
        w, b, a, s = (np.array(c) for c in zip(*keys))
    frame = _frame(w, b, a, s)
    split = _GroupSplit(frame)
    group = frame["workload"].cat.codes.to_numpy().astype(np.int64) * split.n_budgets + \
        frame["budget"].cat.codes.to_numpy()
    _, rank = sorted_codes(frame["arm"])
    seeds = frame["seed"].to_numpy()
    triples = list(zip(group.tolist(), rank.tolist(), seeds.tolist()))
    assert _in_order(group, rank, seeds) == all(x < y for x, y in zip(triples, triples[1:]))
    combined = split.sorted_group * (len(split.arm_names) + 1) + split.arm_rank
    assert split.segments.tolist() == run_bounds(combined).tolist()
