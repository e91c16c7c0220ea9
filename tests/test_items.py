"""Per-item outcomes (`items`, contract v3): one rule in both readers, canonical form, round trip.

The bulk reader (RunTable.read) and the line reader (read_records) must give
the same items or the same one-line error; a record written back reads the
same; files without items read exactly as before (no `items` column).
"""
from __future__ import annotations

import json

import pytest

import baselines.analysis.tables.table as table_mod
from baselines import InputError, read_records
from baselines.core.records import RunRecord, items_from_json, parse_line
from baselines.analysis.tables.table import RunTable
from tests.test_reader_rules import agree, both_fail, rec, write


def _lines(objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


GOOD = [rec("A", 0, items=[{"id": "q1", "reward": 1}, {"id": "q2", "reward": 0.0, "spend": {"tokens": 3, "usd": None}}]),
        rec("B", 0, items=[{"id": "q1", "reward": 0}, {"id": "q2", "reward": None}]),
        rec("A", 1, items=[]),
        rec("B", 1)]


@pytest.fixture
def count_slow(monkeypatch):
    seen = []
    real = table_mod._slow_chunk
    monkeypatch.setattr(table_mod, "_slow_chunk", lambda *a: seen.append(1) or real(*a))
    return seen


def test_items_are_canonical_and_the_readers_agree(tmp_path):
    path = write(tmp_path, _lines(GOOD))
    kind, table = agree(path)
    assert kind == "ok"
    by = {(a, s): v for a, s, v in zip(table.frame["arm"].astype(str), table.frame["seed"], table.frame["items"])}
    assert by[("A", 0)] == [{"id": "q1", "reward": 1.0}, {"id": "q2", "reward": 0.0, "spend": {"tokens": 3}}]
    assert by[("B", 0)] == [{"id": "q1", "reward": 0.0}, {"id": "q2", "reward": None}]
    assert by[("A", 1)] == [] and by[("B", 1)] is None


def test_items_without_null_rewards_stay_on_the_bulk_path(tmp_path, count_slow):
    path = write(tmp_path, _lines([GOOD[0], GOOD[2], GOOD[3]]))
    table = RunTable.read(path)
    assert not count_slow
    assert table.frame["items"].tolist()[0][0] == {"id": "q1", "reward": 1.0}


def test_a_file_without_items_has_no_items_column(tmp_path):
    assert "items" not in RunTable.read(write(tmp_path, _lines([rec("A", 0), rec("B", 0)]))).frame


def test_round_trip_through_to_line(tmp_path):
    records = read_records(write(tmp_path, _lines(GOOD)))
    again = [parse_line(r.to_line().encode(), "x") for r in records]
    assert [r.items for r in again] == [r.items for r in records]
    assert "items" not in records[3].to_json()
    assert records[0].extra.get("items") is None   # a known field, not an extra


BAD = [
    ({"items": {"q1": 1}}, r"field 'items' must be an array"),
    ({"items": [1]}, r"field 'items\[0\]' must be an object with 'id' and 'reward', got 1$"),
    ({"items": [{"reward": 1}]}, r"field 'items\[0\]\.id' must be a non-empty string, got null$"),
    ({"items": [{"id": 7, "reward": 1}]}, r"field 'items\[0\]\.id' must be a non-empty string, got 7$"),
    ({"items": [{"id": "", "reward": 1}]}, r"field 'items\[0\]\.id' must be a non-empty string"),
    ({"items": [{"id": "a", "reward": 1}, {"id": "a", "reward": 0}]}, r"'items\[1\]\.id' repeats the id \"a\""),
    ({"items": [{"id": "a"}]}, r"field 'items\[0\]\.reward' is missing; write null for an item without a score$"),
    ({"items": [{"id": "a", "reward": "1"}]}, r"field 'items\[0\]\.reward' must be a number or null, got \"1\"$"),
    ({"items": [{"id": "a", "reward": True}]}, r"field 'items\[0\]\.reward' must be a number or null, got true$"),
    ({"items": [{"id": "a", "reward": 1, "spend": [1]}]}, r"field 'items\[0\]\.spend' must be an object"),
    ({"items": [{"id": "a", "reward": 1, "spend": {"tokens": -1}}]},
     r"field 'items\[0\]\.spend\.tokens' is negative \(-1\); spend cannot be negative$"),
    ({"items": [{"id": "2024-06-01", "reward": 1}, {"id": "b", "reward": 1e101}]}, r"beyond the largest accepted"),
]


@pytest.mark.parametrize("extra, pattern", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_items_are_one_line_errors_in_both_readers(tmp_path, extra, pattern):
    text = _lines([rec("A", 0, items=[{"id": "q", "reward": 1}]), rec("B", 0, **extra)])
    message = both_fail(write(tmp_path, text), pattern)
    assert message.split(":")[1] == "2"


def test_a_missing_item_reward_is_not_a_null_one_in_bulk(tmp_path):
    """Arrow reads an absent key as null: the block goes line by line, which tells them apart."""
    text = _lines([rec("A", 0, items=[{"id": "q", "reward": None}]), rec("A", 1, items=[{"id": "q"}])])
    both_fail(write(tmp_path, text), r":2: field 'items\[0\]\.reward' is missing")


def test_unknown_item_keys_are_ignored_alike(tmp_path):
    text = _lines([rec("A", 0, items=[{"id": "q", "reward": 1, "answer": "x"}]),
                   rec("A", 1, items=[{"id": "q", "reward": 0}])])
    kind, table = agree(write(tmp_path, text))
    assert kind == "ok" and table.frame["items"].tolist()[0] == [{"id": "q", "reward": 1.0}]


def test_items_from_json_none_and_record_default():
    assert items_from_json(None, "x") is None
    assert RunRecord("w", "a", 0, {}, None).items is None
    with pytest.raises(InputError):
        items_from_json("abc", "x")
