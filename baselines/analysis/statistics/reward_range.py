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
