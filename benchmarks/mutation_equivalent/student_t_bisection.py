"""Checks the equivalence reasons of student_t.toml: mde_factor's bisection with a wider bracket, one more step or the other side at ties.

    python benchmarks/mutation_equivalent/student_t_bisection.py   (about a minute)

Prints the cases where each variant changes the result and the largest relative change (2026-12-03: 1024 cases,
x5 38 / +11 35 / 81 steps 0 / <= 658 changed, at most 2.0e-15, 1.6e-15, 0, 1.2e-15 relative).
"""
import math, itertools
from baselines.analysis.statistics import student_t as st
from scipy import special as _special
t_quantile = st.t_quantile
def mde(n, alpha, power, mult=4, add=10, steps=80, le=False):
    df = n - 1; crit = t_quantile(1 - alpha / 2, df)
    def power_at(ncp):
        lower = _special.nctdtr(df, ncp, -crit)
        return float(1 - _special.nctdtr(df, ncp, crit) + (0.0 if math.isnan(lower) else lower))
    lo, hi = 0.0, (crit + t_quantile(power, df)) * mult + add
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (power_at(mid) <= power if le else power_at(mid) < power) else (lo, mid)
    return hi / math.sqrt(n)
diffs = {k: 0 for k in ("x5", "+11", "81", "<=")}
cases = 0
for n in list(range(2, 61)) + [80, 100, 150, 200, 300]:
    for alpha in (0.05, 0.01, 0.1, 0.05/30):
        for power in (0.8, 0.9, 0.5, 0.95):
            base = st.mde_factor(n, alpha, power); cases += 1
            assert base == mde(n, alpha, power)
            diffs["x5"] += mde(n, alpha, power, mult=5) != base
            diffs["+11"] += mde(n, alpha, power, add=11) != base
            diffs["81"] += mde(n, alpha, power, steps=81) != base
            diffs["<="] += mde(n, alpha, power, le=True) != base
print(cases, diffs)
worst = {k: 0.0 for k in ("x5", "+11", "<=")}
for n in list(range(2, 61)) + [80, 100, 150, 200, 300]:
    for alpha in (0.05, 0.01, 0.1, 0.05/30):
        for power in (0.8, 0.9, 0.5, 0.95):
            base = st.mde_factor(n, alpha, power)
            for k, kw in (("x5", {"mult": 5}), ("+11", {"add": 11}), ("<=", {"le": True})):
                worst[k] = max(worst[k], abs(mde(n, alpha, power, **kw) - base) / base)
print(worst)
