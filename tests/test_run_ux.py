"""`costmatch run` and `plan` as a new user meets them (the audit of a non-editable install).

Each test is one defect the audit found: plan's per-unit ceilings, a full
disk, unreported units in progress totals, the summary's failing arms, code
edited between runs, a user module's missing dependency, a workload's
scoring failure blamed on the arm, two suites in one output folder, and
where user modules are imported from.
"""
from __future__ import annotations

import errno
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baselines.running import runner
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.running.progress import Progress, first_error_text
from baselines.core.records import RunRecord, read_records

REPO = Path(__file__).resolve().parents[1]


def starter(tmp_path: Path, seeds: int = 2) -> Path:
    """`costmatch init` into tmp_path/p with fewer seeds (the run takes a second, not five)."""
    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    suite = project / "costmatch-suite.toml"
    suite.write_text(suite.read_text().replace("seeds = 10 ", f"seeds = {seeds} "))
    return project


#: no test here is of processes: every run is in this process, on the sequential engine
IN_PROCESS = ["--backend", "sequential"]


def run_quiet(project: Path, *args: str) -> int:
    return main(["run", str(project / "costmatch-suite.toml"), "--out", str(project / "out"), "--quiet",
                 "--no-plots", *IN_PROCESS, *args])


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- 1. plan: a ceiling only where it is one ---------------------------------------------------
def test_ceilings_cover_only_the_cells_budgeted_in_each_unit():
    from baselines.cli.plan import Ceiling, ceilings

    budgets = [{"rollouts": 80}] * 70 + [{"tokens": 1_500_000}] * 70 + [{"calls": 500}] * 25 \
        + [{"tokens": 1000, "calls": 10}] * 5
    assert ceilings(budgets) == [Ceiling("rollouts", 5600, 70, 100), Ceiling("calls", 12_550, 30, 140),
                                 Ceiling("tokens", 105_005_000, 75, 95)]


def test_plan_of_the_demo_suite_never_calls_an_unbounded_total_a_ceiling(capsys):
    """The demo's rollout cells spent 193M tokens the old line's "at most 105,000,000 tokens" left out."""
    assert main(["plan"]) == 0
    out = capsys.readouterr().out
    assert "tokens: at most 135,000,000 over 90 cells; unbounded in 95 cells" in out
    assert "rollouts: at most 5,600 over 70 cells; unbounded in 115 cells" in out
    assert "calls: at most 12,500 over 25 cells; unbounded in 160 cells" in out
    assert "total rollouts, calls and tokens have no upper bound" in out
    assert "they may spend at most" not in out


def test_plan_of_the_starter_gives_a_whole_ceiling_where_every_cell_is_budgeted(tmp_path, capsys):
    project = starter(tmp_path, seeds=10)
    assert main(["plan", str(project / "costmatch-suite.toml")]) == 0
    out = capsys.readouterr().out
    assert "tokens: at most 400,000 over all 20 cells" in out
    assert "no upper bound" not in out and "unbounded" not in out
    readme = (project / "README.md").read_text()
    assert "the most they may spend" not in readme.replace("per unit, the most they may spend", "")


# -- 2. a full disk: one line, exit 1, the finished cells kept, resume works ------------------------
class FullAfter(io.FileIO):
    """The results file on a disk that fills after `lines` whole writes; the failing write lands half a line."""

    budget = 0

    def write(self, data):
        if FullAfter.budget <= 0:
            super().write(bytes(data)[: max(1, len(data) // 2)])  # the disk took part of it, then refused
            raise OSError(errno.ENOSPC, "No space left on device")
        FullAfter.budget -= 1
        return super().write(data)


def test_a_full_disk_while_appending_is_one_line_and_the_run_resumes(tmp_path, capsys, monkeypatch):
    project = starter(tmp_path)
    FullAfter.budget = 2
    monkeypatch.setattr(runner, "open_results", lambda path: FullAfter(path, "ab"))
    assert run_quiet(project) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "the disk is full" in err and "2 finished cell(s)" in err and "run the same command" in err
    results = project / "out" / "results.jsonl"
    assert len(lines_of(results)) == 2  # whole lines only: the half line was cut back
    assert results.read_bytes().endswith(b"\n")

    monkeypatch.setattr(runner, "open_results", lambda path: open(path, "ab", buffering=0))
    assert run_quiet(project) == 0
    err = capsys.readouterr().err
    assert "moved" not in err  # no torn line was left to set aside
    runs = lines_of(results)
    assert len(runs) == 4 and len({(r["arm"], r["seed"]) for r in runs}) == 4


def test_a_results_file_that_cannot_be_opened_on_a_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    project = starter(tmp_path)

    def full(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runner, "open_results", full)
    assert run_quiet(project) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the disk is full" in err and "kept" not in err


def test_a_full_disk_on_the_lock_file_does_not_stop_the_run(tmp_path, monkeypatch):
    """The pid in the lock file only names the holder: a refused write there is not the run's failure."""
    out = tmp_path / "out"
    out.mkdir()
    real = os.pwrite

    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "pwrite", full)
    with runner.output_lock(out):
        monkeypatch.setattr(os, "pwrite", real)
        with pytest.raises(InputError) as second:
            with runner.output_lock(out):
                pass
    assert "another costmatch run" in str(second.value)


def _tmpfs_or_skip(where: Path, size: str) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode().strip()}")


@pytest.mark.slow
def test_a_real_full_disk_is_one_line_with_exit_1(tmp_path):
    """The audit's repro, on the command as a user runs it (a process without the working folder on its path)."""
    project = starter(tmp_path, seeds=10)
    disk = tmp_path / "t"
    disk.mkdir()
    _tmpfs_or_skip(disk, "256k")
    try:
        (disk / "fill").write_bytes(b"\0" * 232 * 1024)
        env = dict(os.environ, PYTHONPATH=str(REPO))
        cmd = [sys.executable, "-P", "-m", "baselines.cli", "run", "--out", str(disk / "run"), "--quiet"]
        res = subprocess.run(cmd, cwd=project, capture_output=True, text=True, env=env)
        assert res.returncode == 1, res.stderr
        assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr and "disk is full" in res.stderr
        kept = lines_of(disk / "run" / "results.jsonl")
        assert 0 < len(kept) < 20
        (disk / "fill").unlink()
        res = subprocess.run(cmd + ["--no-plots"], cwd=project, capture_output=True, text=True, env=env)
        assert res.returncode == 0, res.stderr
        assert len(lines_of(disk / "run" / "results.jsonl")) == 20
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


# -- 3. progress: an unreported unit is unknown, never 0 -----------------------------------------
def _record(arm: str, seed: int, tokens, partial=()) -> RunRecord:
    return RunRecord("hp", arm, seed, {"calls": 1, "tokens": tokens}, 0.5, {"tokens": 100}, {}, None, None,
                     "done", None, tuple(partial), {})


def _progress_lines(records) -> list[str]:
    stream = io.StringIO()
    progress = Progress(["tokens"], stream=stream)
    progress.start(len(records), 0)
    for r in records:
        progress.update(r)
    return [line for line in stream.getvalue().splitlines() if line.startswith("[")]


def test_progress_totals_say_unknown_and_lower_bound():
    lines = _progress_lines([_record("a", 0, None), _record("a", 1, 120), _record("a", 2, 80),
                             _record("a", 3, 50, partial=["tokens"])])
    assert "suite total: errors=0 tokens=—" in lines[0]
    assert "suite total: errors=0 tokens≥120" in lines[1]   # one cell of two did not report it
    assert "suite total: errors=0 tokens≥200" in lines[2]
    assert "hp a seed=3: reward=0.5, tokens≥50" in lines[3]  # a partly reported cell is a lower bound too
    lines = _progress_lines([_record("a", 0, 120), _record("a", 1, 80)])
    assert "tokens=200" in lines[-1] and "≥" not in lines[-1]


SILENT_ARMS = '''
class Silent:
    """Calls a 'model' that reports no usage, then fails."""
    def __init__(self, k: int = 0):
        self.k = k
    def run(self, task, meter, rng):
        x, _ = task.propose(rng)
        meter.call(prompt_tokens=None, completion_tokens=None)
        meter.rollouts(1)
        meter.progress(0.0, choice=x.tolist())
        raise RuntimeError(f"arm {self.k} broke")
'''


def _silent_suite(project: Path, n_arms: int) -> None:
    names = [chr(ord("a") + i) for i in range(n_arms)]
    arms = "".join(f'[arms.{n}]\npath = "my_arms:Silent"\nparams = {{ k = {i} }}\n' for i, n in enumerate(names))
    (project / "my_arms.py").write_text(SILENT_ARMS)
    (project / "costmatch-suite.toml").write_text(
        f'seeds = 2\n{arms}[[workloads]]\nname = "hp"\npath = "my_workload:HiddenPoint"\nfixed = "tokens"\n'
        f'budget = {{ tokens = 20000 }}\narms = {json.dumps(names)}\n')


def test_the_audit_run_prints_unknown_totals_and_names_every_failing_arm(tmp_path, capsys):
    project = starter(tmp_path)
    _silent_suite(project, 4)
    assert main(["run", str(project / "costmatch-suite.toml"), "--out", str(project / "out"), "--no-plots", *IN_PROCESS]) == 1
    captured = capsys.readouterr()
    last = [line for line in captured.err.splitlines() if line.startswith("[8/8]")]
    assert last and "suite total: errors=8 tokens=—" in last[0], captured.err
    summary = captured.out
    for k, arm in enumerate("abcd"):  # arm d, the fourth, was never named
        assert f"{arm} scored 0 of 2 seeds (seed 0: RuntimeError: arm {k} broke)" in summary


# -- 4. the summary names every failing arm -------------------------------------------------------
def test_the_summary_says_and_n_more_with_their_names(tmp_path, capsys):
    project = starter(tmp_path)
    _silent_suite(project, 6)
    assert run_quiet(project) == 1
    capsys.readouterr()
    assert main(["run", str(project / "costmatch-suite.toml"), "--out", str(project / "out"), "--no-plots", *IN_PROCESS]) == 1
    summary = capsys.readouterr().out
    assert "c scored 0 of 2 seeds" in summary and "d scored" not in summary
    assert "and 3 more: d, e, f" in summary


# -- 5. code edited since the kept cells ran -------------------------------------------------------
@pytest.mark.process  # the edited module is imported anew in loky worker processes
def test_a_resume_after_editing_the_starter_arm_reruns_that_arm_in_workers_and_refuses_a_stale_process(
        tmp_path, capsys, monkeypatch):
    """Never exit 0 with old numbers: an edited arm's cells rerun (issue 39); a process still holding the old class
    (this one, on the sequential engine, as a notebook would) is refused naming the fix, nothing written."""
    project = starter(tmp_path)
    monkeypatch.chdir(project)
    assert run_quiet(project) == 0
    capsys.readouterr()
    assert run_quiet(project) == 0
    assert "changed" not in capsys.readouterr().err  # nothing edited, nothing said
    results = project / "out" / "results.jsonl"
    before = results.read_bytes()

    arms = project / "my_arms.py"
    arms.write_text(arms.read_text().replace("step: float = 0.15", "step: float = 0.3"))
    assert run_quiet(project) == 2                   # this process imported my_arms before the edit
    err = capsys.readouterr().err
    assert "restart this Python process (or importlib.reload the module)" in err and len(err.splitlines()) == 1
    assert "this process imported arm 'local-search' before its code was edited" in err
    assert results.read_bytes() == before            # nothing of the refused line written, nothing lost

    assert run_quiet(project, "--backend", "loky") == 0  # workers import the edited file: local-search reruns
    again = lines_of(results)
    old = {(r["arm"], r["seed"]): r for r in lines_of_bytes(before)}
    assert {(r["arm"], r["seed"]): r for r in again if r["arm"] == "random-guess"} == \
           {k: v for k, v in old.items() if k[0] == "random-guess"}
    assert all(r["provenance"]["arm_code"] != old["local-search", 0]["provenance"]["arm_code"]
               for r in again if r["arm"] == "local-search")
    capsys.readouterr()

    workload = project / "my_workload.py"
    workload.write_text(workload.read_text() + "\n# a comment is no change\n")
    assert run_quiet(project, "--backend", "loky") == 0
    assert "changed" not in capsys.readouterr().err
    workload.write_text(workload.read_text().replace("dev_noise: float = 0.05", "dev_noise: float = 0.06"))
    assert run_quiet(project, "--backend", "loky") == 0
    assert 'workload "hidden-point" (4 kept cell(s)' in capsys.readouterr().err
    for name in ("my_arms", "my_workload"):
        sys.modules.pop(name, None)


def lines_of_bytes(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def test_a_second_module_under_the_same_name_gets_its_own_hash(tmp_path):
    """Two projects' `my_arms` in one process: records must carry each file's own hash."""
    first, second = starter(tmp_path / "one"), starter(tmp_path / "two")
    (second / "my_arms.py").write_text((second / "my_arms.py").read_text() + "\n# another file\n")
    # in this process (a worker process would start with an empty cache)
    assert run_quiet(first, "--backend", "sequential") == 0 and run_quiet(second, "--backend", "sequential") == 0
    hashes = [{r["provenance"]["arm_module"] for r in lines_of(p / "out" / "results.jsonl")} for p in (first, second)]
    assert len(hashes[0]) == 1 and len(hashes[1]) == 1 and hashes[0] != hashes[1]


# -- 6. a missing dependency inside a user module ---------------------------------------------------
def test_a_missing_dependency_is_named_with_its_file_and_line(tmp_path, capsys):
    project = starter(tmp_path)
    arms = project / "my_arms.py"
    text = arms.read_text().replace("from __future__ import annotations\n",
                                    "from __future__ import annotations\nimport not_installed_dep\n", 1)
    arms.write_text(text)
    line = text.splitlines().index("import not_installed_dep") + 1
    assert main(["plan", str(project / "costmatch-suite.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"my_arms.py:{line}" in err and "No module named 'not_installed_dep': install it" in err
    assert "check the path" not in err


def test_a_wrong_path_still_says_the_module_was_not_found(tmp_path, capsys):
    project = starter(tmp_path)
    suite = project / "costmatch-suite.toml"
    suite.write_text(suite.read_text().replace('"my_arms:RandomGuess"', '"my_armz:RandomGuess"'))
    assert main(["plan", str(suite)]) == 2
    assert "cannot import module 'my_armz'" in capsys.readouterr().err


def test_a_sibling_module_beside_the_suite_imports_and_so_does_a_folder_the_suite_names(tmp_path, capsys):
    """Issue 39: `import helpers` beside the suite was exit 2 ('make a package'), a newcomer's first refactor."""
    project = starter(tmp_path)
    (project / "helpers.py").write_text("STEP = 0.15\n")
    arms = project / "my_arms.py"
    original = arms.read_text()
    arms.write_text(original.replace("from __future__ import annotations\n",
                                     "from __future__ import annotations\nimport helpers\n", 1))
    suite = project / "costmatch-suite.toml"
    assert main(["plan", str(suite)]) == 0, capsys.readouterr().err
    sys.modules.pop("helpers", None)

    (project / "lib").mkdir()          # a folder the suite names: import_paths
    (project / "helpers.py").rename(project / "lib" / "helpers2.py")
    arms.write_text(original.replace("from __future__ import annotations\n",
                                     "from __future__ import annotations\nimport helpers2\n", 1))
    sys.modules.pop("my_arms", None)
    assert main(["plan", str(suite)]) == 2
    assert "No module named 'helpers2'" in capsys.readouterr().err
    suite.write_text('import_paths = ["lib"]\n' + suite.read_text())
    assert main(["plan", str(suite)]) == 0, capsys.readouterr().err
    suite.write_text('import_paths = ["nowhere"]\n' + suite.read_text().split("\n", 1)[1])
    assert main(["plan", str(suite)]) == 2
    assert "'import_paths': 'nowhere' is not a folder" in capsys.readouterr().err
    for name in ("helpers2", "my_arms"):
        sys.modules.pop(name, None)


# -- 7. a scoring failure is the workload's ----------------------------------------------------------
def _break(workload: Path, old: str, new: str) -> None:
    text = workload.read_text()
    assert old in text
    workload.write_text(text.replace(old, new, 1))


def test_a_scoring_failure_names_the_workload_and_the_summary_names_its_seed(tmp_path, capsys):
    project = starter(tmp_path)
    workload = project / "my_workload.py"
    call = "Task(np.random.default_rng(seed).uniform(0, 1, self.dimension), self.dev_noise)"
    _break(workload, f"return {call}", f"task = {call}\n        task.seed = seed\n        return task")
    score = '    def score(self, task: "Task", choice) -> float:\n'
    _break(workload, score, score + '        raise RuntimeError(f"scoring broke on seed {task.seed}")\n')
    suite = project / "costmatch-suite.toml"
    suite.write_text(suite.read_text().replace("seeds = 2 ", "seeds = [0] "))
    assert main(["run", str(suite), "--out", str(project / "out"), "--no-plots", "--quiet", *IN_PROCESS]) == 1
    err = capsys.readouterr().err
    assert "scoring by workload 'hidden-point' failed on the choice of arm 'random-guess'" in err
    assert "arm 'random-guess' failed" not in err

    # seed 1 fails in this run; the kept seed 0 failed in the last one: each text says which seed it quotes
    suite.write_text(suite.read_text().replace("seeds = [0] ", "seeds = [0, 1] "))
    assert main(["run", str(suite), "--out", str(project / "out"), "--no-plots", *IN_PROCESS]) == 1
    captured = capsys.readouterr()
    assert "failed on the choice of arm 'random-guess' (first error of this arm) on seed=1" in captured.err
    assert ("random-guess scored 0 of 2 seeds (seed 0, in the workload's score(): RuntimeError: scoring broke "
            "on seed 0)") in captured.out


def test_first_error_text_by_stage():
    def text(stage):
        return first_error_text(RunRecord("w", "a", 3, {}, None, {}, {}, None, None, "error",
                                          {"type": "E", "message": "m", "stage": stage, "traceback": ""}, (), {}))

    assert text("arm").startswith("costmatch: arm 'a' failed (first error of this arm) on w seed=3")
    assert text("score").startswith("costmatch: scoring by workload 'w' failed on the choice of arm 'a'")
    assert text("workload").startswith("costmatch: workload 'w' failed before arm 'a' ran")
    assert text("worker").startswith("costmatch: the worker running arm 'a' on workload 'w' died")


def test_a_failing_instance_is_recorded_as_the_workloads(tmp_path):
    project = starter(tmp_path)
    head = '    def instance(self, seed: int) -> "Task":\n'
    _break(project / "my_workload.py", head, head + '        raise ValueError("no instance")\n')
    assert run_quiet(project) == 1
    assert {r["error"]["stage"] for r in lines_of(project / "out" / "results.jsonl")} == {"workload"}


# -- 8. another suite's results in the same folder --------------------------------------------------
def test_a_second_suite_into_the_same_folder_is_refused_unless_fresh(tmp_path, capsys):
    first, second = starter(tmp_path / "one"), starter(tmp_path / "two")
    suite = second / "costmatch-suite.toml"
    suite.write_text(suite.read_text().replace('name = "hidden-point"', 'name = "other-point"')
                     .replace("[arms.random-guess]", "[arms.guess]").replace('"random-guess"', '"guess"'))
    out = tmp_path / "out"
    assert main(["run", str(first / "costmatch-suite.toml"), "--out", str(out), "--quiet", "--no-plots", *IN_PROCESS]) == 0
    before = (out / "results.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["run", str(suite), "--out", str(out), "--quiet", "--no-plots", *IN_PROCESS]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another suite" in err and "--fresh" in err and "hidden-point" in err
    assert (out / "results.jsonl").read_bytes() == before

    assert main(["run", str(suite), "--out", str(out), "--quiet", "--no-plots", "--fresh", *IN_PROCESS]) == 0
    assert {r["workload"] for r in lines_of(out / "results.jsonl")} == {"other-point"}
    assert [p for p in out.glob("results.*.jsonl")]  # the old file moved aside, not deleted


def test_a_removed_arm_is_named_and_left_out_and_stale_files_are_named_not_listed(tmp_path, capsys):
    project = starter(tmp_path)
    suite = project / "costmatch-suite.toml"
    text = suite.read_text()
    # a second workload fixed in calls, so the first run writes comparison-calls.json
    suite.write_text(text + '\n[[workloads]]\nname = "by-calls"\npath = "my_workload:HiddenPoint"\n'
                     'fixed = "calls"\nbudget = { calls = 5 }\narms = ["random-guess", "local-search"]\n')
    out = project / "out"
    assert run_quiet(project) == 0
    assert (out / "comparison-calls.json").is_file()
    capsys.readouterr()

    suite.write_text(text.replace('arms = ["random-guess", "local-search"]', 'arms = ["local-search"]')
                     .replace('[arms.random-guess]\npath = "my_arms:RandomGuess"\n', ""))
    assert run_quiet(project) == 0
    err = capsys.readouterr().err
    assert "kept run(s) of arm(s) random-guess; workload(s) by-calls" in err
    assert "left out of this run's report" in err
    assert "comparison-calls.json" in err and "from an earlier run" in err
    runs = lines_of(out / "results.jsonl")
    assert {r["arm"] for r in runs} == {"random-guess", "local-search"}  # nothing deleted
    assert (out / "comparison-calls.json").is_file()
    for page in ("report.md", "report.html"):
        body = (out / page).read_text()
        assert "comparison-calls" not in body and "by-calls" not in body and "random-guess" not in body


def test_the_python_api_may_still_append_two_experiments_to_one_folder(tmp_path):
    from baselines import Budget, run

    out = tmp_path / "out"
    run("tests.helpers:Toy", arms={"guess": "tests.helpers:Guess"}, budget=Budget(rollouts=3), seeds=2, out=out,
        backend="sequential")
    records = run("tests.helpers:Toy", arms={"once": "tests.helpers:Once"}, budget=Budget(rollouts=3), seeds=2,
                  out=out, backend="sequential")
    assert {r.arm for r in records} == {"once"}
    assert {r.arm for r in read_records(out / "results.jsonl")} == {"guess", "once"}


# -- 9. user modules come from the suite's folder only ----------------------------------------------
def test_the_starter_readme_says_where_modules_are_imported_from_and_it_is_so(tmp_path, capsys, monkeypatch):
    project = starter(tmp_path)
    readme = (project / "README.md").read_text()
    assert "never\nfrom the working directory" in readme or "never from the working directory" in " ".join(
        readme.split())
    (project / "suites").mkdir()
    (project / "costmatch-suite.toml").rename(project / "suites" / "costmatch-suite.toml")
    monkeypatch.chdir(project)  # the modules are in the working folder, not beside the suite
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(project))])
    assert main(["plan", "suites/costmatch-suite.toml"]) == 2
    err = capsys.readouterr().err
    assert "cannot import module 'my_arms'" in err
    assert "'my_arms' is in the working folder, which is never searched" in err
    suite_doc = (REPO / "docs" / "suite.md").read_text()
    assert "or the working folder" not in suite_doc and "never from the working folder" in suite_doc


def test_an_arm_pointed_at_another_class_is_refused_on_resume(tmp_path, capsys):
    """The runner audit: `[arms.random-guess] path` changed to LocalSearch, then resumed, kept RandomGuess's seeds
    beside LocalSearch's under one name, and nothing in the records could tell them apart."""
    project = starter(tmp_path)
    assert run_quiet(project) == 0
    kept = lines_of(project / "out" / "results.jsonl")
    assert {r["provenance"]["arm_path"] for r in kept} == {"my_arms:RandomGuess", "my_arms:LocalSearch"}
    suite = project / "costmatch-suite.toml"
    text = suite.read_text().replace("seeds = 2 ", "seeds = 3 ")
    suite.write_text(text.replace('"my_arms:RandomGuess"', '"my_arms:LocalSearch"'))
    capsys.readouterr()
    assert run_quiet(project) == 2
    err = capsys.readouterr().err.strip()
    assert "arm 'random-guess' ran from my_arms:RandomGuess but" in err and "my_arms:LocalSearch" in err
    assert len(err.splitlines()) == 1
    assert lines_of(project / "out" / "results.jsonl") == kept   # nothing ran, nothing was touched


def test_two_fresh_runs_in_one_second_keep_both_old_files(tmp_path, monkeypatch):
    """`--fresh` named its backup by the second and `rename` replaced an earlier one: old results were lost."""
    from baselines.running import results_file

    monkeypatch.setattr(results_file.time, "strftime", lambda fmt, *a: "20261129-120000")
    results = tmp_path / "results.jsonl"
    names = []
    for k in range(3):
        results.write_text(f"run {k}\n")
        names.append(results_file._set_aside(results))
    assert not results.exists()
    assert [p.name for p in names] == ["results.20261129-120000.jsonl", "results.20261129-120000-2.jsonl",
                                       "results.20261129-120000-3.jsonl"]
    assert [p.read_text() for p in names] == ["run 0\n", "run 1\n", "run 2\n"]


def test_a_duplicated_line_is_refused_before_any_cell_runs(tmp_path, capsys):
    """It was found only by the report after the new cells ran, worded 'record 21 ... pass --keep-last', an option
    `run` does not have."""
    project = starter(tmp_path)
    assert run_quiet(project) == 0
    results = project / "out" / "results.jsonl"
    first = results.read_text().splitlines()[0]
    results.write_text(results.read_text() + first + "\n")
    before = results.read_text()
    suite = project / "costmatch-suite.toml"
    suite.write_text(suite.read_text().replace("seeds = 2 ", "seeds = 3 "))
    capsys.readouterr()
    assert run_quiet(project) == 2
    err = capsys.readouterr().err.strip()
    n = len(before.splitlines())
    assert err.startswith(f"costmatch: {results}:{n}: duplicate run") and "first seen at line 1" in err
    assert "--fresh" in err and "--keep-last" not in err and len(err.splitlines()) == 1
    assert results.read_text() == before


def test_a_run_that_ended_leaves_no_lock_file(tmp_path):
    """Issue 36: a successful run left `.costmatch.lock` behind (the lock is the kernel's; the file was litter)."""
    from baselines.cli import main
    from baselines.running.runner import LOCK_NAME

    suite = tmp_path / "s.toml"
    suite.write_text('name = "t"\nseeds = 2\njobs = 1\nbackend = "sequential"\n'
                     '[arms.a]\npath = "tests.helpers:Guess"\n[arms.b]\npath = "tests.helpers:Guess"\n'
                     'params = { spin = 1 }\n[[workloads]]\nname = "toy"\npath = "tests.helpers:Toy"\n'
                     'fixed = "rollouts"\nbudget = { rollouts = 5 }\narms = ["a", "b"]\n')
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--quiet", "--no-plots"]) == 0
    assert (out / "results.jsonl").exists() and not (out / LOCK_NAME).exists()
