"""Which claim an item-paired verdict makes (statistics/question_claim.py), one test per rule a mutant broke.

Rules protected: recurring question ids take the two-way seed x question route for a population claim,
"these" and fresh ids the seed-clustered one (degrees of freedom seeds - 1); one recurring question gives no
population bound (infinite, with the note saying why and what to pass); the words every view prints; the
item pair's t test is on the route's own degrees of freedom and standard error, two-sided at the level.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from baselines.analysis.statistics import question_claim as q
from baselines.analysis.statistics.clustered import (METHOD, TWOWAY, ItemPairing, clustered_bounds,
                                                     twoway_bounds)


def pairing(ids_per_seed):
    rng = np.random.default_rng(1)
    clusters = [rng.normal(0.1, 0.2, size=len(ids)) for ids in ids_per_seed]
    return ItemPairing(clusters=clusters, seeds=list(range(len(ids_per_seed))), ids=ids_per_seed)


RECUR = [["q1", "q2", "q3", "q4"] for _ in range(5)]
FRESH = [[f"s{s}q{i}" for i in range(4)] for s in range(5)]


def test_the_route_and_the_parameter():
    assert q.question_route("these", True) == q.question_route("these", False) == "these"
    assert q.question_route("population", True) == "population"
    assert q.question_route("population", False) == "fresh"
    assert q.check_questions("population") == "population" and q.check_questions("these") == "these"
    with pytest.raises(ValueError) as info:
        q.check_questions("all")
    assert str(info.value) == "questions must be 'population' or 'these', got 'all'"


def test_the_words_every_view_prints():
    assert q.about_words("these", True, 4) == "about these 4 questions"
    assert q.about_words("these", False, 4) == "about these 4 questions"
    assert q.about_words("population", True, 4) == "about the question population (4 questions)"
    assert q.about_words("population", False, 20) == "about the question population (20 questions, fresh on every seed)"


def test_recurring_ids_make_a_population_claim_on_the_two_way_bounds():
    p = pairing(RECUR)
    b = q.item_bounds(p, "population", 0.05)
    two = twoway_bounds(p.clusters, p.ids, 0.05)
    assert (b.mean, b.lower, b.upper, b.se, b.df) == (two.mean, two.lower, two.upper, two.se, two.df)
    assert (b.questions, b.recur, b.question_count, b.method, b.note) == ("population", True, 4, TWOWAY, "")
    assert b.about == "about the question population (4 questions)"


def test_these_questions_and_fresh_ids_take_the_seed_clustered_bounds():
    for ids, claim, recur, count in ((RECUR, "these", True, 4), (FRESH, "population", False, 20)):
        p = pairing(ids)
        b = q.item_bounds(p, claim, 0.05)
        mean, lower, upper, se = clustered_bounds(p.clusters, 0.05)
        assert (b.mean, b.lower, b.upper, b.se, b.df) == (mean, lower, upper, se, 4)
        assert (b.questions, b.recur, b.question_count, b.method, b.note) == (claim, recur, count, METHOD, "")
        assert b.about == q.about_words(claim, recur, count)


def test_one_recurring_question_gives_no_population_bound():
    p = pairing([["q1"] for _ in range(5)])
    b = q.item_bounds(p, "population", 0.05)
    assert (b.lower, b.upper, b.se, b.df) == (-math.inf, math.inf, math.inf, 0)
    assert b.mean == clustered_bounds(p.clusters, 0.05)[0]
    assert (b.questions, b.recur, b.question_count, b.method) == ("population", True, 1, TWOWAY)
    assert b.about == "about the question population (1 questions)"
    assert b.note == ("1 question(s) recur on every seed: no claim about the question population "
                      "(--questions these makes the claim about these questions only)")
    pair = q.item_pair("a", "b", p, 0.9, "population")
    assert pair.p == 1.0
    assert pair.route_note.endswith("; " + b.note)


def test_no_seed_clustered_bound_is_no_claim():
    one_seed = ItemPairing(clusters=[np.array([0.1, 0.2])], seeds=[0], ids=[["q1", "q2"]])
    assert q.item_bounds(one_seed, "population", 0.05) is None
    assert q.item_pair("a", "b", one_seed, 0.9, "these") is None
    with pytest.raises(ValueError):
        q.item_bounds(pairing(RECUR), "all", 0.05)


@pytest.mark.parametrize("ids, claim", [(RECUR, "population"), (RECUR, "these"), (FRESH, "population")])
def test_the_item_pair_is_the_routes_t_test_at_the_level(ids, claim):
    p = pairing(ids)
    pair = q.item_pair("a", "b", p, 0.9, claim)
    b = q.item_bounds(p, claim, 0.05)
    assert (pair.a, pair.b, pair.n, pair.diff, pair.ci) == ("a", "b", 5, b.mean, (b.lower, b.upper))
    assert pair.p == pytest.approx(2 * stats.t.sf(abs(b.mean) / b.se, b.df), rel=1e-9)
    assert pair.p_t == pair.p and pair.p_method == b.method == pair.method == pair.interval_method
    assert pair.sd == pytest.approx(b.se * math.sqrt(5), rel=1e-12) and pair.paired is True
    assert (pair.items, pair.questions, pair.question_count, pair.about) == (20, claim, b.question_count, b.about)
    how = "two-way seed x question clustered" if b.method == TWOWAY else "seed-clustered"
    assert pair.route_note == f"paired by item: 20 question(s) over 5 seed(s), {how}, {b.about}"



def test_two_seeds_give_the_t_test_on_one_degree_of_freedom():
    p = pairing([["q1", "q2"], ["q1", "q2"]])
    b = q.item_bounds(p, "these", 0.05)
    assert b.df == 1
    pair = q.item_pair("a", "b", p, 0.9, "these")
    assert pair.p == pytest.approx(2 * stats.t.sf(abs(b.mean) / b.se, 1), rel=1e-9)
    assert pair.p < 1.0
    assert math.isnan(pair.mde)
