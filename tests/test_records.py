import json

import pytest
from hypothesis import given, strategies as st

from baselines import InputError, RunRecord, read_records, write_records
from baselines.records import iter_records

GOOD = {"workload": "w", "arm": "a", "seed": 1, "spend": {"tokens": 10, "calls": None}, "reward": 0.5}


def write_lines(tmp_path, *lines, name="r.jsonl"):
    path = tmp_path / name
    path.write_text("".join((l if isinstance(l, str) else json.dumps(l)) + "\n" for l in lines))
    return path


def test_contract_example_reads(tmp_path):
    line = {"schema": "costmatch.run/1", "workload": "search-sim", "arm": "cost-efficient", "seed": 3,
            "params": {"cost_exponent": 1.0}, "budget": {"tokens": 200000},
            "spend": {"rollouts": 41, "calls": 77, "prompt_tokens": 120511, "completion_tokens": 80022,
                      "tokens": 200533, "usd": None, "seconds": 1.92},
            "reward": 0.71, "dev_reward": 0.74,
            "trace": [{"spend": {"tokens": 5120, "calls": 1, "rollouts": 2}, "best": 0.31}],
            "stop_reason": "budget:tokens", "error": None}
    [r] = read_records(write_lines(tmp_path, line))
    assert r.spend["usd"] is None and r.spend["tokens"] == 200533
    assert r.identity() == ("search-sim", "tokens=200000", "cost-efficient", 3)
    assert r.trace[0]["best"] == 0.31


@pytest.mark.parametrize("line, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ({**GOOD, "arm": ""}, "field 'arm' must be a non-empty string"),
    ({k: v for k, v in GOOD.items() if k != "workload"}, "field 'workload'"),
    ({**GOOD, "seed": "1"}, "field 'seed' must be an integer"),
    ({**GOOD, "seed": True}, "field 'seed' must be an integer"),
    ({k: v for k, v in GOOD.items() if k != "reward"}, "field 'reward' is missing"),
    ('{"workload": "w", "arm": "a", "seed": 1, "spend": {}, "reward": NaN}', "field 'reward' is nan"),
    ('{"workload": "w", "arm": "a", "seed": 1, "spend": {"tokens": Infinity}, "reward": 1}',
     "field 'spend.tokens' is inf"),
    ({**GOOD, "spend": {"tokens": -3}}, "'spend.tokens' is negative"),
    ({**GOOD, "spend": [1]}, "field 'spend' must be an object"),
    ({**GOOD, "budget": {"tokens": "many"}}, "'budget.tokens' must be a number"),
    ({**GOOD, "partial": "tokens"}, "field 'partial' must be a list"),
    ({**GOOD, "schema": "costmatch.run/9"}, "field 'schema'"),
    ({**GOOD, "trace": [{"best": 1}]}, "trace\\[0\\]"),
])
def test_bad_lines_name_file_line_and_field(tmp_path, line, words):
    path = write_lines(tmp_path, GOOD | {"seed": 0}, line)
    with pytest.raises(InputError, match=words) as info:
        read_records(path)
    assert str(info.value).startswith(f"{path}:2: ")
    assert "\n" not in str(info.value)


def test_duplicate_identity_is_an_error_unless_keep_last(tmp_path):
    path = write_lines(tmp_path, GOOD, GOOD | {"reward": 0.9})
    with pytest.raises(InputError, match=r":2: duplicate run .* first seen at .*:1"):
        read_records(path)
    [r] = read_records(path, keep_last=True)
    assert r.reward == 0.9


def test_same_seed_at_another_budget_is_another_run(tmp_path):
    path = write_lines(tmp_path, GOOD, GOOD | {"budget": {"tokens": 5}})
    assert len(read_records(path)) == 2


def test_unknown_fields_are_kept_through_a_round_trip(tmp_path):
    path = write_lines(tmp_path, GOOD | {"future_field": {"x": 1}})
    [r] = read_records(path)
    out = tmp_path / "out.jsonl"
    write_records(out, [r])
    assert json.loads(out.read_text())["future_field"] == {"x": 1}


def test_tokens_derived_from_both_parts_only(tmp_path):
    path = write_lines(tmp_path, GOOD | {"spend": {"prompt_tokens": 3, "completion_tokens": 4}},
                       GOOD | {"seed": 2, "spend": {"prompt_tokens": 3, "completion_tokens": None}})
    a, b = read_records(path)
    assert a.spend["tokens"] == 7
    assert b.spend.get("tokens") is None


def test_blank_lines_and_concatenated_files(tmp_path):
    p1 = write_lines(tmp_path, GOOD, "", name="a.jsonl")
    p2 = write_lines(tmp_path, GOOD | {"seed": 2}, name="b.jsonl")
    assert [r.seed for r in read_records([p1, p2])] == [1, 2]


def test_missing_file_is_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read results file"):
        list(iter_records(tmp_path / "nope.jsonl"))


units = st.sampled_from(["rollouts", "calls", "tokens", "usd", "seconds", "my_unit"])
spend_values = st.one_of(st.none(), st.integers(0, 10**9), st.floats(0, 1e9, allow_nan=False))


@given(arm=st.text(min_size=1), seed=st.integers(-2**40, 2**40),
       spend=st.dictionaries(units, spend_values, max_size=6),
       reward=st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)),
       partial=st.lists(units, max_size=2, unique=True))
def test_records_survive_write_read_round_trip(tmp_path_factory, arm, seed, spend, reward, partial):
    if spend.get("tokens") is None:
        spend.pop("prompt_tokens", None)  # tokens are derived only when absent
    record = RunRecord("w", arm, seed, spend, reward, budget={"calls": 3}, partial=tuple(partial))
    path = tmp_path_factory.mktemp("rt") / "r.jsonl"
    write_records(path, [record])
    [back] = read_records(path)
    assert back == record
    for unit, value in spend.items():
        assert (back.spend[unit] is None) == (value is None)


# -- the bulk reader (RunTable.read) must agree with the line-by-line reader -----------------
from baselines.table import RunTable  # noqa: E402


@pytest.mark.parametrize("line, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ({**GOOD, "arm": ""}, "field 'arm' must be a non-empty string"),
    ({k: v for k, v in GOOD.items() if k != "reward"}, "field 'reward' is missing"),
    ('{"workload": "w", "arm": "a", "seed": 1, "spend": {}, "reward": NaN}', "field 'reward' is nan"),
    ({**GOOD, "spend": {"tokens": -3}}, "'spend.tokens' is negative"),
    ({**GOOD, "seed": 1.5}, "field 'seed' must be an integer"),
    ({**GOOD, "reward": "0.5"}, "field 'reward' must be a number"),
    ({**GOOD, "schema": "costmatch.run/9"}, "field 'schema'"),
])
def test_bulk_reader_reports_the_same_line_errors(tmp_path, line, words):
    path = write_lines(tmp_path, GOOD | {"seed": 0}, line)
    with pytest.raises(InputError, match=words) as info:
        RunTable.read([path])
    assert str(info.value).startswith(f"{path}:2: ")


def test_bulk_reader_duplicate_names_both_lines(tmp_path):
    path = write_lines(tmp_path, GOOD, "", GOOD | {"reward": 0.9})
    with pytest.raises(InputError, match=r":3: duplicate run .* first seen at .*:1;"):
        RunTable.read([path])
    assert len(RunTable.read([path], keep_last=True)) == 1


def _plain(frame):
    frame = frame.copy()
    for c in ("workload", "budget", "arm"):
        frame[c] = frame[c].astype(str)
    return frame.sort_values(["workload", "budget", "arm", "seed"]).reset_index(drop=True)


def _frames_equal(a: RunTable, b: RunTable) -> None:
    fa, fb = _plain(a.frame), _plain(b.frame)
    cols = sorted(fa.columns)
    assert cols == sorted(fb.columns)
    for c in cols:
        assert list(fa[c].fillna(-1)) == list(fb[c].fillna(-1)), c
    assert a.budgets == b.budgets and a.units == b.units


@given(rows=st.lists(st.fixed_dictionaries({
    "arm": st.sampled_from(["a", "b|c", "ü"]), "seed": st.integers(0, 30),
    "spend": st.dictionaries(st.sampled_from(["tokens", "calls", "prompt_tokens", "completion_tokens", "x"]),
                             spend_values, max_size=4),
    "reward": st.one_of(st.none(), st.floats(-5, 5, allow_nan=False)),
    "budget": st.sampled_from([{}, {"tokens": 1000}, {"tokens": 1000, "calls": 7}]),
    "partial": st.sampled_from([[], ["tokens"]]),
}), min_size=1, max_size=25, unique_by=lambda r: (r["arm"], r["seed"], str(r["budget"]))))
def test_bulk_and_line_readers_build_the_same_table(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("bulk") / "r.jsonl"
    path.write_text("".join(json.dumps({"workload": "w", **r}) + "\n" for r in rows))
    _frames_equal(RunTable.read([path]), RunTable.from_records(read_records(path)))
