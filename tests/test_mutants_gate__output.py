"""What a gate result says, per rule (issue 44, `gating/gate.py` mutation survivors, share a).

The confound lines a gate prints (candidate against baseline, in the workload's words, "≥" on a lower bound,
the fallback line when either median is missing), the item-paired route (which claim it made, which per-seed
notes it replaces, its seeds-needed figure, crashed and unpaired items), the typical-seed claim dropping the
mean route's item fields and notes, the claims' JSON, the per-seed route's arms, history shape, planned looks
and spent alpha, and the reason's wording for one-sided and missing bounds. Small record sets through
`run_gate`, or a hand-built group through `gate_group`.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from baselines import RunRecord
from baselines.analysis.compare.compare_options import CompareOptions
from baselines.analysis.compare.comparison import ArmSummary, Flag, Group, UnitSpend
from baselines.analysis.gating.gate import gate_group, run_gate
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, gate_decision
from baselines.analysis.gating.pooled_shape import Shape
from baselines.analysis.statistics.clustered import pair_items, twoway_seeds_to_decide
from baselines.core.records import budget_key


def records(base, cand, extra=None, workload="w"):
    """Paired runs of `base` and `cand` on seeds 0..; a None reward is a run that crashed."""
    def one(arm, s, v):
        return RunRecord(workload, arm, s, {"tokens": 1}, None if v is None else float(v), budget={"tokens": 1},
                         error=None if v is not None else {"type": "E", "message": "x"}, extra=dict(extra or {}))
    return [one("base", s, v) for s, v in enumerate(base)] + [one("cand", s, v) for s, v in enumerate(cand)]


def gate(recs, margin, **kw):
    [res], _ = run_gate(recs, "tokens", "base", "cand", margin, **kw)
    return res


# -- confound lines: the candidate against the baseline, both named -------------------------------------------

def _arm(name, **spend):
    """An arm's summary whose spend medians are `spend` (None: the unit reported by no run)."""
    units = {u: UnitSpend(m, "unreported" if m is None else "measured", 0 if m is None else 10)
             for u, m in spend.items()}
    return ArmSummary(name, 10, 10, 0, 0.5, (0.4, 0.6), 0.1, 0.5, 0.9, math.nan, units)


def _flag(arm, unit, spend, reference, lower_bound=False):
    return Flag(arm, unit, spend, reference, "over" if spend > reference else "under", "median of arms",
                lower_bound=lower_bound)


REWARDS = {"base": {s: 0.5 + 0.01 * s for s in range(10)},
           "cand": {s: 0.55 + 0.01 * s + 0.001 * (s % 3) for s in range(10)}}


def test_confound_lines_set_the_candidate_against_the_baseline_in_the_workloads_words():
    """Rule (`_confound_lines`): one line per diverging unit, in flag order: the candidate's median spend against
    the baseline's, the unit in the workload's own words, "≥" before a median that is a lower bound (partial
    reporting) and nothing before one that is not, the ratio to the baseline, "the baseline spent none" at a
    baseline median of 0; when either arm has no median for the unit, each flagged arm's own line against the
    two arms' median instead, and the next units still get their lines. A third arm's flags are not the gate's."""
    arms = [_arm("base", tokens=1, tool_calls=10, energy=2, gpu_hours=0, joules=7, prompt_tokens=1200),
            _arm("cand", tokens=1, tool_calls=40, energy=None, gpu_hours=3, watts=9, prompt_tokens=3000),
            _arm("other", tokens=1, tool_calls=99)]
    flags = [_flag("cand", "tool_calls", 40, 25, lower_bound=True),   # candidate only, and a lower bound
             _flag("cand", "energy", 5000, 2, lower_bound=True),      # the candidate's median unknown
             _flag("base", "gpu_hours", 0, 1.5),                      # the baseline only, and it spent none
             _flag("other", "tool_calls", 99, 25),                    # another arm: not in the gate's lines
             _flag("cand", "watts", 9, 4),                            # the baseline never reported the unit
             _flag("base", "joules", 7, 3),                           # the candidate never reported it
             _flag("cand", "prompt_tokens", 3000, 2000),              # both arms, the baseline's a lower bound
             _flag("base", "prompt_tokens", 1200, 2000, lower_bound=True)]
    group = Group("w", {"tokens": 1}, arms, ["tokens", "tool_calls", "energy", "gpu_hours", "watts", "joules",
                                             "prompt_tokens"],
                  confounded=flags, unit_nouns={"tool_calls": "tool calls"})
    res = gate_group(group, "base", "cand", 0.02, 0.05, False, REWARDS)
    assert res.verdict == PASS
    assert res.confounds == [
        "tool calls: cand ≥40 vs base 10 (4× the baseline's; medians over seeds)",
        "cand: energy ≥5,000 vs the two arms' median 2",
        "gpu_hours: cand 3 vs base 0 (the baseline spent none; medians over seeds)",
        "cand: watts 9 vs the two arms' median 4",
        "base: joules 7 vs the two arms' median 3",
        "prompt tokens: cand 3,000 vs base ≥1,200 (2.5× the baseline's; medians over seeds)"]
    assert res.to_json()["confounds"] == res.confounds


def test_a_group_without_the_baselines_runs_is_broken_with_its_confounds_said():
    """Rule (`gate_group` on any group, `_confound_lines`): an arm with no runs in the group has no spend there,
    so its flagged units fall back to the two arms' median, and the verdict is the broken comparison naming the
    arm without scored runs (not an error)."""
    group = Group("w", {"tokens": 1}, [_arm("cand", tokens=1, tool_calls=40)], ["tokens", "tool_calls"],
                  confounded=[_flag("cand", "tool_calls", 40, 25)])
    res = gate_group(group, "base", "cand", 0.02, 0.05, False, {"cand": REWARDS["cand"]})
    assert (res.verdict, res.reason) == (FAIL, "broken comparison: arm 'base' has no scored runs in this group")
    assert res.confounds == ["cand: tool_calls 40 vs the two arms' median 25"]


# -- the item-paired route: its claim, the notes it replaces, its seeds-needed figure -------------------------

BASE_ITEMS = np.round(np.random.default_rng(1).uniform(0.2, 0.8, (8, 5)), 2)
ITEM_OFFSETS = np.array([0.02, -0.02, 0.01, -0.01, 0.0])                  # sum to 0: a seed's mean moves by its shift
SHIFTS = 0.1 + np.array([-0.01, 0.01, -0.005, 0.005, 0.0, -0.002, 0.002, 0.0])   # symmetric about +0.1


def item_runs(base_rows, cand_rows, reward_range=None, ids=None, no_items=(), rewards=None):
    """Runs on seeds 0.. carrying items (question ids q0.. unless `ids`); a run's reward is its items' mean unless
    `rewards` ({arm: [per seed]}); an item reward None is an unscored item; `no_items`: arms without items."""
    out = []
    for arm, rows in (("base", base_rows), ("cand", cand_rows)):
        for s, row in enumerate(rows):
            names = ids[arm][s] if ids else [f"q{i}" for i in range(len(row))]
            items = None if arm in no_items else [{"id": k, "reward": v} for k, v in zip(names, row)]
            reward = rewards[arm][s] if rewards else float(np.mean([v for v in row if v is not None]))
            out.append(RunRecord("w", arm, s, {"tokens": 1}, reward, budget={"tokens": 1},
                                 extra={"reward_range": list(reward_range)} if reward_range else {}, items=items))
    return out


def shifted(shifts=SHIFTS):
    return (BASE_ITEMS.tolist(), (BASE_ITEMS + shifts[:, None] + ITEM_OFFSETS).tolist())


ROUTE_POPULATION = ("paired by item: 40 question(s) over 8 seed(s), two-way seed x question clustered, about the "
                    "question population (5 questions)")


def test_an_item_paired_pass_says_its_claim_and_drops_the_per_seed_routes_rare_loss_note():
    """Rules (`_item_verdict`): the item route decides when both arms carry items on every shared seed; its
    result says which questions route it took (`question_route`, the history records it: "population" for ids
    that recur, "these" on request, "fresh" for new ids on every seed), what the claim is about, and replaces the
    per-seed route's "a loss that hits fewer than about 1 in n seeds" note (about per-seed rewards it no longer
    rests on) by its own route note; a PASS or FAIL needs no seeds (seeds_needed null, in the claims too)."""
    base, cand = shifted()
    per_seed = gate(item_runs(base, cand, no_items=("base", "cand")), 0.02)
    assert per_seed.verdict == PASS and any("a loss that hits fewer than" in n for n in per_seed.notes)
    res = gate(item_runs(base, cand), 0.02)
    assert (res.verdict, res.method, res.items, res.n) == (PASS, "two-way seed x question clustered t on paired "
                                                           "item differences", 40, 8)
    assert (res.questions, res.question_count, res.question_route) == ("population", 5, "population")
    assert res.about == "about the question population (5 questions)"
    assert res.notes == [ROUTE_POPULATION, "worst seed's loss 0"]
    assert res.seeds_needed is None
    js = res.to_json()
    assert (js["seeds_needed"], js["claims"][0]["seeds_needed"], js["claims"][0]["about"]) == (None, None, res.about)
    these = gate(item_runs(base, cand), 0.02, options=CompareOptions(questions="these"))
    assert (these.verdict, these.questions, these.question_route) == (PASS, "these", "these")
    assert these.notes == ["paired by item: 40 question(s) over 8 seed(s), seed-clustered, about these 5 questions",
                           "worst seed's loss 0"]
    fresh_ids = {arm: [[f"s{s}-q{i}" for i in range(5)] for s in range(8)] for arm in ("base", "cand")}
    fresh = gate(item_runs(base, cand, ids=fresh_ids), 0.02)
    assert (fresh.verdict, fresh.questions, fresh.question_route) == (PASS, "population", "fresh")


def test_an_item_paired_verdict_drops_the_per_seed_equal_differences_note_and_keeps_the_others():
    """Rule (`_item_verdict`): per-seed differences that are all equal say "a zero-width interval is not
    evidence"; the item route's spread replaces that note, while every note not about the per-seed bounds (a
    baseline seed left out) stays."""
    base, cand = shifted()
    rewards = {"base": [0.5] * 8, "cand": [0.6] * 8}         # every per-seed difference equal
    recs = item_runs(base, cand, rewards=rewards)
    assert any("differences are equal" in n for n in gate(item_runs(base, cand, rewards=rewards,
                                                                   no_items=("base", "cand")), 0.02).notes)
    res = gate(recs, 0.02)
    assert res.verdict == PASS and res.notes == [ROUTE_POPULATION, "worst seed's loss 0"]
    crashed = [r for r in recs if not (r.arm == "base" and r.seed == 7)]
    crashed.append(RunRecord("w", "base", 7, {"tokens": 1}, None, budget={"tokens": 1},
                             error={"type": "E", "message": "x"}))
    res = gate(crashed, 0.02)
    assert res.verdict == PASS and res.n == 7
    assert res.notes == ["baseline unscored on seed(s) 7 (left out)",
                         "paired by item: 35 question(s) over 7 seed(s), two-way seed x question clustered, about "
                         "the question population (5 questions)", "worst seed's loss 0"]


def test_items_on_one_arm_only_leave_the_verdict_per_seed():
    """Rule (`_item_verdict`): pairing by question needs both arms' items on every shared seed; with the
    candidate's alone the per-seed verdict stands (items null)."""
    base, cand = shifted()
    res = gate(item_runs(base, cand, no_items=("base",)), 0.02)
    assert res.items is None and res.question_route is None and res.method == "t + bootstrap-t, skew-checked"
    assert res.verdict == PASS


def test_items_without_spread_are_said_and_the_verdict_stays_per_seed():
    """Rule (`_item_verdict`): items whose differences have no spread give no item bounds; the note says so
    ("items present but without spread over 2 or more seeds: decided per seed") and the per-seed verdict stands."""
    base, _ = shifted()
    cand = (BASE_ITEMS + 0.1).tolist()                      # every item 0.1 better: no spread anywhere
    res = gate(item_runs(base, cand, rewards={"base": [0.5] * 8, "cand": [0.6] * 8}), 0.02)
    assert res.items is None and res.method == "t (degenerate)" and res.verdict == INCONCLUSIVE
    assert "items present but without spread over 2 or more seeds: decided per seed" in res.notes
    assert "; items present but without spread over 2 or more seeds: decided per seed;" in res.reason


def test_unscored_and_unpaired_items_are_counted_and_named():
    """Rules (`_item_verdict`, CRASH_RULE per item): with a reward range, a candidate item without a score counts
    as a loss at the range's floor; an item answered by one arm only is left out; the route note is followed by
    every one of pairing's notes (both of them here)."""
    base, cand = shifted()
    cand[2][1] = None                                        # seed 2, question q1: the candidate's item unscored
    ids = {"base": [[f"q{i}" for i in range(5)]] * 8, "cand": [[f"q{i}" for i in range(5)]] * 8}
    base[4] = base[4] + [0.5]                                # seed 4: an extra question the candidate never saw
    ids["base"] = [list(x) for x in ids["base"]]
    ids["base"][4].append("extra")
    res = gate(item_runs(base, cand, reward_range=(0, 1), ids=ids), 0.02)
    diffs = [c - b for s in range(8) for c, b in zip(cand[s], base[s]) if c is not None]
    diffs.append(0.0 - base[2][1])                           # the unscored item at the floor 0
    assert res.items == 40 and res.diff == pytest.approx(np.mean(diffs))
    assert res.notes[-3:] == ["1 item(s) answered by one arm only were left out",
                              "1 unscored candidate item(s) counted as a loss at the range floor",
                              "worst seed's loss 0"]


def test_an_undecided_population_claim_says_the_seeds_its_own_route_would_need():
    """Rule (`_item_verdict`, issue 37): an INCONCLUSIVE two-way verdict prints the seed count at which the two-way
    bounds would likely decide (`twoway_seeds_to_decide` on the pairing), not a per-seed figure."""
    noise = np.round(np.random.default_rng(2).normal(0, 0.01, (8, 5)), 3)
    shifts = np.array([-0.03, 0.03, -0.015, 0.015, 0.0, -0.006, 0.006, 0.0]) - 0.01
    base, cand = BASE_ITEMS.tolist(), (BASE_ITEMS + shifts[:, None] + noise).tolist()
    recs = item_runs(base, cand)
    res = gate(recs, 0.02)
    items = {arm: {r.seed: r.items for r in recs if r.arm == arm} for arm in ("base", "cand")}
    pairing = pair_items(items["cand"], items["base"], range(8), 1.0, None)
    want = twoway_seeds_to_decide(pairing.clusters, pairing.ids, 0.02, 0.05)
    assert (res.verdict, res.method) == (INCONCLUSIVE, "two-way seed x question clustered t on paired item "
                                                       "differences")
    assert want == 18 and res.seeds_needed == want
    assert "; about 18 paired seeds would likely decide" in res.reason
    assert not any("more seeds alone" in n or "no number of seeds" in n for n in res.notes)


# -- the typical-seed claim: its own verdict, without the mean route's item fields and notes ------------------

def test_the_typical_claim_on_items_drops_the_item_routes_fields():
    """Rule (`_claims_verdict`, issue 37): the typical-seed claim is decided per seed, so its result carries no item
    claim: items, questions, question count, question route null and `about` empty, in the JSON too."""
    base, cand = shifted()
    res = gate(item_runs(base, cand), 0.02, claim="typical")
    assert (res.verdict, res.claim, res.n) == (PASS, "typical", 8)
    assert (res.items, res.questions, res.question_count, res.question_route, res.about) == (None, None, None,
                                                                                            None, "")
    js = res.to_json()
    assert (js["items"], js["questions"], js["question_count"], js["about"]) == (None, None, None, "")
    assert [c["claim"] for c in js["claims"]] == ["typical"]


def test_the_typical_claim_drops_the_mean_routes_equal_differences_note_and_keeps_the_others():
    """Rule (`_claims_verdict`): the mean route's notes about its own bounds ("all n differences are equal") are
    not the typical claim's; notes about the data (a baseline seed left out) stay."""
    base = [0.5] * 10
    cand = [0.6] * 10                                       # every difference equal
    assert any("differences are equal" in n for n in gate(records(base, cand), 0.02).notes)
    res = gate(records(base, cand), 0.02, claim="typical")
    assert res.verdict == PASS
    assert res.notes == ["typical seed: 10 of 10 seeds lose less than the margin, 0 lose more", "worst seed's loss 0"]
    res = gate(records([None] + base[1:], cand), 0.02, claim="typical")
    assert res.notes == ["baseline unscored on seed(s) 0 (left out)",
                         "typical seed: 9 of 9 seeds lose less than the margin, 0 lose more", "worst seed's loss 0"]


BASE10 = [0.5, 0.6, 0.55, 0.45, 0.5, 0.52, 0.48, 0.5, 0.51, 0.49]


def test_an_undecided_mean_beside_a_decided_typical_seed_is_said_and_its_open_bound_is_null():
    """Rules (`_claims_verdict`, `_claim_json`, `_gate_reason`): with both claims, a typical-seed PASS beside an
    INCONCLUSIVE mean decides nothing and the note says both must agree; a claim's infinite bound is null in the
    JSON (valid JSON, no -Infinity); the reason prints a one-sided bound pair as it is, with the open side."""
    cand = [x + 0.05 for x in BASE10]
    cand[3] = BASE10[3] - 0.5                                # one large loss: the mean's lower bound opens
    res = gate(records(BASE10, cand), 0.02, claim="both")
    assert res.verdict == INCONCLUSIVE
    assert [(c["claim"], c["verdict"]) for c in res.claims] == [("mean", INCONCLUSIVE), ("typical", PASS)]
    assert "mean claim INCONCLUSIVE, typical-seed claim PASS: both must agree to PASS or FAIL" in res.notes
    mean = res.to_json()["claims"][0]
    assert res.lower == -math.inf and math.isfinite(res.upper)
    assert mean["bounds"] == [None, pytest.approx(res.upper)]
    json.dumps(res.to_json(), allow_nan=False)
    assert f"one-sided 95% bounds [-inf, {res.upper:+.4g}] (t + bootstrap-t, skew-checked)" in res.reason


# -- the reason's wording for missing bounds and estimates ----------------------------------------------------

def test_one_seed_per_arm_says_there_are_no_bounds():
    """Rule (`_gate_reason`): with fewer than 2 seeds per arm the reason says "no bounds (fewer than 2 seeds per
    arm)" where the bounds would be."""
    res = gate(records([0.5], [0.7]), 0.1)
    assert res.reason == ("too few seeds to decide either way (1): candidate - baseline = +0.2, no bounds (fewer than "
                          "2 seeds per arm) (Welch t, unpaired), margin 0.1 [unpaired: the arms share only 1 seed]")


def test_no_bounds_with_the_seeds_there_blames_the_route_not_the_seed_count():
    """Rule (`_gate_reason`): "fewer than 2 seeds per arm" is said only when an arm has fewer than 2 seeds; a route
    that gives no bounds on more seeds (the exact sign test below 5 seeds, a population claim on one recurring
    question) says "no bounds" and its note says why. Before, a 4-seed typical claim read "no bounds (fewer than 2
    seeds per arm)"."""
    for n in (2, 4):
        res = gate(records(BASE10[:n], [x + 0.05 for x in BASE10[:n]]), 0.02, claim="typical")
        assert (res.verdict, res.n, res.lower, res.upper) == (INCONCLUSIVE, n, -math.inf, math.inf)
        assert res.reason.startswith(f"too few seeds to decide either way ({n}): median of candidate - baseline "
                                     "(typical seed) = +0.05, no bounds (exact sign test on the median difference "
                                     "(typical seed)), margin 0.02; ")
        assert f"with {n} seeds no exact sign test can reach p<0.05 one-sided (at least 5 are needed)" in res.notes
    res = gate(item_runs([[0.2], [0.4], [0.5], [0.3]], [[0.3], [0.6], [0.55], [0.3]]), 0.02)
    assert (res.verdict, res.n, res.question_count) == (INCONCLUSIVE, 4, 1)
    assert ", no bounds (two-way seed x question clustered t on paired item differences), margin 0.02; " in res.reason
    assert "fewer than 2 seeds" not in res.reason


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_an_infinite_reward_prints_the_estimate_as_n_a():
    """Rule (`_gate_reason`): a mean difference that is not a finite number prints as "n/a", never as inf."""
    res = gate(records([0.5, math.inf, 0.4], [0.6, 0.7, 0.8]), 0.02)
    assert res.verdict == INCONCLUSIVE and res.diff == -math.inf
    assert res.reason.startswith("too few seeds to decide either way (3): candidate - baseline = n/a, ")


# -- the per-seed route: the arms' own skewness, a history's shape, planned looks, the alpha spent ------------

# 10 seeds of lognormal rewards (tests/test_skew_rewards.py): the differences alone PASS margin 0.49, the arms'
# own skewness refuses it
SKEW_BASE = [3.4, 0.74, 0.44, 2.12, 1.29, 2.45, 0.71, 0.23, 0.9, 0.64]
SKEW_CAND = [7.39, 1.53, 0.11, 2.55, 0.8, 0.25, 2.66, 0.64, 1.92, 0.38]
ARM_NOTE = "the bounds say PASS but the arms' own rewards lean against it"


def test_the_unbounded_gate_reads_each_arms_own_skewness():
    """Rule (issue 37 item 4, `gate_bounds.arm_skew_alpha`): the gate hands the arms' rewards, seed for seed, to the
    unbounded decision, so a PASS the arms' own skewness leans against must also hold at a smaller alpha: here it
    does not, and the verdict is INCONCLUSIVE with the arms' note (the differences alone PASS)."""
    d = np.subtract(SKEW_CAND, SKEW_BASE)
    assert gate_decision(d, 0.49).verdict == PASS
    res = gate(records(SKEW_BASE, SKEW_CAND), 0.49)
    assert res.verdict == INCONCLUSIVE and res.notes[-2].startswith(ARM_NOTE)
    assert "right-skewed candidate" in res.notes[-2] and "alpha 0.00625" in res.notes[-2]


def _shapes(shape):
    return {("w", budget_key({"tokens": 1})): shape}


def test_a_historys_shape_pools_the_skewness_and_still_reads_the_arms():
    """Rules (issue 40, `pooled_shape.pooled_decision`): with a history's shape an unbounded group at one look takes
    the pooled-shape route, which keeps the arms' check; a bounded group keeps its distribution-free bounds and
    `--bounds t` its plain t bounds, whatever the history says."""
    shape = Shape(0.0, 3)
    res = gate(records(SKEW_BASE, SKEW_CAND), 0.49, shapes=_shapes(shape))
    assert res.method.startswith("t, shape pooled over the history (4 looks")
    assert res.verdict == INCONCLUSIVE and res.notes[-2].startswith(ARM_NOTE)
    t = gate(records(SKEW_BASE, SKEW_CAND), 0.49, shapes=_shapes(shape), bounds="t")
    assert (t.verdict, t.method) == (PASS, "t + bootstrap-t (skewed differences)")
    scaled = ([x / 10 for x in SKEW_BASE], [x / 10 for x in SKEW_CAND])
    bounded = gate(records(*scaled, extra={"reward_range": [0, 1]}), 0.049, shapes=_shapes(shape))
    assert bounded.method == "betting bound for 10 seeds (distribution-free, rewards in [0, 1])"


LEVEL = [0.6, 0.61, 0.62, 0.63, 0.64, 0.6, 0.61, 0.62, 0.63, 0.64]
UP = [x + 0.05 + 0.001 * (i % 3) for i, x in enumerate(LEVEL)]


def test_the_planned_last_look_tunes_the_anytime_betting_bounds():
    """Rule (`gate_bounds.gate_decision`, `planned_n`): bounded looks taken earlier get the betting confidence
    sequence whose width is tuned for the planned last look; the gate passes `planned_n` through."""
    d = np.subtract(UP, LEVEL)
    recs = records(LEVEL, UP, extra={"reward_range": [0, 1]})
    for planned in (40, 1000):
        res = gate(recs, 0.02, anytime=True, planned_n=planned)
        want = gate_decision(d, 0.02, 0.05, (0.0, 1.0), planned, anytime=True)
        assert (res.lower, res.upper) == pytest.approx((want.lower, want.upper))
    untuned = gate_decision(d, 0.02, 0.05, (0.0, 1.0), None, anytime=True)
    assert gate(recs, 0.02, anytime=True, planned_n=40).lower != pytest.approx(untuned.lower)


def test_an_unbounded_gate_after_earlier_looks_spends_a_share_of_alpha_and_says_its_level():
    """Rule (`gate_bounds.look_alpha`): an unbounded gate whose results were looked at before (`anytime`, one
    earlier look) spends alpha / 2 at this look; the result's alpha and the reason's level are that share."""
    res = gate(records(LEVEL, UP), 0.02, anytime=True)
    assert res.alpha == 0.025 and res.to_json()["alpha"] == 0.025
    assert "one-sided 97.5% bounds [" in res.reason
    assert gate(records(LEVEL, UP), 0.02).alpha == 0.05


def test_a_decided_betting_gate_needs_no_seeds():
    """Rule (`_paired_verdict`): the betting seeds figure is for an INCONCLUSIVE betting verdict only; a PASS or
    FAIL on betting bounds needs none (seeds_needed null)."""
    low = [0.1, 0.11, 0.12, 0.13, 0.14] * 4
    high = [x + 0.3 for x in low]
    passed = gate(records(low, high, extra={"reward_range": [0, 1]}), 0.02)
    failed = gate(records(high, low, extra={"reward_range": [0, 1]}), 0.02)
    for res, verdict in ((passed, PASS), (failed, FAIL)):
        assert res.method == "betting bound for 20 seeds (distribution-free, rewards in [0, 1])"
        assert (res.verdict, res.seeds_needed, res.to_json()["seeds_needed"]) == (verdict, None, None)
