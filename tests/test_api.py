"""The Python API: the example of docs/python.md runs as written, and run() follows the suite's rules."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from baselines import Budget, InputError, compare, run
from baselines.core.records import iter_records

README = Path(__file__).resolve().parents[1] / "docs" / "python.md"  # the Python example lives there


def test_the_readme_python_example_runs(tmp_path, monkeypatch, capsys):
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


def test_run_refuses_what_workers_cannot_import():
    class Local:
        def run(self, instance, meter, rng):
            return 0

    with pytest.raises(InputError, match="cannot import it"):
        run("tests.helpers:Toy", {"local": Local}, Budget(rollouts=5), seeds=1)
    with pytest.raises(InputError, match="pass fixed=UNIT"):
        run("tests.helpers:Toy", {"guess": "tests.helpers:Guess"}, Budget(rollouts=5, calls=3), seeds=1)
    with pytest.raises(InputError, match="has no"):
        run("tests.helpers:Toy", {"x": "tests.helpers:NoSuchArm"}, Budget(rollouts=5), seeds=1)
