"""The gate history by seeded simulation (issue 40; the figures of docs/calibration.md at fewer histories).

Model: 30 commits, per-seed paired differences against the reference
N(mu_k, 0.02), 10 seeds, margin 0.05, alpha 0.05, no reward range, each
commit's gate against the commit before on the same seeds. The seeds are
benchmarks/history_simulation.py's, so each figure here is the first 400 of
its 2,000 histories. Bounds carry 3 Monte Carlo standard errors.
"""
from __future__ import annotations

import math

import pytest

from baselines.analysis.history.simulation import simulate_history

HISTORIES = 400
LOSING = [-0.01 * k for k in range(1, 31)]


def _mc(rate: float) -> float:
    return 3 * math.sqrt(max(rate * (1 - rate), 0.05 * 0.95) / HISTORIES)


def test_default_gate_at_ten_histories_is_where_docs_calibration_md_puts_it():
    """Default, cheap: issue 40's losing history, 10 seeded histories (300 commits), with and without the pooled shape.

    docs/calibration.md at 1,000 histories: per-commit PASS 0.98 with the history's pooled shape (the default of
    `check --history`), 0.75 for the one-sample default gate; every history alarms, median first alarm commit 8;
    no change: no drift alarm. Seeded, so exact for this seed; the bands are the 300 commits' Monte Carlo error.
    """
    losing = simulate_history(LOSING, histories=10, seed=1, steps=False)   # steps are not asserted here
    assert losing.base_pass >= 0.93, losing                   # issue 40's 0.90, with the pooled shape
    assert losing.any_drift == 1.0 and losing.first_drift_median <= 10, losing
    one_look = simulate_history(LOSING, histories=10, seed=1, pool=False, steps=False)
    assert 0.68 <= one_look.base_pass <= 0.83, one_look      # the one-sample skew check's price
    flat = simulate_history([0.0] * 30, histories=10, seed=5, steps=False)
    assert flat.any_drift == 0.0, flat


@pytest.mark.slow
def test_no_skew_statistic_buys_ninety_percent_passes_at_ten_seeds_without_losing_size():
    """benchmarks/history_rules.py's first table (docs/calibration.md): refusing only 10% of the normal PASSes
    on any of its three skew statistics leaves left lognormal differences at the margin PASSing above 0.05."""
    from benchmarks.history_rules import skew_price
    rows = [r.split(" | ") for r in skew_price(4000) if r.startswith("| ") and "0.10 |" in r]
    assert len(rows) == 3
    for row in rows:
        assert max(float(row[3]), float(row[4].rstrip(" |"))) > 0.05 + 3 * math.sqrt(0.05 * 0.95 / 4000), row


@pytest.mark.slow
def test_nothing_changed_no_false_drift_and_steps_within_their_level():
    for bounds, seed in (("auto", 5), ("t", 6)):
        r = simulate_history([0.0] * 30, bounds=bounds, histories=HISTORIES, seed=seed)
        assert r.any_drift == 0.0
        assert r.any_alarm <= 0.025 + _mc(0.025), (bounds, r)      # steps at their default level, 0.025
        assert r.any_alarm <= 0.05


@pytest.mark.slow
def test_skewed_differences_with_no_change_stay_under_five_percent_false_alarms():
    for shape, seed in (("lognormal", 10), ("left-lognormal", 11)):
        r = simulate_history([0.0] * 30, histories=HISTORIES, seed=seed, shape=shape)
        assert r.any_alarm <= 0.05, (shape, r)


@pytest.mark.slow
def test_at_the_margin_the_drift_alarm_over_thirty_commits_is_held_to_alpha():
    r = simulate_history([-0.05] * 30, histories=HISTORIES, seed=8)
    assert r.any_drift <= 0.05 + _mc(0.05), r


@pytest.mark.slow
def test_losing_a_hundredth_per_commit_per_commit_gates_pass_and_drift_is_found():
    t20 = simulate_history(LOSING, bounds="t", horizon=20, histories=HISTORIES, seed=3, steps=False)
    assert t20.base_pass >= 0.9 and t20.drift_by[8] >= 0.8 - _mc(0.8), t20
    auto = simulate_history(LOSING, histories=HISTORIES, seed=1, steps=False)   # steps: not asserted here
    # issue 40's targets with the defaults of `check --history` (the history's pooled shape, gating/pooled_shape.py)
    assert auto.base_pass >= 0.90 and auto.drift_by[8] >= 0.80, auto
    assert auto.any_drift == 1.0 and auto.first_drift_median <= 9
    one = simulate_history(LOSING, histories=HISTORIES, seed=1, pool=False, steps=False)
    # the one-sample default gate at every commit (skew-checked at 10 seeds): what docs/calibration.md states
    assert 0.70 <= one.base_pass <= 0.80 and 0.55 <= one.drift_by[8] <= 0.70, one


@pytest.mark.slow
def test_right_skewed_differences_at_the_margin_no_longer_alarm_beyond_alpha():
    """The one-sample default alarmed in 0.368 of these histories (docs/calibration.md); the pooled shape
    refuses the FAILs that right skew argues against."""
    r = simulate_history([-0.05] * 30, histories=HISTORIES, seed=12, shape="lognormal", steps=False)
    assert r.any_drift <= 0.05 + _mc(0.05), r


@pytest.mark.slow
def test_one_step_of_a_hundredth_is_found_where_it_happened():
    r = simulate_history([0.0] * 14 + [-0.01] * 16, histories=HISTORIES, seed=13, expected_step=15)
    assert r.any_drift == 0.0 and r.step_at >= 0.5, r     # measured in docs/calibration.md at 2,000 histories


def test_skipping_the_step_search_changes_no_gate_figure():
    """`steps=False` (history_simulation.py --no-steps) leaves the gates' figures as they are, steps NaN."""
    full = simulate_history(LOSING[:12], histories=3, seed=4)
    quick = simulate_history(LOSING[:12], histories=3, seed=4, steps=False)
    assert (quick.base_pass, quick.drift_by, quick.any_drift, quick.first_drift_median) == \
        (full.base_pass, full.drift_by, full.any_drift, full.first_drift_median)
    assert math.isnan(quick.any_step) and math.isnan(quick.any_alarm)
