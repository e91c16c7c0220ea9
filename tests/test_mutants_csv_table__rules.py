"""Behaviour rules of the CSV importer (baselines/importers/csv_table.py), written against its mutants.

Each test names the rule it protects; all go through the public `import_csv` / `parse_mapping`.
"""
from __future__ import annotations

import pytest

from baselines.core.errors import InputError
from baselines.importers.csv_table import import_csv, parse_mapping


def _csv(tmp_path, text, name="runs.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _fails(path, mapping, workload=None):
    with pytest.raises(InputError) as info:
        import_csv(path, mapping, workload)
    return str(info.value)


# --- what each mapped column becomes ------------------------------------------------------------

def test_each_mapped_column_becomes_its_record_field(tmp_path):
    """Rule: arm, seed, reward, dev_reward, workload, instance, spend units and budget.UNIT land in the record."""
    path = _csv(tmp_path, "w,a,s,r,d,i,tok,usd,btok\nsphere, ppo ,7,0.5,0.25, f1-i2 ,120,0.75,200\n")
    [rec] = import_csv(path, "workload=w,arm=a,seed=s,reward=r,dev_reward=d,instance=i,"
                             "tokens=tok,usd=usd,budget.tokens=btok")
    assert rec.workload == "sphere"
    assert rec.arm == "ppo"
    assert rec.seed == 7 and isinstance(rec.seed, int)
    assert rec.reward == 0.5
    assert rec.dev_reward == 0.25
    assert rec.spend == {"tokens": 120, "usd": 0.75}
    assert rec.budget == {"tokens": 200}
    assert rec.extra["instance"] == "f1-i2"


def test_every_row_becomes_one_record_in_file_order(tmp_path):
    """Rule: one record per data row, in order, each with its own values."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\ny,2,0.75\nx,3,1\n")
    recs = import_csv(path, "arm=a,seed=s,reward=r")
    assert [(r.arm, r.seed, r.reward) for r in recs] == [("x", 1, 0.5), ("y", 2, 0.75), ("x", 3, 1)]


def test_workload_defaults_to_the_file_stem_or_the_given_name(tmp_path):
    """Rule: with no workload column the workload is --workload NAME, else the file's stem."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\n", name="bbob.csv")
    assert import_csv(path, "arm=a,seed=s,reward=r")[0].workload == "bbob"
    assert import_csv(path, "arm=a,seed=s,reward=r", "mine")[0].workload == "mine"


def test_a_workload_column_wins_over_the_given_name(tmp_path):
    """Rule: a mapped workload column is read per row (stripped), not replaced by --workload."""
    path = _csv(tmp_path, "w,a,s,r\n rosen ,x,1,0.5\n")
    assert import_csv(path, "workload=w,arm=a,seed=s,reward=r", "other")[0].workload == "rosen"


def test_source_names_the_csv_file(tmp_path):
    """Rule: each record's source is csv:FILENAME."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\n", name="log.csv")
    rec = import_csv(path, "arm=a,seed=s,reward=r")[0]
    assert rec.extra["source"] == "csv:log.csv"


def test_unmapped_dev_reward_and_instance_stay_absent(tmp_path):
    """Rule: dev_reward and instance are only read when mapped; a column of that name alone is ignored."""
    path = _csv(tmp_path, "a,s,r,dev_reward,instance\nx,1,0.5,0.9,f3\n")
    [rec] = import_csv(path, "arm=a,seed=s,reward=r")
    assert rec.dev_reward is None
    assert "instance" not in rec.to_json() and "instance" not in rec.extra
    assert rec.spend == {}


def test_empty_instance_cell_is_no_instance(tmp_path):
    """Rule: an empty (or blank) instance cell means no instance, not the empty string."""
    path = _csv(tmp_path, "a,s,r,i\nx,1,0.5, \n")
    [rec] = import_csv(path, "arm=a,seed=s,reward=r,instance=i")
    assert "instance" not in rec.extra and "instance" not in rec.to_json()


# --- unreported is unknown, never 0 -------------------------------------------------------------

def test_an_empty_spend_cell_is_unreported_not_zero(tmp_path):
    """Rule: an empty spend cell is None (unknown), never 0; a 0 cell is 0."""
    path = _csv(tmp_path, "a,s,r,tok\nx,1,0.5,\nx,2,0.5,0\nx,3,0.5,  \n")
    recs = import_csv(path, "arm=a,seed=s,reward=r,tokens=tok")
    assert recs[0].spend == {"tokens": None}
    assert recs[1].spend == {"tokens": 0}
    assert recs[2].spend == {"tokens": None}


def test_an_empty_reward_or_dev_reward_is_unreported(tmp_path):
    """Rule: an empty reward / dev_reward cell is None, never 0."""
    path = _csv(tmp_path, "a,s,r,d\nx,1,,\n")
    [rec] = import_csv(path, "arm=a,seed=s,reward=r,dev_reward=d")
    assert rec.reward is None and rec.dev_reward is None


def test_an_empty_budget_cell_sets_no_budget(tmp_path):
    """Rule: an empty budget.UNIT cell leaves that unit out of the budget (no 0 allowance)."""
    path = _csv(tmp_path, "a,s,r,b\nx,1,0.5,\nx,2,0.5,0\n")
    recs = import_csv(path, "arm=a,seed=s,reward=r,budget.tokens=b")
    assert recs[0].budget == {}
    assert recs[1].budget == {"tokens": 0}
    assert recs[0].spend == {} and recs[1].spend == {}


# --- number parsing -----------------------------------------------------------------------------

def test_integers_are_read_exactly_and_floats_as_floats(tmp_path):
    """Rule: integer literals are exact ints (a huge seed stays itself); 2.0 is 2; 0.5 stays 0.5."""
    path = _csv(tmp_path, "a,s,r,tok\nx,9007199254740993,2.0,+5\nx, -3 ,1e-1,1.5\n")
    recs = import_csv(path, "arm=a,seed=s,reward=r,tokens=tok")
    assert recs[0].seed == 9007199254740993
    assert recs[0].reward == 2 and isinstance(recs[0].reward, int)
    assert recs[0].spend == {"tokens": 5} and isinstance(recs[0].spend["tokens"], int)
    assert recs[1].seed == -3
    assert recs[1].reward == pytest.approx(0.1) and isinstance(recs[1].reward, float)
    assert recs[1].spend["tokens"] == 1.5


def test_a_float_seed_with_integer_value_is_that_integer(tmp_path):
    """Rule: a seed written 3.0 is the integer 3; 3.5 is refused."""
    path = _csv(tmp_path, "a,s,r\nx,3.0,0.5\n")
    assert import_csv(path, "arm=a,seed=s,reward=r")[0].seed == 3


def test_a_non_number_names_file_line_field_and_fix(tmp_path):
    """Rule: a cell that is not a number is a one-line error naming file:line, the field, the text and the fix."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\nx,2,high\n")
    msg = _fails(path, "arm=a,seed=s,reward=r")
    assert msg == f"{path}:3: column for 'reward' holds 'high', not a number; leave it empty when unknown"


def test_a_non_finite_number_is_refused_with_the_fix(tmp_path):
    """Rule: NaN / inf cells are refused, naming file:line, field and 'leave it empty when unknown'."""
    path = _csv(tmp_path, "a,s,r,tok\nx,1,0.5,nan\n")
    msg = _fails(path, "arm=a,seed=s,reward=r,tokens=tok")
    assert msg == f"{path}:2: column for 'tokens' is 'nan', which is not finite; leave it empty when unknown"
    path = _csv(tmp_path, "a,s,r\nx,1,-inf\n", name="b.csv")
    assert _fails(path, "arm=a,seed=s,reward=r") == (
        f"{path}:2: column for 'reward' is '-inf', which is not finite; leave it empty when unknown")


def test_an_integer_too_long_to_convert_is_one_line(tmp_path):
    """Rule: an integer with more digits than Python converts is an error naming the digit count, not a traceback."""
    digits = "1" * 5000
    path = _csv(tmp_path, f"a,s,r\nx,1,{digits}\n")
    msg = _fails(path, "arm=a,seed=s,reward=r")
    assert msg == (f"{path}:2: column for 'reward' holds an integer of 5000 digits; fix the column")


def test_a_negative_spend_or_budget_is_refused(tmp_path):
    """Rule: spend and budget cells are amounts >= 0; a negative one names file:line, column, unit and fix."""
    path = _csv(tmp_path, "a,s,r,tok\nx,1,0.5,0\nx,2,0.5, -4 \n")
    msg = _fails(path, "arm=a,seed=s,reward=r,tokens=tok")
    assert msg == (f"{path}:3: column 'tok' ('tokens') holds '-4', a negative amount; spend and budgets are "
                   "amounts >= 0; fix the column (leave it empty when unknown)")
    path = _csv(tmp_path, "a,s,r,b\nx,1,0.5,-0.5\n", name="b.csv")
    assert "('budget.tokens') holds '-0.5', a negative amount" in _fails(path, "arm=a,seed=s,reward=r,budget.tokens=b")


def test_a_negative_reward_is_allowed(tmp_path):
    """Rule: only spend and budget must be >= 0; a reward (e.g. a loss) may be negative."""
    path = _csv(tmp_path, "a,s,r\nx,1,-2.5\n")
    assert import_csv(path, "arm=a,seed=s,reward=r")[0].reward == -2.5


# --- row errors ---------------------------------------------------------------------------------

def test_a_non_integer_seed_names_the_column(tmp_path):
    """Rule: a seed that is not an integer (or empty) is refused naming file:line, the cell and the column."""
    path = _csv(tmp_path, "a,sd,r\nx,1.5,0.5\n")
    assert _fails(path, "arm=a,seed=sd,reward=r") == (
        f"{path}:2: seed must be an integer, got '1.5'; fix column 'sd'")
    path = _csv(tmp_path, "a,sd,r\nx,,0.5\n", name="b.csv")
    assert _fails(path, "arm=a,seed=sd,reward=r") == f"{path}:2: seed must be an integer, got ''; fix column 'sd'"


def test_an_empty_arm_is_refused(tmp_path):
    """Rule: every row needs an arm name; a blank one names file:line and the column."""
    path = _csv(tmp_path, "pol,s,r\nx,1,0.5\n  ,2,0.5\n")
    assert _fails(path, "arm=pol,seed=s,reward=r") == (
        f"{path}:3: empty arm name in column 'pol'; every row needs one")


def test_an_empty_workload_cell_is_refused(tmp_path):
    """Rule: a mapped workload column must name each row's workload; blank is refused with the fix."""
    path = _csv(tmp_path, "wl,a,s,r\n ,x,1,0.5\n")
    assert _fails(path, "workload=wl,arm=a,seed=s,reward=r", "fallback") == (
        f"{path}:2: empty workload name in column 'wl'; every row needs one "
        "(or map no workload column and pass --workload NAME)")


def test_a_missing_column_lists_the_header(tmp_path):
    """Rule: a mapped column absent from the header is named, with the columns the file has."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\n")
    assert _fails(path, "arm=a,seed=s,reward=acc") == f"{path}: no column 'acc'; columns are a, s, r"


def test_a_file_with_no_header_says_none(tmp_path):
    """Rule: an empty file is 'columns are none', not a traceback."""
    path = _csv(tmp_path, "")
    assert _fails(path, "arm=a,seed=s,reward=r") == f"{path}: no column 'a'; columns are none"


def test_a_row_with_too_many_cells_counts_them(tmp_path):
    """Rule: a row with more cells than the header (an unquoted comma) is refused with both counts."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\nx,2,0,5,6\n")
    assert _fails(path, "arm=a,seed=s,reward=r") == (
        f"{path}:3: 5 cells where the header names 3; quote a cell that holds a comma, or fix the row")


def test_line_numbers_count_physical_lines(tmp_path):
    """Rule: the error's line is the file's line (a quoted multi-line cell counts its lines)."""
    path = _csv(tmp_path, 'a,s,r\n"x\ny",1,0.5\nz,2,bad\n')
    assert _fails(path, "arm=a,seed=s,reward=r").startswith(f"{path}:4: column for 'reward'")


def test_not_utf8_is_one_line(tmp_path):
    """Rule: a file that is not UTF-8 is a one-line error naming the byte and the fix."""
    path = tmp_path / "r.csv"
    path.write_bytes(b"a,s,r\nx\xff,1,0.5\n")
    assert _fails(path, "arm=a,seed=s,reward=r") == f"{path}: not UTF-8 text (byte 7); save the CSV as UTF-8"


def test_a_huge_cell_is_read(tmp_path):
    """Rule: a cell beyond csv's default 128 KiB field limit is still read (the limit is raised)."""
    big = "x" * 200_000
    path = _csv(tmp_path, f"a,s,r,note\nx,1,0.5,{big}\n")
    assert import_csv(path, "arm=a,seed=s,reward=r")[0].reward == 0.5


# --- mapping syntax -----------------------------------------------------------------------------

def test_mapping_parses_pairs_with_spaces_and_empty_parts():
    """Rule: --map is FIELD=COLUMN pairs split on commas, sides stripped, empty parts skipped."""
    assert parse_mapping(" arm = pol ,, seed=s , reward=r,") == {"arm": "pol", "seed": "s", "reward": "r"}


def test_a_column_name_may_contain_equals():
    """Rule: only the first '=' separates field and column."""
    assert parse_mapping("arm=a,seed=s,reward=acc=top1")["reward"] == "acc=top1"


def test_a_string_mapping_is_parsed_by_import_csv(tmp_path):
    """Rule: import_csv takes the mapping as --map text or as a dict alike."""
    path = _csv(tmp_path, "a,s,r\nx,1,0.5\n")
    assert import_csv(path, {"arm": "a", "seed": "s", "reward": "r"})[0].reward == 0.5


def test_a_part_without_equals_is_refused():
    """Rule: a part with no '=' names the part and shows an example."""
    with pytest.raises(InputError) as info:
        parse_mapping("arm=a,seed,reward=r")
    assert str(info.value) == "--map: 'seed' is not FIELD=COLUMN (e.g. --map arm=policy,seed=seed,reward=acc)"


def test_an_empty_side_is_refused():
    """Rule: FIELD= or =COLUMN is refused naming the part."""
    for text, part in (("arm=a,seed=,reward=r", "seed="), ("arm=a,=s,reward=r", "=s")):
        with pytest.raises(InputError) as info:
            parse_mapping(text)
        assert str(info.value) == f"--map: '{part}' has an empty side; write FIELD=COLUMN with both named"


def test_a_field_mapped_twice_is_refused():
    """Rule: mapping one field twice is an error naming both columns (the last no longer wins silently)."""
    with pytest.raises(InputError) as info:
        parse_mapping("arm=a,seed=s,reward=r,arm=b")
    assert str(info.value) == "--map: 'arm' is mapped twice ('a' and 'b'); map each field once"


@pytest.mark.parametrize("field", ["arm", "seed", "reward"])
def test_arm_seed_and_reward_are_required(field):
    """Rule: --map must name arm, seed and reward columns; the missing one is named with the fix."""
    parts = {"arm": "arm=a", "seed": "seed=s", "reward": "reward=r"}
    del parts[field]
    with pytest.raises(InputError) as info:
        parse_mapping(",".join(parts.values()))
    assert str(info.value) == f"--map: no column for '{field}'; add {field}=COLUMN"
