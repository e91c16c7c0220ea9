"""The budget governor (issue 32): stages, projection, records, readers and reports."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from arms.governed import VerifiedGreedy
from baselines import read_records
from baselines.core.budget import Budget
from baselines.core.errors import InputError
from baselines.cli import main
from baselines.analysis.compare.comparing import compare
from baselines.core.governor import governor_fields
from baselines.core.meter import BudgetExhausted, Meter
from baselines.core.records import write_records
from baselines.running.runner import execute_record
from baselines.running.suite import load_suite
from baselines.analysis.tables.table import RunTable
from baselines.analysis.tables.table_arrow import arrow_chunk
from baselines.analysis.tables.table_lines import line_ends
from reports.markdown import comparison_markdown
from reports.latex import group_latex
from reports.tables import to_csv
from workloads.search_sim import SearchSim
from tests.sizes import examples


# -- stages fire at their floors, in whichever budgeted unit gets there ------------------------------
def _spend(meter: Meter, unit: str, amount: int) -> None:
    if unit == "calls":
        for _ in range(amount):
            meter.call()
    elif unit == "tokens":
        meter.call(prompt_tokens=amount, completion_tokens=0)
    else:
        meter.charge(unit, amount)


@pytest.mark.parametrize("unit", ["calls", "tokens", "rollouts", "widgets"])
def test_stages_fire_at_their_floors_in_every_budgeted_unit(unit):
    other = "widgets" if unit != "widgets" else "rollouts"
    meter = Meter(Budget({unit: 1000 if unit != "calls" else 100, other: 10**9}), measures=("calls", "seconds",
                                                                                              "rollouts", "widgets"))
    limit = meter.budget[unit]
    gov = meter.governor(soft=0.75, hard=0.90, stages={"explore": 0.5})
    _spend(meter, unit, int(limit * 0.5) - 1)
    assert gov.allow("explore") and gov.allow("rank") and gov.allow("verify")
    _spend(meter, unit, 1)
    assert not gov.allow("explore") and gov.allow("rank")
    _spend(meter, unit, int(limit * 0.75) - int(limit * 0.5) - 1)
    assert gov.allow("rank")
    _spend(meter, unit, 1)
    assert not gov.allow("rank") and gov.allow("verify")
    _spend(meter, unit, int(limit * 0.9) - int(limit * 0.75))
    assert not gov.allow("verify")
    assert [(f.stage, f.floor, f.fraction, f.unit) for f in gov.fired] == [
        ("explore", 0.5, 0.5, unit), ("rank", 0.75, 0.75, unit), ("verify", 0.9, 0.9, unit)]
    assert gov.fired[1].spend[unit] == limit * 0.75


def test_seconds_count_as_a_budgeted_unit_too():
    now = [0.0]
    meter = Meter(Budget(seconds=100, rollouts=10**6), clock=lambda: now[0])
    gov = meter.governor()
    now[0] = 74.9
    assert gov.allow("rank")
    now[0] = 75.0
    assert not gov.allow("rank") and gov.fired[0].unit == "seconds"


def test_a_refused_stage_stays_refused_and_an_undeclared_one_is_an_error():
    meter = Meter(Budget(rollouts=100))
    gov = meter.governor()
    meter.rollouts(80)
    assert not gov.allow("rank")
    assert not gov.allow("rank") and len(gov.fired) == 1
    with pytest.raises(ValueError, match="unknown governor stage 'verfy'"):
        gov.allow("verfy")
    gov.declare("late", 0.99)
    assert gov.allow("late")
    with pytest.raises(ValueError, match="floor in \\(0, 1\\]"):
        Meter(Budget(rollouts=100)).governor(soft=1.5)


def test_one_governor_per_meter():
    meter = Meter(Budget(rollouts=10))
    assert meter.governor() is meter.governor(0.75, 0.90)
    with pytest.raises(ValueError, match="other settings"):
        meter.governor(soft=0.5)


# -- the projection never starts a round it cannot finish -------------------------------------------
UNITS = ("rollouts", "widgets", "calls")


def _round(meter: Meter, cost: dict[str, int]) -> None:
    """One round's spend, charged in two pieces per unit (a round is several charges)."""
    for unit, amount in cost.items():
        first = amount // 2
        for piece in (first, amount - first):
            if piece:
                _spend(meter, unit, piece)


@st.composite
def _schedules(draw):
    units = draw(st.lists(st.sampled_from(UNITS), min_size=1, max_size=3, unique=True))
    first = {u: draw(st.integers(1, 40)) for u in units}
    later = draw(st.lists(st.tuples(*[st.floats(0, 1) for _ in units]), min_size=0, max_size=60))
    rounds = [first] + [{u: int(f * first[u]) for u, f in zip(units, fs)} for fs in later]
    limits = {u: first[u] + 1 + draw(st.integers(0, 400)) for u in units}
    return limits, rounds


@settings(deadline=None, max_examples=examples(150))
@given(_schedules(), st.sampled_from(["max", "mean"]))
def test_the_projection_never_starts_a_round_it_cannot_finish(schedule, estimate):
    """Rounds cost at most the costliest round seen (the first); 'mean' is tested on constant rounds."""
    limits, rounds = schedule
    if estimate == "mean":
        rounds = [rounds[0]] * len(rounds)
    meter = Meter(Budget(limits), measures=("calls", "seconds") + UNITS)
    gov = meter.governor(estimate=estimate)
    started = 0
    for cost in rounds:
        if not gov.fits():
            break
        started += 1
        try:
            _round(meter, cost)
        except BudgetExhausted:
            pytest.fail(f"round {started} was started and cut by the budget")
        gov.round_done()
    else:
        return  # the schedule ended first
    # it stopped only because the costliest round so far would not fit in some unit
    projected = gov.projected()
    assert gov.ended and any(meter.spent(u) + projected[u] >= limits[u] for u in limits)


def test_next_round_overrides_the_projection():
    meter = Meter(Budget(rollouts=10))
    gov = meter.governor()
    assert gov.fits()  # nothing to project from before the first round
    meter.rollouts(3)
    gov.round_done()
    assert gov.fits() and gov.fits({"rollouts": 6}) and not gov.fits({"rollouts": 7})


# -- no budget, no change -------------------------------------------------------------------------
def _run(arm, budget):
    sim = SearchSim()
    instance, meter = sim.instance(3), Meter(budget, measures=sim.measures, clock=lambda: 0.0)
    stop = "done"
    try:
        arm.run(instance, meter, np.random.default_rng(0))
    except BudgetExhausted as exc:
        stop = f"budget:{exc.unit}"
    return meter, stop


def test_without_a_budget_a_governed_arm_is_the_ungoverned_arm():
    governed, stop = _run(VerifiedGreedy(governed=True, patience=8), None)
    plain, _ = _run(VerifiedGreedy(governed=False, patience=8), None)
    gov = governed._governor
    assert not gov.active and gov.allow("verify") and gov.fits() and gov.fired == []
    assert governor_fields(governed, stop) == {}
    assert governed.spend() == plain.spend() and governed.trace == plain.trace
    assert governed.choice == plain.choice and len(governed.trace) > 8


def test_an_ungoverned_arm_writes_no_governor_fields():
    meter, stop = _run(VerifiedGreedy(), Budget(tokens=300_000))
    assert stop == "budget:tokens" and governor_fields(meter, stop) == {}


# -- records: the three stop kinds, and both readers --------------------------------------------------
SUITE = """
seeds = 3
jobs = 1

[arms.overrun]
path = "tests.governed_arms:Overrun"

[arms.projected]
path = "tests.governed_arms:Rounds"

[arms.converged]
path = "tests.governed_arms:Rounds"
params = {{ stop_after = 2 }}

[arms.plain]
path = "tests.helpers:Guess"

[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {{ rollouts = {rollouts} }}
arms = ["overrun", "projected", "converged", "plain"]
"""


@pytest.fixture(scope="module")
def governed_records(tmp_path_factory):
    path = tmp_path_factory.mktemp("gov") / "suite.toml"
    path.write_text(SUITE.format(rollouts=40))
    return [execute_record(cell) for cell in load_suite(path).cells()]


def test_records_tell_budget_from_projection_from_converged(governed_records):
    by_arm = {}
    for r in governed_records:
        by_arm.setdefault(r.arm, []).append(r)
    assert {r.extra["stop_kind"] for r in by_arm["overrun"]} == {"budget"}
    assert {r.stop_reason for r in by_arm["overrun"]} == {"budget:rollouts"}
    assert {r.extra["stop_kind"] for r in by_arm["projected"]} == {"projected"}
    assert {r.extra["stop_kind"] for r in by_arm["converged"]} == {"converged"}
    assert all("stop_kind" not in r.extra and "degraded" not in r.extra for r in by_arm["plain"])
    run = by_arm["projected"][0]
    # rounds of 2 + 1 (verify) rollouts; round 13 asks at 38 of 40 (95% >= 90%) and is refused; a round of
    # 3 (the costliest so far) no longer fits: 13 rounds, 38 rollouts, ended by projection
    assert run.extra["degraded"] == [{"stage": "verify", "floor": 0.9, "fraction": 0.95, "unit": "rollouts",
                                      "spend": {"rollouts": 38}}]
    assert run.spend["rollouts"] == 38 and run.extra["governor"]["rounds"] == 13
    assert by_arm["overrun"][0].extra["degraded"][0]["stage"] == "verify"
    assert by_arm["converged"][0].extra["degraded"] == []


def _columns(table: RunTable) -> list:
    frame = table.frame.assign(arm=table.frame["arm"].astype(str)).sort_values(["arm", "seed"])
    return [frame[c].tolist() if c in frame.columns else [None] * len(frame) for c in ("stop_kind", "degraded")]


def test_the_new_fields_round_trip_through_both_readers(governed_records, tmp_path):
    path = tmp_path / "results.jsonl"
    write_records(path, governed_records)
    back = read_records(path)
    assert [r.to_json() for r in back] == [r.to_json() for r in governed_records]
    data = path.read_bytes()
    assert arrow_chunk(data, line_ends(data)) is not None  # the bulk path takes this file
    bulk, lines = RunTable.read(path), RunTable.from_records(back)
    assert _columns(bulk) == _columns(lines)
    kinds, degraded = _columns(bulk)
    assert set(kinds) == {"budget", "projected", "converged", None}
    assert {d for d in degraded if d} == {'{"verify":0.825}', '{"verify":0.95}'}


@pytest.mark.parametrize("bad", [{"stop_kind": 5, "degraded": "verify"},
                                 {"stop_kind": None, "degraded": [{"stage": 1, "fraction": 0.5}, 3]},
                                 {"degraded": [{"stage": "rank"}, {"stage": "verify", "fraction": 0.9}]}])
def test_malformed_governor_fields_are_ignored_alike_by_both_readers(bad, tmp_path):
    path = tmp_path / "odd.jsonl"
    lines = [{"workload": "w", "arm": "a", "seed": s, "spend": {"rollouts": 1}, "reward": 0.5, **bad}
             for s in range(3)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    bulk, slow = RunTable.read(path), RunTable.from_records(read_records(path))
    assert _columns(bulk) == _columns(slow)
    expected = '{"verify":0.9}' if "stop_kind" not in bad else None
    assert _columns(bulk)[1] == [expected] * 3


# -- reports name the degradation ---------------------------------------------------------------------
def test_compare_lists_the_degraded_arm_beside_the_confounds(governed_records, tmp_path, capsys):
    comparison = compare(governed_records)
    group = comparison.groups[0]
    named = {d.arm: d for d in group.degraded}
    assert set(named) == {"overrun", "projected"}  # converged never reached a floor; plain has no governor
    assert named["projected"].last_share == pytest.approx(0.05) and named["projected"].stops == {"projected": 3}
    # overrun: rounds of 1 + 1 rollouts, asks at 33 of 40 (82.5% >= its hard floor 80%)
    assert named["overrun"].stages == {"verify": 0.825} and named["overrun"].stops == {"budget": 3}
    text = comparison_markdown(comparison)
    assert ("- **degraded**: **projected** degraded in the last 5% of its budget in 3 of 3 runs (median): "
            "dropped verify from 95%") in text
    assert "ended: 3 cleanly by projection" in text and "not like for like" in text
    latex = group_latex(comparison.analysis().of(group), comparison, "tab:toy")
    assert "Degraded: overrun degraded in the last 18\\% of its budget in 3 of 3 runs" in latex
    table = {r["arm"]: r for r in csv.DictReader(io.StringIO(to_csv(comparison)))}
    assert table["overrun"]["degraded"].startswith("overrun degraded in the last 18% of its budget in 3 of 3 runs")
    assert table["plain"]["degraded"] == "" and table["converged"]["degraded"] == ""
    path = tmp_path / "results.jsonl"
    write_records(path, governed_records)
    capsys.readouterr()
    main(["compare", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    listed = {d["arm"]: d for d in out["groups"][0]["degraded"]}
    assert listed["projected"]["last_share"] == pytest.approx(0.05)
    assert listed["projected"]["stages"] == {"verify": 0.95} and listed["projected"]["runs"] == 3


def test_compare_without_governed_runs_lists_nothing():
    with pytest.raises(InputError, match="no runs to compare"):  # no records is an input error (issue 31)
        compare([])
    from tests.builders import make_arms
    comparison = compare(make_arms({"a": {"rollouts": 10}, "b": {"rollouts": 10}}))
    assert all(g.degraded == [] for g in comparison.groups)
    assert "degraded" not in comparison_markdown(comparison)
    assert "degraded" not in to_csv(comparison)  # the column only where some arm dropped stages
