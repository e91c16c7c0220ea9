"""`pipe_table` prints what tabulate's github format prints, and `md` skips only text it would not change."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st
from tabulate import tabulate

from reports import text
from reports.text import md, pipe_table
from tests.sizes import examples

# characters tabulate measures or treats specially: wide, combining, control, escape, tab, non-breaking space
_CHARS = st.sampled_from(list("ab z-+.,[]|09") + ["\u2212", "\u2265", "\u2014", "\u00e9", "\u4e2d", "\u0301",
                                                  "\t", "\n", "\x1b[31m", "\u00a0", "  "])
_TEXT = st.lists(_CHARS, max_size=10).map("".join)
_CELL = st.one_of(_TEXT, _TEXT, st.integers(-10 ** 6, 10 ** 6), st.just(""), st.none(), st.booleans(),
                  st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=examples(400), deadline=None)
@given(st.integers(1, 5).flatmap(lambda k: st.tuples(
    st.lists(_TEXT, min_size=k, max_size=k), st.lists(st.lists(_CELL, min_size=k, max_size=k), max_size=4))))
def test_pipe_table_is_tabulate_github(table):
    headers, rows = table
    assert pipe_table(rows, headers) == tabulate(rows, headers, tablefmt="github", disable_numparse=True)


def test_pipe_table_of_plain_cells_does_not_call_tabulate(monkeypatch):
    monkeypatch.setattr(text, "_tabulate", lambda rows, headers: "tabulate")
    assert pipe_table([["arm-1", 5, " +0.05 "]], ["arm", "seeds", "a \u2212 b"]) == (
        "| arm   | seeds   | a \u2212 b   |\n"
        "|-------|---------|---------|\n"
        "| arm-1 | 5       | +0.05   |")
    assert pipe_table([], ["arm"]) == "tabulate"
    assert pipe_table([["wide \u4e2d"]], ["arm"]) == "tabulate"


@settings(max_examples=examples(500), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_*|`$\\[]&<>#;!/ \n\r\t-.~():") + ["\u00e9"]), max_size=12))
def test_md_shortcut_changes_nothing(value):
    assert md(value) == text._md_escape(value)


def test_pipe_table_without_wcwidth_measures_characters_as_tabulate_then_does(monkeypatch):
    """wcwidth is tabulate's optional extra, missing from a plain install: widths are then len(), as in
    tabulate without it, and a wide character is no error (a fresh-venv run report once died here)."""
    import sys

    monkeypatch.setitem(sys.modules, "wcwidth", None)   # `from wcwidth import ...` raises ImportError
    monkeypatch.setattr(text, "_tabulate", lambda rows, headers: "tabulate")
    assert pipe_table([["\u4e2d\u6587", "\u00e9"]], ["x", "y"]) == (
        "| x   | y   |\n"
        "|-----|-----|\n"
        "| \u4e2d\u6587  | \u00e9   |")
