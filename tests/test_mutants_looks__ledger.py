"""The looks ledger's rules (issue 44, `gating/looks.py` mutation survivors).

Where the ledger lives (beside the first results file; none for no file, a pipe, a folder, a missing file, or
with COSTMATCH_LOOKS_LEDGER=off), what counts as an earlier look (fewer seeds than now, each count once, in
order), what is kept from a ledger file (only its own schema's looks with an integer seed count; anything
unreadable is no ledger, never an error), what a look writes (new seed counts only, nothing when nothing is new,
atomically and readable by the next check, a warning sentence instead of an error), and the note's words.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from baselines.analysis.gating.looks import (LEDGER_NAME, SCHEMA, earlier_looks, group_key, ledger_path, looks_note,
                                             read_ledger, record_looks)


@pytest.fixture
def ledger_on(monkeypatch):
    monkeypatch.delenv("COSTMATCH_LOOKS_LEDGER", raising=False)


# -- where --------------------------------------------------------------------------------------------------------

def test_the_ledger_sits_beside_the_first_results_file(tmp_path, ledger_on, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "r.jsonl", tmp_path / "b" / "s.jsonl"
    first.write_text("")
    second.write_text("")
    assert ledger_path([str(first), str(second)]) == tmp_path / "a" / ".costmatch-looks.json"
    assert LEDGER_NAME == ".costmatch-looks.json"
    monkeypatch.chdir(tmp_path / "b")
    assert ledger_path(["s.jsonl"]) == tmp_path / "b" / LEDGER_NAME          # a relative name, resolved
    assert ledger_path(["s.jsonl"]).is_absolute()


def test_no_ledger_without_a_regular_results_file(tmp_path, ledger_on):
    assert ledger_path([]) is None
    assert ledger_path([str(tmp_path)]) is None                             # a folder
    assert ledger_path([str(tmp_path / "missing.jsonl")]) is None
    assert ledger_path(["-"]) is None                                       # stdin
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        assert ledger_path([str(fifo)]) is None
    assert ledger_path(["x" * 5000]) is None                                # a name the system refuses (OSError)


def test_the_ledger_can_be_turned_off_and_only_by_off(tmp_path, monkeypatch):
    results = tmp_path / "r.jsonl"
    results.write_text("")
    monkeypatch.setenv("COSTMATCH_LOOKS_LEDGER", "off")
    assert ledger_path([str(results)]) is None
    monkeypatch.setenv("COSTMATCH_LOOKS_LEDGER", "on")
    assert ledger_path([str(results)]) == tmp_path / LEDGER_NAME


def test_a_group_is_its_workload_budget_and_both_arms():
    key = group_key("wörk", {"tokens": 10, "calls": 2}, "base", "cand")
    assert json.loads(key)[0] == "wörk" and json.loads(key)[2:] == ["base", "cand"]
    assert "wörk" in key                                                    # written as is, not \u-escaped
    assert key == group_key("wörk", {"calls": 2, "tokens": 10}, "base", "cand")   # budget order does not matter
    assert key != group_key("wörk", {"tokens": 10, "calls": 2}, "cand", "base")
    assert key != group_key("wörk", {"tokens": 11, "calls": 2}, "base", "cand")


# -- earlier looks ------------------------------------------------------------------------------------------------

def test_earlier_looks_are_the_smaller_seed_counts_once_each_in_order():
    ledger = {"k": [{"n": 10, "verdict": "PASS"}, {"n": 5, "verdict": "INCONCLUSIVE"}, {"n": 20},
                    {"n": 5}, {"n": 12}]}
    assert earlier_looks(ledger, "k", 12) == [5, 10]           # 12 itself is this look again, 20 is not earlier
    assert earlier_looks(ledger, "k", 5) == []
    assert earlier_looks(ledger, "k", 21) == [5, 10, 12, 20]
    assert earlier_looks(ledger, "other", 30) == []


# -- reading ------------------------------------------------------------------------------------------------------

def _write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_reading_keeps_the_looks_of_its_own_schema_with_integer_seed_counts(tmp_path):
    path = _write(tmp_path / LEDGER_NAME, {"schema": SCHEMA, "looks": {
        "a": [{"n": 5, "verdict": "PASS"}, {"n": "6"}, {"n": 7.0}, "8", {"verdict": "FAIL"}, {"n": 9}],
        "b": {"n": 5}, "c": []}})
    assert SCHEMA == "costmatch.looks/1"
    assert read_ledger(path) == {"a": [{"n": 5, "verdict": "PASS"}, {"n": 9}], "c": []}


def test_an_unreadable_or_foreign_ledger_is_no_ledger(tmp_path):
    assert read_ledger(None) == {}
    assert read_ledger(tmp_path / "missing.json") == {}
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert read_ledger(bad) == {}
    bad.write_bytes(b"\xff\xfe\x00")                                        # not UTF-8
    assert read_ledger(bad) == {}
    looks = {"k": [{"n": 5}]}
    assert read_ledger(_write(tmp_path / "other.json", {"schema": "costmatch.looks/2", "looks": looks})) == {}
    assert read_ledger(_write(tmp_path / "none.json", {"looks": looks})) == {}
    assert read_ledger(_write(tmp_path / "list.json", [{"schema": SCHEMA, "looks": looks}])) == {}
    assert read_ledger(_write(tmp_path / "notdict.json", {"schema": SCHEMA, "looks": [["k", 5]]})) == {}
    assert read_ledger(_write(tmp_path / "nolooks.json", {"schema": SCHEMA})) == {}
    assert read_ledger(tmp_path) == {}                                      # a folder: OSError
    assert read_ledger(_write(tmp_path / "good.json", {"schema": SCHEMA, "looks": looks})) == looks


# -- writing ------------------------------------------------------------------------------------------------------

def test_a_look_is_recorded_once_per_seed_count_and_read_back(tmp_path):
    path = tmp_path / LEDGER_NAME
    ledger: dict = {}
    assert record_looks(path, ledger, [("k", 5, "INCONCLUSIVE"), ("j", 7, "PASS")]) is None
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {"schema": SCHEMA, "looks": {"k": [{"n": 5, "verdict": "INCONCLUSIVE"}],
                                                "j": [{"n": 7, "verdict": "PASS"}]}}
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert read_ledger(path) == data["looks"]
    # the same count again is the same look: the entry is not repeated, nor its verdict replaced
    ledger = read_ledger(path)
    assert record_looks(path, ledger, [("k", 5, "PASS"), ("k", 9, "FAIL")]) is None
    assert read_ledger(path)["k"] == [{"n": 5, "verdict": "INCONCLUSIVE"}, {"n": 9, "verdict": "FAIL"}]
    assert read_ledger(path)["j"] == [{"n": 7, "verdict": "PASS"}]
    assert [p.name for p in tmp_path.iterdir()] == [LEDGER_NAME]            # no temporary file left


def test_nothing_new_writes_nothing(tmp_path):
    path = tmp_path / LEDGER_NAME
    ledger = {"k": [{"n": 5, "verdict": "PASS"}]}
    assert record_looks(path, ledger, [("k", 5, "FAIL")]) is None
    assert record_looks(path, ledger, []) is None
    assert not path.exists()
    assert record_looks(None, {}, [("k", 5, "PASS")]) is None               # no ledger: nothing to write


def test_the_file_keeps_names_as_written_and_sorted(tmp_path):
    path = tmp_path / LEDGER_NAME
    record_looks(path, {}, [("wörk b", 5, "PASS"), ("a", 3, "FAIL")])
    text = path.read_text(encoding="utf-8")
    assert "wörk" in text and text.index('"a"') < text.index("wörk")
    assert text.index('"looks"') < text.index('"schema"')
    assert "\n " in text                                                   # indented, one entry a line


def test_a_ledger_that_cannot_be_written_is_a_warning_and_leaves_no_temporary_file(tmp_path):
    # the folder is gone: the temporary file cannot be written (nor removed)
    path = tmp_path / "gone" / LEDGER_NAME
    warning = record_looks(path, {}, [("k", 5, "PASS")])
    assert warning == (f"could not record this look in {path} (No such file or directory); later checks will "
                       "not know of it")
    # the rename fails (the ledger's name is a folder): the temporary file it wrote is removed
    path = tmp_path / LEDGER_NAME
    path.mkdir()
    warning = record_looks(path, {}, [("k", 5, "PASS")])
    assert warning is not None and warning.startswith(f"could not record this look in {path} (")
    assert warning.endswith("); later checks will not know of it")
    assert [p.name for p in tmp_path.iterdir()] == [LEDGER_NAME]


# -- the note -----------------------------------------------------------------------------------------------------

def test_the_note_names_the_earlier_seed_counts_and_the_file():
    assert looks_note([5, 10], Path("/x/y") / LEDGER_NAME) == (
        "looked at before with 5, 10 seed(s) (.costmatch-looks.json): bounded rewards use the anytime-valid "
        "betting bounds from here on; delete the file only if those looks did not decide anything")


def test_the_file_is_one_space_indented(tmp_path):
    path = tmp_path / LEDGER_NAME
    record_looks(path, {}, [("k", 5, "PASS")])
    assert path.read_text(encoding="utf-8").splitlines() == [
        "{", ' "looks": {', '  "k": [', "   {", '    "n": 5,', '    "verdict": "PASS"', "   }", "  ]", " },",
        ' "schema": "costmatch.looks/1"', "}"]


def test_the_ledger_is_utf_8_whatever_the_locale(tmp_path):
    """Read and written as UTF-8 under an ASCII locale too: a workload name like "wörk" keeps its earlier looks."""
    import subprocess
    import sys
    old, new = tmp_path / "old" / LEDGER_NAME, tmp_path / "new" / LEDGER_NAME
    old.parent.mkdir()
    new.parent.mkdir()
    record_looks(old, {}, [("wörk", 5, "PASS")])
    code = ("import sys, locale, pathlib\n"
            "from baselines.analysis.gating.looks import read_ledger, record_looks\n"
            "print(locale.getpreferredencoding(False))\n"
            "print(ascii(read_ledger(pathlib.Path(sys.argv[1]))))\n"
            "print(ascii(record_looks(pathlib.Path(sys.argv[2]), {}, [('w\\u00f6rk', 7, 'FAIL')])))\n")
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
           "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code, str(old), str(new)], env=env, capture_output=True, text=True,
                         encoding="utf-8", check=False)
    assert out.returncode == 0, out.stderr
    encoding, read, warning = out.stdout.splitlines()
    if encoding.lower().replace("-", "") in ("utf8",):
        pytest.skip("this Python reads the C locale as UTF-8")
    assert read == ascii({"wörk": [{"n": 5, "verdict": "PASS"}]})
    assert warning == "None"
    assert read_ledger(new) == {"wörk": [{"n": 7, "verdict": "FAIL"}]}
