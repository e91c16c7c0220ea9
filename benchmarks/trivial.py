"""A trivial workload and arms for the runner benchmarks (harness overhead, parallel speed-up)."""
from __future__ import annotations


class Trivial:
    measures = ("calls", "seconds")

    def __init__(self, spin: int = 0):
        self.spin = spin

    def instance(self, seed: int) -> int:
        return seed

    def score(self, instance: int, choice: float) -> float:
        return float(choice)


def work(seed: int, spin: int) -> float:
    """The cell's computation, also called directly by the bare-joblib baseline."""
    x = 0
    for i in range(spin):
        x += (i * seed) % 7
    return float(x % 10) / 10


class Once:
    """One call, then the cell's work, then return."""

    def __init__(self, spin: int = 0):
        self.spin = spin

    def run(self, instance, meter, rng):
        meter.call()
        return work(instance, self.spin)
