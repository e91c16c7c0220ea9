"""The console script starts BLAS with one thread for analysis verbs, never for `run`, and never over the user's value."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from baselines import cli


@pytest.mark.parametrize("argv", [["compare", "r.jsonl", "--json"], ["report", "r.jsonl"], ["check", "r.jsonl"],
                                  ["curves", "x"], ["history", "h.jsonl"], ["--version"], []])
def test_analysis_verbs_get_one_openblas_thread(argv):
    environ: dict = {}
    cli.quiet_blas(argv, environ)
    assert environ == {"OPENBLAS_NUM_THREADS": "1"}


def test_run_keeps_the_environment_as_it_is():
    """`run`'s workers run the user's arms: their numerical code keeps every core."""
    environ: dict = {}
    cli.quiet_blas(["run", "suite.toml"], environ)
    assert environ == {}


def test_a_value_the_user_set_is_kept():
    environ = {"OPENBLAS_NUM_THREADS": "4"}
    cli.quiet_blas(["compare", "r.jsonl"], environ)
    assert environ == {"OPENBLAS_NUM_THREADS": "4"}


def test_main_called_by_a_program_leaves_its_environment_alone(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert cli.main(["compare", str(tmp_path / "missing.jsonl")]) == 2
    assert "OPENBLAS_NUM_THREADS" not in os.environ


@pytest.mark.process
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts threads through Linux's /proc")
@pytest.mark.parametrize("verb, alone", [("compare", True), ("run", None)])
def test_a_compare_process_has_no_blas_threads_after_numpy_and_scipy_load(verb, alone):
    """The threads of the process once numpy and scipy.special (each with its own OpenBLAS) are imported:
    only the main thread for `compare`; `run` keeps whatever OpenBLAS starts on this machine."""
    script = ("import os, sys; from baselines import cli; cli.quiet_blas(sys.argv[1:], os.environ); "
              "import numpy, scipy.special; "
              "print(open('/proc/self/status').read().split('Threads:')[1].split()[0])")
    root = str(Path(__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    threads = int(subprocess.run([sys.executable, "-c", script, verb, "r.jsonl"], capture_output=True, text=True,
                                 cwd=root, env=env, check=True).stdout)
    default = int(subprocess.run([sys.executable, "-c", script.replace("cli.quiet_blas(sys.argv[1:], os.environ); ", ""),
                                  verb], capture_output=True, text=True, cwd=root, env=env, check=True).stdout)
    if alone:
        assert threads == 1
    else:
        assert threads == default
