"""The text rules of one results line (`core/json_line.py`), pinned rule by rule (issue 44: mutation testing).

Each test is one rule of the module: how a value is quoted in a message (JSON words, long integers
by their length, cut at 60 characters), how a refused line is explained (CR-only line ends, two runs
on a line, a run cut short, a control character, a number too long, the parser's own words), the
nesting depth, and which parser reads a line. The oracles are the messages the module promises (the
line names the problem and the fix) and the documented parser split (orjson fast, the stdlib exact).
"""
from __future__ import annotations

import pytest

from baselines.core.errors import InputError
from baselines.core.json_line import (MAX_DEPTH, _value_problem, dumped, json_depth, loads_line, lone_surrogate,
                                      quote, show)


def refused(line: str) -> str:
    with pytest.raises(InputError) as err:
        loads_line(line, "r.jsonl:3")
    text = str(err.value)
    assert text.startswith("r.jsonl:3: ") and "\n" not in text
    return text[len("r.jsonl:3: "):]


# -- quote: a value of a results line, as JSON, for a message ----------------------------------------
def test_quote_writes_json_words_not_python_ones():
    assert [quote(v) for v in (None, True, False, "x", 1.5, [1, "a"], {"k": None})] == \
        ["null", "true", "false", '"x"', "1.5", '[1, "a"]', '{"k": null}']


def test_quote_keeps_non_ascii_text_as_written():
    """The user's file holds é, not \\u00e9: the message shows what they wrote."""
    assert quote("café") == '"café"'
    assert quote(["ü"]) == '["ü"]'


def test_quote_escapes_a_lone_surrogate_so_the_message_stays_printable():
    text = quote("a\ud800b")
    assert text == '"a\\ud800b"'
    text.encode("utf-8")                                      # printable: no surrogate left in the message


def test_quote_falls_back_to_repr_for_what_json_cannot_write():
    assert quote(b"x") == "b'x'"
    assert quote({1j}) == "{1j}"
    loop: list = []
    loop.append(loop)
    assert quote(loop) == "[[...]]"                           # json refuses the cycle (ValueError)


def test_quote_describes_an_integer_of_30_digits_or_more_by_its_length():
    assert quote(10**29) == "1" + "0" * 29                    # 30 digits: written out
    assert quote(10**30 - 1) == "9" * 30
    assert quote(10**30) == "an integer of 31 digits"
    assert quote(-10**30) == "an integer of 31 digits"
    assert quote(10**40) == "an integer of 41 digits"
    assert quote(10**5000) == "an integer of thousands of digits"   # past str()'s digit limit
    assert quote(True) == "true"                              # a bool is not an integer here


def test_quote_cuts_a_long_value_at_60_characters_and_names_its_length():
    exactly = "a" * 58                                        # 60 characters with its quotes: kept whole
    assert quote(exactly) == f'"{exactly}"'
    long = "b" * 59                                           # 61 characters: cut
    assert quote(long) == '"' + "b" * 54 + '..." (61 characters)'
    numbers = list(range(40))                                 # not a string: no closing quote after the cut
    text = str(numbers)
    assert quote(numbers) == text[:55] + f"... ({len(text)} characters)"


def test_quote_and_show_never_fail_on_a_value_too_large_to_print():
    """Failed before the fix (show): show(10**5000) raised Python's ValueError instead of describing the
    integer, so `costmatch.run(seeds=[10**5000])` ended with 'Exceeds the limit (4300 digits)' in place
    of the seed rule; a list holding such an integer made both quote and show raise."""
    assert show(10**5000) == "an integer of thousands of digits"
    assert show([10**5000]) == "a list too large to print"
    assert quote([10**5000]) == "a list too large to print"
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert show(deep) == "a list too large to print"


@pytest.mark.parametrize("seeds, words", [
    (10**5000, "'seeds' is an integer of thousands of digits, above the limit of"),
    (-10**5000, "got seeds=an integer of thousands of digits (int)"),   # the API's own argument check
    ([10**5000], "seed an integer of thousands of digits is outside 0..2^63-1"),
], ids=["count", "negative", "list"])
def test_a_seed_count_too_long_to_print_gets_the_seed_rule_not_a_python_error(seeds, words):
    """Failed before the fix: costmatch.run(seeds=10**5000) raised ValueError 'Exceeds the limit (4300
    digits)' instead of the seed limit (suite.py wrote the count with an f-string, not `show`); the
    negative count and the list failed before show() itself was fixed."""
    from baselines import api

    with pytest.raises(InputError) as err:
        api.run("os.path:X", ["os.path:Y"], {"tokens": 10}, seeds=seeds)
    assert words in str(err.value)


# -- show: a Python value for a message (suite files, API arguments) ---------------------------------
def test_show_is_repr_cut_at_60_characters():
    assert show("x") == "'x'" and show(None) == "None" and show(True) == "True" and show(2.5) == "2.5"
    exactly = "s" * 58                                        # repr is 60 characters: kept whole
    assert show(exactly) == repr(exactly)
    long = "t" * 100
    assert show(long) == "'" + "t" * 54 + "...' (102 characters)"


def test_show_describes_an_integer_of_30_digits_or_more_by_its_length():
    assert show(10**30 - 1) == "9" * 30
    assert show(10**30) == "an integer of 31 digits"
    assert show(-10**45) == "an integer of 46 digits"


# -- lone_surrogate ----------------------------------------------------------------------------------
def test_lone_surrogate_finds_the_first_bad_string_at_any_depth_key_or_value():
    assert lone_surrogate({"a": ["ok", {"b": "x\udc00"}]}) == "x\udc00"
    assert lone_surrogate({"k\ud800": 1}) == "k\ud800"
    assert lone_surrogate({"a": ["\U0001F600", 1, None, 2.5]}) is None      # a real pair is text


# -- json_depth --------------------------------------------------------------------------------------
def test_json_depth_is_exact_above_the_limit_and_ignores_brackets_in_strings():
    nested = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert json_depth(nested.encode()) == MAX_DEPTH + 1
    in_strings = '{"a": "' + "[{" * 100 + '", "b": ["]]]"]}'
    assert json_depth(in_strings.encode()) == 2
    siblings = "[" + "[]," * 99 + "[]]"                       # 100 lists side by side: two levels
    assert json_depth(siblings.encode()) == 2
    escaped = '{"a": "\\"[[[[' + "[" * 70 + '"}'              # an escaped quote does not end the string
    assert json_depth(escaped.encode()) == 1


def test_json_depth_bounds_an_ordinary_line_by_its_brackets():
    line = b'{"a": [1, {"b": 2}]}'
    assert json_depth(line) == 3
    assert json_depth(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) == MAX_DEPTH


@pytest.mark.parametrize("limit", [MAX_DEPTH - 2, 10, 1])
def test_json_depth_is_exact_above_the_limit_its_caller_names(limit):
    """The bound (opening brackets) is returned only at or below `limit`: brackets in a string above it are
    not nesting, and nesting above it is counted exactly."""
    in_string = b'{"a": "' + b"[" * (limit + 1) + b'"}'
    assert json_depth(in_string, limit) == 1
    nested = b"[" * (limit + 1) + b"]" * (limit + 1)
    assert json_depth(nested, limit) == limit + 1


@pytest.mark.parametrize("brackets", [61, 62, 63, 64, 200])
def test_a_suite_param_holding_brackets_is_not_nesting(brackets):
    """Failed before the fix for 62 and 63: a params string of that many '[' (a regex, a prompt) was refused
    as "nested deeper than 62 levels" (the cheap bound, 63 or 64 brackets with the table's own, was compared
    with 62); 61 and 64 or more were accepted."""
    import tomllib

    from baselines.cli.options import default_suite
    from baselines.running.suite import parse_suite

    suite = tomllib.loads(default_suite().read_text(encoding="utf-8"))
    suite["workloads"] = suite["workloads"][-1:]             # one entry: no namesake to agree with
    suite["workloads"][0]["params"] = {"pattern": "[" * brackets}
    assert parse_suite(suite, "s.toml", check_imports=False).workloads[0].params == {"pattern": "[" * brackets}
    deep: object = 1
    for _ in range(MAX_DEPTH - 2):                            # the record nests params two levels down
        deep = [deep]
    suite["workloads"][0]["params"] = {"spin": deep}          # 63 levels with the params table itself
    with pytest.raises(InputError, match="nested deeper than 62 levels"):
        parse_suite(suite, "s.toml", check_imports=False)


# -- loads_line: which parser ------------------------------------------------------------------------
def test_the_fast_parse_reads_big_integers_as_orjson_does_and_exact_keeps_them():
    """The documented split that parse_line relies on: orjson (fast) reads an integer past 64 bits as a
    float, the exact (stdlib) parse keeps it; parse_line re-reads a float seed exactly."""
    big = 2**64
    fast = loads_line(f'{{"seed": {big}}}', "w")
    exact = loads_line(f'{{"seed": {big}}}', "w", exact=True)
    assert isinstance(fast["seed"], float) and fast["seed"] == float(big)
    assert isinstance(exact["seed"], int) and exact["seed"] == big
    assert loads_line('{"a": [1, "x", null]}', "w") == {"a": [1, "x", None]}


def test_a_nan_literal_orjson_refuses_is_read_by_the_fallback():
    value = loads_line('{"a": NaN}', "w")["a"]
    assert value != value


def test_dumped_writes_orjsons_compact_form_or_none():
    assert dumped({"a": [1, "é"]}) == '{"a":[1,"é"]}'.encode()
    assert dumped(object()) is None


# -- loads_line: the words for a refused line --------------------------------------------------------
def test_cr_only_line_ends_are_named_only_when_every_piece_is_a_whole_object():
    assert "line ends are CR only" in refused('{"a":1}\r{"b":2}')
    assert "line ends are CR only" in refused('{"a":1}\r{"b":2}\r')
    # a CR inside a broken line whose pieces are not whole objects: the parser's own words
    assert refused('{"a": 1\r{"b": 2}') == \
        "not valid JSON (Expecting ',' delimiter at column 9); each line must be one JSON object"
    assert "CR only" not in refused('[1\r[2]')


def test_two_runs_on_a_line_only_for_extra_data_that_starts_an_object():
    assert refused('{"a": 1}  {"b": 2}').startswith("two runs on one line (the second starts at column 11)")
    assert refused('{"a": 1} 7') == "not valid JSON (Extra data at column 10); each line must be one JSON object"
    # an object starting where a comma was expected is one broken run, not two
    assert refused('{"a": 1 {"b": 2}') == \
        "not valid JSON (Expecting ',' delimiter at column 9); each line must be one JSON object"


def test_a_run_cut_short_is_an_object_that_ends_while_the_parser_expects_more():
    assert refused('{"a": 1').startswith("not valid JSON: the line ends at column 8 before its object closes")
    assert refused('{"a": [1,').startswith("not valid JSON: the line ends at column 10 before its object closes")
    # a list cut short is not a run, and an object broken in the middle is not cut short
    assert refused("[1,") == "not valid JSON (Expecting value at column 4); each line must be one JSON object"
    assert refused("[1, 2") == "not valid JSON (Expecting ',' delimiter at column 6); each line must be one JSON object"
    assert refused("[1 2]") == "not valid JSON (Expecting ',' delimiter at column 4); each line must be one JSON object"


def test_the_parsers_words_lose_their_dangling_at_before_the_column():
    assert refused('{"a": "b') == \
        "not valid JSON (Unterminated string starting at column 7); each line must be one JSON object"
    assert refused('{"a": tru}') == "not valid JSON (Expecting value at column 7); each line must be one JSON object"


@pytest.mark.parametrize("char, name, escaped", [
    ("\t", "a tab (U+0009)", "\\t"), ("\n", "a line feed (U+000A)", "\\n"),
    ("\r", "a carriage return (U+000D)", "\\r"), ("\x00", "a NUL byte (U+0000)", "\\u0000"),
    ("\x01", "a control character (U+0001)", "\\u0001"), ("\x1f", "a control character (U+001F)", "\\u001f"),
])
def test_a_control_character_in_a_string_is_named_with_its_column_and_escape(char, name, escaped):
    assert refused('{"a": "x' + char + 'y"}') == \
        f"not valid JSON ({name} inside a string at column 9); write it escaped as {escaped}"


def test_a_number_past_the_digit_limit_is_named_with_its_length_and_column():
    assert refused("[1, " + "9" * 5000 + "]") == \
        "a number of 5000 digits at column 5 is longer than any field takes; fix the writer"
    assert refused('{"seed": ' + "1" * 4301 + "}") == \
        "a number of 4301 digits at column 10 is longer than any field takes; fix the writer"


def test_a_line_nested_past_the_parsers_stack_says_so_in_one_line():
    deep = "[" * 100_000 + "]" * 100_000
    assert refused(deep) == ("not valid JSON (maximum recursion depth exceeded while decoding a JSON array "
                             "from a unicode string); each line must be one JSON object")


def test_a_value_error_past_the_grammar_is_told_by_its_first_line_cut_at_a_word():
    """`_value_problem`'s rule for a parse that failed past the grammar: the error's first line, at most
    100 characters, cut at the last word before them; the error's type when it has no words."""
    one = _value_problem("[1]", ValueError("first line\nsecond line"))
    assert one == "not valid JSON (first line); each line must be one JSON object"
    assert _value_problem("[1]", RecursionError()) == "not valid JSON (RecursionError); each line must be one JSON object"
    exactly = "w" * 95 + " tail"                              # 100 characters: kept whole
    assert _value_problem("[1]", ValueError(exactly)) == f"not valid JSON ({exactly}); each line must be one JSON object"
    over = "w" * 96 + " tail"                                 # 101 characters: cut at its last space
    assert _value_problem("[1]", ValueError(over)) == f"not valid JSON ({'w' * 96} ...); each line must be one JSON object"
    words = " ".join(["word"] * 30)                           # 149 characters: cut before character 100
    cut = _value_problem("[1]", ValueError(words))
    kept = words[:100].rsplit(" ", 1)[0]
    assert kept == " ".join(["word"] * 20)
    assert cut == f"not valid JSON ({kept} ...); each line must be one JSON object"
    spaced = "a b " + "c" * 97 + " d"                         # the cut's space is the last before 100, not the first
    assert _value_problem("[1]", ValueError(spaced)) == \
        "not valid JSON (a b ...); each line must be one JSON object"
    unbroken = "x\t" + "y" * 150                              # no space: cut at 100, the tab is not a space
    assert _value_problem("[1]", ValueError(unbroken)) == \
        f"not valid JSON (x\t{'y' * 98} ...); each line must be one JSON object"
