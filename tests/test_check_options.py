"""Every option `costmatch check` accepts changes what it does, on a results file built for it.

`check` once parsed --allow-early-stop, --metric, --start and --confounds and
dropped them on the way to the gate: the gate compared final rewards at the
default rules whatever was asked. Each file below is built so that the option
flips the verdict (or, for --confounds, the confounds the gate reports).
"""
from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from baselines import CompareOptions, RunRecord, check, compare, write_records
from baselines.cli import main

BUDGET = {"rollouts": 10}
SEEDS = range(8)


def _noise(seed: int, arm: str) -> float:
    return float(np.random.default_rng([seed, zlib.crc32(arm.encode())]).normal(0, 0.01))


def _record(arm: str, seed: int, reward: float, rollouts: float = 10, stop: str = "budget:rollouts", trace=None,
            calls: float = 10) -> RunRecord:
    return RunRecord("w", arm, seed, {"rollouts": rollouts, "calls": calls}, reward, dict(BUDGET),
                     trace=trace, stop_reason=stop)


def _verdict(capsys, path, *extra) -> tuple[int, dict]:
    code = main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.05", "--json",
                 *extra])
    return code, json.loads(capsys.readouterr().out)


def test_allow_early_stop_reaches_the_gate(tmp_path, capsys):
    """The candidate stops on its own at half the budget and scores higher: a note with the flag, broken without."""
    records = [_record("base", s, 0.5 + _noise(s, "base")) for s in SEEDS]
    records += [_record("cand", s, 0.6 + _noise(s, "cand"), rollouts=5, stop="done") for s in SEEDS]
    path = tmp_path / "early.jsonl"
    write_records(path, records)
    code, out = _verdict(capsys, path)
    assert code == 1 and "broken comparison" in out["groups"][0]["reason"]
    code, out = _verdict(capsys, path, "--allow-early-stop")
    assert (code, out["verdict"]) == (0, "PASS")
    assert compare(records, allow_early_stop=True).valid   # the same rule as compare


def _trace(first: float, level: float) -> list[dict]:
    """Best-so-far: nothing before `first` rollouts, then `level` up to the budget."""
    return [{"spend": {"rollouts": first}, "best": level}, {"spend": {"rollouts": 10}, "best": level}]


def test_metric_and_start_reach_the_gate(tmp_path, capsys):
    """Equal final rewards, but the candidate gets there at 5 rollouts where the baseline needs 1."""
    records = []
    for s in SEEDS:
        level = 0.5 + _noise(s, "level")
        records.append(_record("base", s, level + _noise(s, "base"), trace=_trace(1, level + _noise(s, "b"))))
        records.append(_record("cand", s, level + _noise(s, "cand"), trace=_trace(5, level + _noise(s, "cnd"))))
    path = tmp_path / "anytime.jsonl"
    write_records(path, records)
    assert _verdict(capsys, path)[1]["verdict"] == "PASS"            # final reward: no loss
    code, out = _verdict(capsys, path, "--metric", "auc")           # area under best-so-far, 0 before a point
    assert (code, out["verdict"]) == (1, "FAIL")
    code, out = _verdict(capsys, path, "--metric", "auc", "--start", "0.5")   # both start at the level reached
    assert (code, out["verdict"]) == (0, "PASS")
    code, out = _verdict(capsys, path, "--metric", "reward@25%")    # at 2.5 rollouts only the baseline scored
    assert out["verdict"] == "FAIL"


def test_confounds_reach_the_gate(tmp_path, capsys):
    records = [_record("base", s, 0.5 + _noise(s, "base")) for s in SEEDS]
    records += [_record("cand", s, 0.5 + _noise(s, "cand"), calls=30) for s in SEEDS]   # 3x the model calls
    path = tmp_path / "confound.jsonl"
    write_records(path, records)
    _, out = _verdict(capsys, path)
    assert any(c.startswith("model calls: cand 30 vs base 10 (3× the baseline's") for c in out["groups"][0]["confounds"])   # unit in words
    _, out = _verdict(capsys, path, "--confounds", "none")
    assert out["groups"][0]["confounds"] == []
    _, out = _verdict(capsys, path, "--confounds", "tokens")
    assert out["groups"][0]["confounds"] == []


def test_tolerance_reaches_the_gate(tmp_path, capsys):
    records = [_record("base", s, 0.5 + _noise(s, "base")) for s in SEEDS]
    records += [_record("cand", s, 0.5 + _noise(s, "cand"), rollouts=11.5) for s in SEEDS]   # 15% over
    path = tmp_path / "over.jsonl"
    write_records(path, records)
    assert _verdict(capsys, path)[0] == 1
    assert _verdict(capsys, path, "--tolerance", "20%")[0] == 0


def test_the_python_check_takes_the_same_options():
    records = [_record("base", s, 0.5 + _noise(s, "base")) for s in SEEDS]
    records += [_record("cand", s, 0.6 + _noise(s, "cand"), rollouts=5, stop="done") for s in SEEDS]
    assert check(records, baseline="base", candidate="cand", margin=0.05).verdict == "FAIL"
    result = check(records, baseline="base", candidate="cand", margin=0.05, allow_early_stop=True)
    assert result.verdict == "PASS" and result.passed and result.comparison.groups[0].early_stopped == ["cand"]
    verdict, groups, comparison = result   # unpacks as the 3-tuple it used to be
    assert verdict == "PASS" and groups[0].verdict == "PASS" and comparison is result.comparison
    via_options = check(records, baseline="base", candidate="cand", margin=0.05,
                        options=CompareOptions(allow_early_stop=True))
    assert via_options.verdict == "PASS"
    with pytest.raises(TypeError):
        check(records, "base", "cand", 0.05)   # keyword-only after the records


def test_check_selects_groups_and_bounds_like_the_cli():
    records = [_record("base", s, 0.5 + _noise(s, "base")) for s in SEEDS]
    records += [_record("cand", s, 0.5 + _noise(s, "cand")) for s in SEEDS]
    other = [RunRecord("v", arm, s, {"rollouts": 10}, (0.9 if arm == "base" else 0.1) + _noise(s, arm), dict(BUDGET))
             for arm in ("base", "cand") for s in SEEDS]
    assert check(records + other, baseline="base", candidate="cand", margin=0.05).verdict == "FAIL"
    chosen = check(records + other, baseline="base", candidate="cand", margin=0.05, workloads=["w"])
    assert chosen.verdict == "PASS" and [g.workload for g in chosen.groups] == ["w"]
    t = check(records, baseline="base", candidate="cand", margin=0.05, bounds="t")
    betting = check(records, baseline="base", candidate="cand", margin=0.05, bounds="betting", reward_range=(0, 1))
    assert t.groups[0].method.startswith("t") and betting.groups[0].method.startswith("betting")
    assert betting.groups[0].reward_range == (0, 1)


def test_compare_honours_a_keyword_given_beside_options():
    records = [_record("base", s, 0.5) for s in SEEDS] + [_record("cand", s, 0.5, rollouts=11.5) for s in SEEDS]
    assert not compare(records, options=CompareOptions()).valid             # 15% over at tolerance 0.1
    both = compare(records, options=CompareOptions(), tolerance=0.2)
    assert both.valid and both.tolerance == 0.2
    assert compare(records, options=CompareOptions(tolerance=0.2), alpha=0.1).tolerance == 0.2
    with pytest.raises(TypeError):
        compare(records, "rollouts")   # keyword-only after the records
