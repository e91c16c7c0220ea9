"""Which groups' per-group checks would find nothing, decided for every group at once on the sorted columns.

Why: a results file with ten thousand small groups paid about 100 us of
Python per group to find, almost always, that nothing drifted and nothing was
unreported. This pass looks at the whole columns once (segment sums, sorted
segment medians) and marks each group "clean" in the fixed unit and in each
confound unit. A clean group gets the reference the per-group check would
have set and no flags; every other group runs the per-group check itself, so
whatever is reported (flags, notes, unverified arms) still comes from the one
rule in `comparing.py`. Comparisons near the tolerance count as not clean
(`MARGIN`): rounding in this pass can only send a group to the exact check,
never skip one that flags.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..tables.columns import all_none, arm_sums, distinct_part

#: a relative drift within this fraction of the tolerance sends the group to the per-group check
MARGIN = 1e-9


def segment_medians(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Median of each segment of `values` (non-empty segments, no NaN): np.median's numbers, one sort for all.

    The middle value, or the mean (a + b) / 2 of the two middle values, as
    `np.median` and `statistics.median` compute it.
    """
    counts = np.diff(bounds)
    if counts.size == 0:
        return np.zeros(0)
    segment = np.repeat(np.arange(counts.size), counts)
    ordered = values[np.lexsort((values, segment))]
    mid = bounds[:-1] + counts // 2
    odd = counts % 2 == 1
    upper = ordered[mid]
    lower = ordered[np.where(odd, mid, mid - 1)]
    return np.where(odd, upper, (lower + upper) / 2)


def _relative(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """`columns.relative` with one reference per value. Overwrites `reference` (a temporary of the caller's):
    one column-sized temporary fewer at each step."""
    zero = reference == 0
    rel = values - reference
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(rel, np.abs(reference, out=reference), out=rel)
    if zero.any():
        rel[zero] = np.where(values[zero] > 0, np.inf, 0.0)
    return rel


def _near_or_beyond(rel: np.ndarray, tolerance: float) -> np.ndarray:
    """Relative drifts the exact check might flag (beyond the tolerance, or within MARGIN of it; NaN too).
    Overwrites `rel` with its absolute value."""
    if tolerance < 0:
        return np.ones(rel.shape, dtype=bool)
    if tolerance == 0:
        return ~(rel == 0)
    out = np.abs(rel, out=rel) < tolerance * (1 - MARGIN)
    return np.logical_not(out, out=out)


@dataclass
class GroupScreen:
    """Per group of the split (in split order): what the whole-column pass found.

    `first_arm`/`end_arm`: the group's (group, arm) segments; `reshaped`: every
    arm ran the same seeds, so the score matrix is the reward column
    reshaped; `scored`: every run has a score; `reward_range`/`nouns`: the
    declarations `comparing` would read per group; `fixed[unit]`: (clean,
    reference, source) when the group is fixed in `unit`; `confound[unit]`:
    clean in that confound unit.
    """

    first_arm: np.ndarray
    end_arm: np.ndarray
    reshaped: np.ndarray
    scored: np.ndarray
    reward_range: list
    nouns: list
    fixed: dict[str, tuple[np.ndarray, np.ndarray, list]] = field(default_factory=dict)
    confound: dict[str, np.ndarray] = field(default_factory=dict)


def screen_groups(split, budgets: list[dict], fixed_units: set[str], confound_units: list[str],
                  arm_medians: dict[str, np.ndarray], arm_status_ok: dict[str, np.ndarray],
                  tolerance: float) -> GroupScreen:
    """The screen of every group of `split` (a `comparing._GroupSplit`).

    `budgets[g]` is group g's budget; `arm_medians[unit]` and
    `arm_status_ok[unit]` are per (group, arm) segment: the arm's median
    spend and whether the unit is measured in full for it (the numbers
    `ArmSummary.spend` holds).
    """
    bounds, segments = split.bounds, split.segments
    starts = bounds[:-1]
    first_arm = np.searchsorted(segments, starts)
    end_arm = np.searchsorted(segments, bounds[1:])
    sizes = np.diff(segments)
    arm_runs = sizes[first_arm]
    same_size = np.minimum.reduceat(sizes, first_arm) == np.maximum.reduceat(sizes, first_arm)
    reshaped = same_size & _same_seeds(split.whole("seed"), bounds, arm_runs, same_size)
    reward = split.whole("reward")
    unscored = np.isnan(reward)
    scored = arm_sums(unscored, bounds) == 0 if unscored.any() else np.ones(len(starts), dtype=bool)
    screen = GroupScreen(first_arm, end_arm, reshaped, scored, _declared_ranges(split, bounds),
                         _declared_nouns(split.whole("nouns"), bounds))
    for unit in fixed_units:
        screen.fixed[unit] = _fixed_clean(split, unit, budgets, scored, first_arm, end_arm, tolerance)
    for unit in confound_units:
        screen.confound[unit] = _confound_clean(arm_medians[unit], arm_status_ok[unit], first_arm, end_arm,
                                                tolerance)
    return screen


#: groups of at least this many rows on average are checked one at a time (`_same_seeds`)
LOOP_ROWS = 1024


def _same_seeds(seeds: np.ndarray, bounds: np.ndarray, arm_runs: np.ndarray, same_size: np.ndarray) -> np.ndarray:
    """Per group: every row's seed equals the seed at its position in the group's first arm (meaningful where
    `same_size`: every arm has `arm_runs` rows).

    Large groups (LOOP_ROWS rows or more on average) compare each group's
    (arms x runs) block with its first row, one group at a time: no per-row
    index arrays (they were 32 MB per million runs, the screen's peak, issue
    38). Many small groups build the row indices at once, in int32 where the
    rows fit.
    """
    groups = len(bounds) - 1
    if groups == 0:
        return np.zeros(0, dtype=bool)
    if bounds[-1] >= LOOP_ROWS * groups:
        out = np.zeros(groups, dtype=bool)
        for g, (a, z, n, ok) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), arm_runs.tolist(),
                                             same_size.tolist())):
            if ok:
                block = seeds[a:z].reshape(-1, n)
                out[g] = bool((block == block[0]).all())
        return out
    index = np.int32 if bounds[-1] < 2 ** 31 else np.int64
    group_of_row = np.repeat(np.arange(groups, dtype=index), np.diff(bounds))
    start_of_row = bounds[:-1].astype(index)[group_of_row]
    first_arm_row = np.arange(bounds[-1], dtype=index)
    first_arm_row -= start_of_row
    first_arm_row %= arm_runs.astype(index)[group_of_row]
    first_arm_row += start_of_row
    del group_of_row, start_of_row
    return arm_sums(seeds != seeds[first_arm_row], bounds) == 0


def _declared_ranges(split, bounds: np.ndarray) -> list:
    """`comparing._declared_range` per group: (lo, hi) when every run declares a range (the hull of the
    ranges when they differ: every reward lies in it), else None."""
    lo, hi = split.whole("reward_lo").astype(float, copy=False), split.whole("reward_hi").astype(float, copy=False)
    groups = len(bounds) - 1
    if np.isnan(distinct_part(lo)).all() or np.isnan(distinct_part(hi)).all():
        return [None] * groups     # no run declares a range (groups are never empty): no pass over the rows
    missing = arm_sums(np.isnan(lo) | np.isnan(hi), bounds) > 0
    if missing.all():
        return [None] * groups
    starts = bounds[:-1]
    low = np.fmin.reduceat(lo, starts)
    high = np.fmax.reduceat(hi, starts)
    return [(float(a), float(b)) if not miss else None
            for a, b, miss in zip(low.tolist(), high.tolist(), missing.tolist())]


def _declared_nouns(nouns: np.ndarray, bounds: np.ndarray) -> list:
    """Each group's first declared unit-words text, parsed once per distinct text (None: none declared)."""
    groups = len(bounds) - 1
    out: list = [None] * groups
    if all_none(nouns):   # the usual case, without pandas' look at every row
        return out
    declared = np.flatnonzero(pd.notna(nouns))  # the column holds text or None (`run_columns.nouns_column`): no row loop
    if declared.size == 0:
        return out
    parsed: dict[str, dict] = {}
    firsts = np.searchsorted(declared, bounds[:-1])
    for g, k in enumerate(firsts.tolist()):
        if k < declared.size and declared[k] < bounds[g + 1]:
            text = nouns[declared[k]]
            if text and text not in parsed:
                parsed[text] = json.loads(text)
            out[g] = parsed[text] if text else None
    return out


def _fixed_clean(split, unit: str, budgets: list[dict], scored: np.ndarray, first_arm: np.ndarray,
                 end_arm: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray, list]:
    """(clean, reference, source) per group fixed in `unit`, as `spend_checks._check_fixed` would set them.

    Clean: every run scored and reporting `unit` in full, a reference (the
    budget, else the median of two or more arms' medians) and no run beyond
    the tolerance of it.
    """
    bounds, segments = split.bounds, split.segments
    spend = split.whole(f"spend:{unit}")
    partial = split.whole(f"partial:{unit}").astype(bool, copy=False)
    gaps = np.isnan(spend)
    if distinct_part(partial).any():
        gaps |= partial
    full = arm_sums(gaps, bounds) == 0 if gaps.any() else np.ones(len(bounds) - 1, dtype=bool)
    del gaps
    in_budget = np.array([unit in b for b in budgets], dtype=bool)
    budget_value = np.array([float(b[unit]) if unit in b else np.nan for b in budgets])
    arms = end_arm - first_arm
    reference = budget_value
    by_median = ~in_budget & (arms >= 2) & full & scored
    if by_median.any():
        medians = segment_medians(spend, segments)
        of_arms = segment_medians(medians, np.concatenate((first_arm, end_arm[-1:])))
        reference = np.where(in_budget, budget_value, of_arms)
    clean = full & scored & (in_budget | by_median)
    clean &= ~_any_near_or_beyond(spend, bounds, reference, tolerance)
    source = ["budget" if b else "median of arms" for b in in_budget.tolist()]
    return clean, reference, source


def _any_near_or_beyond(values: np.ndarray, bounds: np.ndarray, reference: np.ndarray, tolerance: float
                        ) -> np.ndarray:
    """Per group: whether any row's drift from the group's reference is near or beyond the tolerance.

    Read from each group's smallest and largest value: the drift (v - r) / |r|
    never decreases as v grows (a subtraction and a division by a positive
    number, each rounded monotonically; for r = 0 it is 0, then inf), so the
    values within the tolerance form an interval, and every value is in it
    when both ends are. A NaN row is judged as one: NaN where some row is.
    Three values per group instead of a per-row drift column and its five
    passes over the rows (issue 38).
    """
    if len(bounds) < 2:
        return np.zeros(0, dtype=bool)
    starts = bounds[:-1]
    low, high = np.fmin.reduceat(values, starts), np.fmax.reduceat(values, starts)
    nan = np.isnan(values)
    gap = np.where(arm_sums(nan, bounds) > 0, np.nan, low) if nan.any() else low
    rel = _relative(np.concatenate((low, high, gap)), np.concatenate((reference, reference, reference)))
    near = _near_or_beyond(rel, tolerance).reshape(3, len(starts))
    return near.any(axis=0)


def _confound_clean(medians: np.ndarray, status_ok: np.ndarray, first_arm: np.ndarray, end_arm: np.ndarray,
                    tolerance: float) -> np.ndarray:
    """Per group: every arm measures the unit in full and no arm's median is beyond the tolerance of their median."""
    arm_bounds = np.concatenate((first_arm, end_arm[-1:]))
    complete = arm_sums(~status_ok, arm_bounds) == 0
    safe = np.where(status_ok, medians, 0.0)
    reference = segment_medians(safe, arm_bounds)
    rel = _relative(safe, np.repeat(reference, end_arm - first_arm))
    return complete & (arm_sums(_near_or_beyond(rel, tolerance), arm_bounds) == 0)
