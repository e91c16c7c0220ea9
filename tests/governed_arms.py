"""Governed arms for the governor tests: each ends a run in one of the three stop kinds."""
from __future__ import annotations


class Overrun:
    """Holds a governor, drops its stage, but ignores the projection: the budget cuts it (stop kind budget)."""

    def run(self, instance, meter, rng):
        gov = meter.governor(soft=0.5, hard=0.8)
        while True:
            meter.rollouts(1)
            if gov.allow("verify"):
                meter.rollouts(1)
            meter.progress(0.5, choice=0.5)
            gov.round_done()


class Rounds:
    """Rounds of 2 rollouts (3 with verification) until the projection says stop, or `stop_after` rounds."""

    def __init__(self, stop_after: int = 0):
        self.stop_after = stop_after

    def run(self, instance, meter, rng):
        gov = meter.governor()
        done = 0
        while gov.fits():
            meter.rollouts(2)
            if gov.allow("verify"):
                meter.rollouts(1)
            done += 1
            meter.progress(done / 100, choice=0.5)
            gov.round_done()
            if done == self.stop_after:
                break
        return 0.5
