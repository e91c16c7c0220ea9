"""Selection policies for search-sim: which candidate to expand next.

Each policy is a small class with one method, ``select``; the loop that
expands, reports progress and stops on the budget is shared in
`SelectionPolicy.run`, so policies differ only in what they choose. Users
subclass `SelectionPolicy` (or any policy here) and override ``select``.

The final choice is always the candidate with the best dev score: what a
user could ship without looking at the test split.
"""
from __future__ import annotations

import math

import numpy as np

from baselines.core.meter import BudgetExhausted, Meter

from .base import ArmOutput


class SelectionPolicy:
    """Expand the candidate ``select`` names until the Meter stops the run."""

    workloads = ("search-sim",)

    def select(self, instance, rng: np.random.Generator, meter: Meter) -> str:
        raise NotImplementedError

    def run(self, instance, meter: Meter, rng: np.random.Generator):
        best = instance.best_by_dev()
        meter.progress(best.dev_score, choice=best.id)
        while True:
            instance.expand(self.select(instance, rng, meter), meter)
            best = instance.best_by_dev()
            meter.progress(best.dev_score, choice=best.id)


def _argmax(values, ids, rng=None) -> str:
    """Index of the largest value; exact ties go to the earliest candidate (deterministic)."""
    return ids[int(np.argmax(values))]


def _budget_fraction_left(meter: Meter) -> float:
    """Fraction of the most-used budgeted unit still left (1.0 without a budget)."""
    if meter.budget is None:
        return 1.0
    fractions = [meter.remaining(u) / meter.budget[u] for u in meter.budget.units if meter.budget[u] > 0]
    return max(0.0, min(fractions)) if fractions else 1.0


class Greedy(SelectionPolicy):
    """Always expand the best candidate on dev."""

    def select(self, instance, rng, meter):
        return instance.best_by_dev().id


class UniformRandom(SelectionPolicy):
    """Expand a candidate drawn uniformly: the floor any policy should beat."""

    def select(self, instance, rng, meter):
        pop = instance.population
        return pop[int(rng.integers(len(pop)))].id


class UCB1(SelectionPolicy):
    """dev score + c * sqrt(ln N / n), with n the times a candidate was expanded (plus one)."""

    def __init__(self, c: float = 0.5):
        self.c = c

    def select(self, instance, rng, meter):
        pop = instance.population
        total = sum(c.children + 1 for c in pop)
        values = [c.dev_score + self.c * math.sqrt(math.log(total) / (c.children + 1)) for c in pop]
        return _argmax(values, [c.id for c in pop])


class PUCT(SelectionPolicy):
    """Flat PUCT: Q + c * P * sqrt(N) / (1 + n), uniform prior P over the population.

    ``cost_exponent`` (alpha) > 0 turns it into cost-efficient PUCT (below);
    alpha = 0 is exactly this rule, which the tests check on the same seed.
    """

    def __init__(self, c: float = 1.0, cost_exponent: float = 0.0):
        if cost_exponent < 0:
            raise ValueError(f"cost_exponent must be >= 0, got {cost_exponent}")
        self.c, self.alpha = c, cost_exponent

    def exploration_scale(self, instance, meter, pop) -> list[float]:
        return [1.0] * len(pop)

    def select(self, instance, rng, meter):
        pop = instance.population
        total = sum(c.children for c in pop) + 1
        prior = 1.0 / len(pop)
        scale = self.exploration_scale(instance, meter, pop)
        values = [c.dev_score + self.c * prior * math.sqrt(total) / (1 + c.children) * s
                  for c, s in zip(pop, scale)]
        return _argmax(values, [c.id for c in pop])


class CostEfficientPUCT(PUCT):
    """PUCT whose exploration term is divided by cost^alpha and annealed by budget left.

    exploration * (remaining_fraction / relative_cost) ** alpha, where
    relative_cost is a candidate's expansion prompt size over the population
    mean: expensive candidates are explored less, and exploration fades as the
    budget runs out. With alpha = 0 the factor is 1: flat PUCT exactly.
    """

    def __init__(self, c: float = 1.0, cost_exponent: float = 1.0):
        super().__init__(c, cost_exponent)

    def exploration_scale(self, instance, meter, pop):
        if self.alpha == 0:
            return [1.0] * len(pop)
        costs = np.array([instance.expansion_prompt_tokens(c.id) for c in pop], dtype=float)
        relative = costs / costs.mean()
        left = _budget_fraction_left(meter)
        return list((left / relative) ** self.alpha)


class Thompson(SelectionPolicy):
    """Sample each candidate's accuracy from Beta(1 + correct, 1 + wrong) on dev; expand the best draw."""

    def select(self, instance, rng, meter):
        pop = instance.population
        draws = [rng.beta(1 + c.dev_correct, 1 + c.dev_total - c.dev_correct) for c in pop]
        return _argmax(draws, [c.id for c in pop])


class BestOfNFork(SelectionPolicy):
    """N independent greedy runs on a 1/N share of the budget each.

    Reports the fork selected on dev as the choice (what can ship) and every
    fork's pick as an alternative, so the harness also records the best fork
    on test as `oracle_reward` (which cannot ship: it looked at the test split).
    """

    def __init__(self, n: int = 3):
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        self.n = n

    def run(self, instance, meter: Meter, rng):
        shares = meter.budget.split(self.n) if meter.budget is not None else [None] * self.n
        forks = [instance.fork(k) for k in range(self.n)]
        picks = []
        for k, (fork, share) in enumerate(zip(forks, shares)):
            sub = meter.sub(share) if share is not None else meter
            whole_budget_spent = False
            try:
                Greedy().run(fork, sub, rng)
            except BudgetExhausted:
                whole_budget_spent = meter.exhausted is not None  # the run's budget, not this fork's share
            picks.append(fork.best_by_dev())
            best = max(picks, key=lambda c: c.dev_score)
            meter.progress(best.dev_score, choice=best.id)  # before stopping too: the trace ends at the final choice
            if whole_budget_spent:
                break
        best = max(picks, key=lambda c: c.dev_score)
        return ArmOutput(best.id, alternatives=[c.id for c in picks])
