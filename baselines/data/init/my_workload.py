"""A starter workload: find a hidden point, with a simulated model that proposes candidates.

Replace it with your own task. What costmatch needs from a workload class:

- `measures`: the units this workload's runs charge to the Meter. A measured
  unit that was never charged counts as 0; any unit not listed (and not
  reported by a model call) is "unreported", never 0.
- `instance(seed)`: the problem for one seed, identical for every arm, so
  per-seed differences between arms measure the arms and not the draw.
- `score(instance, choice)`: the held-out reward of the arm's final choice,
  on data the arm never saw (here: the exact distance, while arms only see
  noisy dev scores).
- `reward_range` (optional): the lowest and highest reward `score` can
  return; a reward outside it stops that arm's run at once.

Constructor keyword arguments are the suite's `params`.
"""
from __future__ import annotations

import math

import numpy as np


class HiddenPoint:
    """Get close to a hidden point in the unit cube; reward 1 at the point, 0 at the far corner."""

    # Wall time ("seconds") is always measured. A simulated call takes microseconds, so here the
    # report may flag seconds as a confound between arms: that is timer noise; with a real model
    # it is real spend.
    measures = ("calls", "prompt_tokens", "completion_tokens", "tokens", "rollouts", "seconds")
    score_trace = True  # scoring is cheap: the report's anytime curves use the held-out score
    reward_range = (0.0, 1.0)  # what score() can return: the gate and intervals use it (distribution-free bounds)

    def __init__(self, dimension: int = 3, dev_noise: float = 0.05):
        if dimension < 1:
            raise ValueError(f"dimension must be at least 1, got {dimension}")
        self.dimension, self.dev_noise = dimension, dev_noise

    def instance(self, seed: int) -> "Task":
        return Task(np.random.default_rng(seed).uniform(0, 1, self.dimension), self.dev_noise)

    def score(self, task: "Task", choice) -> float:
        return task.closeness(np.asarray(choice, dtype=float))


class Task:
    """One seed's problem. Arms see `propose` (a stand-in for a model) and `dev_score`, never `target`."""

    def __init__(self, target: np.ndarray, dev_noise: float):
        self.target, self.dev_noise = target, dev_noise

    def propose(self, rng: np.random.Generator, around=None, step: float = 0.0):
        """Ask the "model" for a candidate; returns (candidate, usage) like a chat API does.

        Usage is what a provider would report for the call; the arm charges
        exactly that to the Meter (spend is measured, never assumed).
        """
        if around is None:
            x = rng.uniform(0, 1, self.target.size)
        else:
            x = np.clip(np.asarray(around) + rng.normal(0, step, self.target.size), 0, 1)
        prompt = 120 + 8 * self.target.size + (0 if around is None else 40)  # a longer prompt with context
        completion = int(rng.lognormal(math.log(150), 0.5))  # heavy-tailed output lengths
        return x, {"prompt_tokens": prompt, "completion_tokens": completion}

    def dev_score(self, x: np.ndarray, rng: np.random.Generator) -> float:
        """A noisy evaluation on dev data (the arm charges one rollout for it)."""
        return self.closeness(x) + float(rng.normal(0, self.dev_noise))

    def closeness(self, x: np.ndarray) -> float:
        return 1.0 - float(np.linalg.norm(x - self.target)) / math.sqrt(self.target.size)
