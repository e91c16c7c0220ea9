"""The history line records which questions route an item-paired check used (contract 6.37.e, issue 37 item 2).

Recurring question ids: "population" (two-way seed x question, the default) or "these" (`--questions
these`); fresh ids on every seed: "fresh"; per-seed verdicts: null. Lines written before the field load
with it null. Fails without the field (written as null / absent, or the load refusing old lines).
"""
from __future__ import annotations

import json

import pytest

from baselines import check, write_records
from baselines.analysis.history.entry import read_history
from tests.test_questions_population import _records


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch):
    for name in ("GITHUB_SHA", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_STEP_SUMMARY", "GITHUB_REF_NAME"):
        monkeypatch.delenv(name, raising=False)


def _line(tmp_path, records, name, **kw) -> dict:
    results, history = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-history.jsonl"
    write_records(results, records)
    check(str(results), baseline="base", candidate="cand", margin=0.05, history=str(history), commit=name, **kw)
    [line] = [json.loads(x) for x in history.read_text().splitlines()]
    [entry], _ = read_history(str(history))
    assert entry.questions == line["questions"]
    return line


def test_a_check_with_recurring_questions_records_the_population_route(tmp_path):
    assert _line(tmp_path, _records(delta=0.0), "pop")["questions"] == "population"
    assert _line(tmp_path, _records(delta=0.0), "these", questions="these")["questions"] == "these"
    assert _line(tmp_path, _records(delta=0.0, recur=False), "fresh")["questions"] == "fresh"
    # the typical-seed claim decides per seed: no questions route
    assert _line(tmp_path, _records(delta=0.0), "typical", claim="typical")["questions"] is None


def test_the_same_data_under_another_questions_route_is_a_recheck(tmp_path):
    results, history = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    write_records(results, _records(delta=0.0))
    for questions in ("population", "population", "these"):
        check(str(results), baseline="base", candidate="cand", margin=0.05, history=str(history), commit="c1",
              questions=questions)
    lines = [json.loads(x) for x in history.read_text().splitlines()]
    assert [(x["questions"], x["recheck"]) for x in lines] == [("population", 0), ("these", 1)]


def test_old_history_lines_without_the_field_still_load(tmp_path):
    line = _line(tmp_path, _records(delta=0.0), "old")
    del line["questions"]
    old = tmp_path / "old-history.jsonl"
    old.write_text(json.dumps(line) + "\n")
    [entry], warnings = read_history(str(old))
    assert entry.questions is None and entry.commit == "old" and warnings == []
    assert entry.to_json()["questions"] is None
