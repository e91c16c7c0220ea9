"""The answer-aggregation rules of a vote over samples: one implementation for `curves`, the arms and `run`.

Why one module: the published Best-of-∞ figure, `costmatch curves` and a
`costmatch run` in recorded order must count the same votes the same way, or
the same files give three numbers (they did: empty answers voted in one and
not in the other, and ties were split by a 64-ordering estimate in a third).
Each rule has one name, and every caller gets it from here.

Two choices make a rule:

- ``empty``: ``"abstains"`` (an empty answer ``""`` does not vote, like ``null``)
  or ``"votes"`` (``""`` is a candidate, always wrong). ``null`` never votes.
- ``ties``: ``"first-seen"`` (the tied answer drawn first wins: in recorded
  order, the release's own ``majority_answer``) or ``"random"`` (a uniform
  tie-break, scored as its exact expectation: 1/k for the gold among k tied).

The default, ``empty = "abstains"`` with ``ties = "first-seen"``, is the rule
of the Best-of-∞ authors' table script (BoInf-code-publish fbcb097,
``boinf/jsonl_to_table.py``): their Bo∞ is the file's ``majority_answer``,
an empty one replaced by the most frequent non-empty answer, which on every
line of the 35 release files equals the majority of non-empty answers with
ties to the first seen in recorded order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError

EMPTY_RULES = ("abstains", "votes")
TIE_RULES = ("first-seen", "random")


@dataclass(frozen=True)
class VoteRule:
    """How samples vote: what an empty answer does and who wins a tie (see the module docstring)."""

    empty: str = "abstains"
    ties: str = "first-seen"

    def __post_init__(self) -> None:
        if self.empty not in EMPTY_RULES:
            raise InputError(f"empty must be one of {', '.join(EMPTY_RULES)} (whether an empty answer \"\" votes), "
                             f"got {self.empty!r}")
        if self.ties not in TIE_RULES:
            raise InputError(f"ties must be one of {', '.join(TIE_RULES)}, got {self.ties!r}")

    @property
    def is_authors(self) -> bool:
        return self == AUTHORS

    @property
    def name(self) -> str:
        """One short name: ``authors`` for the default, else ``empty=...,ties=...``."""
        return "authors" if self.is_authors else f"empty={self.empty},ties={self.ties}"

    def describe(self) -> str:
        """The rule as a sentence, for the output that uses it."""
        empty = 'empty answers "" do not vote' if self.empty == "abstains" else 'empty answers "" vote (and are wrong)'
        ties = ("ties to the answer seen first in the order drawn (recorded order for the whole pool)"
                if self.ties == "first-seen" else "ties split at random, scored as the exact expectation (1/k)")
        tail = " - the Best-of-inf authors' rule (jsonl_to_table.py)" if self.is_authors else ""
        return f"{empty}; null never votes; {ties}{tail}"

    def votes(self, answer: str | None) -> bool:
        """Whether a sample's answer takes part in the vote."""
        return answer is not None and (answer != "" or self.empty == "votes")


AUTHORS = VoteRule()


def vote_rule(empty: str | None = None, ties: str | None = None, empty_votes: bool | None = None) -> VoteRule:
    """The rule from its two names; `empty_votes` is the older boolean spelling of `empty` (kept, never renamed)."""
    if empty_votes is not None:
        if not isinstance(empty_votes, bool):
            raise InputError(f"empty_votes must be true or false, got {empty_votes!r}")
        legacy = "votes" if empty_votes else "abstains"
        if empty is not None and empty != legacy:
            raise InputError(f"empty = {empty!r} and empty_votes = {str(empty_votes).lower()} disagree; give one")
        empty = legacy
    return VoteRule(empty if empty is not None else AUTHORS.empty, ties if ties is not None else AUTHORS.ties)


class TiedAnswers(tuple):
    """Answers tied for the most votes under ``ties = "random"``: scored 1/k if the gold is among the k.

    A tuple of its own type so a scorer can tell it from the oracle's list of
    alternatives (right if any is right), which would score a tie as a win.
    """


def tie_credit(answer, gold) -> float | None:
    """The expected score of a `TiedAnswers` choice (None: not one)."""
    if isinstance(answer, TiedAnswers):
        return (1.0 / len(answer)) if gold in answer else 0.0
    return None


def whole_pool_credit(codes: np.ndarray, gold: np.ndarray, ties: str) -> np.ndarray:
    """Per problem, the score of the majority over every sample of the row, exactly, under `ties`.

    `codes` (problems, samples): an answer code per sample in recorded order,
    negative where the sample does not vote (padding too); `gold` (problems,):
    the gold's code, negative if no sample has it. One bincount over every
    problem at once: counts and the first position of each (problem, answer).
    """
    if ties not in TIE_RULES:
        raise InputError(f"ties must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    problems, width = codes.shape
    answers = int(codes.max(initial=-1)) + 1
    out = np.zeros(problems)
    if answers == 0:
        return out
    voting = codes >= 0
    flat = (np.arange(problems)[:, None] * answers + codes)[voting]
    counts = np.bincount(flat, minlength=problems * answers).reshape(problems, answers)
    top = counts.max(axis=1)
    tied = (counts == top[:, None]) & (top[:, None] > 0)
    has_gold = (gold >= 0) & (gold < answers)
    gold_tied = np.zeros(problems, bool)
    gold_tied[has_gold] = tied[np.flatnonzero(has_gold), gold[has_gold]]
    if ties == "random":
        out[gold_tied] = 1.0 / tied.sum(axis=1)[gold_tied]
        return out
    first = np.full(problems * answers, width, dtype=np.int64)
    positions = np.broadcast_to(np.arange(width), codes.shape)[voting]
    np.minimum.at(first, flat, positions)
    winner = np.where(tied, first.reshape(problems, answers), width + 1).argmin(axis=1)
    out[gold_tied & (winner == gold)] = 1.0
    return out
