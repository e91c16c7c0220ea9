"""`table_order.order`: the stable sort by (workload, budget, arm names, seed) and whether a run repeats,
whether the rows arrive sorted, as a sorted prefix and a rest (a sidecar and appended lines), or in no order."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from baselines.analysis.tables import table_order
from tests.sizes import examples

KEY = st.tuples(st.sampled_from(["w", "v", "ä"]), st.sampled_from(["b1", "b0"]), st.sampled_from(["A", "a", "B", "10", "9"]),
                st.one_of(st.integers(-3, 3), st.sampled_from([-2**63, 2**63 - 1])))


def columns(keys) -> dict:
    w, b, a, s = zip(*keys) if keys else ((), (), (), ())
    return {"workload": pd.Categorical(list(w)), "budget": pd.Categorical(list(b)), "arm": pd.Categorical(list(a)),
            "seed": np.array(s, dtype=np.int64)}


@settings(deadline=None, max_examples=examples(200))
@given(head=st.lists(KEY, max_size=30), rest=st.lists(KEY, max_size=10), sort_head=st.booleans())
def test_order_is_the_stable_sort_by_names_and_seed(head, rest, sort_head):
    keys = (sorted(head) if sort_head else head) + rest
    rows, repeats = table_order.order(columns(keys))
    want = sorted(range(len(keys)), key=lambda i: (keys[i], i))
    got = list(range(len(keys))) if rows is None else rows.tolist()
    assert got == want
    assert repeats == (len(set(keys)) < len(keys))


def test_sort_labels_puts_workload_and_budget_categories_in_name_order():
    cols = columns([("w2", "b", "B", 0), ("w1", "a", "A", 1), ("w2", "a", "B", 2)])
    table_order.sort_labels(cols)
    assert list(cols["workload"].categories) == ["w1", "w2"] and list(cols["workload"]) == ["w2", "w1", "w2"]
    assert list(cols["budget"].categories) == ["a", "b"] and list(cols["budget"]) == ["b", "a", "a"]
    assert list(cols["arm"].categories) == ["A", "B"]


def coded(part: list, categories: dict) -> dict:
    out = {name: np.array([categories[name].index(k[i]) for k in part], dtype=np.int8)
           for i, name in enumerate(table_order.LABELS)}
    out["seed"] = np.array([k[3] for k in part], dtype=np.int64)
    return out


@settings(deadline=None, max_examples=examples(200))
@given(head=st.lists(KEY, max_size=30), tail=st.lists(KEY, max_size=12))
def test_merge_places_rows_as_the_stable_sort_does_and_refuses_a_repeat(head, tail):
    """`merge` of rows in no order into rows in strictly increasing table order (what a sidecar holds): the
    same rows as `order`'s sort, each column placed by slices or by a mask; None when a run repeats."""
    head = sorted(set(head))
    keys = head + tail
    categories = {name: list(dict.fromkeys(k[i] for k in keys)) for i, name in enumerate(table_order.LABELS)}
    plan = table_order.merge(coded(head, categories), coded(tail, categories), categories)
    if len(set(keys)) < len(keys):
        assert plan is None
        return
    want = sorted(range(len(keys)), key=lambda i: (keys[i], i))
    assert plan.permutation().tolist() == want
    values = np.arange(len(keys), dtype=float) + 0.5
    words = np.array([f"r{i}" for i in range(len(keys))], dtype=object)
    for points in (plan.points, None):   # None: the mask (what many insertion points take)
        plan.points = points
        assert plan.place(values[:len(head)], values[len(head):], float, np.nan).tolist() == values[want].tolist()
        merged = plan.place(None, words[len(head):], object, None).tolist()
        assert merged == [words[i] if i >= len(head) else None for i in want]
        merged = plan.place(values[:len(head)].astype(np.int32), None, float, -1.0).tolist()
        assert merged == [float(int(values[i])) if i < len(head) else -1.0 for i in want]
