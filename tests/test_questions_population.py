"""Recurring questions are a sample (issue 37 item 2): the two-way bounds, and compare/check choosing the claim.

Claims checked: `twoway_bounds` is the Cameron-Gelbach-Miller (2011) two-way seed x question CR1 variance,
never below the seed-clustered one, with t on min(G_seed, G_question) - 1 df, computed here by hand in
plain Python; `twoway_seeds_to_decide` is the first seed count on its grid at which the bound would clear
the margin, and None when the questions' part alone keeps the bound across; `pair_items` keeps every
difference's question id beside it when items are dropped or crashed; `compare()` and `check()` make the
claim about the question population when ids recur (default), about these questions on request, and keep
the seed-clustered route for fresh ids. Cheap: fixtures of a few items, records of 20 questions.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from baselines import check, compare
from baselines.analysis.statistics.clustered import (METHOD, QUESTION_CLAIMS, TWOWAY, clustered_bounds, pair_items,
                                                     question_count, questions_recur, twoway_bounds,
                                                     twoway_seeds_to_decide)
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.core.records import RunRecord
from baselines import write_records


# -- an independent hand computation -------------------------------------------------------------
def _hand(clusters: list[list[float]], ids: list[list[str]]) -> dict:
    """CGM 2011 two-way CR1 variance by loops over the items (one item per seed x question cell), and the
    seed-clustered variance max(CR1 over seeds, pooled within-seed floor) it may not fall below."""
    items = [(s, q, d) for s, (row, qs) in enumerate(zip(clusters, ids)) for q, d in zip(qs, row)]
    n = len(items)
    mean = sum(d for _, _, d in items) / n
    by_seed: dict[int, float] = {}
    by_q: dict[str, float] = {}
    for s, q, d in items:
        by_seed[s] = by_seed.get(s, 0.0) + (d - mean)
        by_q[q] = by_q.get(q, 0.0) + (d - mean)
    gs, gq = len(by_seed), len(by_q)
    v_seed = gs / (gs - 1) * sum(x * x for x in by_seed.values()) / n ** 2
    v_q = gq / (gq - 1) * sum(x * x for x in by_q.values()) / n ** 2
    v_item = n / (n - 1) * sum((d - mean) ** 2 for _, _, d in items) / n ** 2
    within = 0.0
    for row in clusters:
        m = sum(row) / len(row)
        within += sum((d - m) ** 2 for d in row)
    floor = within / (n - gs) / n if n > gs else 0.0
    these = max(v_seed, floor)
    return {"mean": mean, "v_twoway": v_seed + v_q - v_item, "v_these": these,
            "var": max(v_seed + v_q - v_item, these), "df": min(gs, gq) - 1, "gq": gq}


# question effects dominate: the two-way variance is above the seed-clustered one
WIDE = ([[0.9, -0.8, 0.1], [1.0, -0.7, 0.3], [0.8, -0.9, 0.0], [1.1, -0.6, 0.2]],
        [["a", "b", "c"]] * 4)
# a seed effect and no question effect: the seed-clustered variance is the larger, and wins
NARROW = ([[0.5, 0.6, 0.4], [-0.5, -0.4, -0.6], [0.1, 0.0, 0.2]], [["a", "b", "c"]] * 3)


@pytest.mark.parametrize("fixture, twoway_wins", [(WIDE, True), (NARROW, False)])
@pytest.mark.parametrize("alpha", [0.05, 0.025])
def test_twoway_bounds_are_the_hand_computed_cgm_formula(fixture, twoway_wins, alpha):
    clusters, ids = fixture
    hand = _hand(clusters, ids)
    assert (hand["v_twoway"] > hand["v_these"]) is twoway_wins   # the fixture exercises the branch it names
    b = twoway_bounds([np.array(c) for c in clusters], ids, alpha)
    half = stats.t.ppf(1 - alpha, hand["df"]) * math.sqrt(hand["var"])
    assert b.mean == pytest.approx(hand["mean"], abs=1e-14)
    assert b.se == pytest.approx(math.sqrt(hand["var"]), rel=1e-12)
    assert b.df == hand["df"] == min(len(clusters), 3) - 1
    assert b.lower == pytest.approx(hand["mean"] - half, rel=1e-10)
    assert b.upper == pytest.approx(hand["mean"] + half, rel=1e-10)
    assert b.seed_var == pytest.approx(hand["v_these"], rel=1e-12)
    assert b.question_var == pytest.approx(hand["var"] - hand["v_these"], abs=1e-15)
    assert b.questions == 3
    these = clustered_bounds([np.array(c) for c in clusters], alpha)
    assert b.se >= these[3] and b.seed_var == pytest.approx(these[3] ** 2, rel=1e-12)
    if not twoway_wins:
        assert b.question_var == 0


def test_the_degrees_of_freedom_are_the_fewer_clusters_minus_one():
    rng = np.random.default_rng(5)
    many_q = [rng.normal(0, 1, 6) for _ in range(3)]                 # 3 seeds, 6 questions: df 2
    assert twoway_bounds(many_q, [[f"q{i}" for i in range(6)]] * 3, 0.05).df == 2
    many_s = [rng.normal(0, 1, 2) for _ in range(7)]                 # 7 seeds, 2 questions: df 1
    b = twoway_bounds(many_s, [["x", "y"]] * 7, 0.05)
    assert b.df == 1 and b.questions == 2
    hand = _hand([list(c) for c in many_s], [["x", "y"]] * 7)
    assert b.se == pytest.approx(math.sqrt(hand["var"]), rel=1e-12)


def test_two_items_two_seeds_two_questions_use_the_item_term():
    """n = 2 items: V_item = 2/1 * sum r^2 / 4 enters (V = V_seed + V_q - V_item = sum r^2 / 2)."""
    b = twoway_bounds([np.array([0.3]), np.array([-0.1])], [["a"], ["b"]], 0.05)
    hand = _hand([[0.3], [-0.1]], [["a"], ["b"]])
    assert b.se == pytest.approx(math.sqrt(hand["var"]), rel=1e-12) == pytest.approx(math.sqrt(0.08 / 2))
    assert b.df == 1


def test_twoway_bounds_are_none_without_two_seeds_two_questions_or_spread():
    assert twoway_bounds([np.array([0.1, 0.3])], [["a", "b"]], 0.05) is None           # one seed
    assert twoway_bounds([np.array([0.2, 0.2])] * 3, [["a", "b"]] * 3, 0.05) is None   # no spread
    assert twoway_bounds([np.array([0.1]), np.array([0.4]), np.array([0.2])], [["a"]] * 3, 0.05) is None  # 1 q
    assert twoway_bounds([np.array([0.1, 0.5]), np.array([0.4, 0.0])], [["a", "b"]] * 2, 0.05) is not None


# -- recurrence and counts ------------------------------------------------------------------------
def test_questions_recur_only_across_seeds():
    assert questions_recur([["a", "b"], ["b", "c"]])
    assert questions_recur([["a"], ["b"], ["a"]])
    assert not questions_recur([["a", "b"], ["c", "d"]])
    assert not questions_recur([["a", "a"]])          # one seed: nothing recurs across seeds
    assert not questions_recur([])
    assert question_count([["a", "b"], ["b", "c"]]) == 3
    assert question_count([["a"], ["a"]]) == 1
    assert question_count([]) == 0
    assert QUESTION_CLAIMS == ("population", "these")
    assert TWOWAY == "two-way seed x question clustered t on paired item differences"


def test_pairing_keeps_each_difference_beside_its_question_id():
    cand = {0: [{"id": "a", "reward": 1.0}, {"id": "b", "reward": None}, {"id": "c", "reward": 0.0},
                {"id": "z", "reward": 1.0}],
            1: [{"id": "a", "reward": 0.0}, {"id": "b", "reward": 1.0}, {"id": "c", "reward": 1.0}],
            2: [{"id": "a", "reward": None}]}
    base = {0: [{"id": "a", "reward": 0.0}, {"id": "b", "reward": 1.0}, {"id": "c", "reward": 0.0}],
            1: [{"id": "a", "reward": 1.0}, {"id": "b", "reward": None}, {"id": "c", "reward": 0.0}],
            2: [{"id": "a", "reward": 1.0}]}
    dropped = pair_items(cand, base, [0, 1, 2], 1.0, None)     # no floor: the unscored candidate item is left out
    assert dropped.ids == [["a", "c"], ["a", "c"]] and dropped.seeds == [0, 1]
    assert [c.tolist() for c in dropped.clusters] == [[1.0, 0.0], [-1.0, 1.0]]
    assert (dropped.dropped_items, dropped.crashed_items, dropped.unpaired_items) == (3, 0, 1)
    crashed = pair_items(cand, base, [0, 1, 2], -1.0, 0.0)     # a floor: it counts, at the floor, under its id
    assert crashed.ids == [["a", "b", "c"], ["a", "c"], ["a"]] and crashed.seeds == [0, 1, 2]
    assert [c.tolist() for c in crashed.clusters] == [[-1.0, 1.0, -0.0], [1.0, -1.0], [1.0]]
    assert (crashed.dropped_items, crashed.crashed_items) == (1, 2)
    assert [len(c) for c in crashed.clusters] == [len(i) for i in crashed.ids]


# -- seeds that would decide ----------------------------------------------------------------------
def _grid(cap: int):
    n = 2
    while n <= cap:
        yield n
        n = n + 1 if n < 100 else int(n * 1.1)


def _hand_seeds(clusters, ids, margin, alpha, cap=10000):
    b = twoway_bounds(clusters, ids, alpha)
    distance = abs(b.mean + margin)
    per_seed = b.seed_var * len(clusters)
    for n in _grid(cap):
        if stats.t.ppf(1 - alpha, min(n, b.questions) - 1) * math.sqrt(per_seed / n + b.question_var) < distance:
            return n
    return None


def _cells(rng, seeds, questions, tau_sd, noise_sd, shift=0.0):
    tau = rng.normal(0, tau_sd, questions)
    return [shift + tau + rng.normal(0, noise_sd, questions) for _ in range(seeds)], \
        [[f"q{i}" for i in range(questions)]] * seeds


@pytest.mark.parametrize("questions, noise, margin, shift, tau", [
    (30, 0.2, 0.1, 0.0, 0.3),     # fewer seeds than questions, a questions' part, a mean below 0: 14
    (3, 0.2, 0.05, 0.0, 0.3),     # more seeds than questions (df = questions - 1), a mean above 0: 32
    (3, 1.0, 0.3, 0.0, 0.05),     # no questions' part (the seed-clustered variance wins): 25
    (40, 3.0, 0.03, -0.1, 0.0)])  # past 100 seeds: the 1.1 steps of the grid: 212
def test_twoway_seeds_to_decide_is_the_first_grid_point_that_clears(questions, noise, margin, shift, tau):
    rng = np.random.default_rng(11)
    clusters, ids = _cells(rng, 4, questions, tau, noise, shift)
    want = _hand_seeds(clusters, ids, margin, 0.05)
    assert want is not None and want > 4
    assert (twoway_bounds(clusters, ids, 0.05).question_var > 0) is (tau >= 0.3)
    assert twoway_seeds_to_decide(clusters, ids, margin, 0.05) == want
    assert twoway_seeds_to_decide(clusters, ids, margin, 0.05, cap=want - 1) is None


def test_twoway_seeds_to_decide_past_100_seeds_follows_the_grid():
    rng = np.random.default_rng(11)
    clusters, ids = _cells(rng, 4, 40, 0.0, 3.0, -0.1)
    got = twoway_seeds_to_decide(clusters, ids, 0.03, 0.05)
    assert got == 212 and got in set(_grid(10000)) and 211 not in set(_grid(10000))


def test_no_seed_count_when_the_questions_alone_keep_the_bound_across():
    """Oracle: identical question effects on every seed, no noise and no seed effect: the seed part of the
    variance is the pooled floor, the rest is the questions'; at a margin below their t * sd no seeds do."""
    tau = np.linspace(-0.3, 0.3, 10)
    clusters, ids = [tau.copy() for _ in range(4)], [[f"q{i}" for i in range(10)]] * 4
    b = twoway_bounds(clusters, ids, 0.05)
    assert b.question_var > 0
    q_alone = stats.t.ppf(0.95, 9) * math.sqrt(b.question_var)
    assert twoway_seeds_to_decide(clusters, ids, 0.5 * q_alone, 0.05) is None
    assert twoway_seeds_to_decide(clusters, ids, 1.01 * q_alone, 0.05) is None or \
        _hand_seeds(clusters, ids, 1.01 * q_alone, 0.05) is not None


# a mean of exactly 0 and no questions' part (dyadic values; every question sums to 0 over the seeds)
_S1, _S3 = [0.5, -0.25, 0.125], [0.25, 0.5, -0.375]
EXACT = ([np.array(_S1), -np.array(_S1), np.array(_S3), -np.array(_S3)], [["a", "b", "c"]] * 4)


def test_seeds_to_decide_at_the_edges_of_its_grid():
    from baselines.analysis.statistics.student_t import t_quantile

    clusters, ids = EXACT
    b = twoway_bounds(clusters, ids, 0.05)
    assert b.mean == 0.0 and b.question_var == 0.0
    assert twoway_seeds_to_decide(clusters, ids, 1.0, 0.05) == _hand_seeds(clusters, ids, 1.0, 0.05) == 3
    assert twoway_seeds_to_decide(clusters, ids, 3.0, 0.05) == _hand_seeds(clusters, ids, 3.0, 0.05) == 2
    assert twoway_seeds_to_decide(clusters, ids, 3.0, 0.05, cap=2) == 2      # the cap itself is on the grid
    wide = _hand_seeds(clusters, ids, 0.3, 0.05)
    assert wide > 2 and twoway_seeds_to_decide(clusters, ids, 0.3, 0.05, cap=wide) == wide
    # a margin exactly at the 2-seed bound: not cleared (strictly below is), so 3 seeds
    at_two = t_quantile(1 - 0.05, min(2, b.questions) - 1) * math.sqrt(b.seed_var * len(clusters) / 2 + b.question_var)
    assert twoway_seeds_to_decide(clusters, ids, at_two, 0.05) == 3


def test_no_seed_count_without_bounds_or_distance():
    assert twoway_seeds_to_decide([np.array([0.1, 0.2])], [["a", "b"]], 0.1, 0.05) is None   # one seed
    clusters = [np.array([0.1, -0.3]), np.array([-0.1, 0.3])]                                 # mean 0
    assert twoway_seeds_to_decide(clusters, [["a", "b"]] * 2, 0.0, 0.05) is None             # at the margin


# -- compare and check choose the route -----------------------------------------------------------
def _records(n=8, questions=20, delta=0.1, seed=4, recur=True, tau=0.2):
    rng = np.random.default_rng(seed)
    effect = rng.choice([-tau, tau], questions)
    out = []
    for s in range(n):
        u = rng.random(questions)
        v = np.where(rng.random(questions) < 0.7, u, rng.random(questions))
        rows = {"base": (u < 0.5).astype(float), "cand": (v < 0.5 + delta + effect).astype(float)}
        for arm, row in rows.items():
            items = [{"id": f"q{i}" if recur else f"s{s}-q{i}", "reward": float(x)} for i, x in enumerate(row)]
            out.append(RunRecord("qa", arm, s, {"tokens": 100}, float(row.mean()), budget={"tokens": 100},
                                 extra={"reward_range": [0, 1]}, items=items))
    return out


def _pairing(records, first="cand", second="base"):
    """first - second paired by item (compare's pair is a = "base", b = "cand": the arms in name order)."""
    a = {r.seed: r.items for r in records if r.arm == first}
    b = {r.seed: r.items for r in records if r.arm == second}
    return pair_items(a, b, sorted(a), 1.0, None)


def test_compare_is_about_the_question_population_when_ids_recur():
    recs = _records()
    pairing = _pairing(recs, "base", "cand")
    want = twoway_bounds(pairing.clusters, pairing.ids, 0.025)
    [pair] = compare(recs).groups[0].pairs
    assert pair.method == pair.interval_method == TWOWAY
    assert pair.diff == pytest.approx(want.mean) and pair.ci == pytest.approx((want.lower, want.upper))
    assert pair.p_decide == pytest.approx(min(1.0, 2 * stats.t.sf(abs(want.mean) / want.se, want.df)))
    assert (pair.questions, pair.question_count) == ("population", 20)
    assert pair.about == "about the question population (20 questions)"
    assert "about the question population (20 questions)" in pair.claim_text
    js = pair.to_json()
    assert js["questions"] == "population" and js["question_count"] == 20 and js["about"] == pair.about
    assert js["claims"][0]["about"] == pair.about
    from reports.tables import frame

    rows = frame(compare(recs))
    assert rows[rows["kind"] == "pair"]["about"].tolist() == [pair.about]   # the CSV view says it too


def test_compare_about_these_questions_is_the_seed_clustered_route():
    recs = _records()
    pairing = _pairing(recs, "base", "cand")
    mean, lower, upper, _ = clustered_bounds(pairing.clusters, 0.025)
    [pair] = compare(recs, questions="these").groups[0].pairs
    assert pair.method == METHOD and pair.ci == pytest.approx((lower, upper))
    assert (pair.questions, pair.about) == ("these", "about these 20 questions")
    [pop] = compare(recs).groups[0].pairs
    assert pop.ci[1] - pop.ci[0] > pair.ci[1] - pair.ci[0]     # question effects +-0.2: the population is wider


def test_fresh_ids_keep_the_seed_clustered_route_under_either_claim():
    recs = _records(recur=False)
    pairing = _pairing(recs, "base", "cand")
    _, lower, upper, _ = clustered_bounds(pairing.clusters, 0.025)
    for questions in ("population", "these"):
        [pair] = compare(recs, questions=questions).groups[0].pairs
        assert pair.method == METHOD and pair.ci == pytest.approx((lower, upper))
    [pair] = compare(recs).groups[0].pairs
    assert pair.about == "about the question population (160 questions, fresh on every seed)"


def test_check_gates_the_population_claim_by_default_and_these_on_request():
    recs = _records(delta=0.0)
    pairing = _pairing(recs)
    pop = twoway_bounds(pairing.clusters, pairing.ids, 0.05)
    these = clustered_bounds(pairing.clusters, 0.05)
    [g] = check(recs, baseline="base", candidate="cand", margin=0.05).groups
    assert g.method == TWOWAY and (g.lower, g.upper) == pytest.approx((pop.lower, pop.upper))
    assert (g.questions, g.question_count, g.about) == ("population", 20, "about the question population (20 questions)")
    assert "about the question population (20 questions)" in g.reason
    assert g.to_json()["questions"] == "population" and g.to_json()["question_count"] == 20
    [t] = check(recs, baseline="base", candidate="cand", margin=0.05, questions="these").groups
    assert t.method == METHOD and (t.lower, t.upper) == pytest.approx((these[1], these[2]))
    assert t.questions == "these" and "about these 20 questions" in t.reason
    [f] = check(_records(delta=0.0, recur=False), baseline="base", candidate="cand", margin=0.05).groups
    assert f.method == METHOD


def test_the_gate_says_when_more_questions_not_seeds_would_decide():
    recs = _records(delta=0.0, tau=0.3, seed=6)
    pairing = _pairing(recs)
    assert twoway_seeds_to_decide(pairing.clusters, pairing.ids, 0.02, 0.05) is None
    [g] = check(recs, baseline="base", candidate="cand", margin=0.02).groups
    assert g.verdict == "INCONCLUSIVE" and g.seeds_needed is None
    assert "more seeds alone would not decide" in g.reason and "more questions would" in g.reason
    [t] = check(recs, baseline="base", candidate="cand", margin=0.02, questions="these").groups
    assert t.seeds_needed is not None and "more questions" not in t.reason


def test_bad_values_are_one_line_errors_naming_the_parameter():
    recs = _records(n=3)
    for call in (lambda: compare(recs, questions="all"),
                 lambda: check(recs, baseline="base", candidate="cand", margin=0.1, questions="all")):
        with pytest.raises(InputError) as caught:
            call()
        message = str(caught.value)
        assert "questions" in message and "'population'" in message and "'these'" in message
        assert "\n" not in message


def test_cli_questions_on_compare_and_check(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, _records())
    assert main(["compare", str(path), "--json"]) == 0
    [pair] = json.loads(capsys.readouterr().out)["groups"][0]["pairs"]
    assert pair["questions"] == "population" and pair["method"] == TWOWAY
    assert main(["compare", str(path), "--json", "--questions", "these"]) == 0
    [pair] = json.loads(capsys.readouterr().out)["groups"][0]["pairs"]
    assert pair["questions"] == "these" and pair["method"] == METHOD
    main(["compare", str(path)])
    assert "about the question population (20 questions)" in capsys.readouterr().out
    main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1", "--json",
          "--questions", "these"])
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["questions"] == "these" and group["about"] == "about these 20 questions"
    assert main(["check", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "0.1",
                 "--questions", "all"]) == 2
    err = capsys.readouterr().err
    assert "--questions" in err and "population" in err and "these" in err


def test_the_suite_key_takes_population_or_these(tmp_path):
    from baselines.running.suite import parse_suite

    base = {"arms": {"g": {"path": "arms.selection:Greedy"}},
            "workloads": [{"name": "s", "path": "workloads.search_sim:SearchSim", "fixed": "rollouts",
                           "budgets": [{"rollouts": 5}], "arms": ["g"]}]}
    assert parse_suite(base, "t").questions == "population"
    assert parse_suite({**base, "questions": "these"}, "t").questions == "these"
    with pytest.raises(InputError, match="'questions' must be \"population\" or \"these\""):
        parse_suite({**base, "questions": "both"}, "t")


def test_check_decides_as_the_population_bound_of_the_calibration_script():
    """The public check() on records of the calibration's data model PASSes exactly when the two-way bound
    the script reads does (16 data sets at 5 seeds, a true difference of +0.05 so both verdicts occur):
    docs/calibration.md's function-level table and its check() table measure one procedure."""
    from benchmarks import question_population as qp

    rng = np.random.default_rng(370)
    seen = {"population": set(), "these": set()}
    for _ in range(16):
        base, cand = qp.draw_arms(rng, 5, 0.05)
        for route in seen:
            verdict = qp.check_passes(base, cand, route)
            assert verdict == qp.passes(cand - base, route)
            seen[route].add(verdict)
    assert seen == {"population": {True, False}, "these": {True, False}}


@pytest.mark.slow
@pytest.mark.timeout(1800)   # 8,000 public check() calls: about 5-10 minutes on a loaded machine
def test_calibration_check_at_the_margin_against_the_question_population():
    """docs/calibration.md's table through the public check() (the default claim, margin 0.05, 20 fixed
    questions with effects +-0.2, delta = -0.05 on the population; the data model of
    benchmarks/question_population.py), 2,000 seeded data sets per cell: PASS share at most
    .05 + 1.96 MC s.e. (.0596) at n = 5, 10, 20, 40."""
    from benchmarks import question_population as qp

    results = qp.run_check(2000, (5, 10, 20, 40))
    for n, (p, _) in results.items():
        assert p <= 0.05 + 1.96 * math.sqrt(0.05 * 0.95 / 2000), (n, p)


def test_the_summaries_and_the_page_say_what_an_item_paired_claim_is_about(tmp_path):
    """The run's group line, the page's headline and its pairs table say "about the question population",
    as the pair's sentence does (before: "better than every other arm on the mean", "paired by seed")."""
    from pathlib import Path

    from reports.summary import run_summary

    recs = _records(delta=0.4, tau=0.0)
    comparison = compare(recs)
    [pair] = comparison.groups[0].pairs
    assert pair.verdict != "n.d." and pair.about == "about the question population (20 questions)"
    line = run_summary([comparison], Path("report.md"))
    assert "1 of 1 pairs decided on the mean, about the question population (20 questions): cand>base" in line
    assert line.count("about the question population") == 1     # said once per line
    page = comparison.to_html()
    assert "1 of 1 pairs decided on the mean, about the question population (20 questions)." in page
    assert "Pairs (a \u2212 b, paired by question within each seed)" in page
    assert "paired by seed)" not in page
    these = compare(recs, questions="these")
    assert "on the mean, about these 20 questions" in run_summary([these], Path("report.md"))
    plain = compare([RunRecord(r.workload, r.arm, r.seed, r.spend, r.reward, budget=r.budget,
                               extra={"reward_range": [0, 1]}) for r in recs])   # the same runs without items
    assert "Pairs (a \u2212 b, paired by seed)" in plain.to_html()
    assert "about the question" not in run_summary([plain], Path("report.md"))


def test_the_gate_json_claims_say_what_each_claim_is_about():
    """check --json: each claim says what it is about, as compare's claims[].about (before: the group had
    `about`, its claims did not, so with --claim both a reader could not tell which one it applied to)."""
    recs = _records(delta=0.0)
    [g] = check(recs, baseline="base", candidate="cand", margin=0.05, claim="both").groups
    claims = {c["claim"]: c["about"] for c in g.to_json()["claims"]}
    assert claims == {"mean": "about the question population (20 questions)", "typical": ""}
    [t] = check(recs, baseline="base", candidate="cand", margin=0.05, questions="these").groups
    assert [c["about"] for c in t.to_json()["claims"]] == ["about these 20 questions"]
