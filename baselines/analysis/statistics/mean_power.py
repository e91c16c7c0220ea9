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


BOUNDED_SIMULATED = "simulated: t, sign-flip and betting interval together"


def _interp_n(rows: dict, n: int):
    """The table row at n, or linear interpolation between neighbours (None where either neighbour is None,
    or outside the table: the caller falls back)."""
    if n in rows:
        return rows[n], True
    ns = sorted(rows)
    if n < ns[0] or n > ns[-1]:
        return None, False
    lo = max(k for k in ns if k < n)
    hi = min(k for k in ns if k > n)
    w = (n - lo) / (hi - lo)

    def mix(a, b):
        if isinstance(a, tuple):
            return tuple(mix(x, y) for x, y in zip(a, b))
        return None if a is None or b is None else a + w * (b - a)
    return mix(rows[lo], rows[hi]), False


def _along(grid: tuple, values: tuple, x: float, log: bool) -> float | None:
    """Linear interpolation of `values` over `grid` at x (clamped to the grid; None if a neighbour is None)."""
    x = min(max(x, grid[0]), grid[-1])
    for i in range(len(grid) - 1):
        a, b = grid[i], grid[i + 1]
        if a <= x <= b:
            va, vb = values[i], values[i + 1]
            if math.isclose(x, a):
                return va
            if math.isclose(x, b):
                return vb
            if va is None or vb is None:
                return None
            w = (math.log(x / a) / math.log(b / a)) if log else (x - a) / (b - a)
            return va + w * (vb - va)
    return values[-1]


def _at_level(row: tuple, level: float, n: int) -> float | None:
    """A LEVELS row read at `level` (log interpolation; None beyond a None neighbour, except where the exact
    sign-flip test's lattice of p-values, multiples of 2 / 2^n up to 14 seeds, has no point between `level`
    and the next simulated level up: the same seeds decide, so that level's figure holds)."""
    from .mean_power_bounded_table import LEVELS as BL
    if level >= BL[0] * (1 - 1e-9):
        return row[0]
    if level <= BL[-1]:
        return row[-1]
    got = _along(tuple(reversed(BL)), tuple(reversed(row)), level, log=True)
    if got is None and n <= 14:
        i = max(k for k in range(len(BL)) if BL[k] >= level)       # the next simulated level up
        step = 2.0 / 2 ** n
        if row[i] is not None and math.floor(BL[i] / step - 1e-9) == math.floor(level / step - 1e-9):
            return row[i]
    return got


def bounded_factor(n: int, level: float, alpha: float, lo: float, hi: float, sd: float,
                   discordant: float | None = None) -> tuple[float | None, str] | None:
    """(difference decided in 0.8 of data sets like these, its data model) for bounded rewards, or None when
    the simulated table (`benchmarks/mean_power_bounded.py`) does not cover this n or alpha (the caller then
    prints the betting floor).

    The figure is None when no difference inside the range reaches 0.8 (the note says so). Pass/fail pairs
    (every difference -w, 0 or +w; `discordant` the share of seeds that differ) read the table at that share;
    others at sd / w (below 0.01 the 0.01 row, which errs high; above 0.5, None: the caller's floor note).
    """
    from . import mean_power_bounded_table as bt
    width = hi - lo
    if width <= 0 or not math.isclose(alpha, bt.INTERVAL_ALPHA) or level > bt.LEVELS[0] * (1 + 1e-9):
        return None
    passfail = discordant is not None
    rows, exact = _interp_n(bt.PASS_FAIL if passfail else bt.CONTINUOUS, n)
    if rows is None:
        return None
    if passfail:
        q = float(discordant)
        per_level = [_along(bt.DISCORDANT, tuple(r[i] for r in rows), q, log=False) if q >= bt.DISCORDANT[0] else None
                     for i in range(len(bt.LEVELS))]
        model = f"pass/fail outcomes, {q:.0%} of seeds differing"
    else:
        s = sd / width if n >= 2 else math.nan
        if not math.isfinite(s) or s > bt.SPREADS[-1] * (1 + 1e-9):
            return None      # wider than the table: the floor note (which says a spread needs more)
        per_level = [_along(bt.SPREADS, tuple(r[i] for r in rows), max(s, bt.SPREADS[0]), log=True)
                     for i in range(len(bt.LEVELS))]
        model = "normal differences with this sd, clipped to the range"
    f = _at_level(tuple(per_level), level, n)
    if f is None and not exact:
        return None          # between simulated n, next to a None: say nothing rather than guess
    source = f"{BOUNDED_SIMULATED}, on {model}" + ("" if exact else "; interpolated between simulated n")
    return (None if f is None else f * width), source
