"""What a governed run's record says (core/governor.py): the three fields, exactly as docs/governor.md shows.

`governor` holds `stages`, `rounds`, `round_spend` (whole numbers as integers, others to 6 decimals) and
`estimate`; each `degraded` entry's fraction is rounded to 6 decimals. Values worked out by hand.
"""
from __future__ import annotations

from baselines.core.budget import Budget
from baselines.core.governor import governor_fields
from baselines.core.meter import Meter


def test_the_record_fields_of_a_run_with_fractional_round_spend():
    meter = Meter(Budget(rollouts=3, credits=1.0), measures=("calls", "seconds", "rollouts", "credits"))
    gov = meter.governor(soft=0.3, hard=0.9, estimate="mean")
    meter.rollouts(1)
    meter.charge("credits", 0.125)
    assert not gov.allow("rank")                       # 1 of 3 rollouts: 1/3 >= 0.3
    gov.round_done()
    meter.charge("credits", 0.25)
    gov.round_done()                                   # rounds: rollouts 1, 0; credits 0.125, 0.25
    assert governor_fields(meter, "done") == {
        "stop_kind": "converged",
        "degraded": [{"stage": "rank", "floor": 0.3, "fraction": 0.333333, "unit": "rollouts",
                      "spend": {"rollouts": 1, "credits": 0.125}}],
        "governor": {"stages": {"rank": 0.3, "verify": 0.9}, "rounds": 2,
                     "round_spend": {"rollouts": 0.5, "credits": 0.1875}, "estimate": "mean"},
    }


def test_round_spend_is_rounded_to_six_decimals():
    meter = Meter(Budget(rollouts=30, credits=10.0), measures=("calls", "seconds", "rollouts", "credits"))
    gov = meter.governor(estimate="mean")
    for cost in (1, 1, 0):
        meter.rollouts(cost)
        gov.round_done()
    meter.charge("credits", 2.5)   # after the last barrier: not in any round
    fields = governor_fields(meter, "budget:credits")
    assert fields["stop_kind"] == "budget"
    assert fields["governor"]["round_spend"] == {"rollouts": 0.666667, "credits": 0}
    assert type(fields["governor"]["round_spend"]["credits"]) is int
