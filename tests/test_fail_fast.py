"""The fail-fast rule (issue 39): an arm's first record that breaks the contract stops its remaining cells.

Cells run after the first bad record of that arm: 0 (sequential engine, two arms); the other arm runs all of
its cells; one line names the arm, the seed and the reason; the run exits 1; a resume does not run it again
until its code changes.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from baselines.cli import main
from baselines.core.records import RunRecord
from baselines.running.fail_fast import breach

WORKLOAD = '''
class Pick:
    measures = ("calls", "seconds", "rollouts")
    reward_range = (0.0, 1.0)

    def instance(self, seed):
        return seed

    def score(self, instance, choice):
        return None if SCALE is None else SCALE * choice


class Good:
    def run(self, instance, meter, rng):
        meter.rollouts(1)
        meter.progress(0.5, choice=0.5)
        return 0.5


class Bad:
    def run(self, instance, meter, rng):
        meter.rollouts(1)
        meter.progress(0.9, choice=CHOICE)
        return CHOICE
'''

SUITE = '''
seeds = 5
[arms.good]
path = "pick:Good"
[arms.bad]
path = "pick:Bad"
[[workloads]]
name = "pick"
path = "pick:Pick"
fixed = "{fixed}"
budget = {budget}
arms = ["good", "bad"]
'''


def project(tmp_path: Path, choice: str = "0.9", scale: str = "2.0", fixed: str = "rollouts",
            budget: str = "{rollouts = 1}") -> Path:
    (tmp_path / "pick.py").write_text(f"CHOICE = {choice}\nSCALE = {scale}\n" + WORKLOAD)
    (tmp_path / "suite.toml").write_text(SUITE.format(fixed=fixed, budget=budget))
    return tmp_path


def run(folder: Path) -> int:
    sys.modules.pop("pick", None)
    return main(["run", str(folder / "suite.toml"), "--out", str(folder / "out"), "--quiet", "--no-plots",
                 "--backend", "sequential"])


def lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "out" / "results.jsonl").read_text().splitlines()]


def test_a_reward_outside_the_declared_range_stops_that_arm_at_its_first_record(tmp_path, capsys):
    folder = project(tmp_path)                       # Bad's reward 2 x 0.9 = 1.8, declared range [0, 1]
    assert run(folder) == 1
    err = capsys.readouterr().err
    assert err.count("broke the contract") == 1
    assert 'arm "bad" on workload "pick" broke the contract at seed 0: reward 1.8 is outside the line\'s ' \
           "reward_range [0.0, 1.0]; fix the range or the reward; its remaining cells are not run (the other arms " \
           "go on)" in err
    records = lines(folder)
    assert [r["seed"] for r in records if r["arm"] == "bad"] == [0]          # 0 cells after the first bad one
    assert sorted(r["seed"] for r in records if r["arm"] == "good") == [0, 1, 2, 3, 4]

    assert run(folder) == 1                          # a resume: the same arm, unedited, is not run again
    assert "broke the contract at seed 0" in capsys.readouterr().err
    assert [r["seed"] for r in lines(folder) if r["arm"] == "bad"] == [0]

    (folder / "pick.py").write_text((folder / "pick.py").read_text().replace("SCALE = 2.0", "SCALE = 1.0"))
    assert run(folder) == 0                          # fixed: its cells rerun, all of them
    assert sorted(r["seed"] for r in lines(folder) if r["arm"] == "bad") == [0, 1, 2, 3, 4]
    sys.modules.pop("pick", None)


def test_a_missing_reward_and_an_unseen_fixed_spend_stop_the_arm_too(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    folder = project(tmp_path / "a", scale="None")  # score returns None: no reward, no error
    assert run(folder) == 1
    assert "seed 0: it has no reward" in capsys.readouterr().err
    assert [r["seed"] for r in lines(folder) if r["arm"] == "bad"] == [0]
    sys.modules.pop("pick", None)


@pytest.mark.parametrize("spend, partial, why", [
    ({"tokens": None, "rollouts": 1}, (), "its spend in the fixed unit tokens is unreported"),
    ({"tokens": 10, "rollouts": 1}, ("tokens",), "reported only in part"),
    ({"tokens": 10, "rollouts": 1}, (), None),
])
def test_the_unseen_spend_rule(spend, partial, why):
    record = RunRecord("w", "a", 0, spend, 0.5, {"tokens": 10}, {}, partial=partial)
    found = breach(record, "tokens")
    assert (found is None) if why is None else (why in found)
    errored = RunRecord("w", "a", 0, spend, None, {"tokens": 10}, {}, error={"type": "X"})
    assert breach(errored, "tokens") is None          # an error is its own record, not a breach
