"""A workload and an arm for the gate-history tests: a level the test moves per commit, with seeded noise."""
from __future__ import annotations

import numpy as np


class Level:
    """Instance: the seed's own difficulty (common to every arm: common random numbers)."""

    measures = ("calls", "rollouts")

    def instance(self, seed):
        return {"seed": seed, "base": float(np.random.default_rng([seed, 7]).uniform(0.3, 0.6))}

    def score(self, instance, choice):
        return float(choice)


class Shifted:
    """One rollout; reward = the seed's difficulty + `shift` + noise drawn from (seed, `salt`), sd `sd`."""

    def __init__(self, shift: float = 0.0, salt: int = 0, sd: float = 0.02):
        self.shift, self.salt, self.sd = shift, salt, sd

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        noise = float(np.random.default_rng([instance["seed"], self.salt, 11]).normal(0.0, self.sd))
        return instance["base"] + self.shift + noise
