"""Rules whose mutants the default suite once let through (issue 44), each pinned by the value it must give.

Each test names the mutant it kills. A rule checked only by its wording, or by a verdict that stays the
same either way, lets a faithful mutant pass: these check the number the rule produces.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from baselines import InputError, RunRecord, compare
from baselines.analysis.clustered import clustered_bounds
from baselines.analysis.gate import run_gate
from baselines.importers import import_lm_eval

LM_EVAL = Path(__file__).parent / "data" / "lm_eval" / "output" / "strong"


# -- the gate's crash rule: a crashed candidate seed is a loss at the range floor, not a tie ---------------
def _crash_records(n=20, crashed=(1, 4, 7, 9, 15)):
    out = []
    for s in range(n):
        level = 0.6 + 0.01 * (s % 5)
        extra = {"reward_range": [0, 1]}
        out.append(RunRecord("w", "base", s, {"tokens": 1}, level, budget={"tokens": 1}, extra=dict(extra)))
        out.append(RunRecord("w", "cand", s, {"tokens": 1}, None if s in crashed else level + 0.02,
                             budget={"tokens": 1}, error={"type": "E", "message": "x"} if s in crashed else None,
                             extra=dict(extra)))
    return out


def test_a_crashed_candidate_seed_counts_at_the_floor_in_the_gates_mean():
    """Kills: the crashed seed scored as the baseline's reward (a tie), which moves the mean to +0.015."""
    [res], _ = run_gate(_crash_records(), "tokens", "base", "cand", 0.1)
    crashed_levels = sum(0.6 + 0.01 * (s % 5) for s in (1, 4, 7, 9, 15))   # each lost to the floor 0
    expected = (15 * 0.02 - crashed_levels) / 20                          # = -0.1405
    assert res.n == 20 and res.diff == pytest.approx(expected, abs=1e-12)
    assert res.lower <= expected <= res.upper


# -- seed clustering: the cluster-robust standard error, not its within-seed floor -------------------------
def test_the_clustered_standard_error_is_the_cluster_means_standard_error_with_equal_sizes():
    """With equal cluster sizes the CR1 standard error of the mean equals sd(cluster means)/sqrt(G).

    Kills: the clustered SE replaced by its within-seed floor (which ignores the seed effect; with 10-20
    seeds and a seed effect of sd 0.2 that mutant PASSes at the margin in 14-15% of data sets)."""
    rng = np.random.default_rng(7)
    seed_effect = rng.normal(0, 0.2, 8)
    clusters = [effect + rng.normal(0, 0.05, 20) for effect in seed_effect]
    mean, lower, upper, se = clustered_bounds(clusters, 0.05)
    means = np.array([c.mean() for c in clusters])
    assert se == pytest.approx(means.std(ddof=1) / math.sqrt(len(clusters)), rel=1e-12)
    floor = math.sqrt(sum(((c - c.mean()) ** 2).sum() for c in clusters) / (160 - 8) / 160)
    assert se > 3 * floor                                         # the seed effect dominates here
    assert mean == pytest.approx(means.mean()) and lower < mean < upper


def test_the_floor_still_holds_when_seeds_agree_too_well():
    """Clusters whose means coincide have a CR SE near 0; the within-seed floor keeps the interval honest."""
    base = np.linspace(-1, 1, 10)
    clusters = [base.copy(), base[::-1].copy(), base.copy()]
    mean, lower, upper, se = clustered_bounds(clusters, 0.05)
    floor = math.sqrt(sum(((c - c.mean()) ** 2).sum() for c in clusters) / (30 - 3) / 30)
    assert se == pytest.approx(floor) and upper - lower > 0.1


# -- lm-eval filters: --metric NAME,FILTER reads that filter's lines only ----------------------------------
def _two_filter_run(tmp_path: Path) -> Path:
    """The shipped strong run with a second filter, 'strict-match', whose exact_match is wrong on even doc ids."""
    results = sorted(LM_EVAL.glob("results_*.json"))[0]
    date = results.name[len("results_"):-len(".json")]
    samples = LM_EVAL / f"samples_arith20_{date}.jsonl"
    out = tmp_path / "run"
    out.mkdir()
    data = json.loads(results.read_text())
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    strict = []
    for line in lines:
        other = dict(line, filter="strict-match")
        other["exact_match"] = 0.0 if line["doc_id"] % 2 == 0 else line["exact_match"]
        strict.append(other)
    data["results"]["arith20"]["exact_match,strict-match"] = float(np.mean([s["exact_match"] for s in strict]))
    data["results"]["arith20"]["exact_match_stderr,strict-match"] = 0.1
    (out / results.name).write_text(json.dumps(data))
    interleaved = [x for pair in zip(lines, strict) for x in pair]
    (out / samples.name).write_text("".join(json.dumps(x) + "\n" for x in interleaved))
    return out / results.name, {str(x["doc_id"]): x["exact_match"] for x in lines}, \
        {str(x["doc_id"]): x["exact_match"] for x in strict}


def test_lm_eval_metric_filter_picks_that_filters_items(tmp_path):
    """Kills: the FILTER part of --metric ignored, and items taken from every filter's lines."""
    results, none_items, strict_items = _two_filter_run(tmp_path)
    assert none_items != strict_items
    [strict] = import_lm_eval(results, metric="exact_match,strict-match")
    assert strict.extra["metric"] == "exact_match,strict-match"
    assert {i["id"]: i["reward"] for i in strict.items} == strict_items
    assert strict.reward == pytest.approx(np.mean(list(strict_items.values())))
    [plain] = import_lm_eval(results, metric="exact_match,none")
    assert {i["id"]: i["reward"] for i in plain.items} == none_items
    [default] = import_lm_eval(results)          # the first reported metric: exact_match,none
    assert default.extra["metric"] == "exact_match,none" and len(default.items) == 20
    with pytest.raises(InputError, match="reports no metric 'exact_match,flexible'"):
        import_lm_eval(results, metric="exact_match,flexible")


# -- the drift tolerance is inclusive: exactly 10% over is equal spend, a hair more is not -----------------
def _drift_records(spend: float):
    out = []
    for s in range(5):
        out.append(RunRecord("w", "a", s, {"tokens": 100}, 0.5, budget={"tokens": 100}))
        out.append(RunRecord("w", "b", s, {"tokens": spend if s == 2 else 100}, 0.5, budget={"tokens": 100}))
    return out


@pytest.mark.parametrize("spend, drifted", [(110.0, False), (110.0001, True), (90.0, False), (89.9999, True)])
def test_drift_of_exactly_the_tolerance_is_allowed_and_beyond_it_is_not(spend, drifted):
    """Kills: `>` made `>=` (or `<` made `<=`) in the drift rule, on the path `compare()` takes."""
    result = compare(_drift_records(spend), fixed="tokens", tolerance=0.1)
    [group] = result.groups
    assert bool(group.unequal) is drifted and result.valid is (not drifted)
    if drifted:
        [flag] = group.unequal
        assert flag.arm == "b" and flag.seed == 2 and flag.runs == 1
