"""The gate's bounds on one sequence of paired differences, and the one margin rule that reads them.

Why apart from `gate`: simulations and the sequential gate call this on
arrays, without a table, a comparison or the CLI. The choices:
- bounded rewards (a declared `reward_range`, or all rewards 0/1): paired
  pass/fail outcomes get the exact unconditional non-inferiority test, other
  bounded rewards the betting bounds for this n, and the betting confidence
  sequence when looks were declared or taken before (the t bounds PASSed a
  pass/fail candidate worse by exactly the margin 59% of the time at n = 5);
- unbounded rewards use Student t, widened by a bootstrap-t bound when the
  differences are skewed; all differences equal is INCONCLUSIVE (a
  zero-width interval never decides);
- on unbounded rewards no test on n seeds sees a loss rarer than about 1/n,
  so a PASS at small n says so;
- adding seeds until the gate decides is only honest with a plan: looks
  fixed in advance and alpha spent across them (`spending_schedule`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from .alpha import check_alpha
from .betting import diff_bounds
from .bootstrap import bootstrap_t_interval, sample_skewness
from .exact_paired import EXACT_MAX_N, exact_decision, ni_pvalue, paired_binary_counts
from .pair_interval import SKEW_MAX_N, SKEW_MIN_N, SKEW_THRESHOLD
from .stats import degenerate
from .student_t import t_interval, t_seeds_to_clear

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"


@dataclass
class GateDecision:
    """The verdict on one sequence of differences, with the bounds, the method that set them and notes."""

    verdict: str
    mean: float
    lower: float
    upper: float
    seeds_needed: int | None
    method: str
    notes: list[str] = field(default_factory=list)


def decide_gate(diffs, margin: float, alpha: float = 0.05, reward_range: tuple[float, float] | None = None,
                planned_n: int | None = None, anytime: bool = False) -> tuple[str, float, float, float, int | None]:
    """Verdict on per-seed differences (candidate - baseline, higher is better).

    Returns (verdict, mean, lower, upper, seeds_needed); `gate_decision` gives
    the same with the method and notes. The bounds are one-sided at `alpha`
    each, i.e. together a two-sided (1 - 2 alpha) interval.
    """
    g = gate_decision(diffs, margin, alpha, reward_range, planned_n, anytime=anytime)
    return g.verdict, g.mean, g.lower, g.upper, g.seeds_needed


BOUNDS = ("auto", "t", "betting")


EXACT = "exact unconditional non-inferiority test (paired 0/1 outcomes, score-ordered, worst case over the nuisance)"


def margin_verdict(lower: float, upper: float, margin: float) -> str:
    """The one margin rule of every gate route: PASS when the lower bound of candidate - baseline is above
    -margin, FAIL when the upper bound is below -margin, INCONCLUSIVE otherwise (NaN bounds never decide)."""
    if lower > -margin:
        return PASS
    if upper < -margin:
        return FAIL
    return INCONCLUSIVE


def _check_decision_args(margin: float, alpha: float, bounds: str, reward_range) -> None:
    if bounds not in BOUNDS:
        raise ValueError(f"bounds must be one of {', '.join(BOUNDS)}, got {bounds!r}")
    if bounds == "betting" and reward_range is None:
        raise ValueError("betting bounds need a reward range: declare reward_range = [lo, hi]")
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be finite and non-negative, got {margin}")
    check_alpha(alpha)


def gate_decision(diffs, margin: float, alpha: float = 0.05, reward_range: tuple[float, float] | None = None,
                  planned_n: int | None = None, bounds: str = "auto", anytime: bool = False) -> GateDecision:
    """See the module docstring. `reward_range` bounds each *reward* (differences span twice its width).

    Bounded rewards, one look (`anytime` False): paired pass/fail outcomes
    (every difference -w, 0 or w for a range of width w) get the exact
    unconditional non-inferiority test and its dual bounds; other bounded
    rewards the betting bounds tuned for this n. With `anytime` (declared
    looks of a sequential gate, or earlier looks found in the looks ledger)
    bounded rewards get the betting confidence sequence, valid at every look
    at once; `planned_n` (the last look) only tunes its width.
    `bounds="t"` forces the t route on bounded rewards (more power, no
    guarantee against a rare loss: see docs/calibration.md); "betting"
    forces the betting bounds and requires a reward range.
    """
    _check_decision_args(margin, alpha, bounds, reward_range)
    if bounds == "t":
        reward_range = None
    d = np.asarray(diffs, dtype=float)
    n = d.size
    mean = float(d.mean()) if n else math.nan
    if reward_range is not None:
        return _bounded_decision(d, margin, alpha, reward_range, planned_n, anytime or bounds == "betting")
    if n < 2:
        return GateDecision(INCONCLUSIVE, mean, -math.inf, math.inf, None, "t", ["fewer than 2 paired seeds"])
    _, lower, upper = t_interval(d, 1 - 2 * alpha)  # one-sided alpha on each side
    sd = float(d.std(ddof=1))
    method, notes = "t", []
    if degenerate(d):
        notes.append(f"all {n} differences are equal: a zero-width interval is not evidence; "
                     "declare the reward range for distribution-free bounds, or add seeds")
        return GateDecision(INCONCLUSIVE, mean, lower, upper, None, "t (degenerate)", notes)
    if SKEW_MIN_N <= n <= SKEW_MAX_N and abs(sample_skewness(d)) > SKEW_THRESHOLD:
        blo, bhi = bootstrap_t_interval(d, 1 - 2 * alpha, seed=0)
        lower, upper = min(lower, blo), max(upper, bhi)
        method = "t + bootstrap-t (skewed differences)"
    verdict = margin_verdict(lower, upper, margin)
    if verdict == PASS and (1 - 0.1) ** n > alpha:
        notes.append(f"rewards are unbounded and n = {n}: a loss that hits fewer than about 1 in {n} seeds can be "
                     f"absent from all of them (a loss in 10% of seeds is missed {0.9 ** n:.0%} of the time); "
                     "declare reward_range for a distribution-free gate")
    if anytime:
        notes.append("earlier looks at these results: unbounded rewards have no anytime-valid bound here, so this "
                     "verdict does not account for them; declare reward_range, or plan looks (run --looks)")
    needed = seeds_to_decide(mean, sd, margin, alpha) if verdict == INCONCLUSIVE else None
    return GateDecision(verdict, mean, lower, upper, needed, method, notes)


def is_paired_binary(d: np.ndarray, width: float) -> bool:
    """Every difference is -width, 0 or +width: paired outcomes at the two ends of the range (pass/fail)."""
    return d.size > 0 and bool(np.all(np.isclose(np.abs(d), width, rtol=0, atol=1e-12 * width) | (d == 0)))


def _bounded_decision(d: np.ndarray, margin: float, alpha: float, reward_range, planned_n, anytime: bool
                      ) -> GateDecision:
    """Bounded rewards: the exact test for paired pass/fail at one look, else betting (fixed n or anytime)."""
    n = d.size
    mean = float(d.mean()) if n else math.nan
    lo, hi = reward_range
    width = hi - lo
    where = f"rewards in [{lo:g}, {hi:g}]"
    if n >= 2 and not anytime and n <= EXACT_MAX_N and is_paired_binary(d, width):
        passes, fails, lower, upper = exact_decision(d / width, margin / width, alpha)
        verdict = PASS if passes else FAIL if fails else INCONCLUSIVE
        needed = _exact_seeds(d / width, margin / width, alpha) if verdict == INCONCLUSIVE else None
        return GateDecision(verdict, mean, lower * width, upper * width, needed, EXACT)
    if n < 2:
        return GateDecision(INCONCLUSIVE, mean, -math.inf, math.inf, None, f"betting ({where})",
                            ["fewer than 2 paired seeds"])
    lower, upper = diff_bounds(d, alpha, reward_range, planned_n if anytime else n)
    method = (f"betting confidence sequence (anytime-valid, distribution-free, {where})" if anytime else
              f"betting bound for {n} seeds (distribution-free, {where})")
    return GateDecision(margin_verdict(lower, upper, margin), mean, lower, upper, None, method)


def _exact_seeds(d01: np.ndarray, margin: float, alpha: float) -> int | None:
    """Seeds at which outcomes in these proportions would let the exact test decide (doubling, up to its cap)."""
    x10, x01, n = paired_binary_counts(d01)
    m = max(n, 2) * 2
    while m <= EXACT_MAX_N:
        a, b = round(x10 * m / n), round(x01 * m / n)
        if ni_pvalue(a, b, m, -margin) <= alpha or ni_pvalue(b, a, m, margin) <= alpha:
            return m
        m *= 2
    return None


def betting_seeds(d: np.ndarray, margin: float, alpha: float, reward_range, cap: int = 2560) -> int | None:
    """Seeds at which differences like these (the observed ones repeated) would let the betting bounds decide.

    Capped at 2,560 seeds (beyond, "more than that" is the useful answer): the
    search to 10,000 cost a third of a second per INCONCLUSIVE group.
    """
    n = max(d.size, 2) * 2
    while n <= cap:
        lo, hi = diff_bounds(np.resize(d, n), alpha, reward_range)
        if margin_verdict(lo, hi, margin) != INCONCLUSIVE:
            return n
        n *= 2
    return None


def seeds_to_decide(mean: float, sd: float, margin: float, alpha: float, cap: int = 10000) -> int | None:
    """Seeds at which the observed mean and spread would put the interval clear of -margin."""
    distance = abs(mean + margin)
    if distance == 0 or not math.isfinite(sd):
        return None
    if sd == 0:
        return 2
    return t_seeds_to_clear(sd, distance, alpha, cap)


def spending_schedule(looks: list[int], alpha: float) -> list[float]:
    """Alpha to spend at each look: O'Brien-Fleming-type spending, split by the union bound.

    alpha(t) = 2 - 2 Phi(z_{1 - alpha/2} / sqrt(t)) with t = n_k / n_K is the
    cumulative alpha allowed by look k; each look gets the increment. Since
    the increments sum to alpha, the chance of any false decision across all
    looks is at most alpha (a union bound: valid whatever the correlation of
    the looks, a little conservative). Early looks get little alpha, so an
    early stop needs a clear result.
    """
    if not looks or sorted(looks) != list(looks) or len(set(looks)) != len(looks) or looks[0] < 2:
        raise ValueError(f"looks must be increasing seed counts of at least 2, got {looks!r}")
    z = float(special.ndtri(1 - alpha / 2))
    cumulative = [2 - 2 * float(special.ndtr(z / math.sqrt(n / looks[-1]))) for n in looks]
    cumulative[-1] = alpha
    return [c - p for c, p in zip(cumulative, [0.0] + cumulative[:-1])]
