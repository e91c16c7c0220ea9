"""Records name costmatch's own code, the backend, Python and key library versions (contract v3, issue 31)."""
from __future__ import annotations

import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import pytest

from baselines.cli import main
from baselines.core import code_identity as ci

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def starter_run(tmp_path):
    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    suite = project / "costmatch-suite.toml"
    suite.write_text(suite.read_text().replace("seeds = 10 ", "seeds = 2 "))
    return project


@pytest.mark.parametrize("backend", ["sequential", "threading"])
def test_records_carry_code_identity_backend_python_and_libraries(starter_run, backend):
    out = starter_run / "o"
    assert main(["run", str(starter_run / "costmatch-suite.toml"), "--out", str(out), "--quiet", "--no-plots",
                 "--backend", backend]) == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for row in rows:
        prov = row["provenance"]
        assert prov["backend"] == backend
        assert prov["costmatch_code"] == ci.package_hash(REPO / "baselines")
        assert prov["python"] == platform.python_version()
        assert prov["libraries"] == {"numpy": metadata.version("numpy"), "pandas": metadata.version("pandas"),
                                     "scipy": metadata.version("scipy")}
        assert prov["arm_module"] and prov["costmatch"]  # the fields before stay as they were


def test_both_readers_keep_the_added_fields_in_bulk(starter_run, monkeypatch):
    from baselines import read_records
    from baselines.analysis.tables import table as table_mod
    from baselines.analysis.tables.table import RunTable

    slow = []
    real = table_mod._slow_chunk
    monkeypatch.setattr(table_mod, "_slow_chunk", lambda *a: slow.append(1) or real(*a))

    out = starter_run / "o"
    assert main(["run", str(starter_run / "costmatch-suite.toml"), "--out", str(out), "--quiet", "--no-plots",
                 "--backend", "sequential"]) == 0
    records = read_records(out / "results.jsonl")
    assert records[0].extra["provenance"]["backend"] == "sequential"
    assert len(RunTable.read([out / "results.jsonl"])) == len(records)
    assert not slow  # the nested `libraries` object keeps the file on the bulk path
    assert main(["compare", str(out / "results.jsonl")]) == 0


def test_the_package_hash_changes_with_any_source_file(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("x = 1\n")
    (package / "sub" / "b.py").write_text("y = 2\n")
    first = ci.package_hash(package)
    (package / "sub" / "b.py").write_text("y = 3\n")
    assert ci.package_hash(package) != first


def test_git_commit_is_read_without_running_git():
    try:
        expected = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                                  check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    assert ci.git_commit(REPO) == expected


def test_outside_a_checkout_there_is_no_commit(tmp_path):
    assert ci.git_commit(tmp_path) is None
