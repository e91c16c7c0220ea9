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
from .stats import add_bootstrap, all_pairs, decide, usable_range


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
