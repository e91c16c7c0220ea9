"""The cheaper kernels of a million-run compare (issue 38) give the numbers of the ones they replace, bit for bit.

`columns.block_medians` against `np.median(axis=1)` (whole numbers selected
as int32 or counted; -0.0, fractions and values int32 cannot hold left to
np.median), `columns.all_none` against pandas' isna on every layout a column
can have (a frame's strided row, a broadcast constant, reversed and sliced
views), `medians_of` without its thread pool against one `arm_medians` per
column, the screen's drift check from group ends against the row-by-row one,
and `sorted_codes`, `_known_counts`, the one-group split and the group
columns' bounds against what they computed before.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from baselines.analysis.tables.columns import all_none, arm_medians, block_medians, medians_of, nanmedian
from tests.sizes import examples


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal as bits: the sign of a zero and NaN included."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("runs", [1, 2, 3, 10, 11, 257, 1000])
def test_block_medians_are_np_median_bit_for_bit(seed, runs):
    rng = np.random.default_rng(seed)
    rows = 1 + seed % 5
    kinds = [
        rng.integers(0, 5, (rows, runs)).astype(float),                        # few values: ties everywhere
        rng.integers(-3, 3, (rows, runs)).astype(float),                       # negatives and zeros
        np.round(rng.normal(2e5, 4e3, (rows, runs))),                          # tokens
        rng.integers(2**31 - 3, 2**31 + 3, (rows, runs)).astype(float),        # beyond int32 on one side
        -rng.integers(2**31 - 3, 2**31 + 3, (rows, runs)).astype(float),       # and on the other
        np.round(rng.normal(0.5, 0.2, (rows, runs)), 4),                       # fractions (rewards)
        rng.choice([0.0, -0.0, 1.0], (rows, runs)),                            # signed zeros
        rng.choice([0.0, 1.0, np.inf, -np.inf], (rows, runs)),                 # infinities
        rng.integers(0, 3, (rows, runs)).astype(float) * 1e300,                # huge whole numbers
        rng.integers(38, 42, (rows, runs)).astype(float),                      # rollouts: counted
        rng.integers(-2**31 + 1, -2**31 + 9, (rows, runs)).astype(float),      # counted at int32's low end
        rng.integers(2**31 - 9, 2**31 - 1, (rows, runs)).astype(float),        # and at its high end
        np.concatenate((np.full((rows, 1), -2.0**31 + 1), rng.integers(0, 9, (rows, runs - 1))), axis=1)
        if runs > 1 else np.zeros((rows, 1)),                                  # too wide to count: selected
        np.round(rng.uniform(1, 3, (rows, runs)), 3),                          # seconds: decimals, counted
        np.round(rng.normal(0, 50, (rows, runs)), 2),                          # negative decimals
        np.round(rng.normal(0, 1, (rows, runs)), 6),                           # six decimals
        np.round(rng.normal(0, 1, (rows, runs)), 7),                           # seven: np.median
        np.round(rng.normal(2.1e5, 10, (rows, runs)), 4),                      # q near int32's top
        np.round(rng.normal(2.2e5, 10, (rows, runs)), 4),                      # q beyond it: np.median
        rng.choice([0.1, 0.2, 0.30000000000000004, 0.3], (rows, runs)),        # 0.1 + 0.2: no decimal form
    ]
    for block in kinds:
        with np.errstate(invalid="ignore"):   # np.median of inf and -inf: nan, with a warning
            assert _same(block_medians(block), np.median(block, axis=1)), block
            before = block.copy()
            block_medians(block)
        assert _same(block, before)   # the caller's column is never partitioned in place


def test_a_fraction_after_the_sample_or_a_negative_zero_sends_the_block_to_np_median():
    block = np.arange(2000, dtype=float).reshape(2, 1000)
    block[1, 999] = 0.5
    assert _same(block_medians(block), np.median(block, axis=1))
    block = np.round(np.linspace(0, 1, 2000), 2).reshape(2, 1000)
    block[1, 999] = 0.123456789              # more decimals than the sample needed
    assert _same(block_medians(block), np.median(block, axis=1))
    block[1, 999] = np.inf
    assert _same(block_medians(block), np.median(block, axis=1))
    block = np.full((1, 1000), 7.0)
    block[0, 600] = -0.0
    block[0, 500] = 0.0
    assert _same(block_medians(block), np.median(block, axis=1))


def test_block_medians_of_other_types_and_shapes_are_np_median():
    ints = np.arange(12).reshape(3, 4)
    assert _same(block_medians(ints), np.median(ints, axis=1))
    f32 = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert _same(block_medians(f32), np.median(f32, axis=1))
    assert block_medians(np.zeros((0, 5))).shape == (0,)


@settings(deadline=None, max_examples=examples(300))
@given(st.lists(st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.0, -1.0, 0.5, 3e9, -3e9, 2.0**31 - 1, -(2.0**31 - 1)]),
                         min_size=4, max_size=4), min_size=1, max_size=4))
def test_block_medians_hypothesis(rows):
    block = np.array(rows, dtype=float)
    assert _same(block_medians(block), np.median(block, axis=1))


@pytest.mark.parametrize("seed", range(6))
def test_arm_medians_with_nan_and_uneven_arms_are_unchanged(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, 6)
    for bounds in (np.concatenate(([0], np.cumsum(sizes))), np.arange(0, 6 * 30 + 1, 30)):
        column = rng.integers(0, 9, int(bounds[-1])).astype(float)
        column[rng.random(column.size) < 0.2] = np.nan
        column[int(bounds[1]):int(bounds[2])] = np.nan     # one arm reports nothing
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = np.array([np.nanmedian(column[a:z]) for a, z in zip(bounds[:-1], bounds[1:])])
        assert _same(arm_medians(column, bounds), expected)
        assert all(_same(m, expected) for m in medians_of([column, column.copy()], bounds))


def test_nanmedian_without_nan_is_np_median_on_either_axis():
    block = np.arange(12, dtype=float).reshape(3, 4)
    assert _same(nanmedian(block, axis=1), np.median(block, axis=1))
    assert _same(nanmedian(block, axis=0), np.median(block, axis=0))


def _layouts(values: list) -> list[np.ndarray]:
    """The same entries as arrays of every layout: contiguous, a row of a frame's block, reversed, broadcast."""
    column = np.array(values + [None], dtype=object)[:-1]
    frame = pd.DataFrame({"a": column, "b": column[::-1].copy(), "c": [1] * len(values)})
    block = np.empty((len(values), 3), dtype=object)
    block[:, 1] = column
    return [column, frame["a"].to_numpy(), frame["b"].to_numpy()[::-1], block[:, 1], block.T[1],
            column[::-1], column[::2] if len(values) % 2 else column, np.ascontiguousarray(column)]


@pytest.mark.parametrize("values", [[], [None], [None] * 7, [None, "x"], ["x", None, None], [None, float("nan")],
                                    [None] * 5 + [""], [None, 0], [pd.NA, None], [None] * 6 + ["{}"]])
def test_all_none_is_pandas_isna_all_where_every_entry_is_none(values):
    for layout in _layouts(values):
        expected = all(v is None for v in layout.tolist())
        assert all_none(layout) is expected
        if expected:
            assert bool(pd.isna(layout).all())


def test_all_none_of_a_broadcast_constant_reads_one_entry():
    assert all_none(np.broadcast_to(np.array([None], dtype=object), (10**6,)))
    assert not all_none(np.broadcast_to(np.array(["x"], dtype=object), (10**6,)))
    grid = np.broadcast_to(np.array([[None], ["x"]], dtype=object), (2, 5))
    assert not all_none(grid) and all_none(grid[0]) and not all_none(grid[1])


def test_all_none_of_numbers_is_false():
    assert not all_none(np.zeros(3)) and not all_none(np.array([np.nan]))


def _rowwise_near(values, bounds, reference, tolerance):
    """The screen's drift check as it read before: a drift per row against its group's reference."""
    from baselines.analysis.compare.screen import _near_or_beyond, _relative
    from baselines.analysis.tables.columns import arm_sums
    rel = _relative(values, np.repeat(reference, np.diff(bounds)).astype(float))
    return arm_sums(_near_or_beyond(rel, tolerance), bounds) > 0


@pytest.mark.parametrize("seed", range(40))
def test_the_drift_screen_from_group_ends_is_the_row_by_row_one(seed):
    from baselines.analysis.compare.screen import _any_near_or_beyond
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, int(rng.integers(1, 12)))
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    reference = rng.choice([0.0, 100.0, 1e-300, 1000.0, np.nan, np.inf], sizes.size)
    values = np.where(rng.random(int(bounds[-1])) < 0.5, 100.0, rng.normal(100, 20, int(bounds[-1])))
    values[rng.random(values.size) < 0.03] = np.nan
    values[rng.random(values.size) < 0.05] = 0.0
    values[rng.random(values.size) < 0.02] = np.inf
    for tolerance in (0.1, 0.0, -1.0, 0.2 * (1 + 1e-9), 1e-12):
        with np.errstate(invalid="ignore"):
            assert np.array_equal(_any_near_or_beyond(values, bounds, reference.copy(), tolerance),
                                  _rowwise_near(values, bounds, reference, tolerance))
    # rows exactly at the tolerance's edge, and at MARGIN from it
    edge = np.array([110.0, 90.0, 100.0, 110.00000001, 109.9999999])
    for k in range(edge.size):
        v = edge[:k + 1]
        b = np.array([0, v.size])
        assert np.array_equal(_any_near_or_beyond(v, b, np.array([100.0]), 0.1),
                              _rowwise_near(v, b, np.array([100.0]), 0.1))


def test_distinct_part_of_a_broadcast_column_is_one_entry():
    from baselines.analysis.tables.columns import distinct_part
    column = np.broadcast_to(np.array([np.nan]), (10**6,))
    assert distinct_part(column).shape == (1,)
    plain = np.arange(5.0)
    assert distinct_part(plain) is not None and np.array_equal(distinct_part(plain), plain)


@pytest.mark.parametrize("kind", ["complete", "empty", "broadcast nan", "broadcast value", "mixed"])
def test_known_counts_are_the_counts_of_the_mask(kind):
    from baselines.analysis.compare.comparing import _known_counts
    from baselines.analysis.tables.columns import arm_sums
    bounds = np.array([0, 3, 3 + 4, 3 + 4 + 5], dtype=np.int64)
    runs = np.diff(bounds)
    values = {"complete": np.arange(12.0), "empty": np.full(12, np.nan),
              "broadcast nan": np.broadcast_to(np.array([np.nan]), (12,)),
              "broadcast value": np.broadcast_to(np.array([2.0]), (12,)),
              "mixed": np.where(np.arange(12) % 4 == 0, np.nan, 1.0)}[kind]
    known, counts = _known_counts(values, bounds, runs)
    truth = ~np.isnan(values)
    assert np.array_equal(counts, arm_sums(truth, bounds)) and counts.dtype == np.int64
    assert (known is None and truth.all()) or np.array_equal(known, truth)


def _sorted_codes_before(column: pd.Series):
    """`sorted_codes` as it read before the bincount and the identity shortcut."""
    from baselines.analysis.tables.columns import small_int
    codes = column.cat.codes.to_numpy()
    used = np.unique(codes)
    names = np.asarray(column.cat.categories.astype(str))[used]
    order = np.argsort(names, kind="stable")
    rank = np.empty(int(codes.max()) + 1 if codes.size else 0, dtype=small_int(len(used)))
    rank[used[order]] = np.arange(len(used))
    return [str(n) for n in names[order]], rank[codes]


@pytest.mark.parametrize("case", ["sorted all used", "unsorted", "unused category", "empty", "many", "nan",
                                  "single"])
def test_sorted_codes_are_as_before(case):
    from baselines.analysis.tables.columns import sorted_codes
    rng = np.random.default_rng(len(case))
    names = [f"arm-{i:03d}" for i in range(300 if case == "many" else 5)]
    values = list(rng.choice(names, 200))
    categories = sorted(set(values))
    if case == "unsorted":
        categories = categories[::-1]
    if case == "unused category":
        categories = categories + ["zzz", "aaa"]
    if case == "empty":
        values = []
    if case == "nan":
        values[3] = None
    if case == "single":
        values, categories = ["b"] * 7, ["b"]
    column = pd.Series(pd.Categorical(values, categories=categories if case != "nan" else None))
    got_names, got_rank = sorted_codes(column)
    want_names, want_rank = _sorted_codes_before(column)
    assert got_names == want_names
    assert got_rank.dtype == want_rank.dtype and np.array_equal(got_rank, want_rank)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(3, 7), (100, 1001), (25, 10010), (2, 1)])
def test_mean_of_a_complete_matrix_is_nanmean(order, shape):
    """pair_group's best arm by mean: np.mean where no score is missing, as np.nanmean computes it."""
    rng = np.random.default_rng(shape[1])
    matrix = np.asarray(np.round(rng.lognormal(0, 2, shape), 3), order=order)
    assert _same(matrix.mean(axis=1), np.nanmean(matrix, axis=1))
    view = np.round(rng.normal(0, 1, shape[0] * shape[1]), 4).reshape(shape)
    view.flags.writeable = False
    assert _same(view.mean(axis=1), np.nanmean(view, axis=1))


@pytest.mark.parametrize("runs", [1000, 1001])
def test_counted_ranks_are_the_sorted_rows_ranks(runs):
    from baselines.analysis.tables.columns import _counted_ranks
    rng = np.random.default_rng(runs)
    ints = rng.integers(-3, 40, (7, runs)).astype(np.int32)
    ranks = (0, runs // 2 - 1, runs // 2, runs - 1)
    ordered = np.sort(ints, axis=1)
    got = _counted_ranks(ints.copy(), *ranks)
    assert got is not None
    for rank, values in zip(ranks, got):
        assert np.array_equal(values, ordered[:, rank])
    assert _counted_ranks(rng.integers(0, 10**6, (7, runs)).astype(np.int32), 0) is None   # wide: selected


@pytest.mark.parametrize("seed", range(25))
def test_one_group_splits_as_any_other(seed):
    """The split of one (workload, budget) group skips its key's comparisons: the same order and bounds."""
    from baselines.analysis.compare.comparing import _change_bounds, _in_order
    from baselines.analysis.tables.columns import run_bounds
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    group = np.full(n, int(rng.integers(0, 5)), dtype=np.int8)
    arm = np.sort(rng.integers(0, 4, n)).astype(np.int8) if seed % 2 else rng.integers(0, 4, n).astype(np.int8)
    seeds = rng.integers(0, 5, n) if seed % 3 else np.arange(n)
    assert _in_order(group, arm, seeds, True) == _in_order(group, arm, seeds)
    assert np.array_equal(_change_bounds(group, arm, True), _change_bounds(group, arm))
    assert np.array_equal(np.array([0, n]), run_bounds(group))


@pytest.mark.parametrize("seed", range(10))
def test_group_columns_bounds_are_the_run_bounds_of_their_arms(seed):
    from baselines.analysis.compare.comparing import _GroupSplit
    from baselines.analysis.tables.columns import run_bounds
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    frame = pd.DataFrame({"workload": pd.Categorical(rng.choice(["w1", "w2", "w3"], n)),
                          "budget": pd.Categorical(rng.choice(['{"calls":1}', '{"calls":2}'], n)),
                          "arm": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
                          "seed": rng.permutation(n).astype(np.int64), "reward": rng.random(n)})
    if seed % 2:
        frame = frame.sort_values(["workload", "budget", "arm", "seed"], kind="stable").reset_index(drop=True)
    split = _GroupSplit(frame)
    for workload, bkey in split.keys:
        cols = split.columns(workload, bkey)
        ranks = split.arm_rank[cols.a:cols.z]
        assert np.array_equal(cols.bounds, run_bounds(ranks)) and cols.bounds.dtype == np.int64
        assert cols.arms == [split.arm_names[int(ranks[i])] for i in run_bounds(ranks)[:-1]]
        expected = np.arange(cols.a, cols.z) if split.order is None else split.order[cols.a:cols.z]
        assert np.array_equal(cols.rows, expected)


@settings(deadline=None, max_examples=examples(300))
@given(st.integers(1, 6), st.lists(st.integers(-10**6, 10**6), min_size=6, max_size=40), st.integers(1, 3))
def test_decimal_ints_hypothesis(decimals, numbers, rows):
    """Values of a few decimals (as JSON gives them: the double nearest each decimal) and their medians."""
    from baselines.analysis.tables.columns import _decimal_ints
    values = np.array([float(f"{n / 10**decimals:.{decimals}f}") for n in numbers])
    block = np.resize(values, (rows, len(numbers)))
    q, scale = _decimal_ints(block)
    if q is not None:
        assert (q / scale == block).all()
        assert np.array_equal(np.argsort(q, axis=1, kind="stable"), np.argsort(block, axis=1, kind="stable"))
    assert _same(block_medians(block), np.median(block, axis=1))
