import json

import pytest
from hypothesis import given, strategies as st

from baselines import InputError, RunRecord, read_records, write_records
from baselines.core.records import iter_records

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
    assert r.identity() == ("search-sim", '{"tokens":200000}', "cost-efficient", 3)
    assert r.trace[0]["best"] == 0.31


@pytest.mark.parametrize("line, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ({**GOOD, "arm": ""}, "field 'arm' must be a non-empty string"),
    ({k: v for k, v in GOOD.items() if k != "workload"}, "field 'workload'"),
    ({**GOOD, "seed": "1"}, "field 'seed' must be an integer"),
    ({**GOOD, "seed": True}, "field 'seed' must be an integer"),
    ({k: v for k, v in GOOD.items() if k != "reward"}, "field 'reward' is missing"),
    ('{"workload": "w", "arm": "a", "seed": 1, "spend": {}, "reward": NaN}', "field 'reward' is NaN"),
    ('{"workload": "w", "arm": "a", "seed": 1, "spend": {"tokens": Infinity}, "reward": 1}',
     "field 'spend.tokens' is Infinity"),
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
    with pytest.raises(InputError, match="no such results file"):
        list(iter_records(tmp_path / "nope.jsonl"))


units = st.sampled_from(["rollouts", "calls", "tokens", "usd", "seconds", "my_unit"])
spend_values = st.one_of(st.none(), st.integers(0, 10**9), st.floats(0, 1e9, allow_nan=False))


@given(arm=st.text(min_size=1, max_size=200), seed=st.integers(-2**40, 2**40),
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
from baselines.analysis.tables.table import RunTable  # noqa: E402


@pytest.mark.parametrize("line, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ({**GOOD, "arm": ""}, "field 'arm' must be a non-empty string"),
    ({k: v for k, v in GOOD.items() if k != "reward"}, "field 'reward' is missing"),
    ('{"workload": "w", "arm": "a", "seed": 1, "spend": {}, "reward": NaN}', "field 'reward' is NaN"),
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


# -- total readers: every hostile input is a one-line error, decided by one rule (issue 18, item 4) --
from baselines.core.json_line import MAX_DEPTH  # noqa: E402


def _deep(depth: int) -> str:
    return json.dumps(GOOD)[:-1] + ', "params": {"x": ' + "[" * (depth - 2) + "]" * (depth - 2) + "}}"


HOSTILE = [
    (_deep(100_000), "nested 100000 levels deep"),
    (_deep(MAX_DEPTH + 1), f"nested {MAX_DEPTH + 1} levels deep"),
    (json.dumps(GOOD).replace('"a"', '"\\ud800"'), "unpaired UTF-16 surrogate"),
    (json.dumps(GOOD).replace('"a"', '"x\\udc00y"'), "unpaired UTF-16 surrogate"),
    (json.dumps({**GOOD, "seed": 2**63}), "field 'seed' is 9223372036854775808, which is beyond a 64-bit integer"),
    (json.dumps(GOOD).replace('"seed": 1', '"seed": ' + "9" * 400), "field 'seed' is an integer of 400 digits"),
    (json.dumps(GOOD).replace('"reward": 0.5', '"reward": ' + "9" * 400), "'reward' is an integer of 400 digits"),
    (json.dumps(GOOD).replace('"reward": 0.5', '"reward": ' + "9" * 5000), r"a number of 5000 digits at column \d+ is longer than any field takes; fix the writer$"),
    (json.dumps({**GOOD, "spend": {"tokens": 1.7e308}}), r"'spend.tokens' is 1.7e\+308, beyond"),
    (json.dumps({**GOOD, "reward": 1e101}), r"'reward' is 1e\+101, beyond"),
    (json.dumps({**GOOD, "budget": {"tokens": 10**16}}), "'budget.tokens' is 10000000000000000, beyond"),
    (json.dumps({**GOOD, "trace": [{"best": 0.1}]}), r"trace\[0\]' must be an object with 'spend'"),
    (json.dumps({**GOOD, "budget": []}), "field 'budget' must be an object"),
    (json.dumps({**GOOD, "params": 3}), "field 'params' must be an object"),
    (json.dumps({**GOOD, "partial": ["tokens", None]}), "field 'partial' must be a list of unit names"),
    (json.dumps({**GOOD, "spend": {"": 3}}), "empty unit name"),
    (json.dumps({**GOOD, "arm": "x" * 200, "seed": "s"}), 'field \'seed\' must be an integer, got "s"'),
    (json.dumps({**GOOD, "arm": "x" * 10_000}), "field 'arm' is 10,000 characters long; names are at most 200"),
    (json.dumps({**GOOD, "seed": "y" * 10_000}), r'got "yyyy.*\.\.\." \(10002 characters\)$'),
    (json.dumps(GOOD) + "\r" + json.dumps(GOOD), r"not valid JSON: the line ends are CR only .*convert the line ends to LF"),
]


@pytest.mark.parametrize("line, words", HOSTILE, ids=[f"hostile{i}" for i in range(len(HOSTILE))])
def test_hostile_lines_are_one_line_errors_in_both_readers(tmp_path, line, words):
    path = write_lines(tmp_path, GOOD | {"seed": 0}, line)
    messages = []
    for read in (read_records, lambda p: RunTable.read([p])):
        with pytest.raises(InputError, match=words) as info:
            read(path)
        assert str(info.value).startswith(f"{path}:2: ") and "\n" not in str(info.value)
        assert len(str(info.value)) < 400
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_latin1_byte_is_an_error_naming_the_byte(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(json.dumps(GOOD | {"seed": 0}).encode() + b"\n" + json.dumps(GOOD).replace('"a"', '"caf\\u00e9"')
                     .encode().replace(b"\\u00e9", b"\xe9") + b"\n")
    for read in (read_records, lambda p: RunTable.read([p])):
        with pytest.raises(InputError, match=r":2: not UTF-8 text \(byte 0xe9 at column"):
            read(path)


@pytest.mark.parametrize("obj", [
    GOOD | {"seed": 2**63 - 1}, GOOD | {"seed": -2**63}, GOOD | {"reward": 1e100},
    GOOD | {"spend": {"tokens": 10**15}}, GOOD | {"arm": "\U0001F600"},
    GOOD | {"params": {"x": json.loads("[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3))}},
])
def test_values_at_the_limits_are_accepted_by_both_readers(tmp_path, obj):
    path = write_lines(tmp_path, obj)
    path.write_text(path.read_text().replace('"\\ud83d\\ude00"', '"\\ud83d\\ude00"'))  # paired escapes are text
    [r] = read_records(path)
    assert len(RunTable.read([path])) == 1
    _frames_equal(RunTable.read([path]), RunTable.from_records([r]))


def test_readers_agree_on_null_budget_units_and_trace_points(tmp_path):
    path = write_lines(tmp_path,
                       GOOD | {"seed": 0, "budget": {"rollouts": None}},
                       GOOD | {"seed": 1, "budget": {"rollouts": None, "tokens": 5}},
                       GOOD | {"seed": 2, "budget": {"tokens": 5}},
                       GOOD | {"seed": 3, "budget": None,
                               "trace": [{"spend": {"tokens": 1, "calls": None}, "reward": None},
                                         {"spend": {"tokens": 2}, "best": 0.5}]})
    records = read_records(path)
    assert [r.budget for r in records] == [{}, {"tokens": 5}, {"tokens": 5}, {}]
    assert records[3].trace == [{"spend": {"tokens": 1}, "best": None}, {"spend": {"tokens": 2}, "best": 0.5}]
    fast, slow = RunTable.read([path]), RunTable.from_records(records)
    _frames_equal(fast, slow)
    assert fast.traces == slow.traces


def test_crlf_files_read_like_lf_files(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(json.dumps(GOOD | {"seed": s}).encode() + b"\r\n" for s in range(3)))
    assert len(read_records(path)) == 3
    _frames_equal(RunTable.read([path]), RunTable.from_records(read_records(path)))


def test_block_boundaries_do_not_change_the_table_or_line_numbers(tmp_path, monkeypatch):
    import baselines.analysis.tables.table_lines as lines_mod

    lines = [GOOD | {"seed": s, "arm": f"a{s % 3}", "budget": {"tokens": 100 + s % 2}} for s in range(40)]
    path = write_lines(tmp_path, *lines[:20], "", *lines[20:], GOOD | {"seed": 5, "arm": "a2", "budget": {"tokens": 101}})
    whole = None
    for size in (50, 333, 1 << 20):
        monkeypatch.setattr(lines_mod, "BLOCK_BYTES", size)
        with pytest.raises(InputError, match=r":42: duplicate run .* first seen at .*:6;"):
            RunTable.read([path])
        table = RunTable.read([path], keep_last=True)
        if whole is not None:
            _frames_equal(table, whole)
        whole = table
    _frames_equal(whole, RunTable.from_records(read_records(path, keep_last=True)))


def _read_in_bulk_blocks(path, block_bytes: int, monkeypatch) -> RunTable:
    """Read `path` in blocks of `block_bytes`; every block must pass the bulk checks (no line-by-line
    fallback), and the table must equal the line reader's."""
    import baselines.analysis.tables.table as table_mod
    import baselines.analysis.tables.table_lines as lines_mod

    monkeypatch.setattr(lines_mod, "BLOCK_BYTES", block_bytes)
    slow = []
    real_slow = table_mod._slow_chunk
    monkeypatch.setattr(table_mod, "_slow_chunk", lambda *a: slow.append(1) or real_slow(*a))
    fast = RunTable.read([path])
    assert not slow, "every block should pass the bulk checks"
    _frames_equal(fast, RunTable.from_records(read_records(path)))
    return fast


def test_later_blocks_that_change_shape_are_read_in_bulk_and_agree(tmp_path, monkeypatch):
    """Blocks that differ in shape (a new field, an int column turning float, a null column getting
    strings, a new unit) are each read in bulk, and the table equals the line reader's."""
    lines = [GOOD | {"seed": s, "spend": {"tokens": 10 + s}} for s in range(30)]
    lines += [GOOD | {"seed": s, "spend": {"tokens": 10.5 + s, "calls": 2}, "error": None} for s in range(30, 60)]
    lines += [GOOD | {"seed": s, "spend": {"tokens": 7}, "error": {"type": "Boom", "message": "x"},
                      "partial": ["tokens"], "note": "extra"} for s in range(60, 90)]
    lines += [GOOD | {"seed": s} for s in range(90, 120)]
    fast = _read_in_bulk_blocks(write_lines(tmp_path, *lines), 1500, monkeypatch)
    assert fast.frame["failed"].sum() == 30 and fast.frame["partial:tokens"].sum() == 30


def test_provenance_nouns_and_reward_ranges_read_in_bulk_equal_the_line_reader(tmp_path, monkeypatch):
    """The bulk reader words these per distinct value and by array work; each row must still read as
    the line reader reads it (malformed ranges are NaN, a null object is None, an absent field too)."""
    import numpy as np

    provs = [{"costmatch": "0.1", "arm_module": "a1", "workload_module": "w1", "worker": "pid-1"},
             {"costmatch": "0.1", "arm_module": "a2", "workload_module": "w1", "worker": "pid-2"},
             {"costmatch": "0.1", "arm_module": "a1"}, None, {}]
    nouns = [{"calls": "function evaluations"}, {"calls": ""}, None, {}, {"calls": "evals", "tokens": "words"}]
    ranges = [[0, 1], [1, 0], [0.5, 2.5], [0], None, [0, None], [0.5, 0.5], [0, 1, 2]]  # each holds its reward 0.5
    lines = []
    for seed in range(80):
        line = GOOD | {"seed": seed, "reward_range": ranges[seed % len(ranges)]}
        if seed % 7:
            line["provenance"] = provs[seed % len(provs)]
        if seed % 3:
            line["unit_nouns"] = nouns[seed % len(nouns)]
        lines.append(line)
    fast = _read_in_bulk_blocks(write_lines(tmp_path, *lines), 3000, monkeypatch)
    code = list(fast.frame["code"][:8])
    assert code[1] == "0.1|a2|w1" and code[2] == "0.1|a1|None" and code[3] is None and code[7] is None
    lo, hi = fast.frame["reward_lo"].to_numpy(), fast.frame["reward_hi"].to_numpy()
    assert np.array_equal(lo[:8], [0.0, np.nan, 0.5, np.nan, np.nan, np.nan, 0.5, np.nan], equal_nan=True)
    assert np.array_equal(hi[:8], [1.0, np.nan, 2.5, np.nan, np.nan, np.nan, 0.5, np.nan], equal_nan=True)
    assert fast.frame["nouns"].iloc[1] is None and fast.frame["nouns"].iloc[4] == '{"calls": "evals", "tokens": "words"}'


# -- property tests: random bytes and random JSON give the same answer from both readers ---------
from hypothesis import HealthCheck, settings  # noqa: E402
from tests.sizes import examples  # noqa: E402


def _outcome(read, path):
    try:
        return "ok", read(path)
    except InputError as exc:
        assert "\n" not in str(exc)
        return "error", str(exc)


def _agree(path):
    kind_fast, fast = _outcome(lambda p: RunTable.read([p]), path)
    kind_slow, slow = _outcome(lambda p: RunTable.from_records(read_records(p)), path)
    assert kind_fast == kind_slow, (fast, slow)
    if kind_fast == "ok":
        _frames_equal(fast, slow)
        assert (fast.traces or None) == (slow.traces or None) or fast.traces == slow.traces
    else:
        assert fast == slow


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_random_bytes_never_crash_either_reader(tmp_path, data):
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    _agree(path)


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.binary(max_size=40), good=st.integers(0, 3), suffix=st.binary(max_size=40))
def test_random_bytes_around_good_lines_never_crash(tmp_path, prefix, good, suffix):
    path = tmp_path / "r.jsonl"
    body = b"".join(json.dumps(GOOD | {"seed": s}).encode() + b"\n" for s in range(good))
    path.write_bytes(prefix + body + suffix)
    _agree(path)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=8)
FIELDS = ["workload", "arm", "seed", "spend", "reward", "dev_reward", "budget", "params", "partial", "trace",
          "stop_reason", "error", "schema", "extra", "reward_range", "provenance", "unit_nouns", "instance"]
good_values = {
    "spend": st.dictionaries(st.sampled_from(["tokens", "calls", "prompt_tokens", "completion_tokens"]),
                             st.none() | st.integers(0, 10**6) | st.floats(0, 1e6), max_size=3),
    "budget": st.none() | st.dictionaries(st.sampled_from(["tokens", "calls"]), st.none() | st.integers(0, 5), max_size=2),
    "trace": st.none() | st.lists(st.fixed_dictionaries(
        {"spend": st.dictionaries(st.sampled_from(["tokens", "calls"]), st.none() | st.integers(0, 9), max_size=2)},
        optional={"best": st.none() | st.floats(-1, 1), "reward": st.none() | st.floats(-1, 1)}), max_size=3),
    "partial": st.none() | st.lists(st.sampled_from(["tokens", "calls"]), max_size=2, unique=True),
    "schema": st.sampled_from(["costmatch.run/1", None]),
    "reward_range": st.sampled_from([[0, 1], [0.0, 0.4], [0.6, 1.0], [1, 0], [0], None]),
    "provenance": st.none() | st.fixed_dictionaries({}, optional={
        "costmatch": st.sampled_from(["0.1", 1, 1.5, "2024-06-01"]), "arm_module": st.none() | st.text(max_size=3)}),
    "unit_nouns": st.none() | st.dictionaries(st.sampled_from(["tokens", "calls"]),
                                              st.sampled_from(["words", "2024-06-01", ""]), max_size=2),
    "instance": st.none() | st.sampled_from(["f1-i1", 3, "12:00:00"]),
}


@st.composite
def record_lines(draw):
    obj = {"workload": "w", "arm": draw(st.sampled_from(["a", "b"])), "seed": draw(st.integers(0, 4)),
           "spend": {"tokens": 3}, "reward": 0.5}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)):
        if name in good_values and draw(st.booleans()):
            obj[name] = draw(good_values[name])
        elif draw(st.booleans()):
            obj[name] = draw(json_values)
        else:
            obj.pop(name, None)
    return json.dumps(obj, allow_nan=False)


@settings(max_examples=examples(120), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(record_lines(), min_size=1, max_size=6),
       ends=st.lists(st.sampled_from(["\n", "\n", "\n", "", "\n\n", " \n", "\r\n"]), min_size=6, max_size=6))
def test_random_json_records_get_the_same_answer_from_both_readers(tmp_path, lines, ends):
    """Also with lines joined (a missing newline), blank lines and CRLF between them."""
    path = tmp_path / "r.jsonl"
    path.write_text("".join(line + end for line, end in zip(lines, ends)), newline="")
    _agree(path)


def test_long_trace_lines_read_alike_and_deep_lines_never_reach_pyarrow(tmp_path, monkeypatch):
    import baselines.analysis.tables.table_arrow as arrow_mod

    trace = [{"spend": {"tokens": i}, "best": i / 3000} for i in range(3000)]
    path = write_lines(tmp_path, GOOD | {"seed": 0, "trace": trace}, GOOD | {"seed": 1})
    fast = RunTable.read([path])
    _frames_equal(fast, RunTable.from_records(read_records(path)))
    assert fast.traces[0] == trace
    seen = []
    monkeypatch.setattr(arrow_mod, "_arrow_columns", lambda data, ends: seen.append(data) or None)
    deep = write_lines(tmp_path, GOOD | {"seed": 0}, _deep(20_000), name="deep.jsonl")
    with pytest.raises(InputError, match="nested 20000 levels"):
        RunTable.read([deep])
    assert seen == []  # the block was refused before pyarrow saw it


def test_column_store_grows_past_a_short_prediction_and_fills_absent_columns_with_defaults():
    """A first block that predicts too few rows costs a copy, never a wrong row; a column that
    only some blocks have holds NaN / False / None elsewhere, and one no block has is all default."""
    import numpy as np
    import pandas as pd

    from baselines.analysis.tables.table_store import ColumnStore

    store = ColumnStore()
    store.reserve(3)
    store.append({"workload": pd.Categorical(["w"] * 2), "arm": pd.Categorical(["a", "b"]),
                  "budget": pd.Categorical(["{}"] * 2), "seed": np.array([0, 1]), "reward": np.array([0.1, 0.2]),
                  "spend:tokens": np.array([5.0, 6.0])}, 2)
    store.append({"workload": pd.Categorical(["v"] * 3), "arm": pd.Categorical(["a", "c", "c"]),
                  "budget": pd.Categorical(["{}"] * 3), "seed": np.array([2, 3, 4]), "reward": np.array([0.3, 0.4, 0.5]),
                  "failed": np.array([False, True, False]), "partial:tokens": np.array([True, False, False])}, 3)
    frame = store.frame(["tokens"])
    assert list(frame["workload"]) == ["w", "w", "v", "v", "v"] and list(frame["arm"]) == ["a", "b", "a", "c", "c"]
    assert list(frame["seed"]) == [0, 1, 2, 3, 4] and list(frame["reward"]) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert list(frame["spend:tokens"])[:2] == [5.0, 6.0] and np.isnan(frame["spend:tokens"].to_numpy()[2:]).all()
    assert list(frame["failed"]) == [False, False, False, True, False]
    assert list(frame["partial:tokens"]) == [False, False, True, False, False]
    assert np.isnan(frame["reward_lo"].to_numpy()).all() and frame["code"].isna().all() and len(frame) == 5
