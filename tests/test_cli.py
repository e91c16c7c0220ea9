"""The command line as a user meets it: every path mistake, group selection, help and typos.

In-process calls of the entry point (`main(argv)` returns the exit code), so
these tests are quick and stay green on a loaded machine.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from baselines.cli import VERBS, build_parser, main
from baselines.core.records import RunRecord, write_records

ROOT = Path(__file__).resolve().parents[1]


def _runs(workload, budget, arms, seeds=5, reward=lambda arm, s: 0.5 + 0.01 * s, spend=None, error=None):
    out = []
    for arm in arms:
        for s in range(seeds):
            unit_spend = dict(spend or {u: v for u, v in budget.items()})
            failed = error is not None and arm == error[0]
            out.append(RunRecord(workload=workload, arm=arm, seed=s, spend=unit_spend,
                                 reward=None if failed else reward(arm, s), budget=dict(budget),
                                 stop_reason="error" if failed else "done",
                                 error={"type": "ValueError", "message": error[1]} if failed else None))
    return out


@pytest.fixture
def three_groups(tmp_path) -> Path:
    """The built-in suite's shape: search-sim at tokens and at rollouts, bbob at calls."""
    records = (_runs("search-sim", {"tokens": 1_500_000}, ["puct", "greedy"],
                     spend={"tokens": 1_500_000, "rollouts": 40, "calls": 80})
               + _runs("search-sim", {"rollouts": 80}, ["puct", "greedy"],
                       reward=lambda arm, s: 0.6 + 0.02 * ((s * 7) % 5) + (0.001 * s if arm == "greedy" else 0),
                       spend={"rollouts": 80, "tokens": 2_000_000, "calls": 160})
               + _runs("bbob", {"calls": 500}, ["cmaes", "random"], spend={"calls": 500}))
    path = tmp_path / "results.jsonl"
    write_records(path, records)
    return path


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert err.startswith("costmatch: ") and not err.startswith("costmatch: costmatch"), err
    assert "Traceback" not in err
    return err


# -- path mistakes: exit 2, one line naming the path, nothing half-written ------------------
def _path_cases(tmp: Path, results: Path) -> list[tuple[str, list[str], str]]:
    afile = tmp / "afile"
    afile.write_text("x")
    folder = tmp / "folder"
    folder.mkdir()
    suite = ROOT / "tests" / "data" / "tiny-suite.toml"
    return [
        ("report out: missing parent", ["report", str(results), "--out", str(tmp / "nodir/sub/t.md")], "nodir"),
        ("report out: parent is a file", ["report", str(results), "--out", str(afile / "t.md")], "afile"),
        ("report out: is a folder", ["report", str(results), "--out", str(folder)], "folder"),
        ("report plots: is a file", ["report", str(results), "--plots", str(afile)], "afile"),
        ("report plots: unwritable", ["report", str(results), "--plots", "/proc/nope"], "/proc/nope"),
        ("run out: is a file", ["run", str(suite), "--out", str(afile)], "afile"),
        ("compare: missing file", ["compare", str(tmp / "missing.jsonl")], "missing.jsonl"),
        ("compare: a folder", ["compare", str(folder)], "folder"),
        ("check: missing against", ["check", str(results), "--baseline", "puct", "--candidate", "greedy",
                                    "--margin", "0.1", "--against", str(tmp / "nope.jsonl")], "nope.jsonl"),
        ("import out: missing parent", ["import", "csv", str(afile), "--map", "arm=a", "-o",
                                        str(tmp / "nodir/o.jsonl")], "nodir"),
        ("import out: is a folder", ["import", "csv", str(afile), "--map", "arm=a", "-o", str(folder)], "folder"),
        ("import: missing input", ["import", "agentdescent", str(tmp / "gone.json"), "-o",
                                   str(tmp / "o.jsonl")], "gone.json"),
        ("plan: missing suite", ["plan", str(tmp / "nosuite.toml")], "nosuite.toml"),
    ]


def test_every_path_mistake_is_exit_2_and_one_line(tmp_path, three_groups, capsys):
    for name, argv, named in _path_cases(tmp_path, three_groups):
        before = set(tmp_path.rglob("*"))
        assert main(argv) == 2, name
        err = _one_line_error(capsys)
        assert named in err, (name, err)
        leftovers = [p for p in set(tmp_path.rglob("*")) - before if p.name.endswith(".tmp")]
        assert not leftovers, (name, leftovers)


# -- help, typos, aliases ---------------------------------------------------------------------
def test_every_option_of_every_verb_has_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "verb")
    assert set(sub.choices) == set(VERBS)
    missing = [f"{verb} {'/'.join(a.option_strings) or a.dest}"
               for verb, p in sub.choices.items() for a in p._actions
               if not a.help and a.dest != "help"]
    assert missing == []


def test_a_verb_typo_suggests_the_verb(capsys):
    assert main(["compar", "x.jsonl"]) == 2
    err = _one_line_error(capsys)
    assert "did you mean 'compare'" in err


def test_option_errors_name_the_verb_once(capsys):
    assert main(["compare", "x.jsonl", "--tolerance", "abc"]) == 2
    err = _one_line_error(capsys)
    assert err.startswith("costmatch: compare: ") and "--tolerance" in err


def test_unit_aliases_map_to_the_contract_names(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"usd": 2.0}, ["a", "b"], spend={"usd": 2.0}))
    assert main(["compare", str(path), "--fixed", "dollars", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fixed"] == "usd"


def test_plan_without_a_suite_lists_the_built_in_suite(capsys):
    assert main(["plan"]) == 0
    out = capsys.readouterr().out
    assert "search-sim" in out and "tokens: at most 135,000,000 over 90 cells; unbounded in 95 cells" in out


# -- one results file, many groups ------------------------------------------------------------
def test_fixed_selects_the_groups_whose_budget_names_it_and_lists_the_rest(three_groups, capsys):
    assert main(["compare", str(three_groups), "--fixed", "tokens", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [(g["workload"], g["budget"]) for g in payload["groups"]] == [("search-sim", {"tokens": 1_500_000})]
    assert payload["valid"] is True
    skipped = {(s["workload"], json.dumps(s["budget"])): s["reason"] for s in payload["skipped"]}
    assert len(skipped) == 2
    assert "set in rollouts, not tokens" in skipped[("search-sim", json.dumps({"rollouts": 80}))]


def test_without_fixed_each_group_is_fixed_in_its_own_budget_unit(three_groups, capsys):
    assert main(["compare", str(three_groups), "--json", "--no-pairs"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["fixed"] is None and payload["valid"] is True
    assert sorted(g["fixed"] for g in payload["groups"]) == ["calls", "rollouts", "tokens"]


def test_a_budget_with_two_units_needs_fixed(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"tokens": 100, "calls": 3}, ["a", "b"]))
    assert main(["compare", str(path)]) == 2
    assert "pass --fixed UNIT" in _one_line_error(capsys)
    assert main(["compare", str(path), "--fixed", "calls", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["fixed"] == "calls"


def test_workload_and_budget_filters(three_groups, capsys):
    assert main(["compare", str(three_groups), "--workload", "bbob", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [g["workload"] for g in payload["groups"]] == ["bbob"]
    assert main(["compare", str(three_groups), "--budget", "rollouts=80", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [g["budget"] for g in payload["groups"]] == [{"rollouts": 80}]
    assert main(["compare", str(three_groups), "--budget", "rollouts=81"]) == 2
    assert "no group matches" in _one_line_error(capsys)


def test_check_gates_only_the_groups_its_fixed_unit_selects(three_groups, capsys):
    code = main(["check", str(three_groups), "--fixed", "rollouts", "--baseline", "puct", "--candidate", "greedy",
                 "--margin", "0.05"])
    out = capsys.readouterr().out
    assert code in (0, 3), out
    assert "broken comparison" not in out and "FAIL" not in out
    assert "1,500,000 tokens: skipped" in out


def test_check_refuses_the_same_arm_as_baseline_and_candidate(three_groups, capsys):
    assert main(["check", str(three_groups), "--baseline", "puct", "--candidate", "puct", "--margin", "0.1"]) == 2
    assert "two different arms" in _one_line_error(capsys)


def test_report_fixed_tokens_tables_the_tokens_group_only(three_groups, capsys):
    assert main(["report", str(three_groups), "--fixed", "tokens"]) == 0
    out = capsys.readouterr().out
    assert "NOT VALID" not in out
    assert "bbob" not in out.split("skipped")[0] if "skipped" in out else "bbob" not in out


# -- failing arms are loud --------------------------------------------------------------------
def test_an_arm_that_always_raises_makes_the_comparison_incomplete(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"calls": 10}, ["good", "bad", "other"], seeds=3,
                              error=("bad", "ValueError: the arm broke")))
    assert main(["compare", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["complete"] is False
    bad = next(a for a in payload["groups"][0]["arms"] if a["arm"] == "bad")
    assert bad["errors"] == 3 and bad["scored"] == 0 and "the arm broke" in bad["first_error"]
    assert all("bad" not in (p["a"], p["b"]) for p in payload["groups"][0]["pairs"])


def test_one_arm_at_each_of_two_budgets_is_not_a_comparison(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"tokens": 1000}, ["a"]) + _runs("w", {"tokens": 4000}, ["b"]))
    assert main(["compare", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["valid"] is False
    assert all("not an equal-budget comparison" in g["not_a_comparison"] for g in payload["groups"])


def test_budgets_one_token_apart_are_two_groups(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"tokens": 1_500_000}, ["a", "b"])
                  + _runs("w", {"tokens": 1_500_001}, ["c", "d"]))
    assert main(["compare", str(path), "--json", "--no-pairs"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert sorted(g["budget"]["tokens"] for g in payload["groups"]) == [1_500_000, 1_500_001]


def test_a_declared_reward_range_reaches_the_group_and_clips_the_printed_interval(tmp_path, capsys):
    records = _runs("w", {"calls": 10}, ["a", "b"], seeds=3, reward=lambda arm, s: [0.99, 0.5, 0.99][s])
    for r in records:
        r.extra["reward_range"] = [0, 1]
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    assert main(["compare", str(path), "--json", "--no-pairs"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["reward_range"] == [0, 1]
    assert main(["compare", str(path), "--no-pairs"]) == 0
    out = capsys.readouterr().out
    lo, hi = (float(x) for x in re.search(r"\| a .*?0\.83 \[([\d.]+), ([\d.]+)\]", out).groups())
    assert 0 <= lo < 0.83 < hi <= 1  # a distribution-free interval inside the range, not a clipped t
    assert main(["compare", str(path), "--json", "--no-pairs"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["arms"][0]["reward"]["interval"] == "betting"


def test_compare_warns_when_an_arm_ran_from_different_code(tmp_path, capsys):
    records = _runs("w", {"calls": 10}, ["a", "b"], seeds=4)
    for r in records:
        module = "abc" if not (r.arm == "a" and r.seed == 3) else "def"
        r.extra["provenance"] = {"costmatch": "0.1.0", "arm_module": module, "workload_module": "w1",
                                 "host": "h", "worker": 1}
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    assert main(["compare", str(path), "--json", "--no-pairs"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert len(warnings) == 1 and "'a'" in warnings[0] and "3 run(s)" in warnings[0] and "def" in warnings[0]
    assert main(["compare", str(path), "--no-pairs"]) == 0
    assert "ran from different code" in capsys.readouterr().err


def test_a_workload_speaks_of_its_units_in_its_own_words(tmp_path, capsys):
    records = _runs("bbob", {"calls": 500}, ["cma-es", "random"], spend={"calls": 500})
    for r in records:
        r.extra["unit_nouns"] = {"calls": "function evaluations"}
        r.extra["instance"] = f"f{r.seed}-i1"
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    assert main(["compare", str(path), "--no-pairs"]) == 0
    out = capsys.readouterr().out
    assert "function evaluations" in out and "model calls" not in out
    assert main(["compare", str(path), "--json", "--no-pairs"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["unit_nouns"] == {"calls": "function evaluations"}


def test_reward_range_option_bounds_groups_that_declare_none(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"calls": 10}, ["a", "b"], seeds=3, reward=lambda arm, s: [0.99, 0.5, 0.99][s]))
    assert main(["compare", str(path), "--no-pairs"]) == 0
    assert "0.83 [0.12, 1.53]" in capsys.readouterr().out
    assert main(["compare", str(path), "--reward-range", "0,1", "--json"]) == 0
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["reward_range"] == [0, 1] and group["pairs"][0]["reward_range"] == [0, 1]
    assert main(["compare", str(path), "--reward-range", "1,0"]) == 2
    assert "--reward-range" in _one_line_error(capsys)


@pytest.mark.process
@pytest.mark.smoke  # the one default run of the console script in a subprocess
def test_the_console_entry_keeps_the_exit_code_output_and_atexit_handlers(tmp_path):
    """`entry()` freezes the heap before the interpreter exits (its last collections then skip the objects
    pandas and the records made): the exit code, the printed output and atexit handlers are unchanged."""
    import subprocess
    import sys

    records = tmp_path / "r.jsonl"
    write_records(records, [RunRecord("w", arm, seed, {"calls": 10}, 0.5 + 0.1 * (arm == "b"), {"calls": 10})
                            for arm in ("a", "b") for seed in range(3)])
    script = ("import atexit, sys; atexit.register(lambda: print('atexit ran', file=sys.stderr)); "
              "from baselines.cli import entry; sys.argv = ['costmatch'] + sys.argv[1:]; entry()")
    root = str(Path(__file__).resolve().parents[1])
    ok = subprocess.run([sys.executable, "-c", script, "compare", str(records)], capture_output=True, text=True,
                        cwd=root)
    assert ok.returncode == 0, ok.stderr
    assert "atexit ran" in ok.stderr and "calls" in ok.stdout
    bad = subprocess.run([sys.executable, "-c", script, "compare", str(tmp_path / "missing.jsonl")],
                         capture_output=True, text=True, cwd=root)
    assert bad.returncode == 2 and bad.stderr.startswith("costmatch: ") and "atexit ran" in bad.stderr


@pytest.mark.parametrize("argv, says", [
    (["--format", "md", "--columns", "arm,mean"], "--columns applies to --format latex only"),
    (["--format", "html", "--columns", "arm"], "--columns applies to --format latex only"),
    (["--figure-format", "pdf"], "--figure-format needs --plots DIR"),
])
def test_report_options_that_would_change_nothing_are_one_line_errors(tmp_path, capsys, argv, says):
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"calls": 10}, ["a", "b"], seeds=3))
    assert main(["report", str(path), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1


def test_rewards_outside_the_reward_range_option_are_refused(tmp_path, capsys):
    """--reward-range clips what is printed: rewards outside it would show a clipped "1.000 [1.000, 1.000]"."""
    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"calls": 10}, ["a", "b"], seeds=4, reward=lambda arm, s: 0.2 * s))
    assert main(["compare", str(path), "--reward-range", "0,0.5", "--no-pairs"]) == 2
    err = capsys.readouterr().err.strip()
    assert "rewards lie outside --reward-range 0,0.5 (min 0, max 0.6)" in err and len(err.splitlines()) == 1
    assert main(["compare", str(path), "--reward-range", "0,1", "--no-pairs"]) == 0


def test_ctrl_c_outside_the_cells_is_one_line_and_exit_130(tmp_path, capsys, monkeypatch):
    """A Ctrl-C while the report is written printed a 57-line traceback; now the same one line as in the cells."""
    import reports.run_report

    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"calls": 10}, ["a", "b"], seeds=3))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reports.run_report, "render_report", interrupted)
    assert main(["report", str(path)]) == 130
    err = capsys.readouterr().err.strip()
    assert err.startswith("costmatch: interrupted;") and len(err.splitlines()) == 1


def test_out_to_a_device_or_a_pipe_writes_to_it_and_never_replaces_it(tmp_path, capsys):
    """`report --out /dev/null` renamed a temporary file over the device: as root it turned /dev/null into a
    regular file for the whole machine. A path that is a device or a pipe is written to, never replaced."""
    import os
    import stat
    import threading

    path = tmp_path / "r.jsonl"
    write_records(path, _runs("w", {"calls": 10}, ["a", "b"], seeds=3))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(["report", str(path), "--out", str(fifo)]) == 0
    reader.join(timeout=30)   # bounds only a broken run: a replaced pipe never gets its writer
    assert got and got[0].startswith(b"**") and stat.S_ISFIFO(os.stat(fifo).st_mode)
    if os.geteuid() == 0:  # a character device like /dev/null (only root may make one)
        device = tmp_path / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        assert main(["report", str(path), "--out", str(device)]) == 0
        assert stat.S_ISCHR(os.stat(device).st_mode)
