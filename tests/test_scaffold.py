"""The first hour: `costmatch list`, `costmatch init` and the suite reference in docs/suite.md.

In-process: `init` then `run`, `report` and `check` in a fresh folder, as the
README tells a new user to do, and the catalog against the classes it describes.
"""
from __future__ import annotations

import inspect
import json
import os
import re
import sys
import tomllib
from pathlib import Path

import pytest

from baselines.running import scaffold
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.running.suite import _ARM_KEYS, _TOP_KEYS, _WORKLOAD_KEYS, parse_suite, resolve
from baselines.core.units import STANDARD_UNITS

ROOT = Path(__file__).resolve().parents[1]
SUITE_DOC = ROOT / "docs" / "suite.md"


@pytest.fixture
def isolated_imports(monkeypatch):
    """Loading a suite puts its folder on sys.path and PYTHONPATH; undo that after each test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    yield
    for name in ("my_arms", "my_workload"):
        sys.modules.pop(name, None)


def _init(args: list[str]) -> int:
    """`costmatch init ...`, in-process."""
    return main(["init", *args])


# -- list ---------------------------------------------------------------------------------------

def test_catalog_finds_every_builtin_workload_and_arm():
    cat = scaffold.catalog()
    workloads = {w.path for w in cat.workloads}
    arms = {a.path for a in cat.arms}
    assert workloads == {"workloads.search_sim:SearchSim", "workloads.bbob:BBOB", "workloads.qa:QA",
                         "workloads.replay:Replay"}
    for path in ("arms.selection:Greedy", "arms.selection:PUCT", "arms.selection:CostEfficientPUCT",
                 "arms.selection:UCB1", "arms.selection:Thompson", "arms.selection:UniformRandom",
                 "arms.selection:BestOfNFork", "arms.optimizers:CMAES", "arms.optimizers:OptunaTPE",
                 "arms.optimizers:RandomSearch", "arms.optimizers:NelderMead",
                 "arms.optimizers:DifferentialEvolution", "arms.tts:SingleSample", "arms.tts:SelfConsistency",
                 "arms.tts:BestOfNVerifier", "arms.tts:SelfRevision", "arms.replay_tts:FirstSample",
                 "arms.replay_tts:Majority", "arms.replay_tts:AdaptiveMajority", "arms.replay_tts:ModelMix"):
        assert path in arms
    # bases to subclass, protocols and helpers are not offered as arms
    assert not arms & {"arms.selection:SelectionPolicy", "arms.base:Arm", "arms.base:ArmOutput"}
    assert not any(path.startswith(("baselines.", "arms.tts:_", "arms.replay_tts:_")) for path in arms)
    assert "arms.replay_tts:Tally" not in arms and "workloads.replay:ReplayInstance" not in workloads
    assert "workloads.base:Workload" not in workloads


def test_catalog_defaults_are_the_classes_own_and_construct_them():
    """Every printed default is the signature's, and passing them all as params builds the class."""
    cat = scaffold.catalog()
    for entry in cat.workloads + cat.arms:
        cls = resolve(entry.path, "catalog")
        signature = inspect.signature(cls.__init__).parameters
        for p in entry.params:
            assert signature[p.name].default == p.default
        cls(**{p.name: p.default for p in entry.params})
    ucb1 = next(a for a in cat.arms if a.path == "arms.selection:UCB1")
    assert [(p.name, p.default) for p in ucb1.params] == [("c", 0.5)]
    sim = next(w for w in cat.workloads if w.path == "workloads.search_sim:SearchSim")
    assert "tokens" in sim.measures and "rollouts" in sim.measures


def test_every_standard_unit_has_a_one_line_meaning():
    meanings = scaffold.unit_meanings()
    for unit in STANDARD_UNITS:
        assert meanings[unit].strip() and "\n" not in meanings[unit]


def test_list_prints_each_workload_arm_and_unit(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    cat = scaffold.catalog()
    for entry in cat.workloads + cat.arms:
        assert entry.path in out
    for unit in STANDARD_UNITS:
        assert re.search(rf"^  {unit}\s+\S", out, re.M), unit
    assert "c=0.5" in out and "functions=[1, 8, 10, 15, 21]" in out and "restarts=false" in out


# -- init -> run -> report -> check ---------------------------------------------------------------

def test_init_run_report_check_in_a_new_folder(tmp_path, monkeypatch, capsys, isolated_imports):
    monkeypatch.chdir(tmp_path)
    assert _init(["proj"]) == 0
    out = capsys.readouterr().out
    assert "costmatch run costmatch-suite.toml" in out
    project = tmp_path / "proj"
    assert sorted(p.name for p in project.iterdir()) == sorted(scaffold.STARTER_FILES.values())

    monkeypatch.chdir(project)
    assert main(["plan", "costmatch-suite.toml"]) == 0
    assert "20 cells" in capsys.readouterr().out
    assert main(["run", "costmatch-suite.toml", "--quiet", "--no-plots", "--backend", "sequential"]) == 0  # figures: the slow wheel test
    results = project / "costmatch-out" / "results.jsonl"
    runs = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(runs) == 20 and all(r["error"] is None and r["stop_reason"] == "budget:tokens" for r in runs)
    assert all(r["spend"]["tokens"] >= 20000 and r["spend"]["calls"] > 0 for r in runs)
    assert (project / "costmatch-out" / "report.md").is_file()
    capsys.readouterr()

    assert main(["report", str(results), "--fixed", "tokens", "--baseline", "random-guess"]) == 0
    table = capsys.readouterr().out
    assert "Every group verified equal spend in tokens" in table
    assert "local-search" in table and "random-guess" in table

    code = main(["check", str(results), "--fixed", "tokens", "--baseline", "random-guess",
                 "--candidate", "local-search", "--margin", "0.02"])
    captured = capsys.readouterr()
    # the starter declares its reward_range [0, 1] (issue 39: it said so but declared nothing, and its own check
    # asked for it): distribution-free bounds, honest at 10 seeds: INCONCLUSIVE, with the seeds that would decide
    assert code == 3 and "INCONCLUSIVE" in captured.out and "distribution-free, rewards in [0, 1]" in captured.out
    assert "unbounded" not in captured.out + captured.err and "declare reward_range" not in captured.out


def test_init_refuses_to_overwrite(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_arms.py").write_text("# mine\n")
    assert _init(["."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "my_arms.py" in err and "already exists" in err
    assert (tmp_path / "my_arms.py").read_text() == "# mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_arms.py"]  # nothing else written either


def test_init_into_a_file_or_an_unwritable_place_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    assert _init(["afile"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "afile" in err
    assert _init(["afile/sub"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_init_that_fails_mid_way_leaves_no_partial_project(tmp_path, monkeypatch):
    from baselines.core import fileio

    real, calls = fileio.atomic_write_text, []

    def full_disk_on_third(path, text, what="file"):
        calls.append(path)
        if len(calls) == 3:
            raise fileio.DiskError(f"{path}: cannot write the {what}: the disk is full")
        real(path, text, what)

    monkeypatch.setattr(scaffold, "atomic_write_text", full_disk_on_third)
    with pytest.raises(fileio.DiskError):
        scaffold.init_project(tmp_path / "proj")
    assert len(calls) == 3 and list((tmp_path / "proj").iterdir()) == []


def test_init_project_defaults_to_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    written = scaffold.init_project()
    assert {p.name for p in written} == set(scaffold.STARTER_FILES.values())
    with pytest.raises(InputError, match="already exists"):
        scaffold.init_project(".")


def test_starter_modules_follow_the_documented_contract():
    """The starter is what users copy: its classes are plain, documented, and meter through Meter.call."""
    texts = scaffold.starter_templates()
    arms, workload = texts["my_arms.py"], texts["my_workload.py"]
    assert "meter.call(" in arms and "meter.progress(" in arms and "meter.rollouts(" in arms
    assert not re.search(r"^\s*except\b", arms, re.M)  # never swallows BudgetExhausted
    assert "measures" in workload and "def instance" in workload and "def score" in workload
    suite = tomllib.loads(texts["costmatch-suite.toml"])
    assert {a["path"] for a in suite["arms"].values()} == {"my_arms:RandomGuess", "my_arms:LocalSearch"}


# -- docs/suite.md --------------------------------------------------------------------------------

def _toml_blocks(text: str) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", text, re.S)


def test_suite_reference_names_every_key_the_parser_accepts():
    text = SUITE_DOC.read_text(encoding="utf-8")
    for key in sorted(_TOP_KEYS | _ARM_KEYS | _WORKLOAD_KEYS):
        assert f"`{key}`" in text, f"docs/suite.md does not describe the suite key {key!r}"


def test_suite_reference_example_is_a_valid_suite(tmp_path, monkeypatch, capsys, isolated_imports):
    blocks = _toml_blocks(SUITE_DOC.read_text(encoding="utf-8"))
    assert blocks, "docs/suite.md has no ```toml example"
    full = blocks[0]
    data = tomllib.loads(full)
    suite = parse_suite(data, "docs/suite.md")
    assert len(suite.workloads) >= 2 and len(suite.arms) >= 2
    used = set(data) | {k for a in data["arms"].values() for k in a} | {k for w in data["workloads"] for k in w}
    assert used == _TOP_KEYS | _ARM_KEYS | _WORKLOAD_KEYS, "the full example should show every key once"
    path = tmp_path / "suite.toml"
    path.write_text(full)
    monkeypatch.chdir(tmp_path)
    assert main(["plan", str(path)]) == 0
    assert "cells" in capsys.readouterr().out


# -- docs/github-actions.yml ------------------------------------------------------------------------

def test_ci_workflow_installs_a_pinned_costmatch_and_its_commands_parse(tmp_path, monkeypatch, isolated_imports):
    """The workflow a user copies: pinned install, the suite it names exists, every command parses."""
    import shlex

    import yaml

    from baselines.cli import build_parser

    flow = yaml.safe_load((ROOT / "docs" / "github-actions.yml").read_text(encoding="utf-8"))
    steps = flow["jobs"]["gate"]["steps"]
    scripts = [s["run"] for s in steps if "run" in s]
    install = next(s for s in scripts if "pip install" in s and "costmatch" in s)
    assert re.search(r"costmatch @ git\+https://github\.com/OWNER/costmatch@\S+", install)
    assert "pip install costmatch" not in install  # not on the package index
    commands = [shlex.split(line) for s in scripts for line in s.splitlines() if line.strip().startswith("costmatch ")]
    verbs = [c[1] for c in commands]
    assert verbs == ["run", "check"]
    parser = build_parser()
    parsed = [parser.parse_args(c[1:]) for c in commands]
    run, check = parsed
    assert check.results == [f"{run.out}/results.jsonl"]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact"))
    paths = upload["with"]["path"].split()
    # what docs/gate.md step 5 promises in the artifact
    assert {f"{run.out}/{name}" for name in ("report.md", "report.html", "results.jsonl")} <= set(paths)
    assert any(p.startswith(f"{run.out}/plots") for p in paths)
    assert upload.get("if") == "always()"
    # the suite the workflow runs is the documented gate suite, copied under the name it uses
    (tmp_path / run.suite).write_text((ROOT / "docs" / "gate-suite.toml").read_text(encoding="utf-8"))
    monkeypatch.chdir(tmp_path)
    suite = __import__("baselines.running.suite", fromlist=["load_suite"]).load_suite(run.suite)
    assert {check.baseline, check.candidate} <= set(suite.arms) and check.fixed in suite.fixed_units
