"""What ships is what the tree holds: packages, data files, and every verb of the installed command.

Why: a hand-kept package list once shipped a wheel without `baselines/importers`,
so every `costmatch import` failed for anyone who ran `pip install .` instead of
`pip install -e .`, and no test noticed because the tests only ever used the
editable checkout. The fast tests compare setuptools' own reading of
pyproject.toml with the folders on disk; the slow test builds the wheel,
installs it into a fresh venv and runs every verb from a folder outside the
checkout.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tests.builders import AGENTDESCENT

ROOT = Path(__file__).resolve().parents[1]
TOP_PACKAGES = ("baselines", "workloads", "arms", "reports")


def _distribution():
    """The Distribution setuptools builds from pyproject.toml (packages and package data as the build sees them)."""
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    cwd = os.getcwd()
    os.chdir(ROOT)  # package discovery is relative to the project root
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return apply_configuration(Distribution(), ROOT / "pyproject.toml")
    finally:
        os.chdir(cwd)


def _is_data(rel: Path) -> bool:
    return "data" in rel.parts


def _tree_packages() -> set[str]:
    """Every folder under the four top-level packages that holds .py files (data folders aside)."""
    out = set()
    for top in TOP_PACKAGES:
        for py in (ROOT / top).rglob("*.py"):
            rel = py.parent.relative_to(ROOT)
            if "__pycache__" in rel.parts or _is_data(rel):
                continue
            out.add(".".join(rel.parts))
    return out


def _tree_data_files() -> set[str]:
    """Every non-code file under the packages (what a user of the wheel may need at run time)."""
    out = set()
    for top in TOP_PACKAGES:
        for path in (ROOT / top).rglob("*"):
            rel = path.relative_to(ROOT)
            if not path.is_file() or "__pycache__" in rel.parts or path.name.startswith("."):
                continue
            if path.suffix in (".py", ".pyc") and not _is_data(rel):
                continue
            out.add(rel.as_posix())
    return out


def _shipped_data_files(dist) -> set[str]:
    out = set()
    for package, patterns in (dist.package_data or {}).items():
        base = ROOT.joinpath(*package.split(".")) if package else ROOT
        for pattern in patterns:
            for path in base.glob(pattern):
                if path.is_file() and "__pycache__" not in path.parts:
                    out.add(path.relative_to(ROOT).as_posix())
    return out


def test_every_code_folder_under_the_packages_is_a_shipped_package():
    dist = _distribution()
    shipped = set(dist.packages)
    tree = _tree_packages()
    assert tree - shipped == set(), "folders with .py files the wheel would leave out: give each an __init__.py (discovery needs one) or widen [tool.setuptools.packages.find]"
    assert shipped - tree == set(), "packages the wheel would ship that are not in the tree"
    assert "baselines.importers" in shipped  # the subpackage the hand-kept list once dropped
    assert not any(p.split(".")[0] in ("tests", "benchmarks", "docs") for p in shipped)


def test_every_data_file_under_the_packages_ships():
    dist = _distribution()
    missing = _tree_data_files() - _shipped_data_files(dist)
    assert missing == set(), "data files the wheel would leave out: widen [tool.setuptools.package-data]"
    assert "baselines/data/default-suite.toml" in _shipped_data_files(dist)
    assert "baselines/data/prices.json" in _shipped_data_files(dist)


def test_the_tree_check_sees_a_missing_package(tmp_path, monkeypatch):
    """The check above is not vacuous: a folder of .py files without __init__.py is reported."""
    fake = tmp_path / "proj"
    shutil.copytree(ROOT, fake, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build",
                                                                 "tests", "benchmarks", "docs"))
    (fake / "baselines" / "extra").mkdir()
    (fake / "baselines" / "extra" / "mod.py").write_text("x = 1\n")
    # this module's own globals, not sys.modules[__name__]: a suite check forgets a user's top-level module
    # (here `tests`) when another suite's folder holds one of the same name, which evicted this module there
    monkeypatch.setitem(globals(), "ROOT", fake)
    dist = _distribution()
    assert "baselines.extra" in _tree_packages() - set(dist.packages)


# -- the built wheel, installed into a fresh venv, every verb from outside the checkout ------------

def _run(cmd, cwd, env=None, timeout=900):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A venv with the built wheel of this tree and nothing else of costmatch.

    No --system-site-packages: this machine has costmatch installed editable
    from a checkout, and its import hook would supply any module the wheel
    lacks, hiding exactly the mistake this test exists to catch. The
    dependencies come from PyPI (pip's cache makes repeat runs quick).
    """
    base = tmp_path_factory.mktemp("wheel")
    # Build from a clean copy: setuptools reuses a checkout's stale build/ folder, which can put
    # files into the wheel that the tree no longer has (or hide that it lacks them).
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "dist", "*.egg-info",
                                                                 "__pycache__", ".venv", "costmatch-out"))
    # A clean environment: with PYTHONPATH pointing at a checkout, pip would find the checkout's
    # metadata and report costmatch as "already installed" without installing the wheel.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "COSTMATCH_SHARED_DATA")}
    wheels = base / "dist"
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
                  "-w", wheels, source], cwd=base, env=env)
    assert build.returncode == 0, build.stderr
    wheel = next(wheels.glob("costmatch-*.whl"))
    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", venv], cwd=base, env=env)
    assert made.returncode == 0, made.stderr
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    pip = _run([bin_dir / "python", "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel],
               cwd=base, env=env, timeout=1800)
    assert pip.returncode == 0, pip.stderr
    work = base / "elsewhere"  # outside the checkout: nothing here can import the tree by accident
    work.mkdir()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return {"costmatch": bin_dir / "costmatch", "python": bin_dir / "python", "cwd": work, "env": env,
            "wheel": wheel}


def _cm(installed, *args, cwd=None):
    return _run([installed["costmatch"], *args], cwd=cwd or installed["cwd"], env=installed["env"])


@pytest.mark.slow
def test_installed_wheel_is_not_the_checkout(installed):
    res = _run([installed["python"], "-c", "import baselines, baselines.importers, reports, arms, workloads; "
                "print(baselines.__file__)"], cwd=installed["cwd"], env=installed["env"])
    assert res.returncode == 0, res.stderr
    assert str(ROOT) not in res.stdout and "site-packages" in res.stdout


@pytest.mark.slow
def test_installed_help_and_version(installed):
    res = _cm(installed, "--help")
    assert res.returncode == 0, res.stderr
    for verb in ("compare", "report", "check", "run", "plan", "import", "list", "init"):
        assert verb in res.stdout
    res = _cm(installed, "--version")
    assert res.returncode == 0 and res.stdout.startswith("costmatch ")


@pytest.mark.slow
def test_installed_list(installed):
    res = _cm(installed, "list")
    assert res.returncode == 0, res.stderr
    for name in ("workloads.search_sim:SearchSim", "workloads.bbob:BBOB", "arms.selection:Greedy",
                 "arms.optimizers:CMAES", "tokens"):
        assert name in res.stdout


@pytest.mark.slow
def test_installed_init_run_report_check_import(installed):
    """The first hour, on the installed command: every verb from a folder outside the checkout."""
    cwd = installed["cwd"]
    project = cwd / "starter"
    res = _cm(installed, "init", "starter")
    assert res.returncode == 0, res.stderr
    suite = project / "costmatch-suite.toml"
    assert suite.is_file()

    res = _cm(installed, "plan", suite.name, cwd=project)
    assert res.returncode == 0, res.stderr
    assert "cells" in res.stdout and "tokens" in res.stdout

    res = _cm(installed, "run", suite.name, "--quiet", cwd=project)
    assert res.returncode == 0, res.stderr
    out = project / "costmatch-out"
    results = out / "results.jsonl"
    assert (out / "report.md").is_file() and results.is_file()
    assert list((out / "plots").glob("*.png")), "run wrote no figures"

    res = _cm(installed, "compare", results, "--fixed", "tokens", "--json")
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert payload["valid"] is True

    res = _cm(installed, "report", results, "--fixed", "tokens", "--out", "table.md", "--plots", "figs")
    assert res.returncode == 0, res.stderr
    assert "local-search" in (cwd / "table.md").read_text() and list((cwd / "figs").iterdir())

    res = _cm(installed, "check", results, "--fixed", "tokens", "--baseline", "random-guess",
              "--candidate", "local-search", "--margin", "0.02")
    # init's workload declares reward_range [0, 1], so the gate uses the distribution-free bound: at the
    # starter's 10 seeds it cannot decide a 0.02 margin and says so with exit 3 (the README's check line)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "INCONCLUSIVE (local-search vs random-guess)" in res.stdout and "too few seeds" in res.stdout, res.stdout

    files = sorted(AGENTDESCENT.glob("*.json"))
    assert files, f"no agentdescent files in {AGENTDESCENT}"
    for i, path in enumerate(files):
        res = _cm(installed, "import", "agentdescent", path, "-o", f"ad{i}.jsonl")
        assert res.returncode == 0, f"{path.name}: {res.stderr}"
        assert (cwd / f"ad{i}.jsonl").stat().st_size > 0
    res = _cm(installed, "compare", "ad0.jsonl", "--fixed", "rollouts", "--no-pairs")
    assert res.returncode == 0, res.stderr

    (cwd / "table.csv").write_text("policy,seed,acc,tok\nA,0,0.5,100\nA,1,0.6,110\nB,0,0.4,100\nB,1,0.7,90\n")
    res = _cm(installed, "import", "csv", "table.csv", "--map", "arm=policy,seed=seed,reward=acc,tokens=tok",
              "-o", "csv.jsonl")
    assert res.returncode == 0, res.stderr
    assert len((cwd / "csv.jsonl").read_text().splitlines()) == 4


@pytest.mark.slow
def test_installed_replay_suite_runs_by_name_with_its_shipped_samples(installed):
    """The replay slice is package data: the shipped suite runs by name from a folder outside the checkout."""
    res = _cm(installed, "run", "replay-aime2025", "--quiet", "--no-plots")
    assert res.returncode == 0, res.stderr
    lines = (installed["cwd"] / "replay-out" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 70 and all('"items":' in line for line in lines)
    res = _cm(installed, "curves", "--draws", "4")
    assert res.returncode == 0 and "gpt-oss-20b" in res.stdout, res.stderr


@pytest.mark.slow
def test_installed_errors_are_one_line(installed):
    res = _cm(installed, "compare", "nope.jsonl", "--fixed", "tokens")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "nope.jsonl" in res.stderr and "Traceback" not in res.stderr
