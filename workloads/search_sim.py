"""search-sim: LLM-guided evolutionary search, simulated and seeded.

The setting selection policies are built for: an LLM proposes edits to
candidate artifacts (prompts, programs), candidates are scored by rollouts
on a dev split, and a policy picks which candidate to expand next. What makes
it a cost-matching testbed is that cost is not uniform:

- Expanding a candidate costs ``calls_per_expansion`` model calls. Each
  call's prompt is ``base_prompt_tokens`` plus the candidate's size; its
  completion is drawn from a heavy-tailed (log-normal) reasoning-model
  distribution, so single calls of tens of thousands of tokens happen. The
  completion is capped by what the Meter says is left, so an arm cannot
  overshoot a token budget by a whole reasoning call.
- Children move from their parent's latent quality with diminishing returns
  near the ceiling, and grow (``growth``), so better candidates cost more
  to expand: a policy that matches rollouts can differ severalfold in tokens.
- Scoring a candidate costs ``rollouts_per_eval`` rollouts on a dev split
  of ``dev_size`` Bernoulli examples. ``reward`` is the chosen candidate's
  accuracy on a held-out test split of ``test_size`` examples no arm sees.

Defaults and where they come from: a published 20-round, 4-worker run of
this kind is about 80 rollouts and 160 model calls (2 calls and 1 rollout
per child) and millions of tokens on a reasoning model, i.e. ~10^4 tokens
per call: completion median 6,000 tokens with log-sigma 1.0 (mean ~9,900;
about 1 call in 100 exceeds 60,000) and prompts of 1,500 tokens plus an
artifact of ~2,000 tokens that grows ~8% per generation up to a 32,000-token
context. The quality dynamics (start 0.2-0.4, mean step 5% of the remaining
headroom, noise 0.05) were set once, before any policy was compared, so that
80 children leave headroom (policies can differ) without saturating at the
ceiling; they are not a claim about any real task and no arm was tuned on them.

Common random numbers: every random draw is keyed by (seed, what is drawn):
the k-th child of candidate c, the j-th dev evaluation of c, the test split
of c. Two arms that make the same choice see the same outcome, so per-seed
differences measure the policies, not the dice.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from baselines.core.meter import Meter


@dataclass
class Candidate:
    """What an arm may see of a candidate (never its latent quality)."""

    id: str
    parent: str | None
    depth: int
    size_tokens: int
    dev_correct: int = 0
    dev_total: int = 0
    children: int = 0
    _quality: float = field(default=0.0, repr=False)

    @property
    def dev_score(self) -> float:
        return self.dev_correct / self.dev_total if self.dev_total else 0.0


class SearchInstance:
    """One seed's search problem; arms act on it only through expand and evaluate."""

    def __init__(self, sim: "SearchSim", seed: int, prefix: str = "",
                 registry: dict[str, Candidate] | None = None):
        self.sim, self.seed, self.prefix = sim, seed, prefix
        self.candidates: dict[str, Candidate] = {}
        # Every candidate of this seed, forks included, so the harness can score any of them.
        self.registry: dict[str, Candidate] = {} if registry is None else registry
        rng = self._rng("init")
        for i in range(sim.population):
            c = Candidate(f"c{i}", None, 0, int(sim.initial_size_tokens * rng.uniform(0.8, 1.2)),
                          _quality=float(rng.uniform(*sim.initial_quality)))
            self.candidates[c.id] = c
            self.registry.setdefault(c.id, c)
            self._dev_eval(c)  # the starting population's first score is given, not charged

    def _rng(self, *key: object) -> np.random.Generator:
        return np.random.default_rng([self.seed, zlib.crc32("/".join(map(str, key)).encode())])

    # -- what arms call -------------------------------------------------------------
    @property
    def population(self) -> list[Candidate]:
        return list(self.candidates.values())

    def expansion_prompt_tokens(self, cand_id: str) -> int:
        """The prompt size of one expansion call of this candidate (what a cost-aware policy sees)."""
        return self.sim.base_prompt_tokens + self.candidates[cand_id].size_tokens

    def expand(self, cand_id: str, meter: Meter) -> Candidate:
        """Propose a child of `cand_id` (model calls), then score it on dev (rollouts)."""
        parent = self.candidates[cand_id]
        k = parent.children
        rng = self._rng("child", self.prefix, cand_id, k)
        # Nothing is spent on an expansion the budget cannot pay for whole (its calls and its dev evaluation).
        meter.check(calls=self.sim.calls_per_expansion, rollouts=self.sim.rollouts_per_eval)
        for call in range(self.sim.calls_per_expansion):
            wanted = int(rng.lognormal(math.log(self.sim.completion_median_tokens), self.sim.completion_sigma))
            self._call(meter, self.expansion_prompt_tokens(cand_id), wanted)
        parent.children += 1
        q = parent._quality
        step = rng.normal(self.sim.step_mean * (1.0 - q), self.sim.step_noise)
        own = cand_id if cand_id.startswith(self.prefix) else self.prefix + cand_id  # a fork's own line
        child = Candidate(f"{own}.{k}", cand_id, parent.depth + 1,
                          min(self.sim.max_size_tokens,
                              int(parent.size_tokens * rng.lognormal(math.log(1 + self.sim.growth), 0.05))),
                          _quality=float(np.clip(q + step, 0.0, self.sim.ceiling)))
        self.candidates[child.id] = child
        self.registry[child.id] = child
        self.evaluate(child.id, meter)
        return child

    def verify(self, cand_id: str, meter: Meter) -> float:
        """A verifier's second look at `cand_id`: one model call reading it, then one more dev evaluation.

        What an arm buys with it is a less noisy dev score before it commits
        to a candidate (greedy's winner's curse). The call reads the candidate
        (the expansion prompt) and writes a verdict, not an edit: its
        completion is drawn like an expansion's at a quarter of the median.
        The draw is keyed by the candidate and its dev evaluations so far, so
        two arms verifying the same candidate in the same state pay the same.
        """
        c = self.candidates[cand_id]
        meter.check(calls=1, rollouts=self.sim.rollouts_per_eval)   # nothing spent on a look it cannot finish
        rng = self._rng("verify", c.id, c.dev_total)
        wanted = int(rng.lognormal(math.log(max(1, self.sim.completion_median_tokens // 4)),
                                   self.sim.completion_sigma))
        self._call(meter, self.expansion_prompt_tokens(cand_id), wanted)
        return self.evaluate(cand_id, meter)

    def evaluate(self, cand_id: str, meter: Meter) -> float:
        """Score `cand_id` once more on the dev split; returns its updated dev score."""
        c = self.candidates[cand_id]
        meter.rollouts(self.sim.rollouts_per_eval)
        self._dev_eval(c)
        return c.dev_score

    def fork(self, k: int) -> "SearchInstance":
        """An independent copy of the starting state for sub-run `k` (best-of-N).

        It starts from the same population and scores, and its children are
        drawn from streams of its own, so forks explore independently.
        """
        return SearchInstance(self.sim, self.seed, prefix=f"f{k}~", registry=self.registry)

    def best_by_dev(self) -> Candidate:
        """Highest dev score; ties go to the earlier candidate (deterministic)."""
        return max(self.candidates.values(), key=lambda c: (c.dev_score, -len(c.id), c.id))

    # -- internals ----------------------------------------------------------------------
    @staticmethod
    def _call(meter: Meter, prompt: int, wanted: int) -> None:
        """Charge one model call, its completion capped by what the Meter says is left (never below 1 token).

        The Meter is asked first: a budget of N calls makes N calls, never N + 1.
        """
        meter.check()
        completion = int(max(0, min(wanted, meter.token_allowance() - (
            prompt if meter.remaining("tokens") < math.inf else 0))))
        meter.call(prompt_tokens=prompt, completion_tokens=max(completion, 1))

    def _dev_eval(self, c: Candidate) -> None:
        j = c.dev_total // self.sim.dev_size
        correct = int(self._rng("dev", c.id, j).binomial(self.sim.dev_size, c._quality))
        c.dev_correct += correct
        c.dev_total += self.sim.dev_size

    def test_score(self, cand_id: str) -> float:
        c = self.registry[cand_id]
        return int(self._rng("test", c.id).binomial(self.sim.test_size, c._quality)) / self.sim.test_size


class SearchSim:
    """A simulated LLM search task: candidates grow longer (and costlier to expand) as they improve; scored on held-out items.

    `instance(seed)` builds the population; `score` is accuracy on `test_size` held-out items. The
    parameters (listed by `costmatch list`) set the population, the token cost of a call and its growth,
    the dev and test sizes, and the step size of improvement.
    """

    kind = "search-sim"
    reward_range = (0.0, 1.0)  # held-out accuracy on `test_size` items
    measures = ("calls", "seconds", "rollouts", "prompt_tokens", "completion_tokens", "tokens")
    score_trace = True  # held-out scoring is cheap here: anytime curves use what would have shipped

    def __init__(self, population: int = 4, initial_size_tokens: int = 2000,
                 initial_quality: tuple[float, float] = (0.2, 0.4), base_prompt_tokens: int = 1500,
                 completion_median_tokens: int = 6000, completion_sigma: float = 1.0,
                 calls_per_expansion: int = 2, rollouts_per_eval: int = 1, dev_size: int = 20,
                 test_size: int = 500, step_mean: float = 0.05, step_noise: float = 0.05,
                 growth: float = 0.08, max_size_tokens: int = 32000, ceiling: float = 0.98):
        if population < 1 or calls_per_expansion < 1 or rollouts_per_eval < 1 or dev_size < 1 or test_size < 1:
            raise ValueError("population, calls_per_expansion, rollouts_per_eval, dev_size and test_size must be >= 1")
        lo, hi = initial_quality
        if not 0 <= lo <= hi <= 1:
            raise ValueError(f"initial_quality must be a range inside [0, 1], got {initial_quality!r}")
        self.population, self.initial_size_tokens, self.initial_quality = population, initial_size_tokens, (lo, hi)
        self.base_prompt_tokens, self.completion_median_tokens = base_prompt_tokens, completion_median_tokens
        self.completion_sigma, self.calls_per_expansion = completion_sigma, calls_per_expansion
        self.rollouts_per_eval, self.dev_size, self.test_size = rollouts_per_eval, dev_size, test_size
        self.step_mean, self.step_noise, self.growth, self.ceiling = step_mean, step_noise, growth, ceiling
        self.max_size_tokens = max_size_tokens

    def instance(self, seed: int) -> SearchInstance:
        return SearchInstance(self, seed)

    def score(self, instance: SearchInstance, choice: str) -> float:
        return instance.test_score(choice)
