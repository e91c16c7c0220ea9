"""The Python API: the example of docs/python.md runs as written, and run() follows the suite's rules."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from baselines import Budget, InputError, compare, run
from baselines.core.provenance import by_value_hash
from baselines.core.records import iter_records

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "docs" / "python.md"  # the Python example lives there


def test_the_readme_python_example_runs(tmp_path, monkeypatch, capsys, loky_in_process):
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Using it from Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "docs/python.md", "exec"), namespace)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "True rollouts"
    assert out[1] == "['greedy', 'random'] (2, 3)"
    assert out[-1] in ("PASS", "FAIL", "INCONCLUSIVE")
    assert len(namespace["records"]) == 6


def test_run_with_out_writes_and_resumes(tmp_path):
    arms = {"guess": "tests.helpers:Guess", "spin": ("tests.helpers:Guess", {"spin": 1})}
    first = run("tests.helpers:Toy", arms, Budget(rollouts=5), seeds=2, out=tmp_path, backend="sequential")
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(first) == 4 and len(lines) == 4
    again = run("tests.helpers:Toy", arms, Budget(rollouts=5), seeds=2, out=tmp_path, backend="sequential")
    assert [r.to_json() for r in again] == [r.to_json() for r in first]
    assert len(list(iter_records(tmp_path / "results.jsonl"))) == 4  # resumed: nothing ran twice
    assert compare(again).groups[0].fixed == "rollouts"


def test_run_refuses_what_it_cannot_run():
    with pytest.raises(InputError, match="pass fixed=UNIT"):
        run("tests.helpers:Toy", {"guess": "tests.helpers:Guess"}, Budget(rollouts=5, calls=3), seeds=1)
    with pytest.raises(InputError, match="has no"):
        run("tests.helpers:Toy", {"x": "tests.helpers:NoSuchArm"}, Budget(rollouts=5), seeds=1)


def test_two_copies_of_one_arm_give_identical_records_on_every_seed():
    """Common random numbers: an arm's stream depends on the seed and the workload, not on its name."""
    arms = {"greedy": "arms.selection:Greedy", "random-a": "arms.selection:UniformRandom",
            "random-b": "arms.selection:UniformRandom", "thompson-a": "arms.selection:Thompson",
            "thompson-b": "arms.selection:Thompson"}
    records = run("workloads.search_sim:SearchSim", arms, Budget(rollouts=12), seeds=4, backend="sequential")
    by = {(r.arm, r.seed): r for r in records}

    def same(a, b, seed):
        x, y = by[(a, seed)], by[(b, seed)]
        return (x.reward, x.dev_reward, {u: v for u, v in x.spend.items() if u != "seconds"}) == \
               (y.reward, y.dev_reward, {u: v for u, v in y.spend.items() if u != "seconds"})

    for seed in range(4):
        assert same("random-a", "random-b", seed) and same("thompson-a", "thompson-b", seed)
    assert not all(same("random-a", "thompson-a", seed) for seed in range(4))   # different code differs
    pair = next(p for p in compare(records, pairs="all").groups[0].pairs if {p.a, p.b} == {"random-a", "random-b"})
    assert pair.diff == 0


def test_arms_given_as_a_list_are_named_by_class_and_a_wrong_type_is_a_type_error():
    from arms.selection import Greedy, UniformRandom

    records = run("workloads.search_sim:SearchSim", [Greedy, UniformRandom], Budget(rollouts=4), seeds=1,
                  backend="sequential")
    assert sorted(r.arm for r in records) == ["Greedy", "UniformRandom"]
    with pytest.raises(TypeError, match="arms must be a dict"):
        run("workloads.search_sim:SearchSim", Greedy, Budget(rollouts=4), seeds=1)
    with pytest.raises(TypeError, match="both named 'Greedy'"):
        run("workloads.search_sim:SearchSim", [Greedy, (Greedy, {})], Budget(rollouts=4), seeds=1)


@pytest.mark.process
def test_classes_defined_in_a_function_run_in_worker_processes_by_value():
    class Coin:
        measures = ("calls", "seconds")

        def instance(self, seed):
            return seed % 2

        def score(self, instance, choice):
            return float(choice == instance)

    class Guess:
        def run(self, instance, meter, rng):
            meter.check()
            meter.call()
            return int(rng.integers(2))

    records = run(Coin, {"a": Guess, "b": (Guess, {})}, Budget(calls=1), seeds=4, jobs=2, backend="loky")
    assert all(r.error is None and r.reward is not None for r in records)
    assert {r.extra["provenance"]["worker"] for r in records} != {f"pid-{os.getpid()}"}   # ran elsewhere
    digest = by_value_hash("tests.test_api:Guess") or by_value_hash(f"{Guess.__module__}:{Guess.__name__}")
    assert digest and {r.extra["provenance"]["arm_module"] for r in records} == {digest}
    assert {r.extra["provenance"]["arm_code"] for r in records} == {digest}
    assert {r.extra["provenance"]["workload_code"] for r in records} == {
        by_value_hash(f"{Coin.__module__}:{Coin.__name__}")}


SCRIPT = '''
from baselines import Budget, compare, run

class Coin:
    measures = ("calls", "seconds")
    def instance(self, seed):
        return seed % 2
    def score(self, instance, choice):
        return float(choice == instance)

class Guess:
    def run(self, instance, meter, rng):
        meter.check()
        meter.call()
        return int(rng.integers(2))

records = run(Coin, [Guess], Budget(calls=1), seeds=3, jobs=2, out="out")
print(len(records), sorted({r.extra["provenance"]["arm_path"] for r in records}))
'''


@pytest.mark.process
def test_a_script_defines_its_classes_in_main_and_runs_them_in_workers(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3 ['__main__:Guess']"
    assert (tmp_path / "out" / "report.md").is_file()
    edited = SCRIPT.replace("return int(rng.integers(2))", "return 1")
    (tmp_path / "script.py").write_text(edited, encoding="utf-8")
    again = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
                           timeout=300)
    # issue 39: the edited class's cells rerun, the line says so in the API's words (keep_stale=True, no flag)
    assert again.returncode == 0, again.stderr
    assert "code changed" in again.stderr and '"Guess"' in again.stderr and "__main__:Guess" in again.stderr
    assert "keep_stale=True keeps them instead" in again.stderr and "--" not in again.stderr


def test_run_with_out_writes_the_report_the_cli_writes(tmp_path):
    from baselines.cli import main

    arms = {"guess": "tests.helpers:Guess", "spin": ("tests.helpers:Guess", {"spin": 1})}
    run("tests.helpers:Toy", arms, Budget(rollouts=5), seeds=2, out=tmp_path / "py", backend="sequential",
        plots=False, name="toy")
    suite = tmp_path / "suite.toml"
    suite.write_text('name = "run()"\nseeds = 2\n[arms.guess]\npath = "tests.helpers:Guess"\n'
                     '[arms.spin]\npath = "tests.helpers:Guess"\nparams = { spin = 1 }\n'
                     '[[workloads]]\nname = "toy"\npath = "tests.helpers:Toy"\nfixed = "rollouts"\n'
                     'budget = { rollouts = 5 }\narms = ["guess", "spin"]\n', encoding="utf-8")
    assert main(["run", str(suite), "--out", str(tmp_path / "cli"), "--backend", "sequential", "--no-plots",
                 "--quiet"]) == 0
    def shape(text: str) -> str:   # wall time differs between two runs; everything else must not
        return re.sub(r"-+", "-", re.sub(r" +", " ", re.sub(r"[0-9][0-9.,e+-]*", "#", text)))

    py, cli = ((tmp_path / d / "report.md").read_text() for d in ("py", "cli"))
    assert shape(py) == shape(cli) and "## At equal rollouts" in py
    py, cli = (json.loads((tmp_path / d / "comparison-rollouts.json").read_text()) for d in ("py", "cli"))
    for group in py["groups"] + cli["groups"]:
        for arm in group["arms"]:
            arm["spend"].pop("seconds", None)
        group.pop("confounded", None)   # (seconds is not a confound by default; dropped to compare the rest)
    assert py["groups"][0]["arms"] == cli["groups"][0]["arms"]


def test_a_comparison_renders_itself_as_the_report_does():
    from reports.markdown import comparison_markdown
    from baselines.analysis.result.ranges import ranges_for

    records = run("tests.helpers:Toy", {"a": "tests.helpers:Guess", "b": ("tests.helpers:Guess", {"spin": 1})},
                  Budget(rollouts=5), seeds=3, backend="sequential")
    c = compare(records)
    assert c.to_markdown() == comparison_markdown(c, paper=True, ranges=ranges_for(c, records),
                                                  compact_confounds=True, records=records)
    assert c.to_latex().count("\\begin{table") == 2   # the arm table and the pairs (verdicts by default)
    assert c.to_html().startswith("<!DOCTYPE html>") and "<table" in c.to_html()
    fragment = c._repr_html_()
    assert fragment.startswith('<div class="costmatch">') and "<html" not in fragment and "<table" in fragment
    figures = c.plot()
    assert len(figures) >= 2 and all(hasattr(f, "savefig") for f in figures)
    assert figures._repr_html_().count("<svg") == len(figures)
    figures.close()
