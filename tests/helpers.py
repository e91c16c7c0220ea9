"""Arms and a workload for runner tests: tiny, deterministic, and some misbehave on purpose."""
from __future__ import annotations

import os
import time

import numpy as np

from arms.base import ArmOutput


class Toy:
    """Instance: a target drawn from the seed. Each rollout returns a noisy guess score."""

    measures = ("calls", "seconds", "rollouts")

    def __init__(self, work: int = 0):
        self.work = work

    def instance(self, seed):
        rng = np.random.default_rng(seed)
        return {"target": float(rng.uniform(0, 1)), "seed": seed}

    def score(self, instance, choice):
        return 1.0 - abs(choice - instance["target"])


class Guess:
    """Guesses uniformly each rollout; keeps the best. `spin` burns CPU per rollout."""

    def __init__(self, spin: int = 0, sleep: float = 0.0):
        self.spin, self.sleep = spin, sleep

    def run(self, instance, meter, rng):
        best = -1.0
        while True:
            guess = float(rng.uniform(0, 1))
            if self.spin:
                x = 0
                for i in range(self.spin):
                    x += i * i
            if self.sleep:
                time.sleep(self.sleep)
            meter.rollouts(1)
            score = 1.0 - abs(guess - instance["target"])
            if score > best:
                best = score
                meter.progress(best, choice=guess)


class Crash:
    def run(self, instance, meter, rng):
        meter.rollouts(1)
        raise RuntimeError("arm exploded on purpose")


class Hang:
    def run(self, instance, meter, rng):
        while True:
            time.sleep(0.05)


class Once:
    """Returns after one rollout: stops on its own, below the budget."""

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        return ArmOutput(0.5, alternatives=[0.5, 0.1, 0.9])


class CrashInSeedTwo:
    """Crashes only when a file named by COSTMATCH_TEST_FLAG exists (for retry tests)."""

    def run(self, instance, meter, rng):
        if instance["seed"] == 2 and os.path.exists(os.environ.get("COSTMATCH_TEST_FLAG", "/nonexistent")):
            raise RuntimeError("flaky")
        meter.rollouts(1)
        return 0.5


class SubmitRecorder:
    """A fake engine's bookkeeping for scheduling tests: two slots; each submitted batch is recorded and its
    index is its handle. Subclasses set `self.submitted = []` and say how batches finish."""

    submitted: list

    def slots(self):
        return 2

    def submit(self, cells):
        self.submitted.append(list(cells))
        return len(self.submitted) - 1


class RangedToy(Toy):
    """Toy with the declarations a record carries (`reward_range`, `unit_nouns`): what a parent-written record
    must carry too."""

    reward_range = (0.0, 1.0)
    unit_nouns = {"rollouts": "noisy guesses"}


def group_analysis(group, records=(), metric: str = "reward"):
    """The `GroupAnalysis` of one compare-step group and its records: what a figure or table renders."""
    from baselines.analysis.compare.comparison import Comparison
    from baselines.analysis.result.build import analyse

    return analyse(Comparison(group.fixed or None, 0.1, [group], metric=metric), list(records)).groups[0]


def sweep_plot(comparison, workload: str, style, width: str = "single"):
    """The budget-sweep figure of `workload` in a comparison (None when it ran at fewer than two budgets)."""
    from reports import plots

    sweep = next((s for s in comparison.analysis().sweeps if s.workload == workload), None)
    return None if sweep is None else plots.budget_sweep_plot(sweep, comparison.metric, style, width)


def chrome_driver(profile_prefix: str):
    """A headless Chromium WebDriver for the browser tests (a generator for a fixture to yield from).

    Skips, with the install line, when Debian's chromium and chromium-driver or selenium are missing; the
    background-networking flags keep Chromium off this machine's closed network."""
    import shutil
    import tempfile

    import pytest

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not (browser and chromedriver):
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (the test extra)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = browser
    profile = tempfile.mkdtemp(prefix=profile_prefix)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--no-first-run", "--disable-sync", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
