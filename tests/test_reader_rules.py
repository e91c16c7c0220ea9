"""One reader rule for every results file: the bulk reader (RunTable.read) and the line reader
(read_records) give the same rows, values and errors, and every bad input is one line naming
file:line, the field and the fix (the reader audit: joined and wrapped lines, "schema": null,
rewards outside their own reward_range, date-like strings, a file given twice, pipes, and
messages that named no fix or quoted Python values)."""
from __future__ import annotations

import json
import os
import re
import stat
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baselines.analysis.tables.table as table_mod
import baselines.analysis.tables.table_lines as lines_mod
from baselines import InputError, read_records
from baselines.cli import main
from baselines.analysis.tables.table import RunTable
from tests.sizes import examples


def rec(arm="A", seed=0, reward=0.5, **extra) -> dict:
    return {"workload": "w", "arm": arm, "seed": seed, "budget": {"rollouts": 10}, "spend": {"rollouts": 10},
            "reward": reward, **extra}


def line(obj) -> str:
    return obj if isinstance(obj, str) else json.dumps(obj)


def write(tmp_path, text: str | bytes, name="r.jsonl"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def _plain(frame):
    frame = frame.copy()
    for c in ("workload", "budget", "arm"):
        frame[c] = frame[c].astype(str)
    return frame.sort_values(["workload", "budget", "arm", "seed"]).reset_index(drop=True)


def frames_equal(a: RunTable, b: RunTable) -> None:
    fa, fb = _plain(a.frame), _plain(b.frame)
    assert sorted(fa.columns) == sorted(fb.columns)
    for c in fa.columns:
        assert list(fa[c].fillna(-1)) == list(fb[c].fillna(-1)), c
    assert a.budgets == b.budgets and a.units == b.units
    assert (a.traces or None) == (b.traces or None)


def outcome(read, path):
    try:
        return "ok", read(path)
    except InputError as exc:
        assert "\n" not in str(exc)
        return "error", str(exc)


def agree(path):
    """Both readers (and the table reader forced line by line) give the same table or the same error."""
    bulk = outcome(lambda p: RunTable.read([p]), path)
    line_reader = outcome(lambda p: RunTable.from_records(read_records(p)), path)
    assert bulk[0] == line_reader[0], (bulk[1], line_reader[1])
    if bulk[0] == "ok":
        frames_equal(bulk[1], line_reader[1])
    else:
        assert bulk[1] == line_reader[1]
    return bulk


def both_fail(path, pattern: str) -> str:
    """Both readers refuse `path` with the same one-line message matching `pattern`."""
    messages = []
    for read in (read_records, lambda p: RunTable.read([p])):
        with pytest.raises(InputError) as info:
            read(path)
        messages.append(str(info.value))
    assert messages[0] == messages[1], messages
    assert "\n" not in messages[0]
    assert re.search(pattern, messages[0]), messages[0]
    return messages[0]


@pytest.fixture
def count_slow(monkeypatch):
    """How many blocks went line by line (the bulk checks refused them)."""
    seen = []
    real = table_mod._slow_chunk
    monkeypatch.setattr(table_mod, "_slow_chunk", lambda *a: seen.append(1) or real(*a))
    return seen


# -- 1. rows are lines: joined and wrapped runs ------------------------------------------------
def test_cat_of_a_file_without_final_newline_is_the_same_error_in_every_verb(tmp_path, capsys):
    """d1a: `cat a b` where a lacks its final newline joins two runs; b's blank line used to cancel the
    count, so compare accepted what report refused."""
    a = "\n".join(line(rec("A", s, 0.1 * s)) for s in range(4))
    b = "\n".join(line(rec("B", s, 0.1 * s + 0.05)) for s in range(4)) + "\n\n"
    path = write(tmp_path, a + b, "all.jsonl")
    message = both_fail(path, r"all\.jsonl:4: two runs on one line \(the second starts at column \d+\); "
                              r"put each run on its own line")
    for argv in (["compare", str(path), "--json"], ["report", str(path)],
                 ["check", str(path), "--baseline", "A", "--candidate", "B", "--margin", "0.1"]):
        capsys.readouterr()
        assert main(argv) == 2, argv
        assert capsys.readouterr().err.strip() == f"costmatch: {message}"


def test_a_joined_line_is_named_not_a_later_duplicate(tmp_path):
    """d1b: the bulk reader misnumbered rows after the join and reported a duplicate at the wrong line."""
    lines = [rec("A", 0), line(rec("A", 1)) + line(rec("B", 0)), rec("B", 1), rec("B", 2), rec("B", 1), ""]
    path = write(tmp_path, "\n".join(line(x) for x in lines) + "\n")
    both_fail(path, r"r\.jsonl:2: two runs on one line")


def test_a_joined_line_and_a_wrapped_run_are_named(tmp_path):
    """d1c: one record wrapped onto two lines and two records on one line cancel without any blank line."""
    runs = [line(rec(a, s, 0.1 * s)) for a in "AB" for s in range(4)]
    lines = [runs[0], runs[1] + runs[2], *runs[3:5], runs[5].replace('"seed"', '\n"seed"'), *runs[6:]]
    both_fail(write(tmp_path, "\n".join(lines) + "\n"), r"r\.jsonl:2: two runs on one line")


def test_a_wrapped_run_alone_is_named(tmp_path):
    runs = [line(rec("A", s)) for s in range(4)]
    text = "\n".join([runs[0], runs[1].replace('"seed"', '\n"seed"'), *runs[2:]]) + "\n"
    both_fail(write(tmp_path, text), r"r\.jsonl:2: not valid JSON: the line ends at column \d+ before its object "
                                     r"closes \(a run cut short, or wrapped over two lines\); put each whole run on one "
                                     r"line$")


def test_blank_indented_and_crlf_lines_are_still_read_in_bulk_with_the_right_line_numbers(tmp_path, count_slow):
    """The line rule costs the ordinary shapes nothing: blank lines (also whitespace-only), indented
    lines and CRLF ends keep the bulk path, and a duplicate names the true lines."""
    body = [line(rec("A", 0)), "", "   ", "  " + line(rec("A", 1)) + "  ", "\t", line(rec("A", 2)) + " \t"]
    path = write(tmp_path, "\r\n".join(body) + "\r\n\r\n")
    table = RunTable.read(path)
    assert not count_slow and len(table) == 3
    frames_equal(table, RunTable.from_records(read_records(path)))
    dup = write(tmp_path, "\n".join(body + ["", line(rec("A", 1, 0.9))]) + "\n", "dup.jsonl")
    with pytest.raises(InputError, match=r"dup\.jsonl:8: duplicate run .* first seen at .*dup\.jsonl:4;"):
        RunTable.read(dup)
    assert not count_slow


def test_line_numbers_stay_true_across_blocks_with_blank_lines(tmp_path, monkeypatch):
    lines = [line(rec("A", s)) if s % 5 else "" for s in range(60)] + [line(rec("A", 7, 0.1))]
    path = write(tmp_path, "\n".join(lines) + "\n")
    for size in (64, 700, 1 << 20):
        monkeypatch.setattr(lines_mod, "BLOCK_BYTES", size)
        with pytest.raises(InputError, match=r"r\.jsonl:61: duplicate run .* first seen at .*r\.jsonl:8;"):
            RunTable.read(path)


def test_blocks_are_whole_lines_and_a_viewed_block_is_never_written_over(tmp_path, monkeypatch):
    """read_blocks reads every block into one reused buffer (issue 38): the blocks still join to the file,
    each ends at a line end, lines longer than a block come whole, and a block the caller still views
    when it asks for the next keeps its bytes (the next comes in a new buffer)."""
    text = "".join(f"{'x' * (n * 37 % 300)}{n}\n" for n in range(400)) + "no final newline"
    path = tmp_path / "blocks.jsonl"
    path.write_bytes(text.encode())
    for size in (16, 64, 1000, 1 << 20):
        monkeypatch.setattr(lines_mod, "BLOCK_BYTES", size)
        blocks = [bytes(b) for b in lines_mod.read_blocks(path)]
        assert b"".join(blocks) == text.encode()
        assert all(b.endswith(b"\n") for b in blocks[:-1]) and not blocks[-1].endswith(b"\n")
        assert b"".join(bytes(b) for b in lines_mod.read_blocks(path, offset=150)) == text.encode()[150:]
        views, copies = [], []
        for block in lines_mod.read_blocks(path):
            views.append(np.frombuffer(block, dtype=np.uint8))   # a view held past the next block
            copies.append(bytes(block))
        assert [v.tobytes() for v in views] == copies == blocks


@st.composite
def mutated_files(draw):
    """Good lines with the accidents that move rows off lines: joins, wraps, blank and indented
    lines, CRLF, a missing final newline."""
    lines = [line(rec(draw(st.sampled_from("AB")), s, draw(st.sampled_from([0.5, None, 1]))))
             for s in range(draw(st.integers(1, 8)))]
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["join", "wrap", "blank", "indent", "dup"]))
        j = draw(st.integers(0, len(lines) - 1))
        if kind == "join" and j + 1 < len(lines):
            lines[j] = lines[j] + draw(st.sampled_from(["", " "])) + lines.pop(j + 1)
        elif kind == "wrap" and lines[j].startswith("{"):
            cut = lines[j].find(", ")
            lines[j] = lines[j][:cut + 1] + "\n" + lines[j][cut + 2:] if cut > 0 else lines[j]
        elif kind == "blank":
            lines.insert(j, draw(st.sampled_from(["", " ", "\t "])))
        elif kind == "indent":
            lines[j] = "  " + lines[j]
        elif kind == "dup":
            lines.insert(j, lines[j])
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from([newline, ""]))


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated_files())
def test_joined_wrapped_and_blank_lines_get_one_answer_from_both_readers(tmp_path, text):
    agree(write(tmp_path, text))


# -- 2. "schema": null ---------------------------------------------------------------------------
def test_schema_null_is_refused_by_both_readers(tmp_path, capsys):
    lines = [rec("A", 0, schema=None)] + [rec(a, s, 0.1 * s, schema="costmatch.run/1") for a in "AB" for s in (1, 2)]
    path = write(tmp_path, "".join(line(x) + "\n" for x in lines))
    message = both_fail(path, r"^.*r\.jsonl:1: field 'schema' is null; write \"costmatch\.run/1\" or leave the "
                              r"field out$")
    assert main(["compare", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"costmatch: {message}"


def test_schema_left_out_on_some_lines_is_read_in_bulk(tmp_path, count_slow):
    """pyarrow reads an absent key as null too: lines without `schema` beside lines with it stay bulk."""
    lines = [rec("A", s, schema="costmatch.run/1") if s % 2 else rec("A", s) for s in range(10)]
    path = write(tmp_path, "".join(line(x) + "\n" for x in lines))
    table = RunTable.read(path)
    assert not count_slow and len(table) == 10
    frames_equal(table, RunTable.from_records(read_records(path)))


# -- 3. a reward outside its own line's reward_range --------------------------------------------
def test_reward_outside_its_reward_range_is_an_input_error(tmp_path, capsys):
    """d3: B's rewards 1.2-1.6 under reward_range [0, 1] were read silently and its mean printed as 1.000."""
    rows = []
    for s in range(5):
        rows.append(rec("A", s, 0.90 + 0.01 * s, reward_range=[0, 1]))
        rows.append(rec("B", s, round(1.2 + 0.1 * s, 2), reward_range=[0, 1]))
    path = write(tmp_path, "".join(line(x) + "\n" for x in rows))
    message = both_fail(path, r"r\.jsonl:2: reward 1\.2 is outside the line's reward_range \[0, 1\]; "
                              r"fix the range or the reward$")
    assert main(["compare", str(path), "--json"]) == 2
    assert capsys.readouterr().err.strip() == f"costmatch: {message}"


@pytest.mark.parametrize("extra", [
    {"reward": 1, "reward_range": [0, 1]},              # the bounds are inside
    {"reward": 0.0, "reward_range": [0.0, 1.0]},
    {"reward": None, "reward_range": [0, 1]},           # no score: nothing to check
    {"reward": 0.5, "dev_reward": 7, "reward_range": [0, 1]},  # dev_reward is not checked
    {"reward": 5, "reward_range": [1, 0]},              # malformed ranges are ignored, as before
    {"reward": 5, "reward_range": [0]},
    {"reward": 5, "reward_range": [0, None]},
    {"reward": 5, "reward_range": [False, True]},
    {"reward": 5, "reward_range": "0,1"},
    {"reward": 5, "reward_range": [0, 10 ** 400]},
])
def test_rewards_inside_or_without_a_usable_range_are_accepted_alike(tmp_path, extra):
    path = write(tmp_path, line(rec("A", 0) | extra) + "\n" + line(rec("A", 1)) + "\n")
    kind, _ = agree(path)
    assert kind == "ok"


def test_reward_below_the_range_and_the_bulk_check_in_a_later_block(tmp_path, monkeypatch):
    rows = [rec("A", s, 0.5, reward_range=[0, 1]) for s in range(40)] + [rec("A", 40, -0.25, reward_range=[0, 1])]
    path = write(tmp_path, "".join(line(x) + "\n" for x in rows))
    monkeypatch.setattr(lines_mod, "BLOCK_BYTES", 900)
    both_fail(path, r"r\.jsonl:41: reward -0\.25 is outside the line's reward_range \[0, 1\]")


# -- 4. strings pyarrow would read as dates -------------------------------------------------------
def test_date_like_strings_read_as_the_line_reader_reads_them(tmp_path):
    """d4: an error message, a unit word, an instance or a provenance field that looks like an ISO
    date became a pyarrow timestamp: the error summary, the unit words and the code differed."""
    rows = []
    for a in "AB":
        for s in range(3):
            d = rec(a, s, None if (a, s) == ("A", 0) else 0.1 * s, unit_nouns={"rollouts": "2024-06-01"},
                    instance="2024-06-01T12:00:00", provenance={"costmatch": "2024-06-01", "arm_module": "12:00:00",
                                                                "workload_module": None})
            if (a, s) == ("A", 0):
                d["error"] = {"type": "Deadline", "message": "2024-06-01 12:00:00"}
            rows.append(d)
    path = write(tmp_path, "".join(line(x) + "\n" for x in rows))
    table = RunTable.read(path)
    frames_equal(table, RunTable.from_records(read_records(path)))
    frame = table.frame
    assert frame["error"].iloc[0] == "Deadline: 2024-06-01 12:00:00"
    assert frame["nouns"].iloc[0] == '{"rollouts": "2024-06-01"}'
    assert frame["instance"].iloc[0] == "2024-06-01T12:00:00"
    assert frame["code"].iloc[0] == "2024-06-01|12:00:00|None"


def test_a_provenance_number_that_turns_float_in_a_block_keeps_its_text(tmp_path):
    """pyarrow makes 1 and 1.5 one float column, so the 1 would read back as "1.0"."""
    rows = [rec("A", 0, provenance={"costmatch": 1, "arm_module": "a"}),
            rec("A", 1, provenance={"costmatch": 1.5, "arm_module": "a"}),
            rec("A", 2, provenance={"costmatch": {"v": 1}, "arm_module": "a"}),
            rec("A", 3, provenance={"costmatch": 2, "arm_module": True})]
    for chosen in ([0, 1], [0, 3], [2], [3]):
        path = write(tmp_path, "".join(line(rows[i]) + "\n" for i in chosen))
        table = RunTable.read(path)
        frames_equal(table, RunTable.from_records(read_records(path)))
    path = write(tmp_path, "".join(line(rows[i]) + "\n" for i in (0, 1)))
    assert list(RunTable.read(path).frame["code"]) == ["1|a|None", "1.5|a|None"]


def test_date_like_params_stay_in_bulk(tmp_path, count_slow):
    """params' values are not read by the bulk reader, so a date there does not cost the fast path."""
    path = write(tmp_path, "".join(line(rec("A", s, params={"data": "2024-06-01"})) + "\n" for s in range(5)))
    frames_equal(RunTable.read(path), RunTable.from_records(read_records(path)))
    assert not count_slow


# -- 5. the same file twice -----------------------------------------------------------------------
def test_the_same_file_given_twice_is_one_line_naming_it(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    path = write(out, "".join(line(rec(a, s)) + "\n" for a in "AB" for s in range(3)), "results.jsonl")
    monkeypatch.chdir(tmp_path)
    assert main(["compare", "out/results.jsonl", "out/results.jsonl"]) == 2
    assert capsys.readouterr().err.strip() == \
        "costmatch: out/results.jsonl: is given twice; pass each results file once"
    assert main(["report", "out/results.jsonl", "./out/../out/results.jsonl"]) == 2
    assert capsys.readouterr().err.strip() == ("costmatch: ./out/../out/results.jsonl: is given twice (also as "
                                               "out/results.jsonl); pass each results file once")
    assert main(["check", str(path), "--baseline", "A", "--candidate", "B", "--margin", "0.1",
                 "--against", "out/results.jsonl"]) == 2
    assert "is given twice" in capsys.readouterr().err


# -- 6. messages that name the fix, in JSON's words ---------------------------------------------
OK = line(rec("A", 0))

MESSAGES = [
    (b"\xef\xbb\xbf" + OK.encode(),
     r":1: saved with a byte-order mark \(BOM\) before this line; save the file as UTF-8 without BOM$"),
    (b"\xff\xfe" + OK.encode("utf-16-le"), r":1: saved as UTF-16 .*; save the file as UTF-8 without BOM$"),
    ((OK + "\r" + line(rec("A", 1)) + "\r").encode(),
     r":1: not valid JSON: the line ends are CR only \(\\r\), so several runs read as one line; convert the "
     r"line ends to LF \(\\n\)$"),
    (OK.replace('"seed": 0', '"seed": 18446744073709551616').encode(),
     r":1: field 'seed' is 18446744073709551616, which is beyond a 64-bit integer; use a seed from -2\^63 to "
     r"2\^63-1$"),
    (OK.replace('"seed": 0', '"seed": 18446744073709551615').encode(), r"which is beyond a 64-bit integer"),
    (OK.replace('"seed": 0', '"seed": -9223372036854775809').encode(),
     r"field 'seed' is -9223372036854775809, which is beyond a 64-bit integer"),
    (OK.replace('"seed": 0', '"seed": 99999999999999999999999').encode(), r"which is beyond a 64-bit integer"),
    (OK.replace('"reward": 0.5', '"reward": ' + "1" * 5000).encode(),
     r":1: a number of 5000 digits at column \d+ is longer than any field takes; fix the writer$"),
    (OK.replace('"A"', '"A\tB"').encode(),
     r":1: not valid JSON \(a tab \(U\+0009\) inside a string at column \d+\); write it escaped as \\t$"),
    (OK.replace('"spend": {"rollouts": 10}', '"spend": null').encode(),
     r":1: field 'spend' must be an object of unit -> number \(null is not allowed\)$"),
    (OK.replace('"spend": {"rollouts": 10}', '"spend": [1, true]').encode(),
     r":1: field 'spend' must be an object of unit -> number, got \[1, true\]$"),
    (OK.replace('"spend": {"rollouts": 10}, ', '').encode(), r":1: field 'spend' is missing; give an object"),
    (OK.replace('"seed": 0, ', '').encode(), r":1: field 'seed' is missing; give an integer"),
    (OK.replace('"seed": 0', '"seed": null').encode(), r":1: field 'seed' is null; give an integer"),
    (OK.replace('"arm": "A", ', '').encode(), r":1: field 'arm' is missing; give a non-empty string$"),
    (OK.replace('"arm": "A"', '"arm": null').encode(), r":1: field 'arm' is null; give a non-empty string$"),
    (OK.replace('"seed": 0', '"seed": true').encode(), r":1: field 'seed' must be an integer, got true$"),
    (OK.replace('"seed": 0', '"seed": "x"').encode(), r':1: field \'seed\' must be an integer, got "x"$'),
    (OK.replace('"reward": 0.5', '"reward": "0.5"').encode(), r':1: field \'reward\' must be a number or null, got "0.5"$'),
    (OK.replace('"budget": {"rollouts": 10}', '"budget": {"rollouts": -10}').encode(),
     r":1: field 'budget.rollouts' is negative \(-10\); a budget cannot be negative$"),
    (OK.replace('"spend": {"rollouts": 10}', '"spend": {"rollouts": -1}').encode(),
     r":1: field 'spend.rollouts' is negative \(-1\); spend cannot be negative$"),
    (OK.replace('"reward": 0.5', '"reward": NaN').encode(), r":1: field 'reward' is NaN, which is not finite"),
    (b"[1, 2]", r":1: a line must be a JSON object \(one run\), got an array$"),
    (b"null", r":1: a line must be a JSON object \(one run\), got null$"),
    (OK.replace('"workload": "w"', '"schema": "costmatch.run/2", "workload": "w"').encode(),
     r':1: field \'schema\' is "costmatch.run/2"; this costmatch reads "costmatch.run/1"'),
    (OK.replace('"arm": "A"', '"arm": ""').encode(), r':1: field \'arm\' must be a non-empty string, got ""$'),
]


@pytest.mark.parametrize("data, pattern", MESSAGES, ids=[f"message{i}" for i in range(len(MESSAGES))])
def test_messages_name_the_problem_and_the_fix_in_both_readers(tmp_path, data, pattern):
    message = both_fail(write(tmp_path, data + b"\n"), pattern)
    assert " at at " not in message and "sys.set_int_max_str_digits" not in message
    assert not re.search(r"\bNone\b|\bTrue\b|\bFalse\b|'[^']*' ?[;,)]?$|got '", message.split(": ", 1)[1]), message
    assert len(message) < 300


def test_duplicate_names_values_as_json(tmp_path):
    path = write(tmp_path, OK + "\n" + OK + "\n")
    both_fail(path, r':2: duplicate run \(workload="w", budget=\{"rollouts":10\}, arm="A", seed=0\) first seen at')


def test_long_integers_and_long_fractions_read_alike(tmp_path):
    """Integer literals past 64 bits (orjson reads them as floats) and 20-digit fractions: both
    readers agree; a seed past 64 bits is named exactly (see MESSAGES)."""
    rows = [rec("A", 0, 18446744073709551616, extra_id=123456789012345678901234567890),
            rec("A", 1, 0.00012345678901234567)]
    path = write(tmp_path, "".join(line(x) + "\n" for x in rows))
    assert agree(path)[0] == "ok"
    assert read_records(path)[1].reward == 0.00012345678901234567


# -- 7. pipes ---------------------------------------------------------------------------------------
def _fifo_with(tmp_path, data: bytes, name="pipe"):
    path = tmp_path / name
    os.mkfifo(path)

    def feed():
        with open(path, "wb") as handle:
            handle.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return path, thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_read_like_the_file(tmp_path, capsys):
    data = "".join(line(rec(a, s, 0.1 * s + (a == "B") * 0.05)) + "\n" for a in "AB" for s in range(6)).encode()
    path = write(tmp_path, data)
    assert main(["compare", str(path), "--json"]) == 0
    from_file = capsys.readouterr().out
    pipe, thread = _fifo_with(tmp_path, data)
    assert main(["compare", str(pipe), "--json"]) == 0
    thread.join(10)
    assert capsys.readouterr().out == from_file.replace(str(path), str(pipe))
    for read in (lambda p: RunTable.read(p), lambda p: RunTable.from_records(read_records(p))):
        pipe.unlink()
        pipe, thread = _fifo_with(tmp_path, data)
        frames_equal(read(pipe), RunTable.read(path))
        thread.join(10)


def test_a_device_is_not_a_results_file(capsys):
    device = "/dev/zero"
    if not (os.path.exists(device) and stat.S_ISCHR(os.stat(device).st_mode)):
        pytest.skip("no character device to try")
    assert main(["compare", device]) == 2
    assert capsys.readouterr().err.strip() == \
        "costmatch: /dev/zero: is a device, not a results file; pass a results.jsonl (or pipe one in)"


def test_a_missing_file_and_a_folder_keep_their_messages(tmp_path, capsys):
    assert main(["compare", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such results file" in capsys.readouterr().err
    assert main(["compare", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


# -- 8. one path, not a list ------------------------------------------------------------------------
def test_run_table_read_takes_one_path_as_read_records_does(tmp_path, monkeypatch):
    path = write(tmp_path, "".join(line(rec("A", s)) + "\n" for s in range(3)), "results.jsonl")
    whole = RunTable.read([path])
    frames_equal(RunTable.read(path), whole)
    monkeypatch.chdir(tmp_path)
    frames_equal(RunTable.read("results.jsonl"), whole)
    assert len(read_records("results.jsonl")) == 3


# -- the readers agree on a mixed corpus (all rules at once) ----------------------------------------
def test_equivalence_on_one_file_per_rule(tmp_path):
    cases = {
        "joined": line(rec("A", 0)) + line(rec("A", 1)) + "\n\n",
        "schema-null": line(rec("A", 0, schema=None)) + "\n",
        "range": line(rec("A", 0, 2, reward_range=[0, 1])) + "\n",
        "dates": line(rec("A", 0, error="2024-06-01")) + "\n" + line(rec("A", 1)) + "\n",
        "bom": "\ufeff" + line(rec("A", 0)) + "\n",
    }
    kinds = {name: agree(write(tmp_path, text, f"{name}.jsonl"))[0] for name, text in cases.items()}
    assert kinds == {"joined": "error", "schema-null": "error", "range": "error", "dates": "ok", "bom": "error"}
    assert np.isnan(RunTable.read(tmp_path / "dates.jsonl").frame["reward_lo"]).all()
