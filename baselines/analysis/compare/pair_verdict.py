"""The verdict of a group's pairs in words, after Holm.

- a>b / b>a needs BOTH the paired t test and the exact sign-flip test (on
  0/1 rewards: the exact McNemar test) to reject after Holm, and the printed
  interval to exclude 0: a verdict and its interval come from one inference.
- The verdict never says "equal". Not rejecting is "no difference detected"
  with the difference the verdict would likely miss (`mean_power`: the
  verdict's own procedure, simulated), or "underpowered" when n < 3 or when no outcome of the exact test
  could reach alpha at this n (with 5 seeds the smallest two-sided sign-flip
  p is 0.0625, so no pair decides at n <= 5).
- With many arms, p-values are Holm-adjusted within a comparison group so the
  family-wise false-alarm rate stays at alpha.
"""
from __future__ import annotations

import math

import numpy as np

from ..statistics.alpha import check_alpha
from .pair_result import PairResult
from ..statistics.sign_flip import min_exact_p
from ..statistics.mean_power import bounded_factor, bounded_floor, normal_factor
from ..statistics.student_t import mde_factor, t_quantile

NO_DIFFERENCE = "no difference detected"

UNDERPOWERED = "underpowered"

EQUIVALENT = "equivalent"


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as given)."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def decide(pairs: list[PairResult], alpha: float = 0.05, margin: float | None = None,
           claims: tuple[str, ...] = ("mean",)) -> list[PairResult]:
    """Holm-adjust the decision p-values of one group's claims and set each pair's verdict in words.

    `claims` ("mean", "typical", or both, in the order their verdicts are
    preferred; `claims.py`) are one Holm family: pairs x claims.
    Mean claim:
    a>b / b>a: the Holm-adjusted decision p (the larger of the t and the exact
    sign-flip/McNemar p, so both tests reject) is below alpha. `method` says
    which of the two was binding.
    equivalent: with a margin, both one-sided tests (TOST) reject: the
    two-sided (1 - 2 alpha) t interval lies inside (-margin, margin); never
    from a zero-width interval, and for bounded rewards the betting bounds
    at alpha must lie inside too.
    underpowered: n < 3, or no outcome of the exact test could reach alpha.
    no difference detected: otherwise, with the minimum detectable effect.
    Typical claim: `claims.decide_typical` (exact sign test, ties dropped).
    """
    from .claims import MEAN, TYPICAL, decide_typical, mean_verdict, set_headline

    check_alpha(alpha)
    if margin is not None and (not math.isfinite(margin) or margin <= 0):
        raise ValueError(f"the equivalence margin must be a positive finite number, got {margin}")
    asked = [c for c in claims if c == MEAN or c == TYPICAL]
    family_p = []
    for claim in asked:
        for p in pairs:
            x = p.p_decide if claim == MEAN else (p.typical.p if p.typical is not None else 1.0)
            family_p.append(x if math.isfinite(x) else 1.0)
    # one test: Holm's adjustment is min(1, p) (the same number holm() gives, without its arrays)
    adjusted = [min(1.0, family_p[0])] if len(family_p) == 1 else holm(family_p).tolist()
    family = len(family_p)
    by_claim = {claim: adjusted[k * len(pairs):(k + 1) * len(pairs)] for k, claim in enumerate(asked)}
    mean_adjusted = by_claim.get(MEAN) or holm([p.p_decide if math.isfinite(p.p_decide) else 1.0
                                                for p in pairs]).tolist()
    for k, pair in enumerate(pairs):
        _decide_mean(pair, mean_adjusted[k], alpha, margin, family if MEAN in asked else len(pairs),
                     "pairs" if asked == [MEAN] or MEAN not in asked else "tests")
        verdicts = []
        for claim in asked:
            if claim == MEAN:
                verdicts.append(mean_verdict(pair, mean_adjusted[k]))
            elif pair.typical is not None:
                verdicts.append(decide_typical(pair, by_claim[TYPICAL][k], alpha, family))
        if MEAN not in asked and pair.equivalent:   # an equivalence asked for (--equivalence-margin) is a mean claim
            verdicts.append(mean_verdict(pair, mean_adjusted[k]))
        if not verdicts:                           # typical asked, but the pair is unpaired: the mean route says it
            verdicts.append(mean_verdict(pair, mean_adjusted[k]))
        set_headline(pair, verdicts)
    return pairs


def _decide_mean(pair: PairResult, p_adj: float, alpha: float, margin: float | None, family: int,
                 noun: str = "pairs") -> None:
    """The mean claim's verdict and notes on one pair at its Holm-adjusted p (see `decide`)."""
    pair.p_adjusted = float(p_adj)
    pair.notes = []
    pair.equivalent = False
    if pair.n < 3:
        pair.verdict = UNDERPOWERED
        pair.notes.append(f"only {pair.n} paired seed{'s' if pair.n != 1 else ''}; at least 3 are needed")
        if not pair.paired:
            pair.notes.append("unpaired: the arms do not share seeds")
        return
    if p_adj < alpha and math.isfinite(pair.diff) and pair.diff != 0:
        if _interval_agrees(pair):
            pair.verdict = "a>b" if pair.diff > 0 else "b>a"
            tests = "" if pair.items else "; both the t and the exact test reject"
            same = pair.interval_method == pair.method
            interval = "its interval" if same else f"the {pair.interval_method} interval"
            pair.notes.append(f"decided by {pair.method} (Holm-adjusted p {p_adj:.3g}{tests}); "
                              f"{interval} excludes 0")
            _degenerate_note(pair)
            if not pair.paired:
                pair.notes.append("unpaired: the arms do not share seeds")
            return
        pair.notes.append(f"the tests reject (Holm-adjusted p {p_adj:.3g}) but the {pair.interval_method} "
                          "interval printed beside the verdict includes 0, so the pair is not decided: a "
                          "verdict and its interval come from one inference")
    if margin is not None and _tost(pair, alpha, margin):
        pair.verdict = EQUIVALENT
        pair.equivalent = True
        if not pair.paired:
            pair.notes.append("unpaired: the arms do not share seeds")
        return
    if pair.paired and min_exact_p(pair.n) >= alpha:   # p < alpha decides: an exact p of alpha cannot
        pair.verdict = UNDERPOWERED
        pair.notes.append(f"with {pair.n} seeds no exact sign-flip test can reach p<{alpha:g}")
    else:
        pair.verdict = NO_DIFFERENCE
        _family_mde(pair, alpha, family, noun)
    _degenerate_note(pair)
    if not pair.paired:
        pair.notes.append("unpaired: the arms do not share seeds")


def _family_mde(pair: PairResult, alpha: float, family: int, noun: str = "pairs") -> None:
    """The difference the mean verdict would likely miss, at the level it really needs, and the note that says it.

    Why: a verdict needs the Holm-adjusted p below alpha, and Holm's first
    step asks for alpha / (pairs in the group), so the figure is for that
    step (power 0.8 there, more at later steps). And it is the deciding
    procedure's own figure (issue 37): the paired t test's 80% point was
    decided in .71 (n = 10) and .77 (n = 20) of normal data sets, since the
    verdict also needs the sign-flip test and the interval, and in .000 of
    bounded ones (`mean_power`: simulated for unbounded rewards; for bounded
    ones the smallest difference the betting interval can decide at all).
    """
    level = alpha / max(family, 1)
    where = f"at n={pair.n}" if family == 1 else f"at n={pair.n} with {family} {noun} (Holm: p<{level:.2g} first)"
    if pair.paired and not pair.items and pair.n >= 2:
        if pair.reward_range is not None:
            _bounded_note(pair, alpha, level, where)
        else:
            _unbounded_note(pair, alpha, level, where)
    else:
        if family > 1 and pair.n >= 2 and math.isfinite(pair.mde):
            pair.mde = pair.mde * mde_factor(pair.n, level) / mde_factor(pair.n, alpha)
        if math.isfinite(pair.mde) and pair.mde > 0:
            test = ("two-way clustered t" if pair.items and pair.method.startswith("two-way") else
                    "seed-clustered t" if pair.items else "Welch t" if not pair.paired else "t")
            pair.notes.append(f"differences smaller than {pair.mde:.3g} would likely be missed {where} ({test})")
    if pair.paired and family > 1 and min_exact_p(pair.n) >= level:
        pair.notes.append(f"the exact sign-flip test cannot reach p<{level:.2g} at n={pair.n}: "
                          "add seeds, or compare against one arm (--baseline)")


def _unbounded_note(pair: PairResult, alpha: float, level: float, where: str) -> None:
    factor, source = normal_factor(pair.n, level, alpha)
    if min_exact_p(pair.n) >= level:   # p < level decides: an exact p of level cannot
        pair.mde = math.inf
        return                      # the sign-flip note says it: no difference is decided at this level
    if factor is None:
        pair.mde = math.inf
        pair.notes.append(f"the mean verdict (t, sign-flip and interval together) decides fewer than 80% of "
                          f"normal data sets even 6 sd apart {where}: add seeds")
        return
    if not (math.isfinite(pair.sd) and pair.sd > 0):
        return
    pair.mde = factor * pair.sd
    pair.notes.append(f"differences smaller than {pair.mde:.3g} would likely be missed {where} ({source})")


def _bounded_note(pair: PairResult, alpha: float, level: float, where: str) -> None:
    """Bounded rewards: the difference the verdict decides in 0.8 of data sets like these (simulated t,
    sign-flip and betting interval together: `mean_power.bounded_factor`), or that none inside the range is;
    outside the simulated table, the smallest difference the betting interval decides at all."""
    lo, hi = pair.reward_range
    floor = bounded_floor(pair.n, level, alpha, float(lo), float(hi))
    what = f"betting interval, rewards in [{lo:g}, {hi:g}]"
    if floor is None:
        pair.mde = math.inf
        if min_exact_p(pair.n) < level:
            pair.notes.append(f"on the mean, no difference inside the reward range can be decided {where} ({what}: "
                              "not even every seed differing by the whole range); the typical-seed claim can be")
        return
    sim = None
    if math.isfinite(pair.sd):
        sim = bounded_factor(pair.n, level, alpha, float(lo), float(hi), pair.sd, _discordant(pair))
    if sim is None:
        pair.mde = floor
        pair.notes.append(f"on the mean, differences smaller than {floor:.3g} are missed {where} even when every "
                          f"seed differs by exactly that much ({what}); a spread of differences needs more")
        return
    x, source = sim
    if x is None or x > hi - lo:
        pair.mde = math.inf
        pair.notes.append(f"on the mean, no difference inside the reward range would likely be decided {where} "
                          f"({source}; {what}): add seeds, or use the typical-seed claim")
        return
    pair.mde = max(x, floor)
    pair.notes.append(f"differences smaller than {pair.mde:.3g} would likely be missed {where} ({source}; {what})")


def _discordant(pair: PairResult) -> float | None:
    """Pass/fail pairs (every difference -w, 0 or +w, w the range's width): the share of seeds that differ;
    None for any other pair. Read from the exact McNemar test's use (all nonzero differences share one
    magnitude m), the sign counts (k seeds differ) and the sum of squares k m^2 = (n - 1) sd^2 + n mean^2.
    Without the counts it is None: the sum of squares alone cannot tell 8 seeds differing by 1 from 2 seeds
    differing by 2, so 0/1 rewards declared in [0, 2] would read as pass/fail with a quarter of the share."""
    counts = getattr(pair.typical, "counts", None)
    if "McNemar" not in pair.p_method or pair.n < 2 or not math.isfinite(pair.sd) or counts is None:
        return None
    k = counts.wins + counts.losses
    if k == 0:
        return 0.0
    width = pair.reward_range[1] - pair.reward_range[0]
    squares = (pair.n - 1) * pair.sd ** 2 + pair.n * pair.diff ** 2
    if not math.isclose(math.sqrt(max(squares / k, 0.0)), width, rel_tol=1e-6):
        return None
    return k / pair.n


def _interval_agrees(pair: PairResult) -> bool:
    """The pair's printed interval excludes 0 on the side of its difference (NaN ends: the tests alone)."""
    lo, hi = pair.ci
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return True
    return lo > 0 if pair.diff > 0 else hi < 0


def _degenerate_note(pair: PairResult) -> None:
    if pair.paired and pair.n >= 2 and pair.sd == 0 and pair.reward_range is None:
        pair.notes.append(f"all {pair.n} differences are equal: the interval has zero width and is not a "
                          "confidence statement; the verdict rests on the exact sign-flip test")


def _tost(pair: PairResult, alpha: float, margin: float) -> bool:
    if pair.n < 2 or not math.isfinite(pair.sd):
        return False
    se = pair.sd / math.sqrt(pair.n)
    if se <= 0:
        return False  # a zero-width interval never decides
    q = t_quantile(1 - alpha, pair.n - 1)
    inside = pair.diff - q * se > -margin and pair.diff + q * se < margin
    if inside and pair.reward_range is not None:
        # bounded rewards: the distribution-free interval (level 1 - alpha, so
        # conservative for TOST's 1 - 2 alpha) must lie inside the margin too
        lo, hi = pair.ci
        return math.isfinite(lo) and math.isfinite(hi) and -margin < lo and hi < margin
    return inside
