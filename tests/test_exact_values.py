"""Values go through exactly, and empty values are input errors naming the option (issue 31)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from baselines.cli import main


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("seed", [9007199254740993, 2**63 - 1, -3, 0])
def test_csv_seeds_stay_exact(tmp_path, seed):
    source = tmp_path / "in.csv"
    source.write_text(f"policy,s,acc,tok\ngreedy,{seed},0.5,900719925474099\n")
    out = tmp_path / "out.jsonl"
    assert main(["import", "csv", str(source), "-o", str(out), "--map", "arm=policy,seed=s,reward=acc,tokens=tok",
                 "--workload", "w"]) == 0
    row = json.loads(out.read_text())
    assert row["seed"] == seed and row["spend"]["tokens"] == 900719925474099


def test_csv_seed_written_as_a_whole_float_is_still_read(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("policy,s,acc\ngreedy,3.0,0.5\n")
    out = tmp_path / "out.jsonl"
    assert main(["import", "csv", str(source), "-o", str(out), "--map", "arm=policy,seed=s,reward=acc"]) == 0
    assert json.loads(out.read_text())["seed"] == 3


@pytest.mark.parametrize("mapping, words", [
    ("arm=policy,seed=s,reward=acc,reward=tok", "'reward' is mapped twice ('acc' and 'tok')"),
    ("arm=policy,seed=s,reward=acc,=tok", "has an empty side"),
    ("arm=policy,seed=s,reward=acc,tokens=", "has an empty side"),
])
def test_a_map_with_a_field_twice_or_an_empty_side_is_refused(tmp_path, capsys, mapping, words):
    source = tmp_path / "in.csv"
    source.write_text("policy,s,acc,tok\ngreedy,1,0.5,10\n")
    assert main(["import", "csv", str(source), "-o", str(tmp_path / "o.jsonl"), "--map", mapping]) == 2
    assert words in one_line_error(capsys)
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("args, option", [
    (["import", "csv", "IN", "-o", "OUT", "--map", "arm=policy,seed=s,reward=acc", "--workload", ""], "--workload"),
    (["import", "inspect", "IN", "-o", "OUT", "--arm", ""], "--arm"),
    (["compare", "IN", "--workload", " "], "--workload"),
    (["init", ""], "DIR"),
    (["run", "--address", "", "--backend", "dask"], "--address"),
    (["import", "csv", "IN", "-o", "", "--map", "arm=a,seed=s,reward=r"], "-o/--output"),
])
def test_an_empty_value_is_an_input_error_naming_the_option(tmp_path, capsys, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "IN").write_text("policy,s,acc\ngreedy,1,0.5\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(args) == 2
    assert f"{option}: an empty value" in one_line_error(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_report_x_unit_that_no_run_reports_is_refused(tmp_path, capsys):
    from tests.builders import make_arms
    from baselines import write_records

    path = tmp_path / "r.jsonl"
    write_records(path, make_arms({"a": {"tokens": 100}, "b": {"tokens": 100}}, seeds=3))
    assert main(["report", str(path), "--plots", str(tmp_path / "p"), "--x-unit", "bogus"]) == 2
    assert "--x-unit 'bogus': no run" in one_line_error(capsys)
    assert not (tmp_path / "p").exists()
    assert main(["report", str(path), "--x-unit", "tokens"]) == 2
    assert "--x-unit needs --plots" in one_line_error(capsys)


# -- the Python API names the argument, and agrees with the CLI ---------------------------------
def test_compare_of_no_records_raises_like_the_cli():
    from baselines import InputError, compare

    with pytest.raises(InputError, match="no runs to compare"):
        compare([])


def test_compare_workloads_given_as_one_string_is_one_exact_name():
    from baselines import compare
    from tests.builders import make_arms

    records = make_arms({"a": {"tokens": 100}, "b": {"tokens": 100}}, seeds=3, workload="search-sim") + \
        make_arms({"a": {"tokens": 100}, "b": {"tokens": 100}}, seeds=3, workload="other")
    chosen = compare(records, workloads="search-sim")
    assert [g.workload for g in chosen.groups] == ["search-sim"]
    with pytest.raises(ValueError, match="no group matches"):  # never the substring's search-sim
        compare(records, workloads="xx-search-sim-xx")


def test_budget_beyond_any_allowance_names_the_unit():
    from baselines import Budget, InputError

    with pytest.raises(InputError, match="'rollouts' is an integer of 401 digits"):
        Budget(rollouts=10**400)


def test_run_budget_that_is_not_a_budget_names_the_argument():
    from baselines import run

    with pytest.raises(TypeError, match="run: budget must be a Budget"):
        run("workloads.search_sim:SearchSim", arms={"greedy": "arms.selection:Greedy"}, budget=30, seeds=2)


@pytest.mark.parametrize("records, words", [([5], "check: records must be a list of RunRecord.*item 0 is int 5, "
                                                   "not a RunRecord"),
                                            (5, "check: records must be a list of RunRecord")])
def test_check_of_what_is_not_records_names_the_argument(records, words):
    from baselines import check

    with pytest.raises(TypeError, match=words):
        check(records, baseline="a", candidate="b", margin=0.1)


@pytest.mark.parametrize("margin", ["abc", "abc%", None])
def test_check_margin_that_is_not_a_number_names_the_argument(margin):
    from baselines import check
    from tests.builders import make_arms

    records = make_arms({"a": {"tokens": 100}, "b": {"tokens": 100}}, seeds=3)
    with pytest.raises(ValueError, match="margin must be a number like 0.02 or a percentage"):
        check(records, baseline="a", candidate="b", margin=margin)
