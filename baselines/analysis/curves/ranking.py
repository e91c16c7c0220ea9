"""Ranking of a group's arms at equal spend in each unit, read off the same runs' traces, and its reversals.

Why here and not in the figures: whether an order flips between units, and
whether the flip is a detected difference, is analysis; the markdown table
and the ranking figure only render a `Ranking` computed once.

Rules: the level for a unit is the smallest median final spend in that unit
across arms (every arm reached it in at least half its runs). A reversal is
claimed only when both orders are detected differences by the main table's
rule (the main table's claims: on a typical seed the exact sign test, on the mean the paired t,
exact sign-flip and interval; Holm over the unit's pairs x claims); other flips
are "order differs, not significant". A unit some arm's traces do not report
is not ranked, and the arms that miss it are named (`unranked`), never
dropped silently.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from . import anytime
from ..compare.claims import MEAN, TYPICAL, attach_typical
from ..compare.pair_verdict import decide
from ..statistics.stats import all_pairs

RANK_UNITS = ("rollouts", "calls", "tokens", "usd")
RANK_ALPHA = 0.05
RANK_TEST_MAX_ARMS = 50  # above this, pairs are not tested and no reversal is claimed (the note says so)


class RankEntry(NamedTuple):
    """One arm at equal spend in one unit: its rank, mean score, the level compared at, and per-seed scores."""

    rank: int
    score: float
    level: float
    runs: tuple = ()   # ((seed, score), ...) read off each traced run at `level`


def _unit_finals(by_arm: dict, unit: str) -> tuple[dict[str, float], list[str]]:
    """(arm -> median final spend in `unit`, arms whose traced runs do not report it)."""
    finals, missing = {}, []
    for arm, rs in sorted(by_arm.items()):
        traced = [r for r in rs if r.trace]
        vals = [r.spend.get(unit) for r in traced]
        if not vals or any(v is None for v in vals) or any(
                p.get("spend", {}).get(unit) is None for r in traced for p in r.trace):
            missing.append(arm)
        else:
            finals[arm] = float(np.median(vals))
    return finals, missing


def ranking_across_units(by_arm: dict, units=RANK_UNITS) -> tuple[dict[str, dict[str, RankEntry]], dict[str, list]]:
    """(unit -> arm -> RankEntry, unit -> arms that do not report it) for each unit some arms' traces report.

    `by_arm`: arm -> the group's runs (a `RunIndex.of(group)`). A unit is
    ranked only when every arm reports it; otherwise it lands in the second
    dictionary with the arms that miss it.
    """
    out: dict[str, dict[str, RankEntry]] = {}
    unranked: dict[str, list[str]] = {}
    for unit in units:
        finals, missing = _unit_finals(by_arm, unit)
        if missing and finals:
            unranked[unit] = missing
            continue
        if len(finals) < 2:
            continue
        level = min(finals.values())
        per_seed = {arm: tuple((r.seed, anytime.best_at(r.trace, unit, level)) for r in by_arm[arm] if r.trace)
                    for arm in finals}
        scores = {arm: _mean_or_nan([v for _, v in per_seed[arm]]) for arm in finals}
        out[unit] = {arm: RankEntry(_shared_rank(scores, arm), scores[arm], level, per_seed[arm]) for arm in
                     sorted(scores, key=lambda a: (-scores[a] if math.isfinite(scores[a]) else math.inf, a))}
    return out, unranked


TIE_DECIMALS = 3   # scores are printed with 3 decimals: arms equal there share a rank and never "flip"


def _shared_rank(scores: dict[str, float], arm: str) -> int:
    """1 + the arms with a strictly higher score at the printed precision (ties share a rank: 1, 1, 3).

    Why: 0.847 and 0.847 were ranked 1 and 2, the figure drew a crossing and the
    "order differs" list named a flip between two equal numbers.
    """
    mine = scores[arm]
    if not math.isfinite(mine):
        return 1 + sum(math.isfinite(v) for v in scores.values())
    return 1 + sum(math.isfinite(v) and round(v, TIE_DECIMALS) > round(mine, TIE_DECIMALS) for v in scores.values())


def _mean_or_nan(values) -> float:
    """Mean over runs that had a score at that level (NaN when none had: it ranks last)."""
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def order_flips(ranking: dict[str, dict[str, tuple]]) -> list[tuple[str, str, str, str]]:
    """Pairs whose rank order differs between units: (arm_a, arm_b, unit where a ranks higher, unit where b does)."""
    units = list(ranking)
    arms = sorted(set.intersection(*(set(r) for r in ranking.values()))) if ranking else []
    out = []
    for i, a in enumerate(arms):
        for b in arms[i + 1:]:
            for u in units:
                for v in units:
                    if ranking[u][a][0] < ranking[u][b][0] and ranking[v][a][0] > ranking[v][b][0]:
                        out.append((a, b, u, v))
    return out


def unit_verdicts(ranking: dict[str, dict[str, tuple]], alpha: float = RANK_ALPHA,
                  reward_range: tuple[float, float] | None = None,
                  claims: tuple[str, ...] = (MEAN,)) -> dict[str, dict]:
    """unit -> {(a, b): PairResult} with a < b, by the main table's rule on the per-seed scores at that level.

    Empty for a unit whose entries carry no per-seed scores or with more
    than RANK_TEST_MAX_ARMS arms.
    """
    out: dict[str, dict] = {}
    for unit, entries in ranking.items():
        arms = sorted(a for a, e in entries.items() if len(e) > 3 and
                      sum(1 for _, v in e[3] if math.isfinite(v)) >= 2)
        if len(arms) < 2 or len(arms) > RANK_TEST_MAX_ARMS:
            out[unit] = {}
            continue
        seeds = sorted({seed for a in arms for seed, _ in entries[a][3]})
        col = {seed: j for j, seed in enumerate(seeds)}
        matrix = np.full((len(arms), len(seeds)), np.nan)
        for i, a in enumerate(arms):
            for seed, v in entries[a][3]:
                if math.isfinite(v):
                    matrix[i, col[seed]] = v
        # the main table's procedure, range included: one pair never gets a t interval here and a betting one there
        pairs = all_pairs(arms, matrix, reward_range=reward_range)
        if TYPICAL in claims:
            attach_typical(pairs, arms, matrix, 1 - alpha)
        out[unit] = {(p.a, p.b): p for p in decide(pairs, alpha, claims=claims)}
    return out


def _ahead(verdicts: dict, unit: str, a: str, b: str) -> bool:
    """True when, at equal `unit`, a is detected better than b."""
    pair = verdicts.get(unit, {}).get((a, b)) if a < b else verdicts.get(unit, {}).get((b, a))
    if pair is None:
        return False
    return pair.verdict == ("a>b" if a < b else "b>a")


def reversals(ranking: dict[str, dict[str, tuple]], alpha: float = RANK_ALPHA,
              verdicts: dict | None = None) -> list[tuple[str, str, str, str]]:
    """Order flips the statistics support: (arm_a, arm_b, unit where a is better, unit where b is better)."""
    verdicts = unit_verdicts(ranking, alpha) if verdicts is None else verdicts
    return [(a, b, u, v) for a, b, u, v in order_flips(ranking)
            if _ahead(verdicts, u, a, b) and _ahead(verdicts, v, b, a)]


@dataclass
class Ranking:
    """Everything the ranking table and figure show, computed once per group."""

    by_unit: dict[str, dict[str, RankEntry]]
    unranked: dict[str, list[str]] = field(default_factory=dict)   # unit -> arms whose traces miss it
    verdicts: dict[str, dict] = field(default_factory=dict)
    flips: list[tuple[str, str, str, str]] = field(default_factory=list)
    supported: list[tuple[str, str, str, str]] = field(default_factory=list)
    score_kind: str | None = None   # "reward" (held-out), "dev", "mixed" or None
    rule: str = ""                  # the procedure that decides a unit's pairs, in words (the view prints it)

    @property
    def weak(self) -> list[tuple[str, str]]:
        """Pairs whose order differs between units without both orders detected."""
        return sorted({(a, b) for a, b, _, _ in self.flips} - {(a, b) for a, b, _, _ in self.supported})

    @property
    def flipped(self) -> set[str]:
        return {a for a, _, _, _ in self.supported} | {b for _, b, _, _ in self.supported}


def rank_rule(claims: tuple[str, ...], alpha: float = RANK_ALPHA) -> str:
    """The procedure that decides a unit's pairs, named as the verdict is (issue 37: every note names it)."""
    words = {TYPICAL: "on a typical seed, the exact sign test over seeds (ties dropped)",
             MEAN: "on the mean, the paired t and the exact sign-flip test over seeds, with the printed interval "
                   "excluding 0"}
    tests = "; ".join(words[c] for c in claims if c in words) or words[MEAN]
    family = "the unit's pairs x claims" if len(claims) > 1 else "the unit's pairs"
    return f"{tests}; Holm over {family}, alpha {alpha:g}"


def group_ranking(by_arm: dict, alpha: float = RANK_ALPHA,
                  reward_range: tuple[float, float] | None = None,
                  claims: tuple[str, ...] = (MEAN,)) -> Ranking:
    """The group's `Ranking` from its runs by arm (a `RunIndex.of(group)`); `reward_range` and `claims` as the
    main table's (a reversal is claimed by the main table's own test, and the note names it)."""
    by_unit, unranked = ranking_across_units(by_arm)
    kinds = {anytime.score_field(r.trace) for rs in by_arm.values() for r in rs if r.trace}
    kind = None if not kinds else "reward" if kinds == {"reward"} else "dev" if kinds == {"best"} else "mixed"
    # the declared range bounds held-out rewards; dev scores (noisy, read off an unscored trace) may leave it,
    # and a report that raised on them lost the whole run's report (issue 39: the starter declares [0, 1])
    claims = tuple(c for c in claims if c in (TYPICAL, MEAN)) or (MEAN,)
    verdicts = unit_verdicts(by_unit, alpha, reward_range if kind == "reward" else None, claims)
    return Ranking(by_unit, unranked, verdicts, order_flips(by_unit), reversals(by_unit, verdicts=verdicts), kind,
                   rank_rule(claims, alpha))
