"""What every importer shares (importers/common.py), one test per rule a mutant broke.

The one-line messages (the file and item, the field, the value as JSON names it, the fix), the source
value checks at their edges (NaN and 1e100 scores, a string seed, true as a per-item 1), the record builder
(None fields dropped, reward defaulting to null, `partial` from any iterable, JSON and Unicode refusals),
JSON Lines numbering across blank lines, the durable atomic write, and the small sums.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from baselines.core import fileio
from baselines.core.errors import InputError
from baselines.core.records import read_records
from baselines.importers import common as c

W = "src.json item 3"


def raises(fn, *args, match: str):
    with pytest.raises(InputError) as info:
        fn(*args)
    assert str(info.value) == match, str(info.value)


# -- reading sources -------------------------------------------------------------------------------------
def test_source_read_errors_name_the_file_the_problem_and_the_fix(tmp_path):
    raises(c.read_utf8, tmp_path, "FIX", match=f"{tmp_path}: the source file is a folder, not a file; pass the file itself")
    bad = tmp_path / "bin.json"
    bad.write_bytes(b'{"a": "\xff"}')
    raises(c.read_utf8, bad, "FIX", match=f"{bad}: not UTF-8 text (byte 7); FIX")
    raises(c.load_json, bad, "agentdescent", match=f"{bad}: not UTF-8 text (byte 7); agentdescent files are UTF-8 JSON")
    gz = tmp_path / "r.json"
    gz.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 20)
    with pytest.raises(InputError, match=r": is .*, not text; .*; FIX$"):
        c.read_utf8(gz, "FIX")


def test_load_json_says_what_is_wrong_with_the_text(tmp_path):
    p = tmp_path / "a.json"
    p.write_text('{"a": NaN}')
    raises(c.load_json, p, "agentdescent",
           match=f"{p}: holds NaN, which is not a finite number; write null for a value that was not measured")
    p.write_text("[[[")
    raises(c.load_json, p, "agentdescent",
           match=f"{p}: not a JSON file (Expecting value at line 1 column 4); agentdescent results are one JSON object")
    p.write_text("[" * 100000 + "]" * 100000)
    raises(c.load_json, p, "agentdescent",
           match=f"{p}: JSON nested deeper than Python can read; agentdescent results are shallow objects")


def test_json_lines_are_numbered_as_the_file_counts_them_across_blank_lines(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert c.load_json_lines(p, "lm-eval") == [{"a": 1}, {"b": 2}]
    p.write_text('{"a": 1}\n\n{"b": 2}\n[[[\n')
    raises(c.load_json_lines, p, "lm-eval",
           match=f"{p}:4: not a JSON line (Expecting value at column 4); lm-eval writes one JSON object per line")
    p.write_text('{"a": 1}\n{"a": NaN}\n')
    raises(c.load_json_lines, p, "lm-eval",
           match=f"{p}:2: holds NaN, which is not a finite number; a per-item score must be a number")
    p.write_text("[" * 100000 + "]" * 100000 + "\n")
    raises(c.load_json_lines, p, "lm-eval", match=f"{p}:1: JSON nested deeper than Python can read")
    p.write_bytes(b"\xff\n")
    raises(c.load_json_lines, p, "lm-eval", match=f"{p}: not UTF-8 text (byte 0); lm-eval files are UTF-8 JSON Lines")


# -- source values ---------------------------------------------------------------------------------------
def test_source_value_messages_name_field_value_and_fix():
    raises(c.source_object, {"k": 3}, "k", W, match=f"{W}: field 'k' must be an object, got int; fix or remove it in the source file")
    raises(c.source_number, {"k": -1}, "k", W,
           match=f"{W}: field 'k' must be a finite number >= 0 or null, got -1; fix it in the source file (null when it was not measured)")
    raises(c.source_text, {"k": ""}, "k", W, match=f'{W}: field \'k\' must be a non-empty string, got ""; fix it in the source file')
    raises(c.source_seed, {"k": "3"}, "k", W, match=f'{W}: field \'k\' must be an integer seed, got "3"; fix it in the source file')
    raises(c.source_seed, {"k": True}, "k", W, match=f"{W}: field 'k' must be an integer seed, got true; fix it in the source file")
    raises(c.source_score, {"k": [1]}, "k", W,
           match=f"{W}: field 'k' must be a finite number or null, got array [1]; fix or remove it in the source file")
    raises(c.source_flag, {"k": 1}, "k", W,
           match=f"{W}: field 'k' must be true, false or null, got number 1; fix or remove it in the source file")
    raises(c.item_reward, "x", W, "acc",
           match=f'{W}: field "acc" must be a finite number per item, got "x"; choose a per-item metric with --metric')


def test_json_type_names_values_as_json_does():
    assert [c.json_type(v) for v in (None, True, 1, 2.5, "x", {}, [], (1,))] == \
        ["null", "boolean", "number", "number", "string", "object", "array", "tuple"]


def test_scores_must_be_finite_and_at_most_1e100():
    assert c.source_score({"k": 1e100}, "k", W) == 1e100
    assert c.item_reward(-1e100, W, "acc") == -1e100
    for bad in (math.nan, math.inf, 1.5e100, -1e101):
        with pytest.raises(InputError):
            c.source_score({"k": bad}, "k", W)
        with pytest.raises(InputError):
            c.item_reward(bad, W, "acc")


def test_a_per_item_true_is_one_and_false_is_zero():
    assert c.item_reward(True, W, "acc") == 1.0 and c.item_reward(False, W, "acc") == 0.0
    assert c.item_reward(None, W, "acc") is None


# -- building records ------------------------------------------------------------------------------------
def test_make_record_drops_none_fields_and_defaults_the_reward_to_null():
    r = c.make_record(W, workload="w", arm="a", seed=1, spend={}, notes=None, source_reward=0.4)
    assert r.reward is None and r.error is None
    assert "notes" not in r.extra and r.extra["source_reward"] == 0.4


def test_make_record_takes_partial_units_from_any_iterable():
    r = c.make_record(W, workload="w", arm="a", seed=1, spend={"tokens": 3}, reward=0.5, partial=(u for u in ["tokens"]))
    assert r.partial == ("tokens",)


def test_make_record_refusals_name_the_source_item():
    raises(lambda: c.make_record(W, workload="w", arm="a", seed="x", spend={}, reward=0.5),
           match=f'{W}: field \'seed\' must be an integer, got "x"')
    with pytest.raises(InputError, match=r"^src\.json item 3: a field cannot be written as JSON \(.*\); fix it in the source file$"):
        c.make_record(W, workload="w", arm="a", seed=1, spend={}, reward=0.5, params={"x": math.nan})
    raises(lambda: c.make_record(W, workload="w", arm="\ud800", seed=1, spend={}, reward=0.5),
           match=f"{W}: a field holds text that is not valid Unicode (a lone surrogate escape such as \\ud800); "
                 "fix it in the source file")


def test_a_run_twice_names_its_identity_with_the_budget():
    r = c.make_record(W, workload="w", arm="a", seed=1, spend={}, budget={"tokens": 5}, reward=0.5)
    raises(c.check_unique, [r, r], "HINT", match='import: run (workload="w", budget={"tokens":5}, arm="a", seed=1) '
                                                 "appears twice across the input files; HINT")


def test_the_import_is_written_whole_and_durably(tmp_path, monkeypatch):
    synced = []
    real = fileio.os.fsync
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    r = c.make_record(W, workload="w", arm="a", seed=1, spend={}, reward=0.5)
    out = tmp_path / "out.jsonl"
    c.write_records_atomic(out, [r])
    assert synced and [x.seed for x in read_records(out)] == [1]
    with pytest.raises(Exception, match=r"cannot write the imported results: the folder .* does not exist"):
        c.write_records_atomic(tmp_path / "no" / "out.jsonl", [r])


# -- small sums ------------------------------------------------------------------------------------------
def test_mean_of_nothing_is_none_and_integer_spend_stays_integer():
    assert c.mean_of([None, None]) is None and c.mean_of([]) is None
    assert c.mean_of([1.0, None, 0.0]) == 0.5
    spend, partial = c.summed_spend([{"tokens": 1}, {"tokens": 2}], ["tokens"])
    assert spend == {"tokens": 3} and type(spend["tokens"]) is int and partial == []


def test_the_unit_interval_is_zero_to_one():
    assert c.within_unit_interval([0.0, 1.0, None])
    assert not c.within_unit_interval([0.5, 1.5])
    assert not c.within_unit_interval([-0.1])
