"""The history file under SIGKILL mid-append and two concurrent checks: no torn or lost lines (issue 40).

Both by construction, not by racing a window: the killed check is stopped
inside its write (half its line on disk) before the SIGKILL, and the two
concurrent checks are both seen waiting on the file's lock (/proc/locks)
before the process holding it lets go.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baselines.analysis.history.entry import read_history
from baselines.cli import main
from tests.test_history import _results

pytestmark = [pytest.mark.slow, pytest.mark.process]
ROOT = Path(__file__).resolve().parents[1]

HALF_WRITE = """
import os, sys, time
from baselines.cli import main
real = os.write
def half(fd, data):
    data = bytes(data)
    if b'costmatch.history/1' in data:
        real(fd, data[: len(data) // 2])
        open(sys.argv[1], "w").close()
        time.sleep(600)
    return real(fd, data)
os.write = half
main(["check", sys.argv[2], "--baseline", "baseline", "--candidate", "candidate", "--margin", "0.05",
      "--history", sys.argv[3], "--commit", "c2"])
"""

HOLD_LOCK = """
import os, sys, time
from baselines.core.locked_lines import locked_append
def decide(lines):
    open(sys.argv[2], "w").close()
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.05)
    return [lines[0].replace(b'"commit": "c1"', b'"commit": "holder"')]
locked_append(sys.argv[1], decide)
"""


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(PYTHONPATH=str(ROOT), COSTMATCH_LOOKS_LEDGER="off")
    return env


def _wait_for(predicate, what: str, limit: float = 120.0) -> None:
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > limit:   # a hang, not a timing assertion
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


def _check_args(results: str, history: Path, commit: str, *extra) -> list[str]:
    return [sys.executable, "-m", "baselines.cli", "check", results, "--baseline", "baseline", "--candidate",
            "candidate", "--margin", "0.05", "--history", str(history), "--commit", commit, *extra]


def test_a_check_killed_mid_append_leaves_no_torn_line_for_the_next(tmp_path):
    results = _results(tmp_path / "r.jsonl", seed=1)
    history = tmp_path / "h.jsonl"
    assert main(["check", results, "--baseline", "baseline", "--candidate", "candidate", "--margin", "0.05",
                 "--history", str(history), "--commit", "c1"]) == 0
    first = history.read_bytes()
    ready = tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-c", HALF_WRITE, str(ready), results, str(history)], env=_env())
    _wait_for(ready.exists, "the check wrote half its line")
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    torn = history.read_bytes()
    assert torn.startswith(first) and len(torn) > len(first) and not torn.endswith(b"\n")
    done = subprocess.run(_check_args(results, history, "c2"), env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "an incomplete last line" in done.stderr
    entries, warnings = read_history(str(history))
    assert [e.commit for e in entries] == ["c1", "c2"] and warnings == []
    (side,) = tmp_path.glob("h.torn-*.jsonl")
    assert side.read_bytes() == torn[len(first):]


def _waiters(path: Path) -> int:
    inode = os.stat(path).st_ino
    lines = Path("/proc/locks").read_text().splitlines()
    return sum(1 for line in lines if "->" in line and f":{inode} " in line)


def test_two_concurrent_checks_both_append_whole_lines_and_count_their_looks(tmp_path):
    results = _results(tmp_path / "r.jsonl", seed=1)
    reference = _results(tmp_path / "ref.jsonl", seed=2)
    history = tmp_path / "h.jsonl"
    assert main(["check", results, "--baseline", "baseline", "--candidate", "candidate", "--margin", "0.05",
                 "--history", str(history), "--commit", "c1"]) == 0
    ready, release = tmp_path / "ready", tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(history), str(ready), str(release)], env=_env())
    _wait_for(ready.exists, "the holder has the lock")
    checks = [subprocess.Popen(_check_args(results if c == "c2" else reference, history, c, "--reference",
                                           reference), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
              for c in ("c2", "c3")]
    _wait_for(lambda: _waiters(history) == 2, "both checks wait on the history's lock")
    release.touch()
    assert holder.wait() == 0
    for p in checks:
        out, err = p.communicate()
        assert p.returncode in (0, 3, 4), err.decode()
    raw = history.read_bytes()
    assert raw.endswith(b"\n") and all(json.loads(line) for line in raw.splitlines())
    entries, _ = read_history(str(history))
    assert sorted(e.commit for e in entries) == ["c1", "c2", "c3", "holder"]
    assert sorted(e.drift.look for e in entries if e.drift) == [1, 2]
