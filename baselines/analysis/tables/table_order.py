"""The one row order of a read table: by workload, budget, arm (each by name), then seed.

Why one order, and this one: `compare` splits the table into groups by
(workload, budget, arm, seed) (`comparing._GroupSplit`). Rows already in
that order are split without a sort or a copy of any column; rows out of it
were lexsorted and every column the comparison read was copied through the
sort (after 1,000 lines were appended to a 1M-line file, 2.14x the file's
size at the peak, issue 38). So the reader hands over its rows in that order,
whatever order the lines were written in, and the column sidecar keeps them
in it: then an append is a merge of a few new rows into the held ones
(`merge`: a search among them per new row, none of them read otherwise; or
`order`, which sorts the rows after a sorted prefix), not a sort of all,
and the split finds its rows in order.

The order depends on the rows' contents only (names, not the codes a block's
reader happened to give), so a cold parse, a read through the sidecar and
the line reader produce the same table. Workload and budget categories are
put in name order (`sort_labels`), so their codes run in the same order as
the rows; arm categories keep their order (the split ranks arms by name).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

LABELS = ("workload", "budget", "arm")
_SORTED_LABELS = ("workload", "budget")
_INT64_MAX = (1 << 63) - 1


def sort_labels(columns: dict) -> None:
    """Workload and budget categoricals (in `columns`, replaced) with their categories in name order."""
    for name in _SORTED_LABELS:
        cat = columns.get(name)
        if not isinstance(cat, pd.Categorical) or len(cat.categories) < 2:
            continue
        rank = _ranks(cat.categories)
        if np.array_equal(rank, np.arange(len(rank))):
            continue
        lookup = np.append(rank, -1).astype(cat.codes.dtype)   # code -1 (none) stays -1
        columns[name] = pd.Categorical.from_codes(lookup[cat.codes], categories=cat.categories[np.argsort(rank)],
                                                  validate=False)


def _ranks(categories) -> np.ndarray:
    """Each category's place in name order (names compared as `sorted_codes` compares them), of an Index
    or a list of names (compared as Python strings either way)."""
    if isinstance(categories, pd.Index):
        names = np.asarray(categories.astype(str))
    else:
        names = np.empty(len(categories), dtype=object)
        names[:] = [str(c) for c in categories]
    rank = np.empty(len(names), dtype=np.int64)
    rank[np.argsort(names, kind="stable")] = np.arange(len(names))
    return rank


def _name_rank(cat: pd.Categorical) -> np.ndarray:
    """Each row's label as its rank in name order (-1: no label)."""
    lookup = np.append(_ranks(cat.categories), -1)
    return lookup[cat.codes]


def keys(columns: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows' sort keys: (one int64 key, None) when (labels, seed) fit in one, else (labels' key, seeds).

    Why one key when it fits: one comparison per row pair and a plain
    searchsorted to merge; seeds spanning most of the int64 range do not fit
    and are compared as a second key.
    """
    cats = [columns[name] for name in LABELS]
    sizes = [len(c.categories) + 1 for c in cats]   # + 1: room for "no label" (-1, shifted to 0)
    label = np.zeros(len(cats[0]), dtype=np.int64)
    for cat, size in zip(cats, sizes):
        label *= size
        label += _name_rank(cat) + 1
    seed = np.asarray(columns["seed"], dtype=np.int64)
    if not seed.size:
        return label, None
    low, high = int(seed.min()), int(seed.max())
    span = high - low + 1
    if sizes[0] * sizes[1] * sizes[2] * span <= _INT64_MAX:
        label *= span
        label += seed - np.int64(low)
        return label, None
    return label, seed


def order(columns: dict) -> tuple[np.ndarray | None, bool]:
    """(permutation into the table's order or None when already in it, whether two rows have equal keys).

    Equal keys are the same run identity twice (the caller's duplicate rules
    decide). Stable: equal keys keep their input order. The rows are taken
    as a sorted prefix and a rest: the rest is sorted and merged into the
    prefix (a few new rows after a sidecar's held ones cost a search each;
    rows in no order cost a sort of the rest, that is of about all).
    """
    key, seed = keys(columns)
    n = len(key)
    if n < 2:
        return None, False
    if seed is not None:
        return _two_keys(key, seed)
    later = key[1:] > key[:-1]
    if later.all():
        return None, False
    p = int(np.argmin(later)) + 1      # the first row not above the one before it
    del later
    tail = key[p:]
    tail_order = np.argsort(tail, kind="stable")
    tail_sorted = tail[tail_order]
    head = key[:p]
    at = np.searchsorted(head, tail_sorted, side="right")   # equal keys: the earlier (head) row first
    repeats = bool((tail_sorted[1:] == tail_sorted[:-1]).any())
    before = at > 0
    repeats = repeats or bool((head[at[before] - 1] == tail_sorted[before]).any())
    from_tail = np.zeros(n, dtype=bool)
    from_tail[at + np.arange(len(tail))] = True
    out = np.empty(n, dtype=np.int64)
    out[from_tail] = tail_order + p
    out[~from_tail] = np.arange(p)
    return out, repeats


def _two_keys(label: np.ndarray, seed: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """`order` for seeds that do not fit one key with the labels: compared, never subtracted."""
    same = label[1:] == label[:-1]
    later = (label[1:] > label[:-1]) | (same & (seed[1:] > seed[:-1]))
    if later.all():
        return None, False
    out = np.lexsort((seed, label))
    a, s = label[out], seed[out]
    return out, bool(((a[1:] == a[:-1]) & (s[1:] == s[:-1])).any())


def take(columns: dict, rows: np.ndarray) -> None:
    """Every column of `columns` (replaced one at a time: the old one is freed before the next is copied)
    put in the order `rows`; a column no row has (one value, broadcast) stays as it is."""
    for name in list(columns):
        values = columns[name]
        if isinstance(values, pd.Categorical):
            columns[name] = pd.Categorical.from_codes(values.codes.take(rows), dtype=values.dtype, validate=False)
        elif isinstance(values, np.ndarray) and values.ndim == 1 and values.size > 1 and values.strides[0] == 0:
            continue
        else:
            columns[name] = np.asarray(values).take(rows)
        del values


class Merge:
    """Where rows in no order (`tail`) go among rows already in table order (`head`), without sorting the head.

    Why: a sidecar's rows are held in table order, so after an append the
    table is those rows with a few new ones inserted. Sorting all of them
    again (`order`, then `take` of every column) cost more than the parse of
    the new lines; here each new row is placed by a binary search, and each
    column is written once, straight in its final order (`place`).
    """

    _SEGMENTS = 256   # at most this many insertion points: the head is copied slice by slice, else by a mask

    def __init__(self, head_rows: int, at: np.ndarray, tail_order: np.ndarray):
        self.head_rows = head_rows
        self.at = at                  # per tail row in table order: how many head rows come before it
        self.tail_order = tail_order  # the tail's rows in table order (indices into the tail)
        self.rows = head_rows + len(at)
        self.tail_at = at + np.arange(len(at), dtype=np.int64)   # where each of them lands in the table
        points, first = np.unique(at, return_index=True)
        self.points = (points.tolist(), first.tolist()) if len(points) <= self._SEGMENTS else None

    def place(self, head, tail, dtype, default) -> np.ndarray:
        """One column of the merged table: `head` (head rows, table order) and `tail` (tail rows, their own
        order) cast to `dtype`; None for a part that lacks the column (its rows hold `default`)."""
        out = np.empty(self.rows, dtype=dtype)
        fill = not (head is None and default is None and out.dtype == object)   # empty object arrays hold None
        if self.points is None:
            in_head = np.ones(self.rows, dtype=bool)
            in_head[self.tail_at] = False
            if head is not None or fill:
                out[in_head] = default if head is None else head
        else:
            before = 0   # head rows copied so far; tail rows placed so far = index into `first`
            for point, placed in zip(*self.points):
                if head is not None:
                    out[before + placed:point + placed] = head[before:point]
                elif fill:
                    out[before + placed:point + placed] = default
                before = point
            placed = len(self.at)
            if head is not None:
                out[before + placed:] = head[before:]
            elif fill:
                out[before + placed:] = default
        if tail is None:
            out[self.tail_at] = default
        else:
            out[self.tail_at] = np.asarray(tail)[self.tail_order]
        return out

    def permutation(self) -> np.ndarray:
        """Each table row's index in head rows then tail rows (what `order` returns; for per-row lists)."""
        out = np.empty(self.rows, dtype=np.int64)
        in_head = np.ones(self.rows, dtype=bool)
        in_head[self.tail_at] = False
        out[in_head] = np.arange(self.head_rows)
        out[self.tail_at] = self.head_rows + self.tail_order
        return out


def merge(head: dict, tail: dict, categories: dict) -> Merge | None:
    """The `Merge` of `tail` rows into `head` rows, which must be in strictly increasing table order
    (no run twice); None when a tail row repeats a run of the head or of the tail (the duplicate rules decide).

    `head` and `tail` map each label to its codes into `categories[label]` (shared by both) and "seed" to the
    seeds. Only the head rows a binary search visits are read: about 20 per tail row for a million.
    """
    lookups = {name: np.append(_ranks(categories[name]), -1) for name in LABELS}

    def key(part: dict, rows=None) -> list:
        pick = (lambda a: a) if rows is None else (lambda a: a[rows])
        return [lookups[name][pick(np.asarray(part[name]))] for name in LABELS] + \
            [pick(np.asarray(part["seed"])).astype(np.int64)]

    n = len(head["seed"])
    tail_key = key(tail)
    m = len(tail_key[-1])
    tail_order = np.lexsort(tail_key[::-1])
    tail_key = [k[tail_order] for k in tail_key]
    if m > 1 and _equal(tail_key, slice(1, None), slice(None, -1)).any():
        return None
    lo, hi = np.zeros(m, dtype=np.int64), np.full(m, n, dtype=np.int64)
    active = np.flatnonzero(lo < hi)
    while active.size:   # lo: the first head row above the tail row (equal keys: the head row first)
        mid = (lo[active] + hi[active]) // 2
        at_most = _at_most(key(head, mid), [k[active] for k in tail_key])
        lo[active[at_most]] = mid[at_most] + 1
        hi[active[~at_most]] = mid[~at_most]
        active = active[lo[active] < hi[active]]
    before = np.flatnonzero(lo > 0)
    if before.size:
        previous = key(head, lo[before] - 1)
        if np.logical_and.reduce([p == k[before] for p, k in zip(previous, tail_key)]).any():
            return None
    return Merge(n, lo, tail_order)


def _equal(keys: list, a, b) -> np.ndarray:
    return np.logical_and.reduce([k[a] == k[b] for k in keys])


def _at_most(left: list, right: list) -> np.ndarray:
    """Row by row, whether key `left` <= key `right` (compared component by component, never subtracted)."""
    out = np.ones(len(right[0]), dtype=bool)     # equal throughout: at most
    open_ = np.ones(len(right[0]), dtype=bool)   # not decided by an earlier component
    for a, b in zip(left, right):
        out[open_ & (a < b)] = True
        out[open_ & (a > b)] = False
        open_ &= a == b
    return out
