"""Row shape rules of the CSV importer (baselines/importers/csv_table.py): every row has the header's cells,
and a quote opened in a cell is closed, or the import stops naming the file.

Both were silent before: DictReader filled a short row's missing cells with None (read as unreported,
or as the next column's value when a cell in the middle was lost), and a quote never closed swallowed
every row after it into one cell (a 3-row file imported 1 record, exit 0).
"""
from __future__ import annotations

from baselines.importers.csv_table import import_csv
from tests.test_mutants_csv_table__rules import _fails


def test_a_row_with_too_few_cells_is_refused_with_both_counts(tmp_path):
    """Rule: a row with fewer cells than the header (a lost cell shifts the columns after it) names both counts."""
    path = tmp_path / "r.csv"
    path.write_text("a,s,r,tok\nx,1,0.5,10\nx,2,120\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r,tokens=tok") == (
        f"{path}:3: 3 cells where the header names 4; write every cell (leave one empty when unknown), "
        "or fix the row")


def test_a_row_missing_its_arm_and_instance_cells_is_refused(tmp_path):
    """Rule: a short row is refused before any cell is read; its missing arm is not an arm named by a default."""
    path = tmp_path / "r.csv"
    path.write_text("s,r,a,i\n1,0.5\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r,instance=i") == (
        f"{path}:2: 2 cells where the header names 4; write every cell (leave one empty when unknown), "
        "or fix the row")


def test_a_row_with_every_cell_empty_is_still_a_row(tmp_path):
    """Rule: a row of empty cells (only commas) has the header's cell count and is judged cell by cell."""
    path = tmp_path / "r.csv"
    path.write_text("a,s,r\nx,1,0.5\n,,\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r") == f"{path}:3: seed must be an integer, got ''; fix column 's'"


def test_blank_lines_between_rows_are_skipped(tmp_path):
    """Rule: an empty line is no row (as csv.DictReader read it): the rows around it import, line numbers stay."""
    path = tmp_path / "r.csv"
    path.write_text("a,s,r\nx,1,0.5\n\ny,2,0.25\n\nz,3,bad\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r") == (
        f"{path}:6: column for 'reward' holds 'bad', not a number; leave it empty when unknown")
    path.write_text("a,s,r\nx,1,0.5\n\ny,2,0.25\n", encoding="utf-8")
    assert [(r.arm, r.seed) for r in import_csv(path, "arm=a,seed=s,reward=r")] == [("x", 1), ("y", 2)]


def test_a_blank_first_line_is_a_file_with_no_header(tmp_path):
    """Rule: the header is the first line; an empty first line leaves no columns to map."""
    path = tmp_path / "r.csv"
    path.write_text("\na,s,r\nx,1,0.5\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r") == f"{path}: no column 'a'; columns are none"


def test_a_quote_never_closed_is_refused_not_swallowing_the_rows_after_it(tmp_path):
    """Rule: an unclosed quote is a one-line error naming the file; the rows after it are not read into one cell."""
    path = tmp_path / "r.csv"
    path.write_text('a,s,r,note\nx,1,0.5,"oops\ny,2,0.75,fine\nz,3,0.25,ok\n', encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r") == (
        f"{path}: not a readable CSV file (unexpected end of data); save it as plain comma-separated UTF-8")


def test_text_after_a_closing_quote_is_refused(tmp_path):
    """Rule: a quoted cell ends at its closing quote; text after it is malformed CSV, not glued on in silence."""
    path = tmp_path / "r.csv"
    path.write_text('a,s,r\n"x"y,1,0.5\n', encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r") == (
        f"{path}: not a readable CSV file (',' expected after '\"'); save it as plain comma-separated UTF-8")


def test_quoted_cells_and_doubled_quotes_still_read(tmp_path):
    """Rule: well-formed quoting (a comma, a doubled quote, a newline inside quotes) reads as the cell's text."""
    path = tmp_path / "r.csv"
    path.write_text('a,s,r\n"p,q ""v2""",1,0.5\n"multi\nline",2,0.25\n', encoding="utf-8")
    assert [r.arm for r in import_csv(path, "arm=a,seed=s,reward=r")] == ['p,q "v2"', "multi\nline"]
