"""A cell that ends costmatch's own process (sequential, threading): one line naming it, and a resume that goes on.

Why: on the in-process engines an arm's `os._exit` or a SIGKILL of its own
pid ended costmatch with rc 13 or 137 and no word, and the same command died
again on resume. The journal (`baselines/running/cell_journal.py`) names the
cells running; a watcher prints its line, and the resume runs those cells'
arm first in worker processes, where the worker-died rule records them.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from baselines.core.records import read_records
from baselines.running.cell_journal import JOURNAL_NAME, CellJournal, death_message, unfinished
from baselines.running.runner import _cells_to_run
from baselines.running.suite import load_suite

from .test_runner import REPO, comparable, write_suite

KILLERS = ('[arms.exits]\npath = "tests.runner_arms:KillWorker"\n'
           '[arms.sigkills]\npath = "tests.runner_arms:KillSelf"\n')


def test_the_journal_names_the_cells_running_and_a_resume_runs_their_arm_first(tmp_path):
    """In process: the journal holds exactly the cells running now; a resume puts their (workload, arm) first."""
    suite = load_suite(write_suite(tmp_path, seeds=3, arms='"guess", "once"'))
    out = tmp_path / "out"
    out.mkdir()
    journal = CellJournal(out, "threading")
    by_arm = {(c.arm.name, c.seed): c for c in suite.cells()}
    a, b = by_arm["once", 1], by_arm["guess", 2]
    token_a = journal.started(a)
    token_b = journal.started(b)
    journal.finished(token_b)
    text = (out / JOURNAL_NAME).read_text()
    assert text.splitlines()[0] == death_message([a.identity()], "threading")   # the line the watcher prints
    assert unfinished(out) == {a.identity()}
    kept, first, todo, total = _cells_to_run(suite, [], out, "sequential")
    assert [c.arm.name for c in first] == ["once"] * 3 and {c.arm.name for c in todo} == {"guess"} and total == 6
    assert _cells_to_run(suite, [], out, "loky")[1] == []             # process engines need no reordering
    journal.finished(token_a)
    assert (out / JOURNAL_NAME).read_text() == "" and unfinished(out) == set()
    journal.close()
    assert not (out / JOURNAL_NAME).exists()


def test_a_torn_journal_names_what_it_can(tmp_path):
    cell = ["toy", '{"rollouts":20}', "once", 1]
    (tmp_path / JOURNAL_NAME).write_text("costmatch: x\n" + json.dumps(cell) + "\n[\"toy\", 3]\n{not json\n[\"to")
    assert unfinished(tmp_path) == {tuple(cell)}
    assert unfinished(tmp_path / "missing") == set()


def _run(suite, out, backend, *extra):
    return subprocess.run([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out), "--quiet",
                           "--no-plots", "--backend", backend, "--jobs", "2", "--retries", "0", *extra], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.parametrize("backend", ["sequential", "threading"])
def test_a_cell_that_ends_the_process_is_one_line_and_the_resume_records_it(tmp_path, backend):
    suite = write_suite(tmp_path, seeds=2, extra_arms=KILLERS, arms='"guess", "exits", "sigkills"')
    out = tmp_path / "out"
    died = _run(suite, out, backend)
    assert died.returncode in (13, -9), died.stderr
    lines = died.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("costmatch: the run ended ") and "arm=" in lines[0], died.stderr
    assert "seed=" in lines[0] and "budget=" in lines[0] and "workload=\"toy\"" in lines[0]
    resumes = []
    for _ in range(3):  # each arm that ends the process can end one run; then its cells run in workers
        res = _run(suite, out, backend)
        resumes.append(res)
        if res.returncode == 1:
            break
        assert res.returncode in (13, -9), res.stderr
        assert res.stderr.splitlines()[-1].startswith("costmatch: the run ended "), res.stderr  # the next arm
    assert resumes[-1].returncode == 1, resumes[-1].stderr
    assert "the last run in this folder ended inside" in resumes[0].stderr
    records = read_records(out / "results.jsonl")
    assert len(records) == 6 and not (out / JOURNAL_NAME).exists()
    assert {r.arm: r.stop_reason for r in records if r.arm != "guess"} == {"exits": "worker-died",
                                                                         "sigkills": "worker-died"}
    assert all(r.error is None for r in records if r.arm == "guess")
    ref = tmp_path / "ref"
    assert _run(suite, ref, "loky").returncode == 1
    assert comparable(records) == comparable(read_records(ref / "results.jsonl"))  # as on a process engine
