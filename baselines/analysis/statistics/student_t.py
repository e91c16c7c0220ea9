"""Student t: quantiles, intervals, p-values, and the effect or seeds a t test needs.

Why its own module: every route (pair verdicts, the gate, the seed-clustered
item pairing) reads the same t quantiles and power figures; scipy.special
ufuncs cost microseconds where a distribution object costs a millisecond.
The minimum detectable effect solves the noncentral-t power equation, since
the textbook shortcut had power .77 at n = 3.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import special as _special


def t_quantile(q: float, df: float) -> float:
    """Student-t quantile (scipy.special ufunc: microseconds, not a distribution object)."""
    return float(_special.stdtrit(df, q))


def t_sf(x: float, df: float) -> float:
    """Upper tail P(T > x) of Student t with `df` degrees of freedom."""
    return float(_special.stdtr(df, -x))


def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t interval of `values` (NaN bounds when n < 2)."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    if n < 2:
        return (mean, math.nan, math.nan)
    half = float(t_quantile(0.5 + level / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return (mean, mean - half, mean + half)


def t_pvalue(mean: float, sd: float, n: int) -> float:
    """Two-sided one-sample t p-value of a mean with this spread (a zero spread: 1 at mean 0, else 0)."""
    if n < 2 or not math.isfinite(sd):
        return math.nan
    if sd <= 1e-12 * max(1.0, abs(mean)):
        return 1.0 if mean == 0 else 0.0
    return float(2 * t_sf(abs(mean) / (sd / math.sqrt(n)), n - 1))


def min_detectable_effect(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The effect a two-sided paired t test at `alpha` finds with probability `power` (noncentral t).

    The shortcut (t(1-a/2) + t(power)) sd / sqrt(n) had power .77 at n = 3 and
    .79 at n = 5; this solves the noncentral-t power equation instead.
    """
    if n < 2 or not math.isfinite(sd):
        return math.inf
    return float(mde_factor(n, alpha, power) * sd)


@lru_cache(maxsize=4096)
def mde_factor(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """delta / sd at which P(|T| > t(1-a/2, n-1)) = power, T noncentral t with ncp delta sqrt(n) / sd."""
    if n < 2:
        return math.inf
    df = n - 1
    crit = t_quantile(1 - alpha / 2, df)

    def power_at(ncp: float) -> float:
        # scipy's nctdtr answers NaN for the lower tail P(T < -crit) once it is below ~1e-16 (ncp above 5-11
        # by df and alpha): the term is then 0. Read as NaN, "power reached" stopped the bisection early: at
        # n = 2 the printed 80% effect had power .48. (The upper tail's NaNs lie where power is 1 - 1e-30.)
        lower = _special.nctdtr(df, ncp, -crit)
        return float(1 - _special.nctdtr(df, ncp, crit) + (0.0 if math.isnan(lower) else lower))

    lo, hi = 0.0, (crit + t_quantile(power, df)) * 4 + 10
    for _ in range(80):   # bisection: power is increasing in ncp
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if power_at(mid) < power else (lo, mid)
    return hi / math.sqrt(n)


def t_seeds_to_clear(sd: float, distance: float, alpha: float, cap: int = 10000) -> int | None:
    """The fewest seeds at which a one-sided t bound with this spread would lie `distance` from the mean.

    One search for the gate's "seeds that would decide" (per-seed and clustered by question): it steps
    by one up to 100 seeds, then by 10%, so a hopeless case stops after a bounded number of quantiles.
    """
    ns, quantiles = _seed_steps(alpha, cap)
    clears = quantiles * sd / np.sqrt(ns) < distance   # the same products, one array (every gate calls this)
    if not clears.any():   # never (or cap < 2: nothing to try)
        return None
    return int(ns[int(np.argmax(clears))])


@lru_cache(maxsize=32)
def _seed_steps(alpha: float, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """The seed counts `t_seeds_to_clear` tries, in order, and the one-sided t quantile at each."""
    ns, n = [], 2
    while n <= cap:
        ns.append(n)
        n = n + 1 if n < 100 else int(n * 1.1)
    steps = np.array(ns, dtype=float)
    return steps, _special.stdtrit(steps - 1, 1 - alpha)
