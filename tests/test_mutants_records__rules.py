"""Run records' rules at their edges (core/records.py), one test per rule a mutant broke.

What a written line holds (trace, stop reason, error; compact UTF-8 JSON that refuses NaN), the budget key
runs group by (exact whole numbers, from a cold cache, bounded), the reward-range check's fast path (it must
agree with the slow one, and ignore a malformed range), trace points keeping their rewards, `--keep-last`
over three copies, the durable write, and the one-line messages naming the field, the value and the fix.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from baselines.core import fileio
from baselines.core import records as rec
from baselines.core.errors import InputError
from baselines.core.records import (RunRecord, budget_key, budget_label, canonical_budget, iter_records, parse_line,
                                    read_records, record_from_json, write_records)

BASE = {"workload": "w", "arm": "a", "seed": 1, "spend": {"tokens": 10}, "reward": 0.5}


def line(**fields) -> bytes:
    return json.dumps({**BASE, **fields}).encode()


def refused(obj, match: str):
    with pytest.raises(InputError, match=match):
        record_from_json(obj, "f:1")


# -- what a record writes ---------------------------------------------------------------------------------------
def test_a_written_line_keeps_trace_stop_reason_and_error():
    r = record_from_json({**BASE, "trace": [{"spend": {"tokens": 5}, "best": 0.2}], "stop_reason": "budget",
                          "error": {"kind": "timeout"}}, "f:1")
    assert r.stop_reason == "budget"
    out = r.to_json()
    assert out["trace"] == [{"spend": {"tokens": 5}, "best": 0.2}]
    assert out["stop_reason"] == "budget" and out["error"] == {"kind": "timeout"}
    back = parse_line(r.to_line().encode(), "f:1")
    assert (back.trace, back.stop_reason, back.error) == (r.trace, "budget", {"kind": "timeout"})


def test_a_line_is_compact_utf8_json_and_refuses_nan():
    """One compact line (no ', ' or ': '), non-ASCII names as UTF-8 (not \\u escapes), NaN never written."""
    r = RunRecord("wörk", "ärm", 1, {"tokens": 3}, 0.5)
    text = r.to_line()
    assert '"workload":"wörk"' in text and '"arm":"ärm"' in text
    assert ", " not in text and '": ' not in text
    with pytest.raises(ValueError):
        RunRecord("w", "a", 1, {"tokens": 3}, math.nan).to_line()


def test_write_records_writes_a_readable_file_durably(tmp_path, monkeypatch):
    """write_records replaces the file atomically with every record, forced to the disk (fsync)."""
    synced = []
    real = fileio.os.fsync
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    path = tmp_path / "r.jsonl"
    records = [record_from_json({**BASE, "seed": s}, "x") for s in (1, 2)]
    write_records(path, records)
    assert synced
    assert [r.seed for r in read_records(path)] == [1, 2]
    assert path.read_text(encoding="utf-8").count("\n") == 2


def test_write_records_into_a_missing_folder_names_the_results_file(tmp_path):
    with pytest.raises(Exception, match=r"cannot write the results file: the folder .* does not exist"):
        write_records(tmp_path / "no" / "r.jsonl", [record_from_json(BASE, "x")])


# -- the budget key ---------------------------------------------------------------------------------------------
def test_the_budget_key_writes_whole_numbers_without_a_fraction_and_keeps_others_exact(monkeypatch):
    """1500000.0 tokens is the key of 1500000; 1.5 stays 1.5 (a rounded key would pool different allowances).

    From an empty cache, so the key is computed here, not read from an earlier test's call."""
    monkeypatch.setattr(rec, "_BUDGET_KEYS", {})
    assert budget_key({"tokens": 1500000.0}) == '{"tokens":1500000}'
    assert budget_key({"tokens": 1.5}) == '{"tokens":1.5}'
    assert budget_key({"tokens": 1500000.0}) == '{"tokens":1500000}'       # and the cached answer is the same
    assert budget_key({"жетоны": 2}) == '{"жетоны":2}'
    assert budget_key({"tokens": 4.0, "calls": 3}) == '{"calls":3,"tokens":4}'   # compact, in contract unit order
    assert canonical_budget({"tokens": 2.0, "calls": None}) == {"tokens": 2}


def test_the_budget_key_of_an_unhashable_value_is_computed_the_same_way(monkeypatch):
    monkeypatch.setattr(rec, "_BUDGET_KEYS", {})      # the hashable key below is computed here, not read back
    key = budget_key({"жетоны": np.array(5.0), "tokens": np.array(2.5)})
    assert key == '{"tokens":2.5,"жетоны":5}' or key == '{"жетоны":5,"tokens":2.5}'
    assert key == budget_key({"жетоны": 5, "tokens": 2.5})


def test_the_budget_key_cache_stops_growing_at_4096_budgets(monkeypatch):
    full = {(("tokens", i),): str(i) for i in range(4096)}
    monkeypatch.setattr(rec, "_BUDGET_KEYS", full)
    assert budget_key({"calls": 7}) == '{"calls":7}'
    assert len(full) == 4096
    del full[(("tokens", 0),)]
    budget_key({"calls": 7})
    assert len(full) == 4096 and full[(("calls", 7),)] == '{"calls":7}'


def test_the_budget_label_reads_exactly_and_says_when_there_is_none():
    assert budget_label({"tokens": 1500001, "calls": 80}) == "calls=80, tokens=1500001"
    assert budget_label({}) == "no budget"


# -- the reward range check --------------------------------------------------------------------------------------
def test_a_reward_outside_a_range_with_one_float_end_is_refused():
    """The fast path (both ends floats) must not accept a reward outside because only one end is a float."""
    refused({**BASE, "reward": 1.4, "reward_range": [0.0, 1]}, r"reward 1\.4 is outside the line's reward_range \[0\.0, 1\]")
    refused({**BASE, "reward": -0.5, "reward_range": [0, 1.0]}, r"outside the line's reward_range")


def test_a_malformed_reward_range_is_ignored_not_compared():
    for declared in (["a", 1.0], [0.0, "b"], [None, 1.0], [0.0, None]):
        assert record_from_json({**BASE, "reward_range": declared}, "f:1").reward == 0.5


def test_a_reward_at_an_integer_end_of_its_range_is_inside():
    assert record_from_json({**BASE, "reward": 0, "reward_range": [0, 1]}, "f:1").reward == 0
    assert record_from_json({**BASE, "reward": 1, "reward_range": [0, 1]}, "f:1").reward == 1


# -- trace points ------------------------------------------------------------------------------------------------
def test_trace_points_keep_a_numeric_reward_and_drop_a_null_one():
    r = record_from_json({**BASE, "trace": [{"spend": {"tokens": 1}, "best": 0.1, "reward": 0.3},
                                            {"spend": {"tokens": 2}, "best": 0.2, "reward": None}]}, "f:1")
    assert r.trace[0]["reward"] == 0.3 and "reward" not in r.trace[1]


def test_trace_messages_name_the_file_the_point_and_the_field():
    refused({**BASE, "trace": {"spend": {}}}, r"^f:1: field 'trace' must be a list of \{spend, best\} points$")
    refused({**BASE, "trace": [{"spend": {"tokens": "x"}}]}, r"^f:1: field 'trace\[0\]\.spend\.tokens' must be")
    refused({**BASE, "trace": [{"spend": {}, "best": "x"}]}, r"^f:1: field 'trace\[0\]\.best' must be")
    refused({**BASE, "trace": [{"spend": {}, "best": 0.1, "reward": "x"}]}, r"^f:1: field 'trace\[0\]\.reward' must be")


# -- fields and their messages -------------------------------------------------------------------------------------
def test_stop_reason_and_partial_are_checked_and_kept():
    assert record_from_json({**BASE, "stop_reason": "budget"}, "f:1").stop_reason == "budget"
    refused({**BASE, "stop_reason": 3}, r"^f:1: field 'stop_reason' must be a string or null, got 3$")
    for bad in ([""], [1], ["tokens", ""]):
        refused({**BASE, "partial": bad}, r"^f:1: field 'partial' must be a list of unit names, got " + json.dumps(bad).replace("[", r"\[").replace("]", r"\]") + "$")


def test_field_messages_name_the_value_and_the_fix():
    refused({**BASE, "schema": "costmatch.run/0"}, r"this costmatch reads \"costmatch\.run/1\" \(write that, or leave the field out\)$")
    refused({k: v for k, v in BASE.items() if k != "spend"}, r"\(null for a unit that was not reported\)$")
    refused({**BASE, "dev_reward": "x"}, r"^f:1: field 'dev_reward' must be a number or null, got \"x\"$")
    refused({**BASE, "params": "x"}, r"^f:1: field 'params' must be an object or null, got \"x\"$")
    refused({**BASE, "items": "x"}, r"objects or null, got \"x\"$")
    refused({**BASE, "items": [{"id": "q", "reward": 1}, {"id": "q", "reward": 0}]},
            r"repeats the id \"q\"; give each question of a run its own id$")
    refused({**BASE, "items": [{"id": "q", "reward": 1, "spend": 3}]}, r"got 3$")


def test_a_line_that_is_not_an_object_says_what_it_is():
    for value, kind in ((5, "a number"), (2.5, "a number"), ("x", "a string"), ([1], "an array"), (None, "null"),
                        (True, "true"), ((1, 2), "tuple")):
        refused(value, r"^f:1: a line must be a JSON object \(one run\), got " + kind + "$")


# -- reading files ---------------------------------------------------------------------------------------------
def test_a_bad_byte_names_its_column():
    with pytest.raises(InputError, match=r"^f:1: not UTF-8 text \(byte 0xff at column 3\)"):
        parse_line(b'{"\xff', "f:1")


def test_trailing_bytes_after_the_object_are_refused(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(line() + b"X\n")
    with pytest.raises(InputError, match=r"r\.jsonl:1: "):
        list(iter_records(path))


def test_a_compressed_results_file_is_refused_naming_it(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 20)
    with pytest.raises(InputError, match=r"^" + str(path).replace(".", r"\.") + r": is "):
        list(iter_records(path))


def test_keep_last_over_three_copies_keeps_the_last_in_the_first_place(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join([line(reward=0.1), line(seed=2), line(reward=0.2), line(reward=0.3)]) + b"\n")
    got = read_records(path, keep_last=True)
    assert [(r.seed, r.reward) for r in got] == [(1, 0.3), (2, 0.5)]


def test_a_duplicate_says_how_to_fix_it(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(line() + b"\n" + line() + b"\n")
    with pytest.raises(InputError, match=r"first seen at .*r\.jsonl:1; remove one line or pass --keep-last$"):
        read_records(path)


def test_a_read_that_fails_midway_is_one_line_naming_the_reason(tmp_path, monkeypatch):
    """An OSError while reading (a device that fails mid-read) is an InputError with the path and strerror."""
    class Failing:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def peek(self, n):
            return b"{"

        def __iter__(self):
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(rec, "open_input", lambda *a, **k: Failing())
    path = tmp_path / "r.jsonl"
    with pytest.raises(InputError, match=r"^" + str(path).replace(".", r"\.") + r": cannot read results file \(Input/output error\)$"):
        list(iter_records(path))


def test_a_value_that_is_not_finite_gets_the_fix_for_its_field():
    """A score's fix is null for a run without a score; a unit's fix is null for a unit not reported."""
    for name in ("reward", "dev_reward"):
        refused({**BASE, name: math.nan}, rf"^f:1: field '{name}' is NaN, which is not finite; write null for a run without a score$")
    refused({**BASE, "spend": {"tokens": math.inf}},
            r"^f:1: field 'spend\.tokens' is Infinity, which is not finite; write null for a unit that was not reported$")


def test_a_lone_surrogate_escape_names_the_string_and_the_fix():
    raw = b'{"workload":"w","arm":"\\ud800x","seed":1,"spend":{},"reward":0.5}'
    with pytest.raises(InputError) as info:
        parse_line(raw, "f:1")
    assert str(info.value) == ('f:1: the string "\\ud800x" holds an unpaired UTF-16 surrogate escape '
                               "(\\ud800-\\udfff), which is not text; fix the writer")


def test_a_number_that_may_not_be_null_says_so():
    """The reader's number rule for a field that takes no null (no such field today: the rule stays right for one)."""
    with pytest.raises(InputError, match=r"^f:1: field 'x' is null; give a number$"):
        rec._number(None, "f:1", "x", nullable=False)
    with pytest.raises(InputError, match=r"^f:1: field 'x' must be a number, got \"y\"$"):
        rec._number("y", "f:1", "x", nullable=False)
    with pytest.raises(InputError, match=r"^f:1: field 'x' must be a number or null, got \"y\"$"):
        rec._number("y", "f:1", "x", nullable=True)


def test_append_record_hands_one_whole_line_to_the_system_and_syncs_when_asked(tmp_path, monkeypatch):
    """After append_record the line is readable by another reader (flushed); `sync` forces it to the disk."""
    synced = []
    monkeypatch.setattr(rec.os, "fsync", lambda fd: synced.append(fd))
    path = tmp_path / "r.jsonl"
    r = record_from_json(BASE, "x")
    with open(path, "a", encoding="utf-8") as handle:
        rec.append_record(handle, r)
        assert path.read_text(encoding="utf-8") == r.to_line() + "\n"
        assert synced == [handle.fileno()]
        rec.append_record(handle, r, sync=False)
        assert path.read_text(encoding="utf-8") == (r.to_line() + "\n") * 2
        assert len(synced) == 1
