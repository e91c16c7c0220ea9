"""Targets and margins beyond the reward range are refused or said in one line, never computed (issue 41).

Failed before: `compare --target -1e308` printed "Cost to reach reward
-1e+308" with exit 0, a target above every score printed a table of
infinities, and a margin of 5 on rewards in [0, 1] gated (and passed) as if
it meant something.
"""
from __future__ import annotations

import json

import pytest

from baselines import check, compare
from baselines.cli import main
from baselines.core.records import RunRecord, write_records

from .builders import make_arms


def _traced(arm: str, seed: int, reward: float, declared: bool) -> RunRecord:
    trace = [{"spend": {"rollouts": k}, "best": reward * k / 4, "reward": reward * k / 4} for k in range(1, 5)]
    return RunRecord(workload="w", arm=arm, seed=seed, spend={"rollouts": 4}, reward=reward,
                     budget={"rollouts": 4}, trace=trace, extra={"reward_range": [0, 1]} if declared else {})


@pytest.fixture(params=[True, False], ids=["declared", "observed"])
def results(request, tmp_path):
    path = tmp_path / "results.jsonl"
    write_records(path, [_traced(arm, s, 0.3 + 0.1 * s + (arm == "b") * 0.05, request.param)
                         for arm in "ab" for s in range(4)])
    return path, request.param


@pytest.mark.parametrize("target", ["-1e308", "1e308", "5"])
def test_a_target_beyond_the_range_is_one_line_and_no_table(results, target, capsys):
    path, declared = results
    assert main(["compare", str(path), f"--target={target}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--target {float(target):g}" in err, err
    assert ("outside the reward range [0, 1]" in err) if declared else ("not computed" in err)


def test_a_target_inside_is_computed_as_before(results, capsys):
    path, _ = results
    assert main(["compare", str(path), "--target=0.4", "--json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["cost_to_target"]
    assert {r["arm"] for r in group["arms"]} == {"a", "b"}


def test_a_target_beyond_some_groups_is_warned_and_those_are_left_out(tmp_path, capsys):
    rows = [_traced(arm, s, 0.3 + 0.1 * s, False) for arm in "ab" for s in range(3)]
    low = [RunRecord(workload="low", arm=r.arm, seed=r.seed, spend=r.spend, reward=0.1, budget=r.budget,
                     trace=[{"spend": {"rollouts": 4}, "reward": 0.1}]) for r in rows]
    path = tmp_path / "r.jsonl"
    write_records(path, rows + low)
    assert main(["compare", str(path), "--target=0.35", "--json"]) == 0
    captured = capsys.readouterr()
    assert [g["workload"] for g in json.loads(captured.out)["cost_to_target"]] == ["w"]
    assert captured.err.count("\n") == 1 and "workload 'low'" in captured.err and "no run reached" in captured.err


def _bounded(seeds=6):
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=seeds,
                        reward_fn=lambda arm, s: 0.4 + 0.05 * (s % 3) + (arm == "b") * 0.01)
    for r in records:
        r.extra["reward_range"] = [0, 1]
    return records


@pytest.mark.parametrize("margin", [1, 5, "300%"])
def test_a_gate_margin_at_least_the_range_width_is_refused(margin, capsys):
    with pytest.raises(ValueError, match="at least the width 1 of the reward range"):
        check(_bounded(), baseline="a", candidate="b", margin=margin)


def test_the_check_verb_refuses_it_in_one_line(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _bounded())
    assert main(["check", str(path), "--baseline", "a", "--candidate", "b", "--margin", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--margin" not in err.split(":")[0] and "width 1" in err


def test_a_gate_margin_wider_than_every_observed_reward_is_noted():
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=6,
                        reward_fn=lambda arm, s: 40 + s % 3)   # no range: spread 2
    result = check(records, baseline="a", candidate="b", margin=10)
    [group] = result.groups
    assert any("margin 10 is wider than every reward observed here spans (2" in n for n in group.notes)
    narrow = check(records, baseline="a", candidate="b", margin=1).groups[0]
    assert not any("wider than" in n for n in narrow.notes)


def test_an_equivalence_margin_beyond_the_range_is_refused_or_noted():
    with pytest.raises(ValueError, match="the equivalence margin 2 is at least the width 1"):
        compare(_bounded(), equivalence_margin=2)
    records = make_arms({"a": {"tokens": 1000}, "b": {"tokens": 1000}}, seeds=6, reward_fn=lambda arm, s: 40 + s % 3)
    [group] = compare(records, equivalence_margin=50).groups
    assert any("the equivalence margin 50 is wider" in n for n in group.notes)


def test_the_sequential_gate_refuses_a_margin_beyond_the_declared_range_before_any_cell(tmp_path, capsys):
    """Failed before: the looks ran (cells spent) and the margin of 2 on rewards in [0, 1] gated as if it meant
    something; now `run --gate` says so before the first cell."""
    from .test_runner import write_suite

    suite = write_suite(tmp_path, seeds=4)
    suite.write_text(suite.read_text().replace('"tests.helpers:Toy"', '"tests.helpers:RangedToy"'))
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--looks", "2,4", "--gate", "guess:once", "--margin", "2",
                 "--backend", "sequential", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--margin 2 is at least the width 1" in err and "nothing was run" in err, err
    assert not (out / "results.jsonl").exists()
