"""Claims in words (analysis/compare/claims.py): each verdict's sentence, the headline claim, the summaries' phrase.

A decided claim names the winner first and its gain as a positive number with the interval turned round; an
undecided one says "undecided" or "underpowered" at n seeds; ties change "of n seeds" to "of the seeds where
they differ"; infinite ends print as -inf/+inf and NaN as n/a. The headline claim is the first decided one,
else an equivalence, else the first asked; the other claim's notes are labelled with its name. Every expected
sentence is written out by hand.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from baselines.analysis.compare.claims import (ClaimVerdict, claim_phrase, claim_sentence, claims_of, mean_verdict,
                                               set_headline)


def typical(verdict, estimate, ci, wins, losses, ties=0, notes=()):
    return ClaimVerdict("typical", verdict, estimate, ci, "order statistics", "exact sign test", 0.01, 0.02,
                        list(notes), wins=wins, losses=losses, ties=ties)


def mean(verdict, estimate, ci, about="", notes=()):
    return ClaimVerdict("mean", verdict, estimate, ci, "t", "paired t", 0.01, 0.02, list(notes), about=about)


def sentence(*claims, n=10, signed=None) -> str:
    return claim_sentence(SimpleNamespace(a="ucb", b="rnd", n=n, claims=list(claims)), signed)


# -- the typical claim --------------------------------------------------------------------------------------------
def test_a_decided_typical_claim_in_either_direction():
    assert sentence(typical("a>b", 0.1, (0.05, 0.2), 9, 1)) == (
        "ucb beats rnd on a typical seed (9 of 10 seeds; median gain +0.1 [+0.05, +0.2])")
    assert sentence(typical("b>a", -0.2, (-0.3, -0.1), 1, 8, 1)) == (
        "rnd beats ucb on a typical seed (8 of 9 seeds where they differ; median gain +0.2 [+0.1, +0.3])")
    assert sentence(typical("a>b", 0.1, (0.05, 0.2), 7, 1, 2)) == (
        "ucb beats rnd on a typical seed (7 of 8 seeds where they differ; median gain +0.1 [+0.05, +0.2])")


def test_an_undecided_or_underpowered_typical_claim():
    assert sentence(typical("no difference detected", 0.05, (-0.1, 0.2), 5, 3, 2)) == (
        "ucb vs rnd on a typical seed is undecided at 10 seeds (5 wins, 3 losses, 2 tied for ucb; "
        "median difference +0.05 [-0.1, +0.2])")
    assert sentence(typical("underpowered", 0.15, (-math.inf, math.inf), 1, 1), n=2) == (
        "ucb vs rnd on a typical seed is underpowered at 2 seeds (1 win, 1 loss for ucb; "
        "median difference +0.15 [-inf, +inf])")


# -- the mean claim -----------------------------------------------------------------------------------------------
def test_a_decided_mean_claim_in_either_direction_and_what_it_is_about():
    assert sentence(mean("a>b", 0.25, (0.1, 0.4))) == "ucb beats rnd on the mean (mean gain +0.25 [+0.1, +0.4])"
    assert sentence(mean("b>a", -0.25, (-0.4, -0.1))) == "rnd beats ucb on the mean (mean gain +0.25 [+0.1, +0.4])"
    about = "about the question population (20 questions)"
    assert sentence(mean("a>b", 0.25, (0.1, 0.4), about)) == (
        f"ucb beats rnd on the mean, {about} (mean gain +0.25 [+0.1, +0.4])")


def test_an_equivalent_or_undecided_mean_claim():
    assert sentence(mean("equivalent", 0.01, (-0.02, 0.04))) == (
        "ucb and rnd are equivalent on the mean (mean difference +0.01)")
    assert sentence(mean("no difference detected", 0.05, (-0.1, 0.2))) == (
        "ucb vs rnd on the mean is undecided at 10 seeds (+0.05 [-0.1, +0.2])")
    assert sentence(mean("underpowered", math.nan, (-math.inf, math.inf)), n=2) == (
        "ucb vs rnd on the mean is underpowered at 2 seeds (n/a [-inf, +inf])")


def test_both_claims_are_said_in_the_order_asked():
    both = sentence(typical("a>b", 0.1, (0.05, 0.2), 10, 0), mean("underpowered", 0.05, (-0.1, math.inf)))
    assert both == ("ucb beats rnd on a typical seed (10 of 10 seeds; median gain +0.1 [+0.05, +0.2]); "
                    "the mean gain is underpowered at 10 seeds (+0.05 [-0.1, +inf])")


def test_the_callers_number_format_is_used_for_every_claim():
    two = lambda x: f"{x:+.2f}"  # noqa: E731
    assert sentence(typical("b>a", -0.2, (-0.3, -0.1), 1, 8, 1), mean("a>b", 0.25, (0.1, 0.4)), signed=two) == (
        "rnd beats ucb on a typical seed (8 of 9 seeds where they differ; median gain +0.20 [+0.10, +0.30]); "
        "ucb beats rnd on the mean (mean gain +0.25 [+0.10, +0.40])")
    assert sentence(typical("no difference detected", 0.05, (-0.1, 0.2), 5, 3), signed=two).endswith(
        "median difference +0.05 [-0.10, +0.20])")
    assert sentence(mean("no difference detected", 0.05, (-0.1, 0.2)), signed=two).endswith("(+0.05 [-0.10, +0.20])")


# -- the headline claim -------------------------------------------------------------------------------------------
def headline(*verdicts):
    pair = SimpleNamespace(a="ucb", b="rnd", n=10, verdict="", notes=[], method="paired t", equivalent=True,
                           p_adjusted=None)
    set_headline(pair, list(verdicts))
    return pair


def test_with_nothing_decided_the_first_claim_asked_heads():
    pair = headline(typical("no difference detected", 0.05, (-0.1, 0.2), 5, 3, notes=["typical seed: t note"]),
                    mean("no difference detected", 0.05, (-0.1, 0.2), notes=["interval spans 0"]))
    assert pair.claim == "typical" and pair.verdict == "no difference detected"
    assert pair.method == "exact sign test" and pair.equivalent is False and pair.p_adjusted == 0.02
    assert pair.claim_ci == (-0.1, 0.2) and pair.claim_interval_method == "order statistics"
    assert pair.notes == ["typical seed: t note", "mean: interval spans 0"]


def test_a_decided_mean_heads_and_the_typical_claims_notes_say_their_claim():
    pair = headline(typical("underpowered", 0.15, (-math.inf, math.inf), 2, 0,
                            notes=["only 2 paired seeds; at least 3 are needed"]),
                    mean("a>b", 0.25, (0.1, 0.4), notes=["mean: a mean note"]))
    assert pair.claim == "mean" and pair.verdict == "a>b"
    assert pair.notes == ["mean: a mean note", "typical seed: only 2 paired seeds; at least 3 are needed"]
    undecided = headline(typical("no difference detected", 0.05, (-0.1, 0.2), 5, 3,
                                 notes=["typical seed: an arm winning fewer than 92% ..."]),
                         mean("equivalent", 0.01, (-0.02, 0.04)))
    assert undecided.claim == "mean" and undecided.verdict == "equivalent"   # an equivalence before an undecided
    assert undecided.notes == ["typical seed: an arm winning fewer than 92% ..."]


# -- the summaries' phrase ----------------------------------------------------------------------------------------
def pairs(claim, abouts, questions):
    return [SimpleNamespace(claim=claim, about=a, questions=q) for a, q in zip(abouts, questions)]


def test_the_summary_phrase_names_the_one_claim_every_pair_makes():
    assert claim_phrase(pairs("typical", ["", ""], [None, None])) == " on a typical seed"
    assert claim_phrase(pairs("mean", ["", ""], [None, None])) == " on the mean"
    assert claim_phrase(pairs("mean", ["", ""], [None, None]), about=True) == " on the mean"
    mixed = pairs("mean", [""], [None]) + pairs("typical", [""], [None])
    assert claim_phrase(mixed) == "" and claim_phrase(mixed, about=True) == ""


def test_the_summary_phrase_says_what_an_item_paired_mean_is_about():
    same = ["about the question population (20 questions)"] * 2
    assert claim_phrase(pairs("mean", same, ["population"] * 2), about=True) == (
        " on the mean, about the question population (20 questions)")
    assert claim_phrase(pairs("mean", same, ["population"] * 2)) == " on the mean"
    counts = ["about the question population (20 questions)", "about the question population (12 questions)"]
    assert claim_phrase(pairs("mean", counts, ["population"] * 2), about=True) == (
        " on the mean, about the question population")
    these = ["about these 20 questions", "about these 12 questions"]
    assert claim_phrase(pairs("mean", these, ["these"] * 2), about=True) == " on the mean, about these questions"
    assert claim_phrase(pairs("mean", [these[0], counts[0]], ["these", "population"]), about=True) == " on the mean"


# -- the choice and the mean verdict ------------------------------------------------------------------------------
def test_an_unknown_claim_choice_lists_the_four():
    with pytest.raises(ValueError) as err:
        claims_of("median")
    assert str(err.value) == "claim must be one of auto, typical, mean, both, got 'median'"
    assert claims_of("both") == ("typical", "mean") and claims_of("auto") == ("typical",)


def test_the_mean_verdict_keeps_what_the_pair_is_about():
    pair = SimpleNamespace(verdict="a>b", diff=0.2, ci=(0.1, 0.3), interval_method="t", method="paired t",
                           p_decide=0.01, notes=["n"], mde=0.05, about="about these questions (8 questions)")
    v = mean_verdict(pair, 0.03)
    assert (v.claim, v.verdict, v.estimate, v.ci, v.p, v.p_adjusted, v.detectable, v.about) == (
        "mean", "a>b", 0.2, (0.1, 0.3), 0.01, 0.03, 0.05, "about these questions (8 questions)")
    out = v.to_json()
    assert out == {"claim": "mean", "verdict": "a>b", "estimate": 0.2, "ci": [0.1, 0.3], "interval_method": "t",
                   "method": "paired t", "p": 0.01, "p_adjusted": 0.03, "notes": ["n"],
                   "about": "about these questions (8 questions)"}
