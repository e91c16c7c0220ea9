"""bbob: real benchmark functions (COCO's BBOB suite through `coco-experiment`).

Why cocoex and not ioh: cocoex is the reference implementation of BBOB and
its ``BareProblem`` evaluates one function instance with its known optimum
(`best_value`) and no observer, which sidesteps cocoex's process exit when a
second *observed* problem is opened before the first is freed. Both install
offline from PyPI; cocoex ships no optimizer-specific glue we would have to
work around.

The budget is in ``calls`` = function evaluations, and it is enforced by
costmatch's own counting wrapper, not by the optimizers' options: CMA-ES
spends 504-505 evaluations of 500, scipy's differential evolution has no
evaluation cap and Nelder-Mead stops early, so the record carries what was
actually spent. The wrapper follows costmatch's budget rule (see
`baselines.meter`): it asks ``meter.check()`` *before* every evaluation and
charges the call after it, so a budget of N evaluations gives the optimizer
exactly N function values and no arm can ever exceed its call budget. The workload
measures calls and seconds only (`measures`); tokens, dollars and rollouts are
not units here, so by the contract (a unit missing or null is unreported) they
are unreported and show as "—" (never 0). A comparison of a file that also
holds search-sim runs lists rollouts among bbob's unreported units for that
reason: true, and not a meter fault.

Reward: digits of precision of the chosen point,
``clip(-log10(f(x) - f_opt), -3, 8)``: 8 means within 1e-8 of the optimum
(COCO's final target), 0 means within 1, -3 means 1000 or more away.
Seed s runs function ``functions[s % len(functions)]``, instance
``1 + s // len(functions)``, in ``dimension`` dimensions, the same for every arm.

Every record names its problem: the top-level field ``instance`` is
``f{function}-i{instance}`` (e.g. ``f21-i1``), because each seed is a
different function and statistics pooled across functions (an ERT over f1
and f21 together) answer no question COCO would ask; per-instance analysis
keys on this field. The field ``unit_nouns`` says a call here is a
"function evaluation", so no caption calls it a model call.
"""
from __future__ import annotations

import math

import numpy as np

from baselines.core.meter import Meter

PRECISION_RANGE = (-3.0, 8.0)


def precision(f: float, f_opt: float) -> float:
    gap = max(f - f_opt, 1e-8)
    return float(np.clip(-math.log10(gap), *PRECISION_RANGE))


class BBOBInstance:
    def __init__(self, function: int, instance: int, dimension: int):
        import cocoex  # start-up: only when a bbob instance is made

        self.problem = cocoex.BareProblem("bbob", function, dimension, instance)
        self.function, self.instance_id, self.dimension = function, instance, dimension
        self.f_opt = float(self.problem.best_value())
        self.lower = np.full(dimension, -5.0)
        self.upper = np.full(dimension, 5.0)

    @property
    def key(self) -> str:
        """The problem's name in records: function and instance, e.g. ``f21-i1``."""
        return f"f{self.function}-i{self.instance_id}"

    def objective(self, meter: Meter) -> "CountedFunction":
        """The function an optimizer may call; every call is charged, none beyond the budget."""
        return CountedFunction(self, meter)

    def value(self, x) -> float:
        return float(self.problem(np.asarray(x, dtype=float)))


class CountedFunction:
    """Hard-capped objective: checks the Meter before evaluating, charges one call after.

    The best point seen is reported to the Meter as the arm's choice, so the
    harness scores the best evaluated point even when the budget stops the
    optimizer in the middle of a generation.
    """

    def __init__(self, inst: BBOBInstance, meter: Meter):
        self.inst, self.meter = inst, meter
        self.best_f = math.inf
        self.best_x: np.ndarray | None = None

    def __call__(self, x) -> float:
        self.meter.check()  # raises BudgetExhausted once N evaluations are spent: never one more
        x = np.array(x, dtype=float)
        f = self.inst.value(x)
        improved = f < self.best_f
        if improved:
            self.best_f, self.best_x = f, x
        try:
            self.meter.call()
        finally:
            if improved:
                self.meter.progress(precision(f, self.inst.f_opt), choice=x)
        return f


class BBOB:
    """The workload. ``functions`` are BBOB function numbers 1-24."""

    kind = "bbob"
    measures = ("calls", "seconds")
    score_trace = True  # a function evaluation outside the budget: anytime curves use true precision
    #: What this workload's units count, in prose (records carry it as `unit_nouns`).
    unit_nouns = {"calls": "function evaluations"}
    #: Every reward lies here (the clip of `precision`): tables and figures stay inside it.
    reward_range = PRECISION_RANGE
    #: What the reward is, for axis labels (records carry it as `reward_name`).
    reward_name = "digits of precision"

    def __init__(self, functions: list[int] = (1, 8, 10, 15, 21), dimension: int = 5):
        functions = list(functions)
        if not functions or any(not (1 <= f <= 24) for f in functions):
            raise ValueError(f"functions must be BBOB function numbers 1-24, got {functions!r}")
        if dimension not in (2, 3, 5, 10, 20, 40):
            raise ValueError(f"dimension must be one of 2, 3, 5, 10, 20, 40, got {dimension!r}")
        self.functions, self.dimension = functions, dimension

    def instance(self, seed: int) -> BBOBInstance:
        n = len(self.functions)
        return BBOBInstance(self.functions[seed % n], 1 + seed // n, self.dimension)

    def score(self, instance: BBOBInstance, choice) -> float:
        return precision(instance.value(choice), instance.f_opt)

    def record_fields(self, instance: BBOBInstance) -> dict:
        """Top-level fields for this seed's record: the problem it ran and what a call is."""
        return {"instance": instance.key, "unit_nouns": dict(self.unit_nouns), "reward_name": self.reward_name}
