"""The gate's typical-seed claim (issue 37): PASS when the median paired difference is above -margin.

Why a second claim for the gate: a distribution-free bound on the *mean* of
rewards in [0, 1] cannot PASS two seed-for-seed identical arms at margin 0.1
before 29 seeds (docs/statistics.md). "On a typical seed the candidate loses
less than the margin" is decided by an exact sign test at any n and for
any shape: identical arms PASS from 5 seeds on (1/32 <= 0.05, one-sided).

Its blind spot is the rare catastrophic loss: a candidate that loses
everything on one seed in ten still has a typical seed. So the gate always
prints the worst seed's loss, and `--max-loss L` FAILs when any seed loses
more than L (a rule about the seeds seen, not a statistical bound).

With both claims (`--claim both`) the gate PASSes only when both PASS and
FAILs only when both FAIL (intersection-union tests: false PASS and false
FAIL each stay at alpha without a correction); a split is INCONCLUSIVE and
the reason names each claim's verdict.
"""
from __future__ import annotations

import math

import numpy as np

from .gate_bounds import FAIL, INCONCLUSIVE, PASS, GateDecision, margin_verdict
from ..statistics.typical_seed import GATE_METHOD, margin_seeds_to_decide, margin_sign_bounds

GATE_CLAIMS = ("mean", "typical", "both")


def typical_gate_decision(diffs, margin: float, alpha: float) -> GateDecision:
    """PASS / FAIL / INCONCLUSIVE on the median of per-seed differences (candidate - baseline, higher is better)."""
    d = np.asarray(diffs, dtype=float)
    b = margin_sign_bounds(d, margin, alpha)
    verdict = margin_verdict(b.lower, b.upper, margin) if b.n else INCONCLUSIVE
    notes = [f"typical seed: {b.above} of {b.n} seeds lose less than the margin, {b.below} lose more"]
    needed = None
    if verdict == INCONCLUSIVE and b.n:
        share = max(b.above, b.below) / b.n
        needed = margin_seeds_to_decide(share, alpha)
        if needed is not None and needed <= b.n:
            needed = None
        if not (math.isfinite(b.lower) or math.isfinite(b.upper)):
            notes.append(f"with {b.n} seeds no exact sign test can reach p<{alpha:g} one-sided "
                         f"(at least {math.ceil(math.log2(1 / alpha))} are needed)")
    return GateDecision(verdict, b.median, b.lower, b.upper, needed, GATE_METHOD, notes)


def combine(mean: GateDecision, typical: GateDecision) -> str:
    """Both claims: PASS when both PASS, FAIL when both FAIL, else INCONCLUSIVE (see the module docstring)."""
    if mean.verdict == typical.verdict:
        return mean.verdict
    return INCONCLUSIVE


def worst_loss(diffs: dict[int, float]) -> tuple[float, int | None]:
    """The largest loss of the candidate on any seed (a positive number; 0 when it loses nowhere) and its seed."""
    if not diffs:
        return math.nan, None
    seed = min(diffs, key=lambda s: diffs[s])
    return max(0.0, -float(diffs[seed])), (seed if diffs[seed] < 0 else None)
