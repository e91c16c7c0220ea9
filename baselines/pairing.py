"""Paired statistics over a group's arms x seeds score matrix: a separate step after the spend checks.

Rules, and the mistake each prevents:
- An arm with fewer than two scored seeds gets no verdict: one number has no
  spread, and a pair built on it would decide from a zero-width interval.
- Above `ALL_PAIRS_MAX_ARMS` arms, pairs are against `baseline` or the best
  arm only (the rule is written into the group's notes); all pairs of 10,000
  arms are 50 million tests nobody reads. `pairs="all"` asks for them anyway.
"""
from __future__ import annotations

import numpy as np

from .compare_options import ALL_PAIRS_MAX_ARMS, CompareOptions
from .comparison import Group
from .stats import _complete_pairs, add_bootstrap, all_pairs, decide, detect_range, usable_range


def pair_group(group: Group, options: CompareOptions) -> None:
    """Fill `group.pairs` from `group.scores`; notes say which arms were left out and why."""
    if options.pairs == "none":
        return
    scored = (~np.isnan(group.scores)).sum(axis=1) if group.scores.size else np.zeros(len(group.arms), int)
    usable = [i for i in range(len(group.arms)) if scored[i] >= 2]
    for i in range(len(group.arms)):
        if 0 < scored[i] < 2:
            group.notes.append(f"{group.arms[i].arm}: only {int(scored[i])} scored seed(s), so its pairs have "
                               "no verdict (a pair needs at least 2)")
    arms = [group.arms[i].arm for i in usable]
    if len(arms) < 2:
        return
    matrix = group.scores[usable]
    baseline = options.baseline
    if baseline is not None and baseline not in arms:
        group.notes.append(f"baseline arm {baseline!r} has fewer than 2 scored runs on this workload and budget"
                           if baseline in group.arm_names else
                           f"baseline arm {baseline!r} did not run on this workload and budget")
        return
    if baseline is None and options.pairs == "auto" and len(arms) > ALL_PAIRS_MAX_ARMS:
        means = np.nanmean(matrix, axis=1)
        baseline = arms[int(np.nanargmax(means))]
        group.notes.append(f"{len(arms)} arms: pairs are against the best arm by mean ({baseline}) only, "
                           f"not all {len(arms) * (len(arms) - 1) // 2:,} pairs; pass --pairs all or --baseline ARM")
    level = 1 - options.alpha
    pairs = all_pairs(arms, matrix, level, options.seed, baseline,
                      reward_range=usable_range(matrix, getattr(group, "reward_range", None)))
    group.pairs = decide(pairs, options.alpha, options.equivalence_margin)
    if options.bootstrap:
        add_bootstrap(group.pairs, arms, matrix, level, options.seed)


def pair_groups(groups: list[Group], options: CompareOptions, batch: bool = True) -> None:
    """`pair_group` for every group; groups of one shape share one vectorised pass, with the same numbers.

    Why: ten thousand two-arm groups each paid the fixed cost of a paired
    test (a sign matrix, a bootstrap-t) for a single pair. The shared draws
    are seeded by `options.seed` alone and every pair's figures depend only
    on its own row, so stacking groups of the same seed count changes no
    verdict or p-value; interval ends agree to about 1e-12 (the matrix
    product's rounding depends on its shape). Tested against the
    group-by-group path.
    """
    batches: dict[tuple, list[tuple[Group, tuple | None]]] = {}
    for group in groups:
        key = _batch_key(group, options) if batch else None
        if key is None:
            pair_group(group, options)
        else:
            batches.setdefault(key, []).append((group, key[1]))
    for (n, group_range), members in batches.items():
        _pair_batch([g for g, _ in members], group_range, options)


def _batch_key(group: Group, options: CompareOptions) -> tuple | None:
    """(seed count, reward range) for a group the batched path handles exactly as `pair_group` would; else None."""
    if options.pairs == "none" or options.baseline is not None or options.bootstrap:
        return None
    x = group.scores
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2 or np.isnan(x).any():
        return None
    if options.pairs == "auto" and x.shape[0] > ALL_PAIRS_MAX_ARMS:
        return None
    try:
        group_range = detect_range(x, x[:0], usable_range(x, getattr(group, "reward_range", None)))
    except ValueError:  # the group-by-group path reports it
        return None
    return (x.shape[1], group_range)


def _pair_batch(groups: list[Group], group_range, options: CompareOptions) -> None:
    """All pairs of every group in one `_complete_pairs` call over the stacked score matrices; Holm per group."""
    names, rows, pairs, spans = [], [], [], []
    for group in groups:
        offset = len(names)
        names += group.arm_names
        rows.append(group.scores)
        k = len(group.arm_names)
        own = [(offset + i, offset + j) for i in range(k) for j in range(i + 1, k)]
        spans.append(own)
        pairs += own
    results = _complete_pairs(names, np.vstack(rows), pairs, 1 - options.alpha, options.seed, group_range)
    for group, own in zip(groups, spans):
        group.pairs = decide([results[p] for p in own], options.alpha, options.equivalence_margin)
