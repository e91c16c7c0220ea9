"""The history's pooled-shape route for unbounded gates (issue 40): its logic on small fixed samples (cheap)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, gate_decision, skew_allowance, skew_z
from baselines.analysis.gating.pooled_shape import (POOLED, POOLED_HULL, POOLED_MAX_ALLOWANCE, Shape,
                                                    pooled_allowance, pooled_decision)
from baselines.analysis.history.entry import Drift, HistoryEntry, parse_entry


def _refused_normal_pass() -> np.ndarray:
    """A normal 10-seed sample well inside the margin whose left lean the one-sample skew check refuses."""
    rng = np.random.default_rng(3)
    for _ in range(500):
        d = -0.01 + 0.028 * rng.standard_normal(10)
        g = gate_decision(d, 0.05, 0.05)
        if g.verdict == INCONCLUSIVE and skew_z(d) < -skew_allowance(10) and skew_z(d) > -1.5:
            return d
    raise AssertionError("no such sample")


def test_no_history_is_the_default_gate():
    d = _refused_normal_pass()
    for shape in (None, Shape()):
        assert pooled_decision(d, 0.05, 0.05, shape) == gate_decision(d, 0.05, 0.05)


def test_symmetric_history_gives_student_t_and_passes_what_one_sample_refused():
    d = _refused_normal_pass()
    g = pooled_decision(d, 0.05, 0.05, Shape(0.0, 9))
    assert g.verdict == PASS and g.method.startswith(POOLED)
    from baselines.analysis.statistics.student_t import t_interval
    _, lo, hi = t_interval(d, 0.9)
    assert (g.lower, g.upper) == pytest.approx((lo, hi))


def test_left_skewed_history_refuses_the_pass_and_keeps_the_fail():
    d = _refused_normal_pass()
    g = pooled_decision(d, 0.05, 0.05, Shape(-3.0 * 9, 9))
    assert g.verdict == INCONCLUSIVE and g.method.startswith(POOLED_HULL)
    assert any("left-skewed" in n and "earlier look" in n for n in g.notes)
    worse = d - 0.1                      # far beyond the margin: a FAIL, which left skew does not argue against
    assert pooled_decision(worse, 0.05, 0.05, Shape(-27.0, 9)).verdict == FAIL


def test_right_skewed_history_refuses_the_fail():
    d = -(_refused_normal_pass()) - 0.1  # right-leaning, far below the margin
    assert pooled_decision(d, 0.05, 0.05, Shape(0.0, 9)).verdict == FAIL
    g = pooled_decision(d, 0.05, 0.05, Shape(27.0, 9))
    assert g.verdict == INCONCLUSIVE and any("right-skewed" in n for n in g.notes)


def test_allowance_starts_at_the_one_sample_rule_and_is_capped():
    assert pooled_allowance(1, 10) == skew_allowance(10)
    assert pooled_allowance(3, 10) == pytest.approx(2 * skew_allowance(10))
    assert pooled_allowance(30, 10) == POOLED_MAX_ALLOWANCE
    assert pooled_allowance(5, 6) == 0.0


def test_few_seeds_or_equal_differences_stay_the_default():
    assert pooled_decision([0.01] * 10, 0.05, 0.05, Shape(0.0, 5)) == gate_decision([0.01] * 10, 0.05, 0.05)
    small = [0.01, 0.02, 0.0, 0.015, 0.012]
    assert pooled_decision(small, 0.05, 0.05, Shape(0.0, 5)).verdict == INCONCLUSIVE


def test_shape_adds_only_finite_skewness():
    s = Shape().add(1.0).add(None).add(math.nan).add(-0.5)
    assert s == Shape(0.5, 2)


def test_history_line_keeps_skew_z():
    drift = Drift("v1", "sha", "c", -0.02, -0.03, -0.01, 0.001, 1, 30, "t", "PASS", 10, se=0.003, skew_z=-0.4)
    e = HistoryEntry("abc", "w", {"rollouts": 1}, "b", "c", PASS, -0.01, -0.02, 0.0, 0.05, 0.05, "t", 10,
                     skew_z=0.7, drift=drift)
    back = parse_entry(e.line_bytes(), "h:1")
    assert back.skew_z == 0.7 and back.drift.skew_z == -0.4
    old = e.to_json()
    del old["skew_z"]
    import json
    assert parse_entry(json.dumps(old).encode(), "h:1").skew_z is None


def test_check_history_records_skewness_and_the_next_look_pools_it(tmp_path, monkeypatch, capsys):
    """Through `costmatch check --history`: look 1 is the default gate; look 2 reads look 1's skew_z, base and drift."""
    from tests.test_history import _check, _results
    for name in ("GITHUB_SHA", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_STEP_SUMMARY", "GITHUB_REF_NAME"):
        monkeypatch.delenv(name, raising=False)
    history = tmp_path / "h.jsonl"
    ref = _results(tmp_path / "ref.jsonl", seed=5)
    for k in (1, 2):
        _check(_results(tmp_path / f"r{k}.jsonl", seed=k), history, f"c{k}", "--reference", ref)
    capsys.readouterr()
    first, second = [json.loads(x) for x in history.read_text().splitlines()]
    assert isinstance(first["skew_z"], float) and isinstance(first["drift"]["skew_z"], float)
    assert not first["method"].startswith(POOLED) and not first["drift"]["method"].startswith(POOLED)
    for method in (second["method"], second["drift"]["method"]):
        assert "over the history (2 looks" in method, method


def test_python_check_pools_like_the_cli(tmp_path):
    from baselines import check
    from tests.test_history import _results
    history = tmp_path / "h.jsonl"
    for k in (1, 2):
        check(_results(tmp_path / f"r{k}.jsonl", seed=k), baseline="baseline", candidate="candidate", margin=0.05,
              history=history, commit=f"c{k}")
    second = json.loads(history.read_text().splitlines()[1])
    assert "over the history (2 looks" in second["method"]


def test_a_rerun_of_a_commit_does_not_pool_with_its_own_line(tmp_path):
    """The shapes leave out the commit being checked: rerunning c2 on the same data decides as its line says."""
    from baselines import check
    from tests.test_history import _results
    history = tmp_path / "h.jsonl"
    runs = [_results(tmp_path / f"r{k}.jsonl", seed=k) for k in (1, 2)]
    for k, path in enumerate(runs, 1):
        check(path, baseline="baseline", candidate="candidate", margin=0.05, history=history, commit=f"c{k}")
    again = check(runs[1], baseline="baseline", candidate="candidate", margin=0.05, history=history, commit="c2")
    line = json.loads(history.read_text().splitlines()[1])
    assert len(history.read_text().splitlines()) == 2
    assert again.groups[0].method == line["method"] and "(2 looks" in line["method"]


def test_history_shapes_reads_one_look_per_commit_of_the_same_series(tmp_path):
    from baselines.analysis.history.recording import history_shapes
    path = tmp_path / "h.jsonl"

    def line(commit, z, *, claim="mean", candidate="c", drift_z=None, sha="ref", budget=1):
        drift = None if drift_z is None else Drift("v1", sha, "c", -0.02, -0.03, -0.01, 0.001, 1, 30, "t", "PASS", 10,
                                                   skew_z=drift_z)
        return HistoryEntry(commit, "w", {"rollouts": budget}, "b", candidate, PASS, 0.0, -0.01, 0.01, 0.05, 0.05, "t",
                            10, claim=claim, skew_z=z, drift=drift).line_bytes()

    lines = [line("c1", 1.0, drift_z=0.5), line("c1", 2.0, drift_z=0.25),   # a re-check: the latest counts
             line("c2", -1.0, drift_z=0.5, sha="other"), line("c3", None), line("c4", 5.0, claim="typical"),
             line("c5", 5.0, candidate="x"), line("c6", 0.5, budget=2), line("now", 9.0)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    shapes = history_shapes(str(path), "b", "c", "mean", commit="now")
    from baselines.core.records import budget_key
    assert shapes[("w", budget_key({"rollouts": 1}))] == Shape(1.0, 2)          # c1 (latest, 2.0) + c2 (-1.0)
    assert shapes[("w", budget_key({"rollouts": 2}))] == Shape(0.5, 1)
    drift = history_shapes(str(path), "b", "c", "mean", "ref", commit="now")
    assert drift == {("w", budget_key({"rollouts": 1})): Shape(0.25, 1)}
    assert history_shapes(str(tmp_path / "none.jsonl"), "b", "c") == {}


def test_the_arms_check_of_the_one_sample_gate_still_applies():
    """Lognormal rewards give symmetric-looking differences: the pooled route keeps issue 37's arm check."""
    from baselines.analysis.gating.gate_bounds import arm_skew_z
    rng = np.random.default_rng(8)
    base = np.array([0.1, 0.12, 0.09, 0.11, 0.1, 0.13, 0.08, 0.1, 0.12, 2.0])   # one rare large baseline reward
    for _ in range(2000):
        d = -0.03 + 0.02 * rng.standard_normal(10)
        plain = pooled_decision(d, 0.05, 0.05, Shape(0.0, 9))
        if plain.verdict != PASS or abs(skew_z(d)) > 1:
            continue
        armed = pooled_decision(d, 0.05, 0.05, Shape(0.0, 9), arms=(base, base + d))
        if armed.verdict == INCONCLUSIVE:
            break
    else:
        raise AssertionError("no marginal PASS found")
    assert arm_skew_z((base, base + d), 10)[0] > 2.5
    assert any("arms' own rewards lean against it" in n for n in armed.notes) and plain.verdict == PASS


def test_the_shown_tail_check_applies_from_the_second_look_on():
    """A right-skewed candidate whose tail the seeds show (issue 37's skew fix, `gate_bounds.arm_tail_alpha`):
    the one-sample gate refuses its PASS, and so must every later look of the group. Fails with the pooled route's
    old arm check (the baseline's lean only: below the first step here, so the PASS stood at looks 2 and on)."""
    base = [1.39, 1.12, 1.15, 0.22, 0.63, 1.12, 0.46, 0.62, 0.44, 0.72]
    cand = [0.47, 0.25, 0.23, 0.17, 0.72, 0.56, 0.34, 0.54, 3.06, 0.82]
    d = np.subtract(cand, base)
    one_sample = gate_decision(d, 0.82, arms=(base, cand))
    assert gate_decision(d, 0.82).verdict == PASS and one_sample.verdict == INCONCLUSIVE
    for looks in (1, 4, 9):
        shape = Shape(0.0, looks)
        assert pooled_decision(d, 0.82, 0.05, shape).verdict == PASS, looks      # the differences alone PASS
        armed = pooled_decision(d, 0.82, 0.05, shape, arms=(base, cand))
        assert armed.verdict == INCONCLUSIVE, looks
        assert armed.notes[-1] == one_sample.notes[-1]          # the one-sample gate's note, word for word
        assert "right-skewed candidate" in armed.notes[-1] and "alpha 0.00625" in armed.notes[-1]
