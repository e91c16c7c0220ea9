"""Which rewards are bounded: a declared `reward_range`, or pass/fail rewards (all 0 or 1).

Why: a known range is what makes distribution-free intervals and the exact
tests possible; every route asks the same question, so it is answered here.
"""
from __future__ import annotations

import math

import numpy as np


def parse_reward_range(value, where: str = "reward_range") -> tuple[float, float] | None:
    """A declared `reward_range` ([lo, hi] from a suite workload or a record) as a tuple, or None.

    ValueError with one line naming `where` when it is not two finite numbers lo < hi.
    """
    if value is None:
        return None
    ok = isinstance(value, (list, tuple)) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    if not ok or not value[0] < value[1]:
        raise ValueError(f"{where}: reward_range must be [lo, hi], two finite numbers with lo < hi, got {value!r}")
    return (float(value[0]), float(value[1]))


def usable_range(values, declared) -> tuple[float, float] | None:
    """A group's declared range when it can back a distribution-free interval: lo < hi and every value inside.

    (A metric other than the reward, e.g. an AUC with a start value outside
    the range, may leave it; then the range says nothing about these values.)
    """
    if declared is None:
        return None
    try:
        lo, hi = float(declared[0]), float(declared[1])
    except (TypeError, ValueError, IndexError):
        return None
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi) or (v.size and (v.min() < lo or v.max() > hi)):
        return None
    return (lo, hi)


#: the range of rewards that are all 0 or 1 (pass/fail), when no range is declared
PASS_FAIL_RANGE = (0.0, 1.0)


def detect_range(xa, xb, reward_range=None) -> tuple[float, float] | None:
    """The reward range that makes distribution-free intervals possible, or None.

    A declared `reward_range` [lo, hi] wins (values outside it are an error);
    otherwise rewards that are all 0 or 1 are pass/fail and bounded by [0, 1].
    """
    values = np.concatenate((np.asarray(xa, dtype=float).ravel(), np.asarray(xb, dtype=float).ravel()))
    values = values[~np.isnan(values)]
    if reward_range is not None:
        lo, hi = (float(reward_range[0]), float(reward_range[1]))
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"reward_range must be two finite numbers lo < hi, got {list(reward_range)}")
        if values.size and (values.min() < lo or values.max() > hi):
            raise ValueError(f"rewards outside the declared reward_range [{lo:g}, {hi:g}] "
                             f"(min {values.min():g}, max {values.max():g}); fix the range or the rewards")
        return (lo, hi)
    if values.size and np.all((values == 0) | (values == 1)):
        return PASS_FAIL_RANGE
    return None


# -- targets and margins against the range ----------------------------------------------------------
def observed_span(rewards, traces=None) -> tuple[float, float] | None:
    """(min, max) of every score a group's runs reported: final rewards, and each trace's points by the field a
    target is read from (`reward` when every point has one, else `best`, as `compare --target` reads them)."""
    values = np.asarray(rewards, dtype=float)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (math.inf, -math.inf)
    for trace in traces or ():
        if not trace:
            continue
        key = "reward" if all("reward" in p for p in trace) else "best"
        for point in trace:
            y = point.get(key)
            if isinstance(y, (int, float)) and math.isfinite(y):
                lo, hi = min(lo, y), max(hi, y)
    return None if lo > hi else (lo, hi)


def check_target(target: float, declared, observed, where: str) -> str | None:
    """Why `--target` cannot tell arms apart in one group, or None; ValueError when it lies outside a declared range.

    Why: `--target -1e308` printed "Cost to reach reward -1e+308" with exit 0
    (issue 41). Outside a declared range the answer is known before any run
    (every run starts above it, or none can reach it): refused. Outside
    every score observed, no run reached it, or every run met it with its
    first score: the group's costs are not computed, and the returned words
    say why.
    """
    if declared is not None:
        lo, hi = float(declared[0]), float(declared[1])
        if not lo <= target <= hi:
            known = "every run meets it before spending anything" if target < lo else "no run can reach it"
            raise ValueError(f"--target {target:g} is outside the reward range [{lo:g}, {hi:g}] that {where} "
                             f"declares ({known}); give a target within [{lo:g}, {hi:g}]")
    if observed is None:
        return None
    lo, hi = observed
    if target > hi:
        return f"{where}: no run reached --target {target:g} (the best score observed is {hi:g})"
    if target < lo:
        return f"{where}: every run met --target {target:g} with its first score (the lowest observed is {lo:g})"
    return None


def check_margin(margin: float, bounded, values, name: str, where: str) -> str | None:
    """A note when `margin` is wider than every reward observed spans, or None; ValueError when it is at least
    the width of the group's reward range.

    Why: a margin of at least the range's width (hi - lo) is one no difference
    can exceed, so the verdict (PASS, or "equivalent") is decided before any
    data; without a range, a margin wider than the observed spread names a
    loss never seen, and the verdict says little about the arms.
    """
    if bounded is not None:
        lo, hi = float(bounded[0]), float(bounded[1])
        if margin >= hi - lo:
            raise ValueError(f"{name} {margin:g} is at least the width {hi - lo:g} of the reward range "
                             f"[{lo:g}, {hi:g}] of {where}: no difference can exceed it, so the verdict is "
                             f"decided before any data; give a {name} below {hi - lo:g}")
        return None
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return None
    spread = float(v.max() - v.min())
    if margin > spread:
        return (f"{name} {margin:g} is wider than every reward observed here spans ({spread:g}, from {v.min():g} "
                f"to {v.max():g}): a difference that large was never seen, so the verdict says little")
    return None
