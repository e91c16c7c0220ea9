"""The first hour of issue 39, played as a new user plays it: init, run, add an arm, edit a helper, fix a crash.

Each `costmatch run` is a new process for the user; here it runs in this
process (sequential engine), so the project's modules are forgotten between
runs, as a new process would not have them.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from baselines.cli import main

MODULES = ("my_arms", "my_workload", "tweaks")

WIDE = '''

class WideSearch(LocalSearch):
    """A third arm: local search with the step its helper module says."""

    def __init__(self):
        super().__init__(step=tweaks.STEP)
'''


def forget() -> None:
    for name in MODULES:
        sys.modules.pop(name, None)


def run(project: Path, out: str = "out", *args: str) -> int:
    forget()
    return main(["run", str(project / "costmatch-suite.toml"), "--out", str(project / out), "--quiet",
                 "--no-plots", "--backend", "sequential", *args])


def lines(project: Path, out: str = "out") -> list[dict]:
    return [json.loads(line) for line in (project / out / "results.jsonl").read_text().splitlines()]


def by_cell(records: list[dict]) -> dict[tuple, dict]:
    return {(r["workload"], r["arm"], r["seed"]): r for r in records}


def outcome(record: dict) -> tuple:
    """What a cell found, without what varies between runs of the same code (seconds, host, worker)."""
    spend = {u: v for u, v in record["spend"].items() if u != "seconds"}
    return record["reward"], spend, record["stop_reason"], (record.get("error") or {}).get("type")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_the_first_hour_reruns_only_what_changed_and_ends_as_a_fresh_run_would(tmp_path, capsys):
    project = tmp_path / "myexp"
    assert main(["init", str(project)]) == 0
    suite, arms = project / "costmatch-suite.toml", project / "my_arms.py"
    edit(suite, "seeds = 10 ", "seeds = 2 ")
    assert run(project) == 0
    first = by_cell(lines(project))
    assert len(first) == 4
    capsys.readouterr()

    # add an arm (a class in my_arms.py, importing a helper beside the suite): only its cells run
    (project / "tweaks.py").write_text("STEP = 0.5\n")
    edit(arms, "from __future__ import annotations\n", "from __future__ import annotations\n\nimport tweaks\n")
    arms.write_text(arms.read_text() + WIDE)
    edit(suite, '[arms.local-search]', '[arms.wide-search]\npath = "my_arms:WideSearch"\n\n[arms.local-search]')
    edit(suite, '"local-search"]', '"local-search", "wide-search"]')
    assert run(project) == 0
    err = capsys.readouterr().err
    assert "changed" not in err, err
    second = by_cell(lines(project))
    assert len(second) == 6 and {k: v for k, v in second.items() if k[1] != "wide-search"} == first

    # edit the helper one arm imports: that arm alone reruns, and a line says so
    (project / "tweaks.py").write_text("STEP = 0.4\n")
    assert run(project) == 0
    err = capsys.readouterr().err
    assert 'code changed since the kept cells ran: arm "wide-search" (2 kept cell(s); its code is read from ' \
           'my_arms.py, tweaks.py): rerunning them' in err.replace(str(project) + "/", ""), err
    assert "local-search" not in err and "random-guess" not in err
    third = by_cell(lines(project))
    assert {k: v for k, v in third.items() if k[1] != "wide-search"} == first
    assert all(third[k] != second[k] for k in third if k[1] == "wide-search")
    assert len(list((project / "out").glob("results.*-old-code.jsonl"))) == 1   # moved aside, not deleted

    # break an arm, then fix it: its cells rerun both times (no --retry-errors, no --keep-stale)
    edit(arms, "        best_x, best = None, None\n", "        best_x, best = None, None\n        raise RuntimeError('bug')\n")
    assert run(project) == 1
    broken = by_cell(lines(project))
    assert {r["error"]["type"] for k, r in broken.items() if k[1] in ("local-search", "wide-search")} == {"RuntimeError"}
    assert {k: v for k, v in broken.items() if k[1] == "random-guess"} == \
           {k: v for k, v in first.items() if k[1] == "random-guess"}
    capsys.readouterr()
    edit(arms, "        raise RuntimeError('bug')\n", "")
    assert run(project) == 0
    err = capsys.readouterr().err
    assert 'arm "local-search"' in err and 'arm "wide-search"' in err and "random-guess" not in err
    final = by_cell(lines(project))

    # the same results as a fresh run of the final code
    assert run(project, "fresh-out") == 0
    fresh = by_cell(lines(project, "fresh-out"))
    assert final.keys() == fresh.keys()
    assert {k: outcome(r) for k, r in final.items()} == {k: outcome(r) for k, r in fresh.items()}
    assert all(r["error"] is None for r in final.values())
    forget()


def test_keep_stale_marks_the_old_records_and_compare_names_them(tmp_path, capsys):
    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    edit(project / "costmatch-suite.toml", "seeds = 10 ", "seeds = 2 ")
    assert run(project) == 0
    before = by_cell(lines(project))
    edit(project / "my_arms.py", "step: float = 0.15", "step: float = 0.3")
    capsys.readouterr()
    assert run(project, "out", "--keep-stale") == 0
    err = capsys.readouterr().err
    assert 'arm "local-search"' in err and "--keep-stale: they are reported as they are" in err
    assert "random-guess" not in err          # its class did not change: adding or editing another arm is not it
    kept = by_cell(lines(project))
    assert {k for k, r in kept.items() if r["provenance"].get("stale")} == {k for k in kept if k[1] == "local-search"}
    assert {k: outcome(r) for k, r in kept.items()} == {k: outcome(r) for k, r in before.items()}
    assert main(["compare", str(project / "out" / "results.jsonl")]) == 0
    out = capsys.readouterr()
    assert "arm 'local-search' on workload 'hidden-point': 2 run(s) are from code edited after they ran" in \
        out.out + out.err
    forget()


def test_fresh_clears_the_figures_an_earlier_run_wrote_and_keeps_the_users_files(tmp_path, capsys):
    project = tmp_path / "p"
    assert main(["init", str(project)]) == 0
    edit(project / "costmatch-suite.toml", "seeds = 10 ", "seeds = 2 ")
    plots = project / "out" / "plots"
    plots.mkdir(parents=True)
    old = [plots / "anytime-gone-tokens1.png", project / "out" / "comparison-rollouts.json"]
    mine = plots / "my-notes.png"
    for path in old + [mine]:
        path.write_text("x")
    forget()
    assert main(["run", str(project / "costmatch-suite.toml"), "--out", str(project / "out"), "--quiet",
                 "--backend", "sequential", "--fresh"]) == 0
    err = capsys.readouterr().err
    assert not any(p.exists() for p in old) and mine.exists()
    assert "--fresh: removed 2 figure or comparison file(s) an earlier run wrote" in err
    assert "my-notes.png" in err                      # the user's file is named, not removed
    assert any(plots.glob("anytime-*.png"))           # this run's figures
    forget()
