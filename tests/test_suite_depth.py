"""Suites are checked as deeply as `run` will use them, before any cell runs (issue 31).

Each case passed `plan` before, and every cell then failed in `run`.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from baselines.cli import main

SUITE = """
seeds = 2
[arms.a]
path = "{arm}"
params = {params}

[arms.greedy]
path = "arms.selection:Greedy"

[[workloads]]
name = "search-sim"
path = "workloads.search_sim:SearchSim"
fixed = "rollouts"
budget = {{ rollouts = 20 }}
arms = ["a", "greedy"]
"""

BASE_CLASS = '''
import abc

class Policy(abc.ABC):
    workloads = ("search-sim",)

    @abc.abstractmethod
    def run(self, instance, meter, rng): ...
'''


def write_suite(tmp_path: Path, arm: str, params: str = "{}", extra: str = "") -> Path:
    (tmp_path / "my_base.py").write_text(BASE_CLASS)
    path = tmp_path / "s.toml"
    path.write_text(SUITE.format(arm=arm, params=params) + extra)
    return path


CASES = [
    ("threading:Thread", "{}", "", r"Thread\.run\(self\) does not take run\(instance, meter, rng\)"),
    ("arms.selection:SelectionPolicy", "{}", "", r"SelectionPolicy\.select only raises NotImplementedError"),
    ("my_base:Policy", "{}", "", r"Policy is an abstract class \(it does not define run\)"),
    ("arms.selection:UCB1", '{ c = "0.5" }', "", r'c = "0\.5" is not a number, which UCB1 takes for c'),
    ("arms.selection:UCB1", "{ c = true }", "", r"c = true is not a number"),
    ("arms.selection:Greedy", "{}",
     '\n[[workloads]]\nname = "search-sim"\npath = "workloads.search_sim:SearchSim"\nfixed = "rollouts"\n'
     'budget = { rollouts = 40 }\narms = ["greedy"]\nparams = { population = 7 }\n',
     r"workloads\[1\]: workload 'search-sim' is named by an earlier entry with another params"),
]


@pytest.mark.parametrize("verb", ["plan", "run"])
@pytest.mark.parametrize("arm, params, extra, pattern", CASES)
def test_a_suite_run_would_fail_in_every_cell_is_refused_at_load(tmp_path, capsys, verb, arm, params, extra,
                                                                 pattern):
    import re

    suite = write_suite(tmp_path, arm, params, extra)
    args = [verb, str(suite)] + (["--out", str(tmp_path / "o"), "--backend", "sequential", "--quiet"]
                                 if verb == "run" else [])
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(pattern, err), err
    assert not (tmp_path / "o").exists()


def test_what_the_checks_accept(tmp_path, capsys):
    """Numbers for float params (an int too), entries sharing a name with the same params, and the demo."""
    extra = ('\n[[workloads]]\nname = "search-sim"\npath = "workloads.search_sim:SearchSim"\nfixed = "rollouts"\n'
             'budget = { rollouts = 40 }\narms = ["greedy"]\n')
    assert main(["plan", str(write_suite(tmp_path, "arms.selection:UCB1", "{ c = 1 }", extra))]) == 0
    assert main(["plan"]) == 0
