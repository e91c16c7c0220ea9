"""Test-time-compute strategies on the replay workload: the arms the sampling papers compare.

Every arm draws in rounds: one sample for each problem still open, then the
next round, so a budget that runs out mid-way cuts every problem about
equally instead of leaving the last problems unanswered. After each round
(and when the budget stops it) the arm reports its answers; it returns them
with one alternative, every distinct answer it drew per problem, which the
harness scores as the oracle (pass@n: right if any drawn sample is right),
shown apart from the ranking because no arm can pick with the gold answer.

Votes follow the workload's vote rule (`baselines.core.votes`, the one rule
`costmatch curves` uses too): a sample with no answer never votes, an empty
answer abstains unless the workload says ``empty = "votes"``. Ties go to the
answer seen first in the drawn order (a seeded permutation, so a uniform
random tie-break that every arm at a seed shares; in recorded order, the
authors' rule), or under ``ties = "random"`` the tied answers are returned
together and score their expectation, 1/k.
"""
from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np

from baselines.core.meter import BudgetExhausted, Meter
from baselines.core.protocols import ArmOutput
from baselines.core.votes import AUTHORS, TiedAnswers, VoteRule


class Tally:
    """Votes per problem: counts in first-seen order, and the leader (most votes, ties to the first seen)."""

    def __init__(self, problems: int, rule: VoteRule = AUTHORS):
        self.rule = rule
        self.counts: list[dict[int, int]] = [{} for _ in range(problems)]
        self.rank: list[dict[int, int]] = [{} for _ in range(problems)]
        self.leader: list[int | None] = [None] * problems
        self.drawn = [0] * problems

    def add(self, i: int, code: int) -> None:
        self.drawn[i] += 1
        if code < 0:
            return
        counts, rank = self.counts[i], self.rank[i]
        counts[code] = counts.get(code, 0) + 1
        rank.setdefault(code, len(rank))
        lead = self.leader[i]
        if lead is None or counts[code] > counts[lead] or (counts[code] == counts[lead] and rank[code] < rank[lead]):
            self.leader[i] = code

    def top_two(self, i: int) -> tuple[int, int]:
        """Votes of the leader and of the strongest other answer (0 when there is none)."""
        counts, lead = self.counts[i], self.leader[i]
        if lead is None:
            return 0, 0
        return counts[lead], max((v for k, v in counts.items() if k != lead), default=0)

    def answered(self) -> float:
        return sum(lead is not None for lead in self.leader) / max(1, len(self.leader))

    def choice(self, instance) -> dict[str, str | TiedAnswers | None]:
        return {pid: self._chosen(instance, i) for i, pid in enumerate(instance.ids)}

    def _chosen(self, instance, i: int):
        """The leader's answer; under ``ties = "random"`` every answer tied with it (TiedAnswers) when there are two or more."""
        lead = self.leader[i]
        if lead is None or self.rule.ties != "random":
            return instance.answer(i, lead)
        counts = self.counts[i]
        tied = [code for code, votes in counts.items() if votes == counts[lead]]
        if len(tied) == 1:
            return instance.answer(i, lead)
        return TiedAnswers(instance.answer(i, code) for code in tied)

    def drawn_answers(self, instance) -> dict[str, list[str]]:
        """Every distinct answer drawn per problem: the oracle's alternative (pass@n)."""
        return {pid: [instance.answer(i, c) for c in self.counts[i]] for i, pid in enumerate(instance.ids)}


class _Rounds:
    """The shared loop: rounds over the open problems until each is done, its pools are used up, or the budget ends."""

    workloads = ("replay",)

    def __init__(self, model: str | None = None):
        self.model = model

    def models(self, instance) -> list[str]:
        return [self.model or instance.workload.models[0]]

    def done(self, tally: Tally, i: int) -> bool:
        raise NotImplementedError

    def run(self, instance, meter: Meter, rng: np.random.Generator) -> ArmOutput:
        sampler = instance.sampler(meter)
        models = self.models(instance)
        tally = Tally(len(instance.ids), getattr(instance.workload, "vote_rule", AUTHORS))
        open_ = list(range(len(instance.ids)))
        meter.progress(0.0, choice=tally.choice(instance))
        try:
            while open_:
                open_ = [i for i in open_ if self._step(sampler, models, tally, i)]
                meter.progress(tally.answered(), choice=tally.choice(instance))
        except BudgetExhausted:  # the answers so far stand; the runner records the stop from the Meter
            meter.progress(tally.answered(), choice=tally.choice(instance))
        return ArmOutput(tally.choice(instance), [tally.drawn_answers(instance)])

    def _step(self, sampler, models: list[str], tally: Tally, i: int) -> bool:
        """Draw one sample for problem i; whether it stays open. Raises BudgetExhausted when the budget ended."""
        code = None
        for k in range(len(models)):  # the model whose turn it is, else the next with samples left
            model = models[(tally.drawn[i] + k) % len(models)]
            code = sampler.draw(model, i)
            if code is not None or sampler.stopped is not None:
                break
        if code is not None:
            tally.add(i, code)
        if sampler.stopped is not None:
            raise sampler.stopped
        return code is not None and not self.done(tally, i)


def _positive(value, name: str, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1{' or omitted' if allow_none else ''}, got {value!r}")


class FirstSample(_Rounds):
    """Best-of-1: the first sample of each problem (no answer in it: the problem is wrong)."""

    def done(self, tally: Tally, i: int) -> bool:
        return True


class Majority(_Rounds):
    """Majority vote over n samples per problem (n omitted: as many rounds as the budget and pool allow)."""

    def __init__(self, n: int | None = None, model: str | None = None):
        _positive(n, "n")
        super().__init__(model)
        self.n = n

    def done(self, tally: Tally, i: int) -> bool:
        return self.n is not None and tally.drawn[i] >= self.n


@lru_cache(maxsize=65536)
def leader_probability(a: int, b: int) -> float:
    """P(the leader's share exceeds the runner-up's) after a and b votes, uniform prior on the share.

    The share of the two leading answers is Beta(a+1, b+1) a posteriori; its
    mass above 1/2 is P(Binomial(a+b+1, 1/2) <= a), summed exactly.
    """
    n = a + b + 1
    return sum(comb(n, k) for k in range(a + 1)) / 2 ** n


class AdaptiveMajority(_Rounds):
    """Majority vote that stops a problem once its leader is unlikely to be overtaken (Beta stopping rule).

    The rule of Adaptive-Consistency (Aggarwal et al., 2023): stop when the
    posterior probability that the leading answer beats the runner-up reaches
    `confidence` (a Bayes factor of confidence/(1-confidence) against it),
    after at least `min_samples`; never more than `max_samples` (omitted: the
    pool). Not the Best-of-Infinity paper's own rule, which uses a Dirichlet-
    process prior over all answers. The budget freed on easy problems goes to
    the problems still open.
    """

    def __init__(self, confidence: float = 0.95, min_samples: int = 2, max_samples: int | None = None,
                 model: str | None = None):
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.5 < confidence < 1:
            raise ValueError(f"confidence must be a number between 0.5 and 1, got {confidence!r}")
        _positive(min_samples, "min_samples", allow_none=False)
        _positive(max_samples, "max_samples")
        super().__init__(model)
        self.confidence, self.min_samples, self.max_samples = float(confidence), min_samples, max_samples

    def done(self, tally: Tally, i: int) -> bool:
        drawn = tally.drawn[i]
        if self.max_samples is not None and drawn >= self.max_samples:
            return True
        if drawn < self.min_samples:
            return False
        a, b = tally.top_two(i)
        return a > 0 and leader_probability(a, b) >= self.confidence


class ModelMix(Majority):
    """Majority vote over samples from several models in turn, each charged its own model's tokens (and dollars).

    `models` omitted: every model of the workload, in its order.
    """

    def __init__(self, models: list[str] | None = None, n: int | None = None):
        if models is not None and (isinstance(models, str) or not isinstance(models, list) or len(models) < 2
                                   or not all(isinstance(m, str) for m in models) or len(set(models)) != len(models)):
            raise ValueError(f"models must be a list of two or more distinct model names, got {models!r}")
        super().__init__(n)
        self.mix = None if models is None else list(models)

    def models(self, instance) -> list[str]:
        if self.mix is None:
            return list(instance.workload.models)
        for model in self.mix:
            instance.workload.pools.pool(model)  # an unknown model is named with the workload's models
        return list(self.mix)
