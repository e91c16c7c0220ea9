"""The runner: suites, parallel cells, crash safety and resume."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baselines import read_records
from baselines.cli import main
from baselines.running.suite import load_suite
from tests.runner_arms import HOLD_VARIABLE

REPO = Path(__file__).resolve().parents[1]
HUNG = 120  # seconds after which a wait means the code under test hung
HELD = '[arms.held]\npath = "tests.runner_arms:HeldFromSeed"\n'

TOY = """
seeds = {seeds}
jobs = {jobs}
timeout = {timeout}

[arms.guess]
path = "tests.helpers:Guess"
params = {{ sleep = {sleep} }}

[arms.guess-b]
path = "tests.helpers:Guess"
params = {{ spin = 10 }}

[arms.once]
path = "tests.helpers:Once"
{extra_arms}
[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {{ rollouts = 20 }}
arms = [{arms}]
"""


def write_suite(tmp_path, name="suite.toml", seeds=4, jobs=1, timeout=30, sleep=0.0, extra_arms="",
                arms='"guess", "guess-b", "once"'):
    path = tmp_path / name
    path.write_text(TOY.format(seeds=seeds, jobs=jobs, timeout=timeout, sleep=sleep, extra_arms=extra_arms,
                               arms=arms))
    return path


def costmatch(*args, cwd=REPO, **kw):
    return subprocess.run([sys.executable, "-m", "baselines.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, **kw)


def run_here(capsys, *args) -> tuple[int, str]:
    """`costmatch run` in this process on the sequential engine: (exit code, stderr). For tests of what a run
    writes and says; tests of processes (signals, kills, engines) start them."""
    capsys.readouterr()
    code = main(["run", *map(str, args), "--backend", "sequential"])
    return code, capsys.readouterr().err


def comparable(records):
    """Records without timing fields and without where they ran (host, worker, backend), as canonical strings."""
    out = set()
    for r in records:
        d = r.to_json()
        d["spend"] = {k: v for k, v in d["spend"].items() if k != "seconds"}
        d["provenance"] = {k: v for k, v in d["provenance"].items() if k not in ("host", "worker", "backend")}
        out.add(json.dumps(d, sort_keys=True))
    return out


def wait_for_lines(results: Path, count: int) -> None:
    """Until `results` holds `count` whole lines; the bound only fails a hung run (nothing asserts a duration)."""
    hung = time.monotonic() + HUNG
    while not (results.exists() and results.read_text().count("\n") >= count):
        assert time.monotonic() < hung, f"hung: fewer than {count} lines in {results}"
        time.sleep(0.02)


def test_run_writes_every_cell_and_a_report(tmp_path, capsys):
    suite = write_suite(tmp_path)
    code, err = run_here(capsys, suite, "--out", tmp_path / "out", "--quiet", "--no-plots")
    assert code == 0, err
    records = read_records(tmp_path / "out" / "results.jsonl")
    assert len(records) == 12
    assert {r.stop_reason for r in records if r.arm != "once"} == {"budget:rollouts"}
    assert all(r.spend["rollouts"] == 20 for r in records if r.arm != "once")
    once = [r for r in records if r.arm == "once"]
    assert all(r.extra["oracle_reward"] >= r.reward for r in once)  # best alternative on test
    assert (tmp_path / "out" / "report.md").read_text().startswith("# costmatch report")
    assert json.loads((tmp_path / "out" / "comparison-rollouts.json").read_text())["fixed"] == "rollouts"


@pytest.mark.process
def test_results_do_not_depend_on_jobs_or_backend(tmp_path):
    suite = write_suite(tmp_path, seeds=3)
    sets = []
    for label, args in [("j1", ["--jobs", "1"]), ("j2", ["--jobs", "2"]), ("thr", ["--jobs", "2", "--backend", "threading"]),
                        ("dask", ["--jobs", "2", "--backend", "dask"])]:
        res = costmatch("run", suite, "--out", tmp_path / label, "--quiet", "--no-plots", *args, timeout=240)
        assert res.returncode == 0, (label, res.stderr[-2000:])
        sets.append(comparable(read_records(tmp_path / label / "results.jsonl")))
    assert sets[0] == sets[1] == sets[2] == sets[3]


def test_crashing_cell_becomes_error_record_and_exit_1(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=2, extra_arms='[arms.crash]\npath = "tests.helpers:Crash"\n',
                        arms='"guess", "crash"')
    code, err = run_here(capsys, suite, "--out", tmp_path / "out", "--quiet", "--no-plots")
    assert code == 1 and "2 cell(s) failed" in err
    crashed = [r for r in read_records(tmp_path / "out" / "results.jsonl") if r.arm == "crash"]
    assert len(crashed) == 2
    for r in crashed:
        assert r.reward is None and r.error["type"] == "RuntimeError" and "on purpose" in r.error["message"]
        assert "helpers.py" in r.error["where"] and r.spend["rollouts"] == 1


@pytest.mark.parametrize("backend", ["sequential", "threading"])
def test_hung_cell_times_out_into_an_error_record(tmp_path, backend):
    """In this process: SIGALRM on the main thread, the watchdog on a cell thread (worker processes:
    test_execution's timeout on every local backend)."""
    suite = write_suite(tmp_path, seeds=1, timeout=1, jobs=2,
                        extra_arms='[arms.hang]\npath = "tests.helpers:Hang"\n', arms='"guess", "hang"')
    start = time.monotonic()
    code = main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet", "--no-plots", "--backend", backend])
    assert time.monotonic() - start < 30
    assert code == 1
    [hung] = [r for r in read_records(tmp_path / "out" / "results.jsonl") if r.arm == "hang"]
    assert hung.error["type"] == "CellTimeout" and hung.stop_reason == "timeout" and hung.reward is None


def test_resume_skips_finished_cells_and_retry_errors_reruns_failures(tmp_path, monkeypatch, capsys):
    flag = tmp_path / "flag"
    flag.touch()
    suite = write_suite(tmp_path, seeds=3, extra_arms='[arms.flaky]\npath = "tests.helpers:CrashInSeedTwo"\n',
                        arms='"guess", "flaky"')
    monkeypatch.setenv("COSTMATCH_TEST_FLAG", str(flag))
    out = tmp_path / "out"
    assert run_here(capsys, suite, "--out", out, "--quiet", "--no-plots")[0] == 1
    first = (out / "results.jsonl").read_text()
    _, err = run_here(capsys, suite, "--out", out, "--no-plots")
    assert "6 finished cell(s) kept, 0 to run" in err
    assert (out / "results.jsonl").read_text() == first  # nothing ran twice
    flag.unlink()
    assert run_here(capsys, suite, "--out", out, "--quiet", "--no-plots", "--retry-errors")[0] == 0
    records = read_records(out / "results.jsonl")
    assert len(records) == 6 and all(r.error is None for r in records)


def test_changed_params_under_same_arm_name_are_refused(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=1)
    out = tmp_path / "out"
    assert run_here(capsys, suite, "--out", out, "--quiet", "--no-plots")[0] == 0
    suite.write_text(suite.read_text().replace("spin = 10", "spin = 11"))
    code, err = run_here(capsys, suite, "--out", out, "--quiet", "--no-plots")
    assert code == 2
    assert "arm 'guess-b' ran with params" in err and "--fresh" in err
    code, _ = run_here(capsys, suite, "--out", out, "--quiet", "--no-plots", "--fresh")
    assert code == 0 and len(list(out.glob("results.*.jsonl"))) == 1  # old file kept aside


@pytest.mark.process
def test_sigkill_then_resume_keeps_every_finished_cell_and_matches_uninterrupted_run(tmp_path, capsys):
    # the "held" cells of seeds 2-7 never end in the killed run: the kill lands mid-run by construction
    # (before, a test process descheduled for ~0.8 s after seeing 6 lines let the run finish first)
    suite = write_suite(tmp_path, seeds=8, jobs=2, sleep=0.01, timeout=300, extra_arms=HELD,
                        arms='"guess", "guess-b", "once", "held"')
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                             "--quiet", "--no-plots"], cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, HOLD_VARIABLE: "1"})
    results = out / "results.jsonl"
    try:
        wait_for_lines(results, 6)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = results.read_bytes()
    kept = before[: before.rfind(b"\n") + 1].decode().splitlines()
    assert 6 <= len(kept) <= 32 - 6, "the held cells cannot have finished"
    code, err = run_here(capsys, suite, "--out", out, "--quiet", "--no-plots")  # the resume: in this process
    assert code == 0, err
    after = (out / "results.jsonl").read_text().splitlines()
    assert after[: len(kept)] == kept                       # every finished cell kept, untouched
    final = read_records(results)                           # and no identity twice (read would fail)
    assert len(final) == 32
    ref = tmp_path / "ref"
    assert run_here(capsys, suite, "--out", ref, "--quiet", "--no-plots")[0] == 0
    assert comparable(final) == comparable(read_records(ref / "results.jsonl"))


def test_torn_last_line_is_dropped_on_resume(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=2)
    out = tmp_path / "out"
    assert run_here(capsys, suite, "--out", out, "--quiet", "--no-plots")[0] == 0
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    code, err = run_here(capsys, suite, "--out", out, "--no-plots")
    assert code == 0 and "incomplete last line" in err
    assert len(read_records(out / "results.jsonl")) == 6


@pytest.mark.parametrize("mutate, words", [
    (lambda s: s.replace("seeds = 4", "seeds = 4\nbogus = 1"), "unknown key 'bogus'"),
    (lambda s: s.replace("seeds = 4", 'seeds = "four"'), "'seeds' must be a count"),
    (lambda s: s.replace('"tests.helpers:Guess"', '"tests.helpers:Nope"', 1), "has no 'Nope'"),
    (lambda s: s.replace('"tests.helpers:Toy"', '"no_such_module:Toy"'), "cannot import module 'no_such_module'"),
    (lambda s: s.replace('fixed = "rollouts"', 'fixed = "tokens"'), "'tokens' is not a unit of the budget"),
    (lambda s: s.replace("budget = { rollouts = 20 }", "budget = { rollouts = -1 }"), "must be non-negative"),
    (lambda s: s.replace("budget = { rollouts = 20 }", "budget = { widgets = 5 }").replace(
        'fixed = "rollouts"', 'fixed = "widgets"'), "unit 'widgets' is not measured"),
    (lambda s: s.replace('arms = ["guess"', 'arms = ["ghost"'), "unknown arm 'ghost'"),
    (lambda s: s.replace("[arms.once]", "[arms.guess]"), "not valid TOML"),
    (lambda s: s.replace("spin = 10", "spinn = 10"), "check the parameter names"),
])
def test_suite_mistakes_stop_before_anything_runs(tmp_path, mutate, words, capsys):
    suite = write_suite(tmp_path)
    suite.write_text(mutate(suite.read_text()))
    code = main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and str(suite) in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_plan_lists_cells_and_total_allowance(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=3)
    assert main(["plan", str(suite)]) == 0
    out = capsys.readouterr().out
    assert out.count("toy\trollouts=20\t") == 9
    assert "9 cells;" in out and "rollouts: at most 180 over all 9 cells" in out


def test_default_suite_loads_and_has_the_promised_shape():
    suite = load_suite(REPO / "baselines" / "data" / "default-suite.toml")
    assert {(w.name, w.fixed) for w in suite.workloads} == {("search-sim", "tokens"), ("search-sim", "rollouts"),
                                                           ("bbob", "calls")}
    assert all(len(w.seeds) >= 5 for w in suite.workloads)


@pytest.mark.process
def test_sigterm_stops_scheduling_and_keeps_finished_cells(tmp_path, capsys):
    suite = write_suite(tmp_path, seeds=30, jobs=2, sleep=0.02)
    out = tmp_path / "termed"
    proc = subprocess.Popen([sys.executable, "-m", "baselines.cli", "run", str(suite), "--out", str(out),
                             "--quiet", "--no-plots"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 4):
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "run the same command to resume" in err
    kept = read_records(results)
    assert 4 <= len(kept) < 90
    assert run_here(capsys, suite, "--out", out, "--quiet", "--no-plots")[0] == 0  # the resume: in this process
    assert len(read_records(results)) == 90


def test_progress_lines_show_the_cells_own_spend_apart_from_the_suite_total():
    """A cell's reward sits beside its own spend; the running total is labelled as the suite's."""
    import io

    from baselines.running.progress import Progress
    from baselines.core.records import RunRecord

    stream = io.StringIO()
    progress = Progress(["tokens"], stream=stream)
    progress.start(2, 0)
    for seed, tokens in ((0, 1200.0), (1, 800.0)):
        progress.update(RunRecord(workload="w", arm="a", seed=seed, spend={"tokens": tokens}, reward=0.5,
                                  budget={"tokens": 1000}, stop_reason="done"))
    lines = [l for l in stream.getvalue().splitlines() if l.startswith("[")]
    assert "reward=0.5, tokens=1,200 | suite total: errors=0 tokens=1,200" in lines[0]
    assert "reward=0.5, tokens=800 | suite total: errors=0 tokens=2,000" in lines[1]


def test_outcome_holds_the_suites_runs_only_and_meanwhile_runs_only_when_cells_run(tmp_path):
    """Resumed records of cells the suite no longer has stay in the file but not in the outcome (the report
    reads the outcome); the caller's `meanwhile` set-up runs once while cells run, never on a no-op run."""
    from baselines.running.runner import run_suite

    out = tmp_path / "out"
    calls = []
    first = run_suite(load_suite(write_suite(tmp_path, seeds=3, arms='"guess"')), out, backend="sequential",
                      meanwhile=lambda: calls.append("first"))
    assert calls == ["first"] and first.ran == 3
    assert [r.seed for r in first.records] == [0, 1, 2]
    moved = (tmp_path / "moved.toml")
    moved.write_text(write_suite(tmp_path, seeds=3, arms='"guess"').read_text()
                     .replace("seeds = 3", "seeds = [1, 2, 3]"))
    second = run_suite(load_suite(moved), out, backend="sequential", meanwhile=lambda: calls.append("second"))
    assert calls == ["first", "second"] and (second.ran, second.skipped) == (1, 2)
    assert [r.seed for r in second.records] == [1, 2, 3]  # seed 0 is in the file, not in this suite
    assert [r.seed for r in read_records(out / "results.jsonl")] == [0, 1, 2, 3]
    again = run_suite(load_suite(moved), out, backend="sequential", meanwhile=lambda: calls.append("again"))
    assert calls == ["first", "second"] and (again.ran, again.skipped) == (0, 3)
    assert [r.seed for r in again.records] == [1, 2, 3]


def test_the_report_import_while_workers_start_never_fails_the_run(monkeypatch):
    """`run` imports the report's modules while the workers start; a failure there is left for the report
    itself to raise after the records are on disk, never one that stops the cells."""
    from baselines.cli import run as run_verb

    import gc

    monkeypatch.setitem(sys.modules, "reports.run_report", None)  # makes `import reports.run_report` fail
    run_verb._import_report()  # no exception
    assert gc.isenabled()  # the collector, off during the imports, is back on
    monkeypatch.undo()
    run_verb._import_report()
    assert "reports.run_report" in sys.modules and "reports.summary" in sys.modules and gc.isenabled()
    gc.disable()
    try:
        run_verb._import_report()
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()


def test_a_one_cell_task_does_not_carry_the_suites_seed_list(tmp_path):
    """Each task sent to a worker pickles its cells' specs; with 10,000 seeds the list alone made a
    one-cell task 30 KB. The cell still runs to the same record after the trip."""
    import pickle

    from baselines.running.runner import cell_line

    suite = load_suite(write_suite(tmp_path, seeds=10_000, arms='"once"'))
    cells = suite.cells()
    assert len(cells) == 10_000 and suite.workloads[0].seeds == tuple(range(10_000))
    data = pickle.dumps([cells[7]])
    assert len(data) < 2_000
    (cell,) = pickle.loads(data)
    assert cell.identity() == cells[7].identity()
    line = json.loads(cell_line(cell))
    assert (line["workload"], line["arm"], line["seed"], line["error"]) == ("toy", "once", 7, None)


@pytest.mark.parametrize("seed", [0, 1, 41, 2**31, 2**32 - 1, 2**32, 2**63 - 1])
@pytest.mark.parametrize("arm", ["toy", "search-sim", "ü"])
def test_an_arms_stream_is_numpys_stream_of_seed_and_workload_name(seed, arm):
    """arm_rng hands numpy the seed material as uint32 words (faster to set up); the stream, its state and
    its spawned children must be those of `default_rng([seed, crc32(workload)])`."""
    import zlib

    import numpy as np

    from baselines.running.runner import arm_rng

    ours, reference = arm_rng(seed, arm), np.random.default_rng([seed, zlib.crc32(arm.encode("utf-8"))])
    assert isinstance(ours, np.random.Generator)
    assert ours.bit_generator.state == reference.bit_generator.state
    assert ours.integers(0, 2**62, 16).tolist() == reference.integers(0, 2**62, 16).tolist()
    assert [c.random(4).tolist() for c in ours.spawn(2)] == [c.random(4).tolist() for c in reference.spawn(2)]


def test_a_cells_classes_come_from_the_module_as_it_is_now(monkeypatch):
    """The sys.modules shortcut of the cell path: an attribute replaced since, a module not imported yet and
    a missing name behave as `resolve` does."""
    import tests.helpers as helpers
    from baselines.core.errors import InputError
    from baselines.running.execute import _loaded

    assert _loaded("tests.helpers:Guess", "guess") is helpers.Guess
    monkeypatch.setattr(helpers, "Guess", helpers.Once)
    assert _loaded("tests.helpers:Guess", "guess") is helpers.Once
    monkeypatch.delitem(sys.modules, "tests.runner_arms", raising=False)
    assert _loaded("tests.runner_arms:KillWorker", "killer").__name__ == "KillWorker"
    with pytest.raises(InputError, match="has no 'Nope'"):
        _loaded("tests.helpers:Nope", "nope")


def test_cell_identities_in_bulk_are_each_cells_identity(tmp_path):
    from baselines.running.resume import _identities

    path = write_suite(tmp_path, seeds=3, arms='"guess", "once"')
    path.write_text(path.read_text().replace("budget = { rollouts = 20 }",
                                             "budgets = [{ rollouts = 20 }, { rollouts = 7 }]"))
    cells = load_suite(path).cells()
    assert len({c.budget.to_dict()["rollouts"] for c in cells}) == 2
    assert _identities(cells) == [c.identity() for c in cells]
