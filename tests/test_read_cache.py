"""The column sidecar (issue 38): a read through it always equals a cold parse, and only new lines are parsed.

Every test compares a read through the sidecar with ``cache=False`` (the
whole file parsed, no sidecar touched): the table's columns, dtypes,
budgets, units and traces, or the one-line error. Files are aged
(`age`: an old mtime, so a later change always moves it) where a test
needs the sidecar written; an unaged file is "racy" and never cached.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from baselines.analysis.tables import table as table_module, table_cache, table_order
from baselines.analysis.tables.table import RunTable
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.core.records import budget_key
from tests.sizes import examples


@pytest.fixture(autouse=True)
def small_files_cached(monkeypatch):
    """Cache the tests' small files (the real threshold keeps files under 1 MiB out of it), and hash 32 bytes
    at each end of the held part, not 64 KiB: an edit in the middle is then seen by the stamps or not at all."""
    monkeypatch.setattr(table_cache, "MIN_BYTES", 0)
    monkeypatch.setattr(table_cache, "EDGE", 32)
    monkeypatch.delenv(table_cache.ENV, raising=False)


@pytest.fixture
def parsed(monkeypatch) -> list[int]:
    """Bytes handed to the parser, one entry per read call (what a read through the sidecar avoids)."""
    counts: list[int] = []
    real = table_module.read_blocks

    def counting(path, offset=0):
        counts.append(0)
        for block in real(path, offset):
            counts[-1] += len(block)
            yield block
    monkeypatch.setattr(table_module, "read_blocks", counting)
    return counts


def line(arm="A", seed=0, reward=0.5, tokens=100, **extra) -> str:
    record = {"workload": "w", "arm": arm, "seed": seed, "budget": {"tokens": 100},
              "spend": {"tokens": tokens, "calls": 3}, "reward": reward, **extra}
    return json.dumps(record, separators=(",", ":"))


def runs(n=8, start=0) -> list[str]:
    return [line(arm="AB"[i % 2], seed=i // 2, reward=round(0.1 * (i % 7), 2)) for i in range(start, start + n)]


def age(path: Path, seconds: int = 100) -> None:
    """Set the file's mtime in the past: then any later change moves it (see table_cache.Stamp.racy)."""
    t = os.stat(path).st_mtime_ns - seconds * 10**9
    os.utime(path, ns=(t, t))


def write(path: Path, text: str, aged: bool = True) -> Path:
    path.write_text(text)
    if aged:
        age(path)
    return path


def outcome(path: Path, cache: bool = True, keep_last: bool = False):
    """The table's full contents, or the error's one line."""
    try:
        table = RunTable.read(path, keep_last=keep_last, cache=cache)
    except InputError as exc:
        return ("error", str(exc))
    return ("table", table)


def assert_same(cached, cold) -> None:
    assert cached[0] == cold[0], (cached, cold)
    if cold[0] == "error":
        assert cached[1] == cold[1]
        return
    a, b = cached[1], cold[1]
    pd.testing.assert_frame_equal(a.frame, b.frame, check_exact=True)
    assert list(a.frame.columns) == list(b.frame.columns)
    assert json.dumps(a.budgets, sort_keys=True) == json.dumps(b.budgets, sort_keys=True)
    assert a.units == b.units
    assert json.dumps(a.traces) == json.dumps(b.traces)  # NaN (kept by the line reader) equal to itself


def check(path: Path, **kw) -> tuple:
    """Read through the sidecar and cold; assert they agree; return the cached outcome."""
    cached = outcome(path, **kw)
    assert_same(cached, outcome(path, cache=False, **kw))
    return cached


def sidecar(path: Path) -> Path:
    return table_cache.sidecar_path(path)


def test_a_second_read_parses_nothing_and_equals_a_cold_parse(tmp_path, parsed):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    first = outcome(path)
    assert sidecar(path).is_file() and parsed == [path.stat().st_size]
    second = outcome(path)
    assert parsed[1] == 0  # nothing after the held part: not one line parsed again
    assert_same(second, first)
    assert_same(second, outcome(path, cache=False))


def test_one_byte_edited_in_the_middle_is_seen(tmp_path, parsed):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    before = outcome(path)
    data = bytearray(path.read_bytes())
    middle = data.index(b'"reward":0.3')
    data[middle + len('"reward":0.')] = ord("9")  # 0.3 -> 0.9, same size
    path.write_bytes(bytes(data))
    after = check(path)
    assert not after[1].frame["reward"].equals(before[1].frame["reward"])  # the edit is in the table


def test_an_edit_that_keeps_size_and_mtime_but_not_ctime_is_seen(tmp_path):
    """`cp -p`, `touch -r`: the mtime put back as it was; the ctime cannot be."""
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    info = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b'"reward":0.3', b'"reward":0.8', 1))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert check(path)[1].frame["reward"].max() == 0.8


def test_truncation_is_seen(tmp_path):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    age(path)
    assert check(path)[0] == "table"  # (the torn half line is the reader's to judge, cached or not)


def test_truncation_to_whole_lines_then_regrowth_is_seen(tmp_path):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    write(path, "\n".join(runs(3)) + "\n")
    assert len(check(path)[1]) == 3
    write(path, "\n".join(runs(3) + runs(9, start=3)) + "\n")
    assert len(check(path)[1]) == 12


@pytest.mark.parametrize("how", ["rename", "in place"])
def test_a_replacement_of_equal_size_is_seen(tmp_path, how):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    other = path.read_text().replace('"arm":"A"', '"arm":"C"')
    assert len(other) == path.stat().st_size
    if how == "rename":
        write(tmp_path / "new.jsonl", other)
        os.replace(tmp_path / "new.jsonl", path)
    else:
        write(path, other)
    assert set(check(path)[1].frame["arm"]) == {"B", "C"}


@pytest.mark.parametrize("damage", ["flip a payload byte", "flip a header byte", "cut short", "garbage",
                                    "empty", "a folder"])
def test_a_corrupt_sidecar_is_rebuilt_never_trusted(tmp_path, damage, parsed):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    side = sidecar(path)
    data = bytearray(side.read_bytes())
    if damage == "flip a payload byte":
        data[-40] ^= 0x01
    elif damage == "flip a header byte":
        data[30] ^= 0x20
    elif damage == "cut short":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = bytearray(os.urandom(len(data)))
    else:
        data = bytearray()
    if damage == "a folder":
        side.unlink()
        side.mkdir()
    else:
        side.write_bytes(bytes(data))
    check(path)
    assert parsed[1] == path.stat().st_size  # parsed whole again
    if damage != "a folder":
        outcome(path)
        assert parsed[-1] == 0  # and the rebuilt sidecar serves the next read


def test_a_sidecar_of_other_columns_is_not_used(tmp_path):
    """A sound sidecar whose columns have the wrong types (made by other code) is a miss, not a table."""
    import pyarrow as pa

    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    stamp = table_cache.Stamp.of(path)
    held = table_cache.load(path, stamp)
    assert held is not None
    # copies: the held columns may be views of the mapped sidecar, which is rewritten in place below
    wrong = {name: ((np.array(values[0]), values[1]) if isinstance(values, tuple) else np.array(values))
             for name, values in held.frame.items() if name != "reward"}
    wrong["reward"] = np.array([str(v) for v in held.frame["reward"]], dtype=object)
    del held
    table = table_cache._table({k: (pd.Categorical.from_codes(v[0], v[1]) if isinstance(v, tuple) else v)
                                for k, v in wrong.items()}, None, None)
    assert table.schema.field("reward").type == pa.string()
    with open(sidecar(path), "rb") as handle:
        head = handle.read(table_cache._HEAD.size)
        meta = handle.read(table_cache._HEAD.unpack(head)[1])
    table_cache._write(sidecar(path), meta, table)
    assert table_cache.load(path, stamp) is None
    check(path)


def test_a_folder_that_cannot_take_the_sidecar_changes_nothing_but_speed(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = write(folder / "r.jsonl", "\n".join(runs()) + "\n")
    real_open = open

    def refuse(file, mode="r", *args, **kwargs):  # a read-only folder, also when the tests run as root
        if "w" in mode and Path(file).parent == folder:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, mode, *args, **kwargs)
    monkeypatch.setattr("builtins.open", refuse)
    os.chmod(folder, 0o555)
    try:
        check(path)
        check(path)
        assert sorted(p.name for p in folder.iterdir()) == ["r.jsonl"]  # no sidecar, no temporary left
    finally:
        os.chmod(folder, 0o755)


def test_no_cache_and_the_environment_variable_neither_read_nor_write(tmp_path, parsed, monkeypatch, capsys):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    size = path.stat().st_size
    args = ["compare", str(path), "--fixed", "tokens", "--json"]
    assert main(args + ["--no-cache"]) == 0
    cold = capsys.readouterr().out
    assert not sidecar(path).exists() and parsed[-1] == size
    monkeypatch.setenv(table_cache.ENV, "off")
    outcome(path)
    assert not sidecar(path).exists() and parsed[-1] == size
    monkeypatch.delenv(table_cache.ENV)
    outcome(path)
    assert sidecar(path).exists()                               # the default keeps one
    assert main(args) == 0 and parsed[-1] == 0                  # and reads it
    assert capsys.readouterr().out == cold
    assert main(args + ["--no-cache"]) == 0 and parsed[-1] == size  # a sidecar there is not read either
    monkeypatch.setenv(table_cache.ENV, "off")
    outcome(path)
    assert parsed[-1] == size
    monkeypatch.delenv(table_cache.ENV)
    main(["check", str(path), "--fixed", "tokens", "--baseline", "A", "--candidate", "B", "--margin", "0.1",
          "--no-cache"])
    assert parsed[-1] == size


def test_appended_lines_alone_are_parsed(tmp_path, parsed):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    tail = "\n".join(runs(4, start=8)) + "\n"
    with open(path, "a") as handle:
        handle.write(tail)
    age(path)
    assert len(check(path)[1]) == 12
    assert parsed[-2] == len(tail)  # the read through the sidecar parsed the new lines only
    outcome(path)
    assert parsed[-1] == 0          # and kept them: the next read parses nothing


@pytest.mark.parametrize("bad, words", [
    (line(seed=99)[:-1] + ',"reward":0.0}', "appears twice in one JSON object"),
    (line(seed=99, reward="0.5"), "reward"),
    (line(seed=99).replace('"reward":0.5', '"reward":1e999'), "reward"),
    ("[" * 70 + "]" * 70, "nested"),
    (line(arm="A", seed=0), "duplicate run"),
])
def test_strict_checks_still_fire_on_an_appended_line(tmp_path, bad, words):
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    outcome(path)
    with open(path, "a") as handle:
        handle.write(bad + "\n")
    age(path)
    kind, message = check(path)
    assert kind == "error" and words in message and "r.jsonl:9" in message
    if words == "duplicate run":
        assert "first seen at" in message and message.split("first seen at")[1].split(";")[0].endswith("r.jsonl:1")


def test_line_numbers_in_errors_survive_the_sidecar(tmp_path):
    """Blank lines shift rows from lines: a duplicate found later names the right lines of the held part."""
    text = runs(3)[0] + "\n\n\n" + "\n".join(runs(3)[1:]) + "\n\n"
    path = write(tmp_path / "r.jsonl", text)
    outcome(path)
    with open(path, "a") as handle:
        handle.write(runs(3)[2] + "\n")
    age(path)
    kind, message = check(path)
    assert kind == "error" and "r.jsonl:7: duplicate" in message and message.endswith("r.jsonl:5; remove one line or pass --keep-last")
    assert len(check(path, keep_last=True)[1]) == 3


def test_an_unterminated_last_line_is_parsed_each_time_and_completed_by_an_append(tmp_path, parsed):
    whole = "\n".join(runs(5))
    path = write(tmp_path / "r.jsonl", whole[:-10])  # the last line cut short: the reader's rule decides
    first = check(path)
    write(path, whole + "\n" + runs(1, start=5)[0])  # completed, one more unterminated line after it
    assert check(path)[0] == "table"
    assert first[0] == "error" or len(first[1]) == 4


def test_a_file_just_written_gets_no_sidecar(tmp_path):
    """Written less than RACY_NS ago with mtime = ctime: a change in the same tick could not be seen."""
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n", aged=False)
    check(path)
    assert not sidecar(path).exists()


def test_rich_columns_round_trip(tmp_path, parsed):
    """Traces, items, errors, provenance, stop reasons, unit words, instances, reward ranges, several budgets."""
    rich = []
    for i in range(12):
        extra = {"trace": [{"spend": {"tokens": 10 * j}, "best": 0.1 * j} for j in range(1, 3)],
                 "items": [{"id": f"q{k}", "reward": 0.5 * (k % 2), "spend": {"tokens": k}} for k in range(2)],
                 "stop_reason": "budget:tokens" if i % 3 else "done", "reward_range": [0, 1],
                 "provenance": {"costmatch": "0.1.0", "arm_module": f"{i % 2:016x}"},
                 "unit_nouns": {"calls": "function evaluations"}, "instance": f"f{i % 3}",
                 "partial": ["calls"] if i % 4 == 0 else []}
        if i % 5 == 0:
            extra["error"] = {"type": "ValueError", "message": "boom"}
        text = json.loads(line(arm="AB"[i % 2], seed=i // 2, reward=0.25, **extra))
        text["budget"] = {"tokens": 100 if i < 6 else 200.5}
        rich.append(json.dumps(text))
    path = write(tmp_path / "r.jsonl", "\n".join(rich) + "\n")
    cold = outcome(path, cache=False)
    assert cold[0] == "table" and cold[1].traces is not None and "items" in cold[1].frame
    outcome(path)
    assert sidecar(path).exists()
    assert_same(outcome(path), cold)
    assert parsed[-1] == 0


def test_values_only_the_line_reader_keeps_round_trip(tmp_path):
    """A trace point's own keys may hold NaN or a 100-digit integer (the line reader keeps them as written)."""
    lines = [line(seed=i, trace=[{"spend": {"tokens": 5}, "best": 0.5, "note": "x"}]) for i in range(3)]
    lines.append(line(seed=3)[:-1] + ',"trace":[{"spend":{"tokens":5},"best":null,"note":NaN,"big":' + "9" * 100
                 + "}]}")
    path = write(tmp_path / "r.jsonl", "\n".join(lines) + "\n")
    cold = outcome(path, cache=False)
    assert cold[0] == "table" and cold[1].traces[3][0]["big"] == int("9" * 100)
    outcome(path)
    assert sidecar(path).exists()
    cached = outcome(path)
    assert_same(cached, cold)
    assert str(cached[1].traces[3][0]["note"]) == "nan"


OPS = st.lists(st.tuples(st.sampled_from(["append", "append blank", "append cut", "edit", "truncate", "replace",
                                          "append repeat"]),
                         st.integers(0, 10**6), st.booleans()), min_size=1, max_size=6)


@settings(deadline=None, max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, rewrite_after=st.sampled_from([0, 1, 16]))
def test_any_sequence_of_appends_edits_and_truncations_reads_as_a_cold_parse(tmp_path, ops, rewrite_after,
                                                                               monkeypatch):
    """After every step the read through the sidecar equals a cold parse (errors included); REWRITE_AFTER 0
    keeps every appended line in the tail sidecar, 1 rewrites once they are as many bytes as the sidecar's."""
    monkeypatch.setattr(table_cache, "REWRITE_AFTER", rewrite_after)
    path = tmp_path / "prop.jsonl"
    for leftover in (path, sidecar(path), tail(path)):
        if leftover.exists():
            leftover.unlink()
    write(path, "\n".join(runs(6)) + "\n")
    check(path)
    seed = 100
    for op, where, aged in ops:
        data = path.read_bytes()
        if op.startswith("append"):
            seed += 1
            added = {"append": line(seed=seed) + "\n", "append blank": "\n",
                     "append cut": line(seed=seed)[: 1 + where % 30],
                     "append repeat": line(seed=seed)[:-1] + ',"seed":1}\n'}[op]
            with open(path, "ab") as handle:
                handle.write(added.encode())
        elif op == "edit" and data:
            i = where % len(data)
            path.write_bytes(data[:i] + bytes([b"0123456789"[where % 10]]) + data[i + 1:])
        elif op == "truncate":
            with open(path, "r+b") as handle:
                handle.truncate(where % (len(data) + 1))
        elif op == "replace":
            write(tmp_path / "other.jsonl", "\n".join(runs(3 + where % 5, start=where % 3)) + "\n", aged=False)
            os.replace(tmp_path / "other.jsonl", path)
        if aged:
            age(path, 1 + where % 1000)
        check(path)


# -- the table's one row order (table_order): what the group split needs, kept through the sidecar ----------------
def mixed_line(workload: str, budget: int, arm: str, seed: int, reward: float = 0.5) -> str:
    record = {"workload": workload, "arm": arm, "seed": seed, "budget": {"tokens": budget},
              "spend": {"tokens": budget - 1, "calls": 3}, "reward": reward}
    return json.dumps(record, separators=(",", ":"))


def split_sorts(table: RunTable) -> bool:
    """Whether `compare`'s group split would sort (and copy every column it reads) for this table."""
    from baselines.analysis.compare.comparing import _GroupSplit
    return _GroupSplit(table.frame).order is not None


def file_rows(path: Path) -> list[tuple]:
    rows = []
    for text in path.read_text().splitlines():
        if text.strip():
            r = json.loads(text)
            rows.append((r["workload"], budget_key(r["budget"]), r["arm"], r["seed"], r["reward"]))
    return sorted(rows)


def table_rows(table: RunTable) -> list[tuple]:
    f = table.frame
    return sorted(zip(f["workload"].astype(str), f["budget"].astype(str), f["arm"].astype(str),
                      f["seed"].tolist(), f["reward"].tolist()))


def test_appended_lines_of_every_group_are_merged_in_the_splits_order(tmp_path, parsed):
    """Lines appended after the held part interleave with it in (workload, budget, arm, seed) order: the read
    merges them in, so the split finds its rows in order (no lexsort, no copy of each column: issue 38).
    Without the merge (rows in line order) `split_sorts` is True here."""
    held = [mixed_line(w, b, a, s) for w in ("w2", "w1") for b in (300, 100) for a in ("B", "A") for s in range(3)]
    path = write(tmp_path / "r.jsonl", "\n".join(held) + "\n")
    first = check(path)
    assert not split_sorts(first[1])
    tail = [mixed_line(w, b, a, s, 0.25) for s in (7, 3) for a in ("C", "A") for w in ("w1", "w3", "w2")
            for b in (100, 200)]
    with open(path, "a") as handle:
        handle.write("\n".join(tail) + "\n")
    age(path)
    after = check(path)
    assert parsed[-2] == len("\n".join(tail) + "\n")   # only the new lines were parsed
    assert not split_sorts(after[1])
    assert table_rows(after[1]) == file_rows(path)
    assert list(after[1].frame["workload"].cat.categories) == ["w1", "w2", "w3"]
    again = check(path)                                 # the sidecar rewritten with the merged rows
    assert parsed[-2] == 0 and not split_sorts(again[1])


def test_the_sidecar_holds_its_rows_in_table_order_with_their_line_numbers(tmp_path):
    lines = [mixed_line("w", 100, a, s) for s in range(4) for a in ("B", "A")]   # seed-major, as a runner writes
    path = write(tmp_path / "r.jsonl", "\n".join(lines) + "\n")
    outcome(path)
    held = table_cache.load(path, table_cache.Stamp.of(path))
    arms, seeds = held.frame["arm"], held.frame["seed"]
    names = [arms[1][c] for c in arms[0]]
    assert list(zip(names, seeds.tolist())) == sorted(zip(names, seeds.tolist()))
    assert held.numbers.tolist() == [2, 4, 6, 8, 1, 3, 5, 7]   # each row still knows its line (errors name it)


def test_a_run_repeated_in_the_held_part_keeps_the_duplicate_rules(tmp_path):
    """A sidecar written by a keep_last read holds a run twice: the first-or-last rule and the lines an error
    names must be those of a cold parse, before and after an append."""
    lines = [mixed_line("w", 100, a, s, r) for s, a, r in ((1, "B", .1), (0, "A", .2), (1, "B", .3), (0, "B", .4))]
    path = write(tmp_path / "r.jsonl", "\n".join(lines) + "\n")
    assert check(path, keep_last=True)[0] == "table"
    kind, message = check(path)
    assert kind == "error" and "r.jsonl:3: duplicate" in message and "r.jsonl:1" in message
    with open(path, "a") as handle:
        handle.write(mixed_line("w", 100, "A", 0, .9) + "\n" + mixed_line("w", 100, "A", 5) + "\n")
    age(path)
    assert check(path, keep_last=True)[1].frame["reward"].tolist() == [0.9, 0.5, 0.4, 0.3]
    assert check(path)[0] == "error"


LABELLED = st.tuples(st.sampled_from(["w1", "w2", "zeta", "alpha"]), st.sampled_from([100, 200, 50]),
                     st.sampled_from(["A", "B", "arm-10", "arm-9", "ü"]),
                     st.one_of(st.integers(0, 40), st.sampled_from([-2**63, 2**63 - 1, -1, 10**12])))


@settings(deadline=None, max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.lists(LABELLED, min_size=1, max_size=12), appends=st.lists(st.lists(LABELLED, min_size=1,
                                                                                     max_size=8), max_size=4),
       aged=st.lists(st.booleans(), min_size=4, max_size=4), rewrite_after=st.sampled_from([0, 1, 16]))
def test_appends_that_interleave_groups_read_as_a_cold_parse_in_the_splits_order(tmp_path, start, appends, aged,
                                                                                  rewrite_after, monkeypatch):
    """Any lines, then appends of any groups, arms and seeds (repeats and seeds at the int64 ends included):
    each read through the sidecar equals a cold parse (or its error), holds the file's runs, and the split
    finds them in order."""
    monkeypatch.setattr(table_cache, "REWRITE_AFTER", rewrite_after)
    path = tmp_path / "interleave.jsonl"
    for leftover in (path, sidecar(path), tail(path)):
        if leftover.exists():
            leftover.unlink()
    write(path, "".join(mixed_line(*key, reward=i / 100) + "\n" for i, key in enumerate(start)))
    steps = [[]] + appends
    for n, batch in enumerate(steps):
        if batch:
            with open(path, "a") as handle:
                handle.write("".join(mixed_line(*key, reward=(n * 10 + i) / 100) + "\n" for i, key in enumerate(batch)))
        if aged[n % len(aged)]:
            age(path, 1 + n)
        for keep_last in (False, True):
            kind, table = check(path, keep_last=keep_last)
            if kind == "table":
                assert not split_sorts(table)
                if not keep_last:
                    assert table_rows(table) == file_rows(path)


def test_a_small_append_goes_to_the_tail_sidecar_until_it_is_worth_a_rewrite(tmp_path, parsed):
    """A few lines after a large held part leave the sidecar as it is (a rewrite copies every column again:
    the first compare after an append cost more than a parse): their rows go to the tail sidecar, so the next
    read parses nothing and needs no digest pass over the held part; once the lines after the sidecar reach
    1/REWRITE_AFTER of it the sidecar is rewritten with them and the tail sidecar removed. Without
    `worth_rewriting` the first read after the small append rewrites the sidecar; without the tail sidecar
    the second read parses the small append again."""
    held = [mixed_line("w", 100, a, s) for s in range(40) for a in ("B", "A")]
    path = write(tmp_path / "r.jsonl", "\n".join(held) + "\n")
    outcome(path)
    before = sidecar(path).read_bytes()
    small = mixed_line("w", 100, "A", 99) + "\n"
    assert len(small) * table_cache.REWRITE_AFTER < path.stat().st_size
    with open(path, "a") as handle:
        handle.write(small)
    age(path)
    table = check(path)[1]
    assert parsed[-2] == len(small) and sidecar(path).read_bytes() == before and tail(path).is_file()
    assert not split_sorts(table) and table_rows(table) == file_rows(path)
    table = check(path)[1]
    assert parsed[-2] == 0 and not split_sorts(table) and table_rows(table) == file_rows(path)
    more = "".join(mixed_line("w", 100, "C", s) + "\n" for s in range(6))
    with open(path, "a") as handle:
        handle.write(more)
    age(path, 200)
    check(path)
    assert parsed[-2] == len(more) and sidecar(path).read_bytes() != before and not tail(path).exists()
    assert not split_sorts(check(path)[1]) and parsed[-2] == 0


def tail(path: Path) -> Path:
    return table_cache.tail_path(path)


def with_tail(tmp_path) -> Path:
    """A file whose sidecar holds 80 lines and whose tail sidecar holds the 2 after them."""
    path = write(tmp_path / "r.jsonl", "".join(mixed_line("w", 100, a, s) + "\n" for s in range(40) for a in "BA"))
    outcome(path)
    with open(path, "a") as handle:
        handle.write(mixed_line("w", 100, "A", 99) + "\n" + mixed_line("w", 100, "B", 98) + "\n")
    age(path)
    outcome(path)
    assert tail(path).is_file()
    return path


@pytest.mark.parametrize("damage", ["flip a payload byte", "cut short", "empty", "a folder"])
def test_a_corrupt_tail_sidecar_costs_only_a_parse_of_its_lines(tmp_path, damage, parsed):
    path = with_tail(tmp_path)
    held_bytes = table_cache._open(sidecar(path))[0]["prefix_bytes"]
    data = bytearray(tail(path).read_bytes())
    if damage == "flip a payload byte":
        data[-40] ^= 0x01
    elif damage == "cut short":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = bytearray()
    if damage == "a folder":
        tail(path).unlink()
        tail(path).mkdir()
    else:
        tail(path).write_bytes(bytes(data))
    kind, table = check(path)
    assert kind == "table" and table_rows(table) == file_rows(path)
    assert parsed[-2] == path.stat().st_size - held_bytes   # the lines after the sidecar, parsed again


def test_a_tail_sidecar_of_an_earlier_sidecar_is_not_used(tmp_path, parsed):
    """The sidecar rewritten since (more lines: its digest and part changed), an old tail sidecar put back."""
    path = with_tail(tmp_path)
    old_tail = tail(path).read_bytes()
    with open(path, "a") as handle:
        handle.write("".join(mixed_line("w", 100, "C", s) + "\n" for s in range(20)))
    age(path, 300)
    check(path)
    assert not tail(path).exists()
    tail(path).write_bytes(old_tail)
    kind, table = check(path)
    assert kind == "table" and table_rows(table) == file_rows(path) and parsed[-2] == 0


@pytest.mark.parametrize("where", ["held part", "tail part"])
def test_an_edit_with_a_tail_sidecar_is_seen(tmp_path, where):
    path = with_tail(tmp_path)
    data = path.read_bytes()
    old, new = (b'"seed":3,', b'"seed":7,') if where == "held part" else (b'"seed":98,', b'"seed":10,')
    at = data.index(old) if where == "held part" else data.rindex(old)
    path.write_bytes(data[:at] + new + data[at + len(old):])   # same size: only the stamps and the digest tell
    age(path, 300)
    kind, message = check(path)
    assert kind == "error" and "duplicate run" in message
    assert check(path, keep_last=True)[0] == "table"


def test_truncation_into_the_tail_sidecars_lines_is_seen(tmp_path):
    path = with_tail(tmp_path)
    last = len(mixed_line("w", 100, "B", 98)) + 1
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size - last)   # the tail sidecar's last line gone
    age(path, 300)
    assert len(check(path)[1]) == 81
    with open(path, "ab") as handle:
        handle.write((mixed_line("w", 100, "C", 1) + "\n").encode())   # and regrown past the old size
        handle.write((mixed_line("w", 100, "C", 2) + "\n").encode())
    age(path, 400)
    assert table_rows(check(path)[1]) == file_rows(path)


@pytest.mark.parametrize("rewrite_after", [0, 16])
def test_a_trace_only_the_line_reader_keeps_survives_rewrites_and_the_tail_sidecar(tmp_path, monkeypatch,
                                                                                  rewrite_after):
    """NaN in a trace point, read back from a sidecar and written again (a rewrite after an append, or the
    tail sidecar): orjson would write it as null. Without `Held.exact` the third read here differs from a
    cold parse (checked)."""
    monkeypatch.setattr(table_cache, "REWRITE_AFTER", rewrite_after)
    nan_trace = ',"trace":[{"spend":{"tokens":5},"best":null,"note":NaN}]}'
    lines = [line(seed=i) for i in range(3)] + [line(seed=3)[:-1] + nan_trace]
    path = write(tmp_path / "r.jsonl", "\n".join(lines) + "\n")
    outcome(path)
    assert sidecar(path).exists()
    appended = [line(seed=10), line(seed=11)[:-1] + nan_trace, line(seed=12), line(seed=13)]
    for k, text in enumerate(appended):
        with open(path, "a") as handle:
            handle.write(text + "\n")
        age(path, 10 + k)
        check(path)
        check(path)
        assert (tail(path) if rewrite_after == 0 else sidecar(path)).exists()
    assert json.dumps(outcome(path)[1].traces).count("NaN") == 2


def test_integer_columns_are_held_narrow_and_read_back_bit_for_bit(tmp_path):
    """Seeds and all-integer spend columns are kept in narrow integer types (a smaller sidecar to write, issue
    38); a column with a fraction, a NaN, -0.0 or a value past int32 stays float64; every read equals a cold
    parse, dtypes included."""
    import pyarrow as pa

    def one(seed, tokens, calls, reward, **extra):
        return json.dumps({"workload": "w", "arm": "A", "seed": seed, "budget": {"tokens": 100},
                           "spend": {"tokens": tokens, "calls": calls, **extra}, "reward": reward})
    cases = {
        "narrow": ([one(s, 100 + s, 3, 0.5) for s in range(6)], "int8", "int32", "int32"),
        "wide": ([one(s * 10**6, 2**31 + s, -0.0 if s == 2 else 3, 0.5) for s in range(6)], "int32", "double",
                 "double"),
        "big seeds": ([one(s * 2**40, 7.5 if s == 1 else 1, s, 0.5) for s in range(6)], "int64", "double", "int32"),
    }
    for name, (lines, seed_type, tokens_type, calls_type) in cases.items():
        path = write(tmp_path / f"{name}.jsonl", "\n".join(lines) + "\n")
        check(path)
        table = table_cache._open(sidecar(path))[2]
        assert (str(table.schema.field("seed").type), str(table.schema.field("spend:tokens").type),
                str(table.schema.field("spend:calls").type)) == (seed_type, tokens_type, calls_type), name
        assert table.schema.field("reward").type == pa.float64()
        cached = check(path)
        assert cached[1].frame["seed"].dtype == np.int64 and cached[1].frame["spend:calls"].dtype == np.float64
        assert np.signbit(cached[1].frame["spend:calls"].to_numpy()).tolist() == [name == "wide" and s == 2
                                                                                  for s in range(6)]


# -- the held part's digest (table_cache.hasher) and the merge of appended rows (table_store.ColumnStore.merged) --
@pytest.fixture
def small_chunks(monkeypatch):
    """The held part read 32 bytes at a time, not 1 MiB: the tests' small files are then read in many pieces."""
    monkeypatch.setattr(table_cache, "_READ", 32)


def _digest(data: bytes) -> int:
    state = table_cache.hasher()
    state.update(data)
    return table_cache.digest_of(state)


@settings(deadline=None, max_examples=examples(100), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_the_digest_of_a_part_is_the_same_however_it_is_fed(small_chunks, tmp_path, data, cuts):
    """The parse feeds its blocks, the check reads the file in its own pieces: both must give the digest of
    the whole part (and a part read short of a truncated file is the digest of what was there)."""
    whole = _digest(data)
    state, at = table_cache.hasher(), 0
    for cut in sorted(c % (len(data) + 1) for c in cuts) + [len(data)]:
        state.update(data[at:cut])
        at = cut
    assert table_cache.digest_of(state) == whole
    path = tmp_path / "d.bin"
    path.write_bytes(data + b"after")
    with open(path, "rb") as handle:
        assert table_cache.digest_of(table_cache.prefix_hasher(handle, len(data))) == whole
    path.write_bytes(data[:len(data) // 2])
    with open(path, "rb") as handle:
        assert table_cache.digest_of(table_cache.prefix_hasher(handle, len(data))) == _digest(data[:len(data) // 2])


def test_every_one_byte_edit_changes_the_digest():
    """Any byte of the part changed to any of several other values, or two bytes far apart, changes it."""
    data = bytes(range(256)) * 2 + b"tail"
    whole = _digest(data)
    for i in range(len(data)):
        for value in {0, 1, 0x80, 0xFF, data[i] ^ 0x01}:
            if value != data[i]:
                assert _digest(data[:i] + bytes([value]) + data[i + 1:]) != whole, (i, value)
    for i, j in ((7, 15), (7, 263), (4, 12), (6, 511)):
        edited = bytearray(data)
        edited[i] ^= 0x80
        edited[j] ^= 0x80
        assert _digest(bytes(edited)) != whole, (i, j)


@settings(deadline=None, max_examples=examples(200))
@given(data=st.binary(min_size=1, max_size=64), at=st.integers(0, 63), new=st.binary(min_size=1, max_size=16))
def test_an_edit_of_the_part_changes_the_digest_and_equal_bytes_keep_it(data, at, new):
    """Equal digests exactly when the bytes are equal (an overwrite at any place, of up to 16 bytes)."""
    at = at % len(data)
    edited = data[:at] + new[:len(data) - at] + data[at + len(new):]
    assert len(edited) == len(data)
    assert (_digest(edited) == _digest(data)) == (edited == data)


@pytest.mark.parametrize("chunks", ["1 MiB", "32 bytes"])
def test_a_one_byte_edit_in_the_middle_plus_an_append_is_seen(tmp_path, parsed, request, chunks):
    """The edges and the stamps cannot tell an edit inside the held part once the file grew: the digest of
    the whole part does, and the file is parsed whole."""
    if chunks == "32 bytes":
        request.getfixturevalue("small_chunks")
    path = write(tmp_path / "r.jsonl", "\n".join(runs(40)) + "\n")
    before = outcome(path)
    data = bytearray(path.read_bytes())
    middle = data.index(b'"reward":0.3', len(data) // 3)
    data[middle + len('"reward":0.')] = ord("9")   # 0.3 -> 0.9, same size, far from either edge
    path.write_bytes(bytes(data) + (line(arm="C", seed=1) + "\n").encode())
    age(path)
    after = check(path)
    assert parsed[-2] == path.stat().st_size   # the whole file parsed again (the cold read is the last)
    assert after[1].frame["reward"].tolist().count(0.9) == before[1].frame["reward"].tolist().count(0.9) + 1


def test_an_old_sidecar_format_is_rebuilt_not_trusted(tmp_path, parsed, monkeypatch):
    """A sidecar made under another FORMAT (another digest than the one now expected) is a miss."""
    path = write(tmp_path / "r.jsonl", "\n".join(runs()) + "\n")
    now = table_cache.FORMAT
    monkeypatch.setattr(table_cache, "FORMAT", now - 1)
    table_cache._maker.cache_clear()
    outcome(path)
    assert table_cache._open(sidecar(path)) is not None
    monkeypatch.setattr(table_cache, "FORMAT", now)
    table_cache._maker.cache_clear()
    assert table_cache.load(path, table_cache.Stamp.of(path)) is None
    check(path)
    assert parsed[-2] == path.stat().st_size and table_cache.load(path, table_cache.Stamp.of(path)) is not None


def test_an_append_is_merged_into_the_held_rows_without_sorting_them(tmp_path, parsed, monkeypatch):
    """After an append (tail sidecar or not) the held rows are not sorted again: each new row is placed by a
    search among them (`table_order.merge`); `order`, which sorts, is not called. Columns only the new rows
    have (all default values) or only the held rows have read as in a cold parse."""
    held = [mixed_line(w, 100, a, s) for w in ("w2", "w1") for a in ("B", "A") for s in range(30)]
    path = write(tmp_path / "r.jsonl", "\n".join(held) + "\n")
    outcome(path)
    more = [mixed_line("w1", 100, "A", 100), mixed_line("w0", 100, "Z", 3),
            json.dumps({"workload": "w2", "arm": "B", "seed": 31, "budget": {"tokens": 100}, "reward": 0.1,
                        "spend": {"tokens": 9, "calls": 3, "steps": 1}, "partial": ["tokens"],
                        "stop_reason": "budget"})]
    with open(path, "a") as handle:
        handle.write("\n".join(more) + "\n")
    sorts = []
    real = table_order.order
    monkeypatch.setattr(table_order, "order", lambda columns: sorts.append(len(columns["seed"])) or real(columns))
    first = outcome(path)          # racy: no tail sidecar written
    age(path)
    second = outcome(path)         # writes the tail sidecar
    third = outcome(path)          # reads it
    assert sorts == [] and parsed[-1] == 0 and tail(path).is_file()
    cold = outcome(path, cache=False)
    for cached in (first, second, third):
        assert_same(cached, cold)
    assert not split_sorts(third[1]) and table_rows(third[1]) == file_rows(path)


@pytest.mark.parametrize("repeat", [False, True])
def test_files_read_together_merge_into_the_first_files_held_rows_as_a_cold_parse(tmp_path, repeat):
    """Several files: the first one's held rows are merged with its appended lines and every later file's
    rows (new workloads, arms and budgets among them); a run repeated across files is the same error."""
    first = write(tmp_path / "a.jsonl", "".join(mixed_line(w, 100, a, s) + "\n" for w in ("w2", "w1")
                                                for a in ("B", "A") for s in range(10)))
    outcome(first)
    with open(first, "a") as handle:
        handle.write(mixed_line("w1", 100, "C", 4) + "\n")
    second = write(tmp_path / "b.jsonl", "".join(mixed_line(w, b, a, s) + "\n" for w, b, a, s in
                                                 (("w0", 50, "A", 1), ("w2", 100, "A", 99), ("w3", 100, "D", 0),
                                                  ("w1", 100, "B", 3 if repeat else 30))))
    got = [outcome([first, second], cache=cache, keep_last=keep_last) for cache in (True, False)
           for keep_last in (False, True)]
    assert_same(got[0], got[2])
    assert_same(got[1], got[3])
    assert got[0][0] == ("error" if repeat else "table")
    assert not split_sorts(got[1][1])


def test_the_digest_a_continued_read_writes_is_that_of_the_bytes_it_holds(tmp_path):
    """A read after an append continues the check's digest over the new lines (a tail sidecar), then a read
    after more lines continues the tail's: each sidecar's recorded digest is that of the file's first
    `prefix_bytes` bytes as they are, or the next read would throw it away (or worse, keep a wrong one)."""
    path = write(tmp_path / "r.jsonl", "\n".join(runs(40)) + "\n")
    check(path)
    for seed in (1, 2):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line(arm="C", seed=seed) + "\n")
        age(path)
        check(path)
        opened = table_cache._open(table_cache.tail_path(path))
        assert opened is not None, "the appended line went to a tail sidecar"
        meta = opened[0]
        assert meta["digest"] == _digest(path.read_bytes()[:meta["prefix_bytes"]])
        assert meta["prefix_bytes"] == path.stat().st_size
    base = table_cache._open(sidecar(path))[0]
    assert base["digest"] == _digest(path.read_bytes()[:base["prefix_bytes"]])
