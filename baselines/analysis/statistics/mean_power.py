"""The mean claim's "would likely be missed" figure, from the procedure that decides it (issue 37, item 3).

Why: the note printed the paired t test's 80% point, but the mean verdict also
needs the exact sign-flip test and the printed interval (the t + bootstrap-t
hull on unbounded rewards, the betting interval on bounded ones), so at the
printed difference the pair was decided in .71 (n = 10) and .77 (n = 20) of
normal data sets and in .000 of bounded ones.

- Unbounded rewards: `normal_factor` reads a table simulated by
  `benchmarks/mean_power.py` (the verdict's own three conditions on normal
  per-seed differences with the pair's sd; shipped because the simulation
  takes minutes). Between simulated n it interpolates, between levels in
  log level; beyond n = 50, or for an alpha other than 0.05, it falls back to
  the noncentral-t figure and says so (`source`).
- Bounded rewards: the betting interval decides nothing below a difference
  that depends on n and the range, whatever the spread: `bounded_floor` is
  the smallest difference at which even seeds that all differ by exactly
  that much are decided. None: no difference inside the reward range is.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .betting import diff_bounds
from .mean_power_table import FACTORS, INTERVAL_ALPHA, LEVELS
from .sign_flip import min_exact_p
from .student_t import mde_factor

SIMULATED = "simulated: t, sign-flip and interval together, on normal differences with this sd"
T_FALLBACK = "noncentral t (outside the simulated table)"


def _at_n(n: int) -> tuple | None:
    if n in FACTORS:
        return FACTORS[n]
    ns = sorted(FACTORS)
    if n < ns[0] or n > ns[-1]:
        return None
    lo = max(k for k in ns if k < n)
    hi = min(k for k in ns if k > n)
    w = (n - lo) / (hi - lo)
    return tuple(None if a is None or b is None else a + w * (b - a) for a, b in zip(FACTORS[lo], FACTORS[hi]))


def normal_factor(n: int, level: float, alpha: float = 0.05) -> tuple[float | None, str]:
    """(delta / sd decided in 0.8 of normal data sets at Holm level `level`, where the figure comes from).

    None: the verdict is not decided in 0.8 of data sets at any difference up to 6 sd at this n and level.
    """
    row = _at_n(n)
    if row is None or not math.isclose(alpha, INTERVAL_ALPHA) or level > LEVELS[0] * (1 + 1e-9):
        return mde_factor(n, level), T_FALLBACK
    if level < LEVELS[-1]:
        return (None, SIMULATED) if row[-1] is None else (mde_factor(n, level), T_FALLBACK)
    for i in range(len(LEVELS) - 1):
        hi_l, lo_l = LEVELS[i], LEVELS[i + 1]
        if lo_l <= level <= hi_l:
            a, b = row[i], row[i + 1]
            if math.isclose(level, hi_l):
                return a, SIMULATED
            if a is None:
                return None, SIMULATED
            if b is None:
                # the lower column is beyond the sign-flip test's reach at this n; between the two, its lattice
                # of p-values reaches the same seeds as at hi_l, so the t part alone moves the figure
                if min_exact_p(n) >= level:
                    return None, SIMULATED
                return a * mde_factor(n, level) / mde_factor(n, hi_l), SIMULATED + " (t-adjusted between levels)"
            if math.isclose(level, lo_l):
                return b, SIMULATED
            w = (math.log(hi_l) - math.log(level)) / (math.log(hi_l) - math.log(lo_l))
            return a + w * (b - a), SIMULATED
    return row[0], SIMULATED


@lru_cache(maxsize=512)
def bounded_floor(n: int, level: float, alpha: float, lo: float, hi: float) -> float | None:
    """Smallest d at which n seeds all differing by exactly d are decided (betting interval at 1 - alpha
    excludes 0, exact sign-flip p = 2 / 2^n below `level`); None when no d inside the reward range is."""
    width = hi - lo
    if n < 2 or min_exact_p(n) >= level or width <= 0:
        return None

    def decided(d: float) -> bool:
        return diff_bounds(np.full(n, d), alpha / 2, (lo, hi))[0] > 0

    if not decided(width):
        return None
    a, b = 0.0, width
    for _ in range(30):
        m = (a + b) / 2
        a, b = (a, m) if decided(m) else (m, b)
    return b
