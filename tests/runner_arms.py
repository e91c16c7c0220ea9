"""Arms that misbehave at the process level, for the execution-layer tests."""
from __future__ import annotations

import os
import signal
import time


class KillWorker:
    """Ends its own process (as a segfault or an OOM kill would), every time."""

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        os._exit(13)


class KillOnce:
    """Ends its process the first time a seed runs (a marker file per seed), then behaves."""

    def __init__(self, marker_dir: str = ""):
        self.marker_dir = marker_dir

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        marker = os.path.join(self.marker_dir, f"killed-{instance['seed']}")
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(13)
        return 0.25


class SleepAfterCharge:
    """Charges once, reports a choice, then sleeps past any small time limit and returns."""

    def __init__(self, sleep: float = 2.0):
        self.sleep = sleep

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        meter.progress(0.5, choice=0.5)
        time.sleep(self.sleep)
        return 0.5


class SpinForever:
    """A pure-Python loop that never charges and never returns."""

    def run(self, instance, meter, rng):
        x = 0
        while True:
            x += 1


class StuckInC:
    """Blocks in one long C call (as a socket read without a timeout would): a thread cannot be interrupted."""

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        time.sleep(600)
        return 0.5


class KillOnSeed:
    """SIGKILLs its own process on one seed (as the kernel's OOM killer would); a quick, good cell on the others."""

    def __init__(self, seed: int = 2):
        self.seed = seed

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        if instance["seed"] == self.seed:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.05)
        return 0.5


class SleepOnSeed:
    """Blocks in one long C call (`time.sleep`) on one seed, far past any small time limit; quick on the others."""

    def __init__(self, seed: int = 1, sleep: float = 30.0):
        self.seed, self.sleep = seed, sleep

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        time.sleep(self.sleep if instance["seed"] == self.seed else 0.05)
        return 0.5


class KillSelf:
    """SIGKILLs its own process (as the kernel's OOM killer would), every time."""

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        os.kill(os.getpid(), signal.SIGKILL)


HOLD_VARIABLE = "COSTMATCH_TEST_HOLD"


class HeldFromSeed:
    """From seed `start` on, never returns while COSTMATCH_TEST_HOLD is set (in a run a test kills); else quick.

    Why: a test that kills a run "mid-run" then knows the run cannot have finished first, however late
    the kill lands on a loaded machine; the resume, without the variable, runs these cells as usual.
    """

    def __init__(self, start: int = 2):
        self.start = start

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        while os.environ.get(HOLD_VARIABLE) and instance["seed"] >= self.start:
            time.sleep(0.05)
        return 0.5
