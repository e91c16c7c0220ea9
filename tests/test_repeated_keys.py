"""A key twice in one JSON object is refused by both readers with one message (issue 31).

Every JSON parser costmatch uses keeps the last value of a repeated key: a
line with `,"reward":0.0` appended moved an arm's mean with exit 0.
"""
from __future__ import annotations

import json

import pytest

from baselines.cli import main
from baselines.core.records import RunRecord
from tests.test_reader_rules import both_fail, write


def lines(n: int = 6) -> list[str]:
    """Runner-shaped lines (orjson's form) of two arms over three seeds."""
    import orjson

    out = []
    for arm in ("A", "B"):
        for seed in range(n // 2):
            record = RunRecord(workload="w", arm=arm, seed=seed, spend={"tokens": 100}, reward=0.25 * seed,
                               budget={"tokens": 100}, trace=[{"spend": {"tokens": 50}, "best": 0.1}])
            out.append(orjson.dumps(record.to_json()).decode())
    return out


REPEATS = [
    ('"reward":', ',"reward":0.0}', "reward"),       # a top-level field again, at the end
    ('"arm":', ',"arm":"B"}', "arm"),
    ('"seed":', ',"seed":7}', "seed"),
    ('"schema":', ',"schema":"costmatch.run/1"}', "schema"),
]


@pytest.mark.parametrize("needle, tail, key", REPEATS)
def test_a_repeated_top_level_key_is_refused_by_both_readers(tmp_path, needle, tail, key):
    text = lines()
    assert needle in text[2]
    text[2] = text[2][:-1] + tail
    path = write(tmp_path, "\n".join(text) + "\n")
    message = both_fail(path, rf"r\.jsonl:3: the key \"{key}\" appears twice in one JSON object")
    assert str(path) in message


@pytest.mark.parametrize("old, new, key", [
    ('"spend":{"tokens":100}', '"spend":{"tokens":100,"tokens":1}', "tokens"),            # a spend unit
    ('"budget":{"tokens":100}', '"budget":{"tokens":100, "tokens":100}', "tokens"),       # same value, spaced
    ('"best":0.1}', '"best":0.1,"best":0.9}', "best"),                                    # inside a trace entry
    ('"arm":"A"', '"arm":"A","\\u0061rm":"B"', "arm"),                                   # one key, escaped
])
def test_a_repeated_nested_or_escaped_key_is_refused_by_both_readers(tmp_path, old, new, key):
    text = lines()
    assert old in text[0]
    text[0] = text[0].replace(old, new, 1)
    both_fail(write(tmp_path, "\n".join(text) + "\n"), rf"r\.jsonl:1: the key \"{key}\" appears twice")


def test_lines_in_another_writers_form_are_still_read(tmp_path):
    """Spaces, another key order and escapes take the exact check, and pass it."""
    text = [json.dumps(json.loads(x), indent=None, ensure_ascii=True) for x in lines()]
    text[1] = text[1].replace('"arm": "A"', '"\\u0061rm": "A"')
    path = write(tmp_path, "\n".join(text) + "\n")
    from baselines import read_records
    from baselines.analysis.tables.table import RunTable

    assert len(read_records(path)) == 6 and len(RunTable.read([path])) == 6


def test_compare_and_run_exit_2_on_a_repeated_key(tmp_path, capsys):
    text = lines()
    text[4] = text[4][:-1] + ',"reward":0.0}'
    path = write(tmp_path, "\n".join(text) + "\n")
    before = path.read_bytes()
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("appears twice in one JSON object (a reader would keep only the last); remove one of "
                        "the two") and len(err.splitlines()) == 1
    assert path.read_bytes() == before
