"""The gate history (issue 40): check --history lines, re-checks, drift against a pinned reference, steps, the page."""
from __future__ import annotations

import json

import numpy as np
import pytest

from baselines.analysis.history.drift import drift_alpha
from baselines.analysis.history.entry import HistoryEntry, read_history
from baselines.analysis.history.steps import Point, find_steps, split_statistics
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.core.locked_lines import locked_append, read_complete
from baselines.core.records import RunRecord, write_records


def _records(arm: str, rewards) -> list[RunRecord]:
    return [RunRecord("w", arm, s, {"rollouts": 1}, float(r), budget={"rollouts": 1}) for s, r in enumerate(rewards)]


def _results(path, base_shift=0.0, cand_shift=0.0, seed=0, n=10):
    level = np.random.default_rng(99).uniform(0.3, 0.6, n)   # each seed's difficulty, the same in every file
    rng = np.random.default_rng(seed)
    write_records(path, _records("baseline", level + base_shift + rng.normal(0, 0.02, n))
                  + _records("candidate", level + cand_shift + rng.normal(0, 0.02, n)))
    return str(path)


def _check(results, history, commit, *extra):
    return main(["check", results, "--baseline", "baseline", "--candidate", "candidate", "--margin", "0.05",
                 "--history", str(history), "--commit", commit, *extra])


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch):
    for name in ("GITHUB_SHA", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_STEP_SUMMARY", "GITHUB_REF_NAME"):
        monkeypatch.delenv(name, raising=False)


def test_a_check_appends_one_line_per_group_with_what_was_decided(tmp_path, capsys):
    results = _results(tmp_path / "r.jsonl")
    history = tmp_path / "h.jsonl"
    assert _check(results, history, "abc123", "--branch", "main") == 0
    (entry,), _ = read_history(str(history))
    line = json.loads(history.read_text())
    assert line["schema"] == "costmatch.history/1" and line["commit"] == "abc123" and line["branch"] == "main"
    assert line["workload"] == "w" and line["budget"] == {"rollouts": 1} and line["verdict"] == "PASS"
    assert line["baseline"] == "baseline" and line["candidate"] == "candidate" and line["seeds"] == 10
    assert line["margin"] == 0.05 and line["method"] and line["interval"][0] < line["estimate"] < line["interval"][1]
    assert len(line["results"][0]["sha256"]) == 64 and line["recheck"] == 0 and line["drift"] is None
    assert line["time"].endswith("Z") and entry.se > 0
    assert "questions" in line and line["questions"] is None      # per-seed rewards: no questions route (6.37.e)
    assert "appended to" in capsys.readouterr().out


def test_a_rerun_replaces_nothing_same_data_adds_nothing_other_data_is_a_recheck(tmp_path, capsys):
    history = tmp_path / "h.jsonl"
    first = _results(tmp_path / "r1.jsonl", seed=1)
    _check(first, history, "c1")
    _check(first, history, "c1")
    assert "already recorded at" in capsys.readouterr().out
    assert len(history.read_text().splitlines()) == 1
    _check(_results(tmp_path / "r2.jsonl", seed=2), history, "c1")
    out = capsys.readouterr().out
    lines = [json.loads(x) for x in history.read_text().splitlines()]
    assert [x["recheck"] for x in lines] == [0, 1] and "re-check 1 of commit c1" in out


def _drifted_pair(tmp_path):
    """A reference 0.2 above a candidate that equals its base: the base gate PASSes, the reference says DRIFT."""
    ref = _results(tmp_path / "ref.jsonl", cand_shift=0.2, seed=5)
    now = _results(tmp_path / "now.jsonl", seed=3)
    return ref, now


def test_drift_against_the_pinned_reference_has_its_own_exit_code_and_sentence(tmp_path, capsys):
    ref, now = _drifted_pair(tmp_path)
    history = tmp_path / "h.jsonl"
    code = _check(now, history, "c1", "--reference", ref, "--reference-label", "v1.2")
    out = capsys.readouterr().out
    assert code == 4
    assert "PASS against the base; DRIFT: 0.19" in out and "below the v1.2 reference (interval [" in out
    drift = json.loads(history.read_text())["drift"]
    assert drift["drift"] and drift["verdict"] == "FAIL" and drift["look"] == 1
    assert drift["alpha"] == pytest.approx(0.05 / 30) and drift["reference"] == "v1.2"


def test_each_look_at_a_reference_spends_alpha_over_the_horizon_then_stops(tmp_path, capsys):
    ref, now = _drifted_pair(tmp_path)
    history = tmp_path / "h.jsonl"
    assert _check(now, history, "c1", "--reference", ref, "--drift-horizon", "1") == 4
    now2 = _results(tmp_path / "now2.jsonl", seed=4)
    assert _check(now2, history, "c2", "--reference", ref, "--drift-horizon", "1") == 0
    out = capsys.readouterr().out
    second = json.loads(history.read_text().splitlines()[1])["drift"]
    assert second["look"] == 2 and second["alpha"] == 0 and second["verdict"] == "INCONCLUSIVE"
    assert "looks the" in out and "pin a new reference" in out
    assert drift_alpha(3, 30, 0.05) == pytest.approx(0.05 / 30) and drift_alpha(31, 30, 0.05) == 0


def test_reference_without_history_is_refused_in_one_line(tmp_path, capsys):
    ref, now = _drifted_pair(tmp_path)
    code = main(["check", now, "--baseline", "baseline", "--candidate", "candidate", "--margin", "0.05",
                 "--reference", ref])
    err = capsys.readouterr().err
    assert code == 2 and "--reference needs --history FILE" in err


def test_reference_commit_pins_the_results_file_a_history_entry_checked(tmp_path, capsys):
    history = tmp_path / "h.jsonl"
    ref, now = _drifted_pair(tmp_path)
    main(["check", ref, "--baseline", "baseline", "--candidate", "candidate", "--margin", "0.05",
          "--history", str(history), "--commit", "aaaa1111"])
    assert _check(now, history, "bbbb2222", "--reference-commit", "aaaa") == 4
    assert json.loads(history.read_text().splitlines()[1])["drift"]["reference"] == "aaaa1111"


def test_python_check_writes_the_same_history_line(tmp_path):
    from baselines import check

    results = _results(tmp_path / "r.jsonl")
    history = tmp_path / "h.jsonl"
    out = check(results, baseline="baseline", candidate="candidate", margin=0.05, history=str(history),
                commit="py1")
    line = json.loads(history.read_text())
    assert out.verdict == "PASS" and line["commit"] == "py1" and out.history.recorded[0].appended


def test_steps_are_found_where_the_series_moved_and_not_in_a_flat_one():
    rng = np.random.default_rng(0)
    pts = [Point(f"c{k}", rng.normal(0 if k < 12 else -0.03, 0.0063), 0.0063, 10) for k in range(20)]
    report = find_steps(pts)
    assert [s.commit for s in report.steps] == ["c12"] and report.steps[0].upper < 0 < -report.steps[0].lower
    flat = find_steps([Point(f"c{k}", rng.normal(0, 0.0063), 0.0063, 10) for k in range(20)])
    assert flat.steps == [] and flat.false_alarm <= 0.025 and flat.simulations == 4000


def test_split_statistics_is_the_weighted_mean_difference_in_standard_errors():
    t = split_statistics(np.array([0.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0]))
    assert t[1] == pytest.approx(1.0 / np.sqrt(1 / 2 + 1)) and t[0] == pytest.approx(0.5 / np.sqrt(1 + 1 / 2))


def test_a_torn_last_line_is_set_aside_before_the_next_append(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2')
    appended, warning = locked_append(path, lambda lines: [b'{"c": 3}'])
    assert path.read_bytes() == b'{"a": 1}\n{"c": 3}\n' and "moved to" in warning
    assert list(tmp_path.glob("h.torn-*.jsonl"))[0].read_bytes() == b'{"b": 2'
    assert read_complete(path) == ([b'{"a": 1}', b'{"c": 3}'], False)
    path.write_bytes(b'{"a": 1}\n{"b": 2}')     # a whole last line without its newline is kept
    locked_append(path, lambda lines: [b'{"c": %d}' % len(lines)])
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n{"c": 2}\n'


def test_a_bad_history_line_is_one_error_naming_the_line(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"schema": "costmatch.run/1"}\n')
    with pytest.raises(InputError, match=r"h.jsonl:1: not a history line"):
        read_history(str(path))


def test_history_verb_prints_steps_and_writes_the_page_and_summary(tmp_path, capsys, monkeypatch):
    history = tmp_path / "h.jsonl"
    rng = np.random.default_rng(0)
    lines = []
    for k in range(10):   # lines as check writes them (check itself is tested above): 0.04 lost at c5
        mean = (0.0 if k < 5 else -0.04) + rng.normal(0, 0.0063)
        lines.append(HistoryEntry(f"c{k}", "w", {"rollouts": 1}, "baseline", "candidate", "PASS", mean,
                                  mean - 0.012, mean + 0.012, 0.05, 0.05, "t", 10, se=0.0063).line_bytes())
    history.write_bytes(b"\n".join(lines) + b"\n")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["history", str(history), "--out", str(tmp_path / "page"), "--last", "3"]) == 0
    out = capsys.readouterr().out
    assert "step at c5 (after c4)" in out and "false-alarm rate over these 10 commits" in out
    page = (tmp_path / "page" / "history.html").read_text()
    assert "Content-Security-Policy" in page and page.count('class="point"') == 10 and 'class="step"' in page
    assert "href=\"http" not in page and "href=\"#g0-c9\"" in page   # no commit URL known: points link to their rows
    md = summary.read_text()
    assert md == (tmp_path / "page" / "history.md").read_text() and "Last 3 of 10 commit(s)" in md


def test_history_verb_refuses_a_missing_file(tmp_path, capsys):
    assert main(["history", str(tmp_path / "none.jsonl")]) == 2
    assert "no such history file" in capsys.readouterr().err


def test_the_history_workflow_keeps_and_draws_the_file_its_check_appends_to():
    """docs/history-actions.yml, as a user copies it: every costmatch command parses, and they name one history."""
    import shlex
    from pathlib import Path

    import yaml

    from baselines.cli import build_parser

    flow = yaml.safe_load((Path(__file__).resolve().parents[1] / "docs" / "history-actions.yml").read_text())
    steps = flow["jobs"]["history"]["steps"]
    scripts = [s["run"] for s in steps if "run" in s]
    commands = [shlex.split(line) for s in scripts for line in s.replace(">\n", " ").splitlines()
                if line.strip().startswith("costmatch ")]
    run, check, history = (build_parser().parse_args(c[1:]) for c in commands)
    assert (run.verb, check.verb, history.verb) == ("run", "check", "history")
    assert check.results == [f"{run.out}/results.jsonl"] and check.history == history.history
    assert check.reference and check.reference_label and history.out
    keep = [s for s in steps if s.get("if") == "always()" and "run" in s]
    assert any(history.history.split("/")[-1] in s["run"] and "git push" in s["run"] for s in keep)


def test_a_commit_link_that_is_not_http_is_not_drawn_as_a_link():
    from baselines.analysis.history.view import history_view
    from reports.history_page import history_html

    entries = [HistoryEntry(f"c{k}", "w", {"rollouts": 1}, "b", "<script>x</script>", "PASS", 0.0, -0.01, 0.01,
                            0.05, 0.05, "t", 10, se=0.005, commit_url="javascript:alert(1)") for k in range(3)]
    page = history_html(history_view(entries))
    assert "javascript:" not in page and "<script>x" not in page and 'href="#g0-c2"' in page


def test_the_drift_gate_gates_the_claim_the_base_gate_gates(tmp_path):
    from baselines.analysis.statistics.typical_seed import GATE_METHOD

    ref, now = _drifted_pair(tmp_path)
    history = tmp_path / "h.jsonl"
    assert _check(now, history, "c1", "--reference", ref, "--claim", "typical") in (0, 3, 4)
    line = json.loads(history.read_text())
    assert line["claim"] == "typical" and line["drift"]["method"] == GATE_METHOD
    _check(now, history, "c1", "--reference", ref)     # the same data under another claim: a re-check
    assert [json.loads(x)["recheck"] for x in history.read_text().splitlines()] == [0, 1]


def test_no_steps_note_says_why_commits_without_spread_have_no_interval():
    """Three commits checked on identical data (candidate = reference: every difference 0) have no interval;
    the note said "fewer than 3 commits with an interval" of 3 commits and did not say why."""
    report = find_steps([Point(f"c{k}", 0.0, 0.0, 10) for k in range(3)])
    assert report.steps == []
    assert "fewer than 3 commits with an interval (0 of 3; a commit has one when its per-seed differences, " \
           "2 or more, are not all equal): no steps sought" in report.note
