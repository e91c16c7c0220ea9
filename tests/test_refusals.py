"""Refused commands change nothing, and no command writes over one of its inputs (issue 31).

Each test runs a command that must be refused (exit 2, one line) and then
checks that every file that was there is byte-identical and that nothing new
(a folder, a lock, a backup) appeared.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from baselines.cli import main
from baselines.running.runner import LOCK_NAME


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> bytes), links as their target text."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = b"<dir>"
    return found


def failing_project(tmp_path: Path) -> Path:
    """The starter project with a third arm that always raises: 2 seeds, so 2 of 6 records carry an error."""
    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    suite = project / "costmatch-suite.toml"
    text = suite.read_text().replace("seeds = 10 ", "seeds = 2 ")
    text = text.replace('arms = ["random-guess", "local-search"]', 'arms = ["random-guess", "local-search", "fails"]')
    text = text.replace("[[workloads]]", '[arms.fails]\npath = "my_arms:Fails"\n\n[[workloads]]')
    suite.write_text(text)
    with open(project / "my_arms.py", "a") as handle:
        handle.write("\n\nclass Fails:\n    def run(self, task, meter, rng):\n        raise RuntimeError('boom')\n")
    return project


def run_args(project: Path, *extra: str) -> list[str]:
    return ["run", str(project / "costmatch-suite.toml"), "--out", str(project / "rd"), "--quiet", "--no-plots",
            *extra]


@pytest.fixture
def with_errors(tmp_path):
    project = failing_project(tmp_path)
    assert main(run_args(project, "--backend", "sequential")) == 1
    lines = (project / "rd" / "results.jsonl").read_bytes().splitlines()
    assert len(lines) == 6 and sum(b'"error":{' in line for line in lines) == 2
    return project


@pytest.mark.parametrize("flag", ["--retry-errors", "--fresh"])
@pytest.mark.parametrize("engine", [("ray", ("ray",)), ("dask", ("distributed",))])
def test_a_missing_engine_leaves_the_results_folder_byte_identical(with_errors, monkeypatch, capsys, flag, engine):
    backend, modules = engine
    for name in modules:  # the engine as if not installed
        monkeypatch.setitem(sys.modules, name, None)
    before = snapshot(with_errors / "rd")
    capsys.readouterr()
    assert main(run_args(with_errors, flag, "--backend", backend)) == 2
    err = capsys.readouterr().err
    assert f"--backend {backend} needs" in err and len(err.strip().splitlines()) == 1
    assert snapshot(with_errors / "rd") == before  # no record deleted, no backup moved aside


def test_a_refused_engine_leaves_no_new_folder_and_no_lock(with_errors, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)
    out = with_errors / "new" / "deeper"
    assert main(["run", str(with_errors / "costmatch-suite.toml"), "--out", str(out), "--quiet",
                 "--backend", "ray"]) == 2
    assert not (with_errors / "new").exists()


def test_a_refusal_while_the_engine_starts_removes_the_folder_it_made(with_errors, monkeypatch, capsys):
    """A bad address is found when the engine opens, after the folder and its lock were made: both go."""
    from baselines.core.errors import InputError
    from baselines.running import runner

    def refuse(*args):
        raise InputError("--address tcp://127.0.0.1:9: cannot reach a Dask scheduler there")

    monkeypatch.setattr(runner, "open_pool", refuse)
    out = with_errors / "made" / "rd"
    assert main(["run", str(with_errors / "costmatch-suite.toml"), "--out", str(out), "--quiet",
                 "--backend", "sequential"]) == 2
    assert not (with_errors / "made").exists()
    # a folder that was there keeps what it had, and gets no lock either way round
    (with_errors / "rd" / LOCK_NAME).unlink(missing_ok=True)  # a run that ended leaves none (issue 36)
    before = snapshot(with_errors / "rd")
    assert main(run_args(with_errors, "--retry-errors", "--backend", "sequential")) == 2
    assert main(run_args(with_errors, "--fresh", "--backend", "sequential")) == 2
    assert snapshot(with_errors / "rd") == before
    assert not any(p.name == LOCK_NAME for p in (with_errors / "made").parent.iterdir())


def test_report_on_a_bad_file_leaves_no_figures_folder(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"arm": "a"}\n')
    assert main(["report", str(bad), "--plots", str(tmp_path / "p")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "p").exists()


def test_an_empty_output_folder_is_an_input_error(with_errors, capsys):
    assert main(["run", str(with_errors / "costmatch-suite.toml"), "--out", "", "--backend", "sequential"]) == 2
    assert "--out: an empty value" in capsys.readouterr().err


# -- no command writes over one of its inputs ---------------------------------------------------
CSV = "policy,s,acc\ngreedy,0,0.5\ngreedy,1,0.6\n"
MAP = "arm=policy,seed=s,reward=acc"


def import_csv_to(tmp_path: Path, output: Path, capsys) -> int:
    capsys.readouterr()
    code = main(["import", "csv", str(tmp_path / "in.csv"), "-o", str(output), "--map", MAP, "--workload", "w"])
    err = capsys.readouterr().err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err
    return code


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_import_never_writes_over_its_own_input(tmp_path, capsys, how):
    source = tmp_path / "in.csv"
    source.write_text(CSV)
    target = {"same": source, "symlink": tmp_path / "out.jsonl", "hardlink": tmp_path / "out.jsonl"}[how]
    if how == "symlink":
        target.symlink_to(source)
    elif how == "hardlink":
        os.link(source, target)
    before = snapshot(tmp_path)
    assert import_csv_to(tmp_path, target, capsys) == 2
    assert snapshot(tmp_path) == before


def test_import_of_agentdescent_onto_its_input_is_refused(tmp_path, agentdescent_dir, capsys):
    source = tmp_path / "ad.json"
    source.write_bytes((agentdescent_dir / "equal-budget-hotpotqa-3seed.json").read_bytes())
    before = snapshot(tmp_path)
    assert main(["import", "agentdescent", str(source), "-o", str(source)]) == 2
    assert "also an input" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_the_rule_is_in_run_import_for_every_importer(tmp_path):
    """A new importer goes through run_import: the rule holds without the CLI too."""
    from baselines.core.errors import InputError
    from baselines.importers import run_import

    source = tmp_path / "in.csv"
    source.write_text(CSV)
    with pytest.raises(InputError, match="also an input"):
        run_import("csv", [source], source, mapping=MAP, workload="w")
    assert source.read_text() == CSV


def test_import_and_init_never_replace_a_dangling_link(tmp_path, capsys):
    (tmp_path / "in.csv").write_text(CSV)
    link = tmp_path / "out.jsonl"
    link.symlink_to(tmp_path / "gone.jsonl")
    assert import_csv_to(tmp_path, link, capsys) == 2
    assert link.is_symlink() and not (tmp_path / "gone.jsonl").exists()
    project = tmp_path / "proj"
    project.mkdir()
    suite_link = project / "costmatch-suite.toml"
    suite_link.symlink_to(tmp_path / "missing.toml")
    assert main(["init", str(project)]) == 2
    assert suite_link.is_symlink() and not (tmp_path / "missing.toml").exists()
    assert [p.name for p in project.iterdir()] == ["costmatch-suite.toml"]


def test_report_table_never_written_over_the_results_it_reads(with_errors, capsys):
    results = with_errors / "rd" / "results.jsonl"
    before = results.read_bytes()
    assert main(["report", str(results), "--out", str(results)]) == 2
    assert results.read_bytes() == before


def test_init_of_an_empty_name_is_an_input_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", ""]) == 2
    assert list(tmp_path.iterdir()) == []
