"""Every path a verb reads refuses a FIFO with no writer, a device and a socket in one line, and never blocks.

Why: a suite that was a FIFO hung `plan` and `run` (blocked in open, killed
after 60 s; issue 41). Each test has pytest-timeout's per-test limit as a
guard: a reader that blocks fails the test instead of hanging the suite.
A named FIFO is given `PIPE_WAIT` seconds for a writer where a pipe is
wanted (results files); the tests shorten it.
"""
from __future__ import annotations

import os
import socket
import stat
import threading

import pytest

from baselines.cli import main
from baselines.core import input_files
from baselines.core.errors import InputError
from baselines.core.input_files import open_input
from baselines.core.prices import load_prices
from baselines.core.records import write_records

from .builders import rec

pytestmark = [pytest.mark.timeout(30),
              pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")]


@pytest.fixture(autouse=True)
def short_wait(monkeypatch):
    monkeypatch.setattr(input_files, "PIPE_WAIT", 0.2)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


@pytest.fixture
def results(tmp_path):
    path = tmp_path / "results.jsonl"
    write_records(path, [rec(arm, s, 0.1 * s) for arm in ("A", "B") for s in range(3)])
    return path


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def _verbs(fifo, results, tmp_path):
    folder = tmp_path / "samples"
    folder.mkdir()
    os.mkfifo(folder / "aime2025_m.jsonl")
    out = str(tmp_path / "o.jsonl")
    return {
        "plan": ["plan", str(fifo)],
        "run": ["run", str(fifo), "--out", str(tmp_path / "out")],
        "compare": ["compare", str(fifo)],
        "report": ["report", str(fifo)],
        "check": ["check", str(fifo), "--baseline", "A", "--candidate", "B", "--margin", "0.1"],
        "check --against": ["check", str(results), "--baseline", "A", "--candidate", "B", "--margin", "0.1",
                            "--against", str(fifo)],
        "import agentdescent": ["import", "agentdescent", str(fifo), "-o", out],
        "import csv": ["import", "csv", str(fifo), "--map", "arm=a,seed=s,reward=r", "-o", out],
        "import inspect": ["import", "inspect", str(fifo), "-o", out],
        "import lm-eval": ["import", "lm-eval", str(fifo), "-o", out],
        "import promptfoo": ["import", "promptfoo", str(fifo), "-o", out],
        "curves --folder": ["curves", "--folder", str(folder), "--models", "m"],
        "history": ["history", str(fifo)],
        "check --reference": ["check", str(results), "--baseline", "A", "--candidate", "B", "--margin", "0.1",
                              "--history", str(tmp_path / "h.jsonl"), "--commit", "abc", "--reference", str(fifo)],
    }


VERBS = ["plan", "run", "compare", "report", "check", "check --against", "import agentdescent", "import csv",
         "import inspect", "import lm-eval", "import promptfoo", "curves --folder", "history", "check --reference"]


@pytest.mark.parametrize("verb", VERBS)
def test_a_fifo_with_no_writer_is_refused_in_one_line(verb, fifo, results, tmp_path, capsys):
    """Failed before for plan, run, import and curves (blocked in open() until the guard's timeout); history and
    check --reference said "no such file" / "does not exist" of a FIFO that was there."""
    argv = _verbs(fifo, results, tmp_path)[verb]
    assert main(argv) == 2
    err = _one_line(capsys)
    assert "pipe" in err and ("FIFO" in err or "not a file" in err), err
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("verb", ["plan", "import agentdescent", "import csv", "import promptfoo"])
def test_a_device_is_refused_in_one_line(verb, tmp_path, results, capsys):
    device = "/dev/zero"   # never ends: a reader that tried would fill the memory
    if not (os.path.exists(device) and stat.S_ISCHR(os.stat(device).st_mode)):
        pytest.skip("no character device to try")
    argv = [device if a.endswith("pipe.jsonl") else a for a in _verbs(tmp_path / "pipe.jsonl", results, tmp_path)[verb]]
    assert main(argv) == 2
    assert "is a device, not a file" in _one_line(capsys)


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(InputError, match="the suite is a socket, not a file"):
            open_input(path, "suite")
    finally:
        server.close()


def test_a_price_table_that_is_a_fifo_is_refused(fifo):
    with pytest.raises(InputError, match="price file is a named pipe"):
        load_prices(fifo)


def test_a_fifo_whose_writer_comes_is_read_as_the_file(fifo, results, capsys):
    """Results arguments take pipes (contract 1): the wait ends as soon as the writer opens the FIFO."""
    data = results.read_bytes()

    def feed():
        with open(fifo, "wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    input_files.PIPE_WAIT = 20.0  # the monkeypatch fixture puts it back
    assert main(["compare", str(fifo), "--json"]) == 0
    writer.join(10)
    assert '"A"' in capsys.readouterr().out


@pytest.mark.parametrize("verb", ["plan", "run"])
def test_a_local_suite_that_is_a_fifo_is_refused_not_replaced_by_the_demo(verb, tmp_path, monkeypatch, capsys):
    """Failed before: ./costmatch-suite.toml as a FIFO was skipped in silence and the built-in demo ran instead."""
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "costmatch-suite.toml")
    argv = [verb] + (["--out", str(tmp_path / "out")] if verb == "run" else [])
    assert main(argv) == 2
    assert "costmatch-suite.toml: the suite is a named pipe (FIFO)" in _one_line(capsys)
    assert not (tmp_path / "out").exists()
