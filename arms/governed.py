"""Greedy search with a ranking sweep and a verification step, governed or cut off by the budget.

Why this arm: greedy expansion commits to whichever candidate had a lucky
dev draw (the winner's curse); paying a verifier for a second look at each
new leader, and a ranking sweep over the runner-up, buys a truer dev score.
Both are optional work. Run ungoverned, the arm does them to the end and is
cut mid-round by the budget; governed (`governed = true`), it drops the
sweep at the soft floor, the verification at the hard floor, and starts no
round the costliest round so far says it cannot finish. The two variants at
equal budget answer "does degrading beat being cut off?", and the governed
one's records say what it dropped and when (docs/governor.md).
"""
from __future__ import annotations

import numpy as np

from baselines.core.meter import Meter

from .selection import SelectionPolicy


class VerifiedGreedy(SelectionPolicy):
    """Expand the best candidate on dev; verify a child that takes the lead; sweep the runner-up.

    `governed`: hold ``meter.governor(soft, hard)`` (rank stops at `soft`,
    verify at `hard`, no round started that cannot finish). `patience`: stop
    on its own (converged) after that many rounds without a better dev
    leader; None runs until the budget or the governor ends it.
    """

    def __init__(self, governed: bool = False, soft: float = 0.75, hard: float = 0.90,
                 patience: int | None = None):
        if patience is not None and patience < 1:
            raise ValueError(f"patience must be >= 1 or None, got {patience}")
        self.governed, self.soft, self.hard, self.patience = governed, soft, hard, patience

    def select(self, instance, rng: np.random.Generator, meter: Meter) -> str:
        return instance.best_by_dev().id

    def run(self, instance, meter: Meter, rng: np.random.Generator):
        gov = meter.governor(self.soft, self.hard) if self.governed else None
        best = instance.best_by_dev()
        meter.progress(best.dev_score, choice=best.id)
        stale = 0
        while gov is None or gov.fits():
            leader = best
            child = instance.expand(self.select(instance, rng, meter), meter)
            if instance.best_by_dev().id == child.id and (gov is None or gov.allow("verify")):
                instance.verify(child.id, meter)
            runner_up = _runner_up(instance)
            if runner_up is not None and (gov is None or gov.allow("rank")):
                instance.verify(runner_up, meter)
            best = instance.best_by_dev()
            meter.progress(best.dev_score, choice=best.id)
            if gov is not None:
                gov.round_done()
            stale = 0 if best.dev_score > leader.dev_score else stale + 1
            if self.patience is not None and stale >= self.patience:
                return best.id
        return best.id


def _runner_up(instance) -> str | None:
    """The second-best candidate on dev (what a ranking sweep looks at again), None with one candidate."""
    ranked = sorted(instance.population, key=lambda c: (c.dev_score, -len(c.id), c.id), reverse=True)
    return ranked[1].id if len(ranked) > 1 else None
