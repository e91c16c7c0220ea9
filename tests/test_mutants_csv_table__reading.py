"""How the CSV importer (baselines/importers/csv_table.py) reads a file: the bytes as UTF-8 whatever the
locale, a spreadsheet's byte-order mark, cells kept as written, and each error naming the file, line and field.
"""
from __future__ import annotations

import locale

from baselines.importers.csv_table import import_csv
from tests.test_mutants_csv_table__rules import _fails


# --- the bytes ----------------------------------------------------------------------------------

def test_a_missing_file_names_the_path_and_the_fix(tmp_path):
    """Rule: a path that does not exist is one line naming it as the source file."""
    path = tmp_path / "nope.csv"
    assert _fails(path, "arm=a,seed=s,reward=r") == f"{path}: no such source file; check the path"


def test_a_byte_order_mark_is_not_part_of_the_first_column(tmp_path):
    """Rule: Excel's "CSV UTF-8" starts with a BOM; the first column is still named as written (was: no column 'a')."""
    path = tmp_path / "r.csv"
    path.write_bytes(b"\xef\xbb\xbfa,s,r\nx,1,0.5\n")
    [rec] = import_csv(path, "arm=a,seed=s,reward=r")
    assert (rec.arm, rec.seed, rec.reward) == ("x", 1, 0.5)


def test_the_file_is_read_as_utf8_under_an_ascii_locale(tmp_path):
    """Rule: the bytes are decoded as UTF-8 whatever the locale (LC_CTYPE=C makes Python's default ASCII)."""
    path = tmp_path / "r.csv"
    path.write_bytes("a,s,r\ncafé-π,1,0.5\n".encode("utf-8"))
    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        [rec] = import_csv(path, "arm=a,seed=s,reward=r")
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    assert rec.arm == "café-π"


def test_a_line_break_inside_a_quoted_cell_is_kept_as_written(tmp_path):
    """Rule: a quoted cell's CRLF stays CRLF (the file is read with newline=''), in the arm and the instance."""
    path = tmp_path / "r.csv"
    path.write_bytes(b'a,s,r,i\r\n"p\r\nq",1,0.5,"f1\r\ni2"\r\n"lone\rcr",2,0.25,x\r\n')
    recs = import_csv(path, "arm=a,seed=s,reward=r,instance=i")
    assert [rec.arm for rec in recs] == ["p\r\nq", "lone\rcr"]
    assert recs[0].extra["instance"] == "f1\r\ni2"


# --- empty cells --------------------------------------------------------------------------------

def test_an_empty_arm_cell_is_refused(tmp_path):
    """Rule: an empty arm cell (nothing between the commas, or "") is refused, never given a name."""
    for row in (",1,0.5", '"",1,0.5'):
        path = tmp_path / "r.csv"
        path.write_text(f"a,s,r\n{row}\n", encoding="utf-8")
        assert _fails(path, "arm=a,seed=s,reward=r") == f"{path}:2: empty arm name in column 'a'; every row needs one"


def test_an_empty_workload_cell_is_refused(tmp_path):
    """Rule: an empty mapped workload cell is refused, not replaced by --workload or a default."""
    path = tmp_path / "r.csv"
    path.write_text("w,a,s,r\n,x,1,0.5\n", encoding="utf-8")
    assert _fails(path, "workload=w,arm=a,seed=s,reward=r", "given") == (
        f"{path}:2: empty workload name in column 'w'; every row needs one "
        "(or map no workload column and pass --workload NAME)")


def test_an_empty_instance_cell_means_no_instance(tmp_path):
    """Rule: an empty instance cell is no instance; the next row's instance is its own."""
    path = tmp_path / "r.csv"
    path.write_text("a,s,r,i\nx,1,0.5,\nx,2,0.5,f2\n", encoding="utf-8")
    recs = import_csv(path, "arm=a,seed=s,reward=r,instance=i")
    assert "instance" not in recs[0].extra and "instance" not in recs[0].to_json()
    assert recs[1].extra["instance"] == "f2"


# --- each error names file, line and field ------------------------------------------------------

def test_a_seed_that_is_not_a_number_names_the_seed_field(tmp_path):
    """Rule: a seed cell of text is 'column for 'seed' holds ...', naming file:line and the fix."""
    path = tmp_path / "r.csv"
    path.write_text("a,sd,r\nx,1,0.5\nx,abc,0.5\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=sd,reward=r") == (
        f"{path}:3: column for 'seed' holds 'abc', not a number; leave it empty when unknown")


def test_a_dev_reward_that_is_not_a_number_names_the_dev_reward_field(tmp_path):
    """Rule: a dev_reward cell of text names file:line and 'dev_reward'."""
    path = tmp_path / "r.csv"
    path.write_text("a,s,r,d\nx,1,0.5,0.25\nx,2,0.5,abc\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r,dev_reward=d") == (
        f"{path}:3: column for 'dev_reward' holds 'abc', not a number; leave it empty when unknown")


def test_a_seed_beyond_64_bits_names_the_file_and_line(tmp_path):
    """Rule: what the record reader refuses (a seed past 2^63-1) is named at the CSV's file:line."""
    path = tmp_path / "r.csv"
    path.write_text("a,s,r\nx,1,0.5\nx,99999999999999999999,0.5\n", encoding="utf-8")
    assert _fails(path, "arm=a,seed=s,reward=r") == (
        f"{path}:3: field 'seed' is 99999999999999999999, which is beyond a 64-bit integer; "
        "use a seed from -2^63 to 2^63-1")
