"""Which claim an item-paired verdict makes: about the question population or about these questions.

Why (issue 37 item 2): an LLM eval asks the same questions on every seed, so
the questions are one sample from the population of questions a user cares
about. The seed-clustered interval (`clustered.clustered_bounds`) targets
these questions' own mean: with 20 fixed questions whose effects vary by
question (+-0.2), a candidate 0.05 worse on the population PASSed a 0.05
margin in .107/.183/.230 of data sets at 10/20/40 seeds. So when question ids
recur across seeds the default claim ("population") uses the two-way seed x
question clustered bounds (`clustered.twoway_bounds`, Cameron, Gelbach &
Miller 2011); "these" (these questions only) is the explicit option and
keeps the seed-clustered route. With fresh ids on every seed each seed's
questions are a new sample, and the seed-clustered interval already covers
the question population: the route is the seed-clustered one for both.
Pure: no I/O.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .clustered import (METHOD, QUESTION_CLAIMS, TWOWAY, ItemPairing, clustered_bounds, question_count,
                        questions_recur, twoway_bounds)

POPULATION, THESE = QUESTION_CLAIMS
#: the route of a verdict on fresh question ids every seed (the seed-clustered route, about the population)
FRESH = "fresh"
#: the questions routes a history line records (`question_route`); null there: decided per seed, not by item
QUESTION_ROUTES = (POPULATION, THESE, FRESH)


def question_route(questions: str, recur: bool) -> str:
    """Which questions route an item-paired verdict took: "population" (ids recur: two-way seed x question),
    "these" (these questions only, seed-clustered) or "fresh" (fresh ids on every seed: seed-clustered, which
    covers the population already)."""
    if questions == THESE:
        return THESE
    return POPULATION if recur else FRESH


def check_questions(value) -> str:
    """`value` if it is one of QUESTION_CLAIMS; else a one-line ValueError naming the parameter."""
    if value not in QUESTION_CLAIMS:
        raise ValueError(f"questions must be 'population' or 'these', got {value!r}")
    return value


def about_words(questions: str, recur: bool, count: int) -> str:
    """What the verdict is about, in words every view prints."""
    if questions == THESE:
        return f"about these {count} questions"
    if recur:
        return f"about the question population ({count} questions)"
    return f"about the question population ({count} questions, fresh on every seed)"


@dataclass
class ItemBounds:
    """One-sided bounds (each at `alpha`) of the item-paired mean difference for the claim made."""

    mean: float
    lower: float
    upper: float
    se: float
    df: int
    questions: str        # the claim: "population" or "these"
    recur: bool           # some question id is paired on two or more seeds
    question_count: int   # distinct question ids
    method: str           # clustered.TWOWAY or clustered.METHOD
    about: str            # about_words(...)
    note: str = ""        # why no bound could be made for this claim, when so


def item_bounds(pairing: ItemPairing, questions: str, alpha: float) -> ItemBounds | None:
    """The bounds of the claim `questions` makes on `pairing`; None when the seed-clustered route has none
    (fewer than 2 seeds, no spread). A population claim on ids that recur but number fewer than 2 gets
    infinite bounds and a note: one question is no sample of a population."""
    check_questions(questions)
    recur = questions_recur(pairing.ids)
    count = question_count(pairing.ids)
    about = about_words(questions, recur, count)
    these = clustered_bounds(pairing.clusters, alpha)
    if these is None:
        return None
    if questions == POPULATION and recur:
        b = twoway_bounds(pairing.clusters, pairing.ids, alpha)
        if b is None:
            return ItemBounds(these[0], -math.inf, math.inf, math.inf, 0, POPULATION, True, count, TWOWAY, about,
                              f"{count} question(s) recur on every seed: no claim about the question population "
                              "(--questions these makes the claim about these questions only)")
        return ItemBounds(b.mean, b.lower, b.upper, b.se, b.df, POPULATION, True, count, TWOWAY, about)
    mean, lower, upper, se = these
    return ItemBounds(mean, lower, upper, se, len(pairing.clusters) - 1, questions, recur, count, METHOD, about)


def item_pair(a: str, b: str, pairing: ItemPairing, level: float, questions: str):
    """A `PairResult` for arm a - arm b paired by item, for the claim `questions` makes (two-sided at `level`):
    the t test on the route's degrees of freedom and the interval it inverts to, one inference."""
    from ..compare.pair_result import PairResult
    from .student_t import t_sf

    bounds = item_bounds(pairing, questions, (1 - level) / 2)
    if bounds is None:
        return None
    g = len(pairing.clusters)
    if math.isfinite(bounds.se) and bounds.df >= 1:
        p = min(1.0, 2 * t_sf(abs(bounds.mean) / bounds.se, bounds.df))
    else:
        p = 1.0
    pair = PairResult(a, b, g, bounds.mean, (bounds.lower, bounds.upper), p, bounds.method, p,
                      bounds.se * math.sqrt(g), True, math.nan, interval_method=bounds.method, method=bounds.method)
    pair.items = pairing.items
    pair.questions, pair.question_count, pair.about = bounds.questions, bounds.question_count, bounds.about
    pair.route_note = route_note(pairing.items, g, bounds)
    return pair


def route_note(items: int, seeds: int, bounds: ItemBounds) -> str:
    """The note an item-paired verdict carries: what it rests on and which claim it makes."""
    how = ("two-way seed x question clustered" if bounds.method == TWOWAY else "seed-clustered")
    text = f"paired by item: {items} question(s) over {seeds} seed(s), {how}, {bounds.about}"
    return text + (f"; {bounds.note}" if bounds.note else "")
