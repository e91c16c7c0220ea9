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
from ..statistics.bootstrap import add_bootstrap
from .claims import attach_typical
from .pair_verdict import decide
from ..statistics.reward_range import PASS_FAIL_RANGE, detect_range, usable_range
from ..statistics.stats import _complete_pairs, all_pairs


def pair_group(group: Group, options: CompareOptions) -> None:
    """Fill `group.pairs` from `group.scores`; notes say which arms were left out and why."""
    if options.pairs == "none":
        return
    missing = np.isnan(group.scores) if group.scores.size else None
    scored = np.zeros(len(group.arms), int) if missing is None else \
        np.full(len(group.arms), group.scores.shape[1]) if not missing.any() else (~missing).sum(axis=1)
    usable = [i for i in range(len(group.arms)) if scored[i] >= 2]
    for i in range(len(group.arms)):
        if 0 < scored[i] < 2:
            group.notes.append(f"{group.arms[i].arm}: only {int(scored[i])} scored seed(s), so its pairs have "
                               "no verdict (a pair needs at least 2)")
    arms = [group.arms[i].arm for i in usable]
    if len(arms) < 2:
        return
    matrix = group.scores if len(usable) == len(group.arms) else group.scores[usable]   # no copy when all are
    baseline = options.baseline
    if baseline is not None and baseline not in arms:
        group.notes.append(f"baseline arm {baseline!r} has fewer than 2 scored runs on this workload and budget"
                           if baseline in group.arm_names else
                           f"baseline arm {baseline!r} did not run on this workload and budget")
        return
    if baseline is None and options.pairs == "auto" and len(arms) > ALL_PAIRS_MAX_ARMS:
        complete = bool((scored[usable] == matrix.shape[1]).all())   # no NaN: np.mean is np.nanmean, without
        means = matrix.mean(axis=1) if complete else np.nanmean(matrix, axis=1)   # its masked copy (issue 38)
        baseline = arms[int(np.nanargmax(means))]
        group.notes.append(f"{len(arms)} arms: pairs are against the best arm by mean ({baseline}) only, "
                           f"not all {len(arms) * (len(arms) - 1) // 2:,} pairs; pass --pairs all or --baseline ARM")
    level = 1 - options.alpha
    pairs = all_pairs(arms, matrix, level, options.seed, baseline,
                      reward_range=usable_range(matrix, getattr(group, "reward_range", None)))
    if "typical" in options.claims:
        attach_typical(pairs, arms, matrix, level)
    group.pairs = decide(pairs, options.alpha, options.equivalence_margin, options.claims)
    name_family(group.pairs, baseline, options.claims)
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
    if not batch or options.pairs == "none" or options.baseline is not None or options.bootstrap:
        for group in groups:
            pair_group(group, options)
        return
    by_shape: dict[tuple[int, int], list[Group]] = {}
    for group in groups:
        x = group.scores
        if x.ndim == 2 and x.shape[0] >= 2 and x.shape[1] >= 2 and not (
                options.pairs == "auto" and x.shape[0] > ALL_PAIRS_MAX_ARMS):
            by_shape.setdefault(x.shape, []).append(group)
    keys: dict[int, tuple] = {}
    for members in by_shape.values():
        keys.update((id(group), key) for group, key in zip(members, _batch_keys(members)) if key is not None)
    batches: dict[tuple, list[Group]] = {}
    for group in groups:                      # in the groups' order: the stacked rows are as before
        key = keys.get(id(group))
        if key is None:
            pair_group(group, options)
        else:
            batches.setdefault((group.scores.shape[1], key[0]), []).append(group)
    for (n, group_range), members in batches.items():
        _pair_batch(members, group_range, options)


def _batch_keys(groups: list[Group]) -> list[tuple | None]:
    """Per group of one score shape: (reward range,) when the batched path handles it exactly as `pair_group`
    would (every arm scored every seed), else None. One stacked array test for all of them, not one per group."""
    stack = np.stack([g.scores for g in groups])
    missing = np.isnan(stack).any(axis=(1, 2)).tolist()
    binary = ((stack == 0) | (stack == 1)).all(axis=(1, 2)).tolist()
    keys: list[tuple | None] = []
    for group, gap, zero_one in zip(groups, missing, binary):
        declared = getattr(group, "reward_range", None)
        if gap:
            keys.append(None)
        elif declared is None:   # detect_range's rule without a declaration, from the one stacked test
            keys.append((PASS_FAIL_RANGE if zero_one else None,))
        else:
            x = group.scores
            try:
                keys.append((detect_range(x, x[:0], usable_range(x, declared)),))
            except ValueError:  # the group-by-group path reports it
                keys.append(None)
    return keys


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
    typical = "typical" in options.claims
    for group, own in zip(groups, spans):
        pairs = [results[p] for p in own]
        if typical:
            attach_typical(pairs, group.arm_names, group.scores, 1 - options.alpha)
        group.pairs = decide(pairs, options.alpha, options.equivalence_margin, options.claims)
        name_family(group.pairs, None, options.claims)


def name_family(pairs: list, baseline: str | None, claims: tuple[str, ...] = ("mean",)) -> None:
    """Say on each pair which pairs were Holm-adjusted together: a pair's verdict depends on its family, so
    "all pairs" and "against a baseline" tables of one result can differ and must say which they are.
    With two claims the family is pairs x claims, and it says so."""
    n = len(pairs)
    what = (f"all {n} pairs" if n != 1 else "1 pair") if baseline is None else \
        f"{n} pair{'s' if n != 1 else ''} against {baseline}"
    if len(claims) > 1:
        what += f" x {len(claims)} claims ({', '.join(claims)})"
    for pair in pairs:
        pair.family = f"{what}, Holm"


def item_pairs(groups: list[Group], frame, options: CompareOptions) -> None:
    """Pairs whose two arms carry `items` on every shared seed: the seed-clustered item-level pair replaces the
    per-seed one, then the group's verdicts are decided again (Holm over the new p-values).

    Why: a seed of an LLM eval is a cluster of questions; pairing by question
    (Miller 2024) is where the power at 5-10 seeds is. Without items nothing
    changes.
    """
    from ..statistics.clustered import pair_items
    from ..statistics.question_claim import item_pair
    from ..gating.gate_data import arm_runs

    for group in groups:
        if not group.pairs:
            continue
        runs = {arm: arm_runs(frame, group, arm) for arm in group.arm_names}
        changed = False
        for k, pair in enumerate(group.pairs):
            ra, rb = runs[pair.a], runs[pair.b]
            shared = sorted(set(ra.rewards) & set(rb.rewards))
            if len(shared) < 2 or not all(s in ra.items and s in rb.items for s in shared):
                continue
            pairing = pair_items(ra.items, rb.items, shared, 1.0, None)
            new = item_pair(pair.a, pair.b, pairing, 1 - options.alpha, options.questions)
            if new is not None:
                new.family = pair.family
                new.typical = pair.typical
                group.pairs[k] = new
                changed = True
        if changed:
            claims = options.claims
            if options.claim == "auto" and all(p.items for p in group.pairs):
                claims = ("mean",)   # every pair paired by question: the mean claim paired by item decides
            decide(group.pairs, options.alpha, options.equivalence_margin, claims)
            for p in group.pairs:
                if p.items:   # the mean claim is the one paired by item; the typical-seed claim stays per seed
                    note = p.route_note
                    for c in p.claims:
                        if c.claim == "mean":
                            c.notes.append(note)
                    if p.claim == "mean":
                        p.notes.append(note)
                    elif any(c.claim == "mean" for c in p.claims):
                        p.notes.append(f"mean: {note}")
