"""What an arm and a workload are: the protocols, in one place, and the checks a suite runs.

Why in the core: the runner, the suite check and the Python API all rely on
them, and a protocol that nothing checks is a comment (a class without
``run`` used to pass the suite check and then fail every cell with
AttributeError). `check_arm`, `check_workload` and `incompatibility` are what
`baselines.running.suite` runs on every arm and workload before any cell starts.

An **arm** is constructed from the suite's ``params`` (keyword arguments) and has

- ``run(instance, meter, rng)``: spends the budget through the Meter, reports
  its current choice with ``meter.progress(best, choice=...)`` and returns the
  final choice or an `ArmOutput`;
- optionally ``workloads``: the workload kinds it can run on (e.g.
  ``("search-sim",)``); a pair outside it is refused before anything runs.

A **workload** is constructed from ``params`` too and has

- ``measures``: the units its instances charge (a measured unit never
  charged is a measured 0; any other unit is unreported);
- ``instance(seed)``: the same problem for every arm at that seed (common
  random numbers, so per-seed differences measure the arms);
- ``score(instance, choice)``: held-out reward of a final choice (None when it
  cannot be scored);
- optionally ``kind`` (a short name arms declare in ``workloads``);
  ``score_trace`` (set True when ``score`` is cheap: the runner then stores
  the held-out reward of the choice in force at each trace point, and
  anytime curves and rankings use it; without it they can only show the
  arm's own dev score, labelled so, which may exceed the table's reward);
  ``reward_range`` (``(low, high)``: written into every record, so reports
  never print a mean or interval end outside it); ``unit_nouns`` (unit ->
  words, e.g. ``{"calls": "function evaluations"}``); ``record_fields(instance)
  -> dict`` (extra top-level record fields for that seed, e.g. bbob's
  ``instance`` ``"f21-i1"`` that per-problem statistics key on); and
  ``accepts(arm) -> bool`` (the workload's own say on a pair).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .errors import InputError
from .meter import Meter


@dataclass
class ArmOutput:
    """What an arm returns: its final choice, and optionally alternatives.

    `alternatives` (e.g. every fork of a best-of-N arm) are scored on held-out
    data by the harness, not by the arm, and reported as `oracle_reward`: the
    best one could not have been picked without seeing the test split.
    """

    choice: Any
    alternatives: list[Any] = field(default_factory=list)


@runtime_checkable
class Arm(Protocol):
    """Implement ``run``; construct from the suite's ``params`` as keyword arguments."""

    def run(self, instance: Any, meter: Meter, rng: np.random.Generator) -> ArmOutput | Any:
        """Spend the budget on `instance`; return the choice (or an ArmOutput)."""


@runtime_checkable
class Workload(Protocol):
    """Construct from the suite's ``params`` as keyword arguments (see the module docstring)."""

    measures: tuple[str, ...]

    def instance(self, seed: int) -> Any:
        """The problem for this seed, identical for every arm."""

    def score(self, instance: Any, choice: Any) -> float | None:
        """Held-out reward of an arm's final choice (None when it cannot be scored)."""


def _callable(obj: Any, name: str) -> bool:
    return callable(getattr(obj, name, None))


def check_arm(arm: Any, where: str) -> None:
    """InputError unless `arm` follows the Arm protocol (a `run` method; `workloads` a list of names)."""
    if not _callable(arm, "run"):
        raise InputError(f"{where}: {type(arm).__name__} has no run(instance, meter, rng) method; "
                         "an arm must define run (see baselines/core/protocols.py)")
    kinds = getattr(arm, "workloads", None)
    if kinds is not None and (isinstance(kinds, str) or not all(isinstance(k, str) for k in kinds)):
        raise InputError(f"{where}: {type(arm).__name__}.workloads must be a tuple of workload kinds "
                         f"like ('search-sim',), got {kinds!r}")


def check_workload(workload: Any, where: str) -> None:
    """InputError unless `workload` follows the Workload protocol."""
    name = type(workload).__name__
    for method, signature in (("instance", "instance(seed)"), ("score", "score(instance, choice)")):
        if not _callable(workload, method):
            raise InputError(f"{where}: {name} has no {signature} method; a workload must define "
                             "measures, instance and score (see baselines/core/protocols.py)")
    measures = getattr(workload, "measures", None)
    if measures is None or isinstance(measures, str) or not all(isinstance(u, str) and u for u in measures):
        raise InputError(f"{where}: {name}.measures must be a tuple of unit names like ('calls', 'tokens'), "
                         f"got {measures!r}")
    kind = getattr(workload, "kind", None)
    if kind is not None and not (isinstance(kind, str) and kind):
        raise InputError(f"{where}: {name}.kind must be a non-empty string, got {kind!r}")
    low_high = getattr(workload, "reward_range", None)
    if low_high is not None:
        ok = isinstance(low_high, (tuple, list)) and len(low_high) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v) for v in low_high)
        if not ok or low_high[0] > low_high[1]:
            raise InputError(f"{where}: {name}.reward_range must be (low, high) with low <= high, got {low_high!r}")
    if hasattr(workload, "accepts") and not _callable(workload, "accepts"):
        raise InputError(f"{where}: {name}.accepts must be a method accepts(arm) -> bool")


def workload_kind(workload: Any) -> str | None:
    """The kind a workload declares (`kind`), or None when it declares none."""
    return getattr(workload, "kind", None)


def incompatibility(workload: Any, arm: Any) -> str | None:
    """Why this arm cannot run on this workload, or None when nothing says it cannot.

    Only declarations count: an arm without `workloads` and a workload without
    `kind` or `accepts` are taken as compatible.
    """
    kind = workload_kind(workload)
    kinds = getattr(arm, "workloads", None)
    if kind is not None and kinds is not None and kind not in kinds:
        return f"{type(arm).__name__} runs on {', '.join(kinds) or 'no workload'}, not on {kind}"
    if _callable(workload, "accepts"):
        verdict = workload.accepts(arm)
        if not isinstance(verdict, (bool, np.bool_)):
            return f"{type(workload).__name__}.accepts returned {verdict!r}, not True or False"
        if not verdict:
            return f"{type(workload).__name__}.accepts refuses {type(arm).__name__}"
    return None
