"""The calibration table's claims, by seeded simulation (benchmarks/calibration.py generators).

The default run checks a few cheap cells (the ones the old t rules failed);
`pytest -m slow` runs the whole grid of docs/calibration.md at 2,000
simulations per cell and asserts every "done when" of issue 17:
false alarms and gate PASS at the margin within alpha + Monte Carlo error
(the unbounded rare-loss row is measured, not asserted: no test on n seeds
sees a loss rarer than about 1/n), coverage >= 0.93 for 0/1 and >= 0.90 for
skewed data at n >= 5.
"""
from __future__ import annotations

import math

import pytest

from benchmarks import calibration as cal

ALPHA = 0.05


def _within_alpha(rate: float, sims: int) -> bool:
    return rate <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / sims)


def _shape(name: str) -> cal.Shape:
    return next(s for s in cal.SHAPES if s.name.startswith(name))


@pytest.mark.parametrize("name, n", [("0/1, shared", 5), ("0/1, independent (.9", 10),
                                     ("accuracy", 5), ("normal", 10), ("lognormal", 10)])
def test_gate_pass_at_the_margin_is_at_most_alpha(name, n):
    sims = 300
    rate, _ = cal.gate_rate(_shape(name), n, -_shape(name).margin, "PASS", sims, seed=n)
    assert _within_alpha(rate, sims)


def test_sequential_gate_on_pass_fail_rewards_holds_alpha():
    sims = 200   # the t route with looks gave .807 here
    rate, _ = cal.gate_rate(_shape("0/1, shared"), None, -0.1, "PASS", sims, seed=3)
    assert _within_alpha(rate, sims)


def test_old_t_route_fails_where_the_new_one_holds():
    """The comparison the table is for: on independent 0/1 rewards at n = 10 the t bounds PASS too often."""
    sims = 600
    shape = _shape("0/1, independent (.9")
    t_rate, _ = cal.gate_rate(shape, 10, -shape.margin, "PASS", sims, seed=21, route="t")
    new_rate, _ = cal.gate_rate(shape, 10, -shape.margin, "PASS", sims, seed=21)
    assert new_rate < t_rate and _within_alpha(new_rate, sims)


def test_binary_family_wise_false_alarms_at_n3():
    rate, _ = cal.family_false_alarms(_shape("0/1, independent (.5"), 3, 150, seed=1)
    assert rate == 0.0


@pytest.mark.slow
@pytest.mark.timeout(2400)   # 2,000 sims per cell: cut at the default 300 s in a slow run at load ~9
def test_full_calibration_grid():
    sims = 2000
    results = cal.run(sims, jobs=2)
    problems = []
    for metric, shape, col, (rate, _) in results:
        n = None if col.startswith("looks") else int(col[2:])
        rare_unbounded = shape.startswith("rare large loss")
        if metric in ("false alarms", "family-wise false alarms (5 arms, Holm)") or \
                metric == "gate PASS at the margin":
            if rare_unbounded and metric == "gate PASS at the margin":
                continue   # measured and explained in docs/gate.md, not a claim
            if not _within_alpha(rate, sims):
                problems.append((metric, shape, col, rate))
        if metric == "coverage of the 95% interval" and n is not None and n >= 5:
            need = 0.93 if shape.startswith(("0/1", "accuracy")) else 0.90 if shape.startswith("lognormal") else None
            if need is not None and rate < need - 2 * math.sqrt(need * (1 - need) / sims):
                problems.append((metric, shape, col, rate))
    assert not problems
