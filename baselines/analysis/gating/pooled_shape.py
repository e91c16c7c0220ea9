"""The unbounded gate inside a history: the skew check reads the shape pooled over the group's earlier looks.

Why: at 10 seeds the default unbounded gate (`gate_bounds._skew_checked`)
cannot tell normal differences from skewed ones, so it refuses every verdict
whose sample skewness leans against it by more than (n - 6) / 6 standard
errors (a quarter of normal samples at n = 10) and widens its bounds with
bootstrap-t, whose far tail at a drift look's alpha / 30 is the 4th most
extreme of 2,000 resamples. On issue 40's history (normal differences) that
left per-commit PASS at 0.75 and the drift alarm by commit 8 at 0.64, where
Student t, exact for normal differences, gives 0.985 and 0.83; and no skew
rule on one 10-seed sample reaches 0.90 while holding the skewed cells
(docs/calibration.md, "Why the defaults miss"). A history holds what one
sample lacks: the same group's earlier looks. Each look records the
standardised skewness of its per-seed differences (`skew_z`, about N(0, 1)
for normal differences); their sum over m looks divided by sqrt(m) is a
skewness test on 10 m seeds. When it does not lean against the verdict
(within `pooled_allowance`), the bounds are Student t; when it does, the
default's hull decides and the verdict the pooled skewness argues against is
refused, as the one-sample check refuses it. The first look of a group (no
earlier skewness recorded) is the default gate unchanged.

What it assumes: the shape of a group's per-seed differences is stable
across its commits (location and spread may change). A commit that alone
turns the differences skewed is diluted by the earlier looks; see
docs/statistics.md ("A history's pooled shape") for the measured cells.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..statistics.stats import degenerate
from ..statistics.student_t import t_interval
from .gate_bounds import (FAIL, INCONCLUSIVE, PASS, UNBOUNDED_MIN_N, GateDecision, _arm_note, _skew_checked_seeds,
                          _t_bounds, _t_needed, arm_strict_alpha, gate_decision, margin_verdict, skew_allowance,
                          skew_z)

#: the pooled skewness may lean against a verdict by at most this many standard errors (one-sided 1%)
POOLED_MAX_ALLOWANCE = 2.326
POOLED = "t, shape pooled over the history"
POOLED_HULL = "t + bootstrap-t, skew-checked over the history"


@dataclass(frozen=True)
class Shape:
    """What a group's history says about the shape of its differences: the sum of its earlier looks' `skew_z`
    and how many looks recorded one."""

    z_sum: float = 0.0
    looks: int = 0

    def add(self, z: float | None) -> "Shape":
        return self if z is None or not math.isfinite(z) else Shape(self.z_sum + float(z), self.looks + 1)


def pooled_allowance(looks: int, n: int) -> float:
    """How far the pooled skewness of `looks` looks of n seeds may lean against a verdict, in standard errors:
    skew_allowance(n) x (looks + 1) / 2, at most POOLED_MAX_ALLOWANCE (one look: the one-sample rule exactly).

    Chosen by seeded simulation (benchmarks/history_shape.py; a vectorised sketch compared schedules first): with
    looks x skew_allowance(n) PASS at the margin on left-skewed lognormal differences of sigma 0.5 reached 0.061
    at looks 2-4 (20,000 histories); growing by half as fast held it at 0.039 and cost 0.006 of the drift alarm
    by commit 8 on issue 40's history (0.826 vs 0.832); a cap of 1.645 instead of 2.326 cost 0.035 of it.
    """
    return min(POOLED_MAX_ALLOWANCE, skew_allowance(n) * (looks + 1) / 2)


def look_skew(d) -> float | None:
    """The skewness one look records (`skew_z`): None below 3 seeds or when every difference is equal."""
    d = np.asarray(d, dtype=float)
    return None if d.size < 3 or degenerate(d) or not np.all(np.isfinite(d)) else skew_z(d)


def pooled_skew(d: np.ndarray, shape: Shape) -> tuple[float, int]:
    """(pooled skewness in standard errors, looks pooled) over the history's looks and this one."""
    looks = shape.looks + 1
    return (shape.z_sum + skew_z(d)) / math.sqrt(looks), looks


def pooled_decision(diffs, margin: float, alpha: float, shape: Shape | None, arms: tuple | None = None
                    ) -> GateDecision:
    """The unbounded gate's decision with the history's shape (`Shape`); the default gate when there is none.

    `arms` (baseline and candidate rewards, seed for seed) get the one-sample gate's arm check unchanged
    (`gate_bounds.arm_strict_alpha`, issue 37: a PASS or FAIL the arms' own skewness leans against must also
    hold at a smaller alpha), per look: lognormal *rewards* give differences that look symmetric, so the pooled
    skewness of the differences cannot see them."""
    d = np.asarray(diffs, dtype=float)
    n = d.size
    if shape is None or shape.looks == 0 or n < UNBOUNDED_MIN_N or degenerate(d) \
            or not np.all(np.isfinite(d)):
        return gate_decision(d, margin, alpha, arms=arms)
    z, looks = pooled_skew(d, shape)
    allow = pooled_allowance(looks, n)
    skewed = abs(z) > allow
    if skewed:
        mean, lower, upper = _t_bounds(d, alpha, widen=True)
    else:
        mean, lower, upper = t_interval(d, 1 - 2 * alpha)
    verdict = margin_verdict(lower, upper, margin)
    notes: list[str] = []
    where = f"pooled over this look and {looks - 1} earlier look(s) of the history"
    if (verdict == PASS and z < -allow) or (verdict == FAIL and z > allow):
        side = "left-skewed (an occasional large loss)" if z < 0 else "right-skewed (an occasional large gain)"
        notes.append(f"the bounds say {verdict} but the differences are {side}: skewness {z:+.1f} standard errors "
                     f"{where}, beyond the {allow:.2f} allowed; the tail can be bigger than these seeds show, so no "
                     f"{verdict}: declare reward_range for distribution-free bounds, add seeds, or pass --bounds t "
                     "to accept t bounds")
        verdict = INCONCLUSIVE
        needed = None
    elif verdict == INCONCLUSIVE:
        needed = _skew_checked_seeds(d, margin, alpha) if skewed else _t_needed(verdict, d, mean, margin, alpha)
    else:
        needed = None
        verdict = _arm_check(d, margin, alpha, verdict, arms, notes)
    if verdict == PASS and (1 - 0.1) ** n > alpha:
        notes.append(f"rewards are unbounded and n = {n}: a loss that hits fewer than about 1 in {n} seeds can be "
                     f"absent from all of them (a loss in 10% of seeds is missed {0.9 ** n:.0%} of the time); "
                     "declare reward_range for a distribution-free gate")
    method = (f"{POOLED_HULL} ({looks} looks)" if skewed else
              f"{POOLED} ({looks} looks, skewness {z:+.1f} standard errors, within {allow:.2f})")
    return GateDecision(verdict, mean, lower, upper, needed, method, notes)


def _arm_check(d: np.ndarray, margin: float, alpha: float, verdict: str, arms: tuple | None, notes: list) -> str:
    """The one-sample gate's arm checks (`gate_bounds.arm_strict_alpha`: the lean the seeds may miss and the tail
    they show), on a PASS or FAIL of the pooled route, with the one-sample gate's note. One rule for both routes:
    this route kept only the first check after the shown-tail one landed, so a right-skewed candidate's PASS the
    one-sample gate refused still stood from a group's second look on."""
    if arms is None:
        return verdict
    strict, z, shown = arm_strict_alpha(alpha, arms, d.size, verdict)
    if strict >= alpha:
        return verdict
    _, slo, shi = _t_bounds(d, strict, widen=True)
    if margin_verdict(slo, shi, margin) == verdict:
        return verdict
    notes.append(_arm_note(verdict, z, shown, strict))
    return INCONCLUSIVE
