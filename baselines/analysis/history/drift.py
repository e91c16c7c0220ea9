"""Drift: the candidate against a pinned reference at every commit, with alpha spent over the commits.

Why a reference and not only the base: each pull request is gated against
the branch it merges into, so a loss of 0.01 per merge PASSes a 0.05 margin
every time while the branch falls 0.10 behind the release. Comparing the
candidate with one fixed reference (a release's results file) measures the
cumulative change directly, paired by seed, and gates it with the same margin.

Why alpha spending, and this one: the reference is compared again at every
commit, so a gate at the full alpha each time would alarm on a branch that
sits exactly at the margin with probability near 1 - (1 - alpha)^k.
Unbounded rewards have no anytime-valid bound here (`gate_bounds.look_alpha`),
so the k-th look at one reference spends alpha / horizon, for k up to the
horizon (default 30 looks, `--drift-horizon`): by the union bound the chance
of any false drift alarm over all of them is at most alpha, whatever the
correlation between commits (they share the reference's runs). A flat split
rather than alpha / (k (k + 1)): drift builds up, so the looks that matter
are the later ones, which a decreasing schedule starves (at look 8 it would
spend alpha / 72 instead of alpha / 30). After the horizon the reference's
alpha is spent: the drift gate stops deciding and says to pin a new one.
"""
from __future__ import annotations

import math

from ..statistics.alpha import format_level

DEFAULT_HORIZON = 30


def drift_alpha(look: int, horizon: int, alpha: float) -> float:
    """The one-sided alpha the `look`-th comparison with one reference spends: alpha / horizon, 0 once spent."""
    if horizon < 1:
        raise ValueError(f"the drift horizon must be a whole number of looks, at least 1, got {horizon!r}")
    return alpha / horizon if 1 <= look <= horizon else 0.0


def spent_note(horizon: int, label: str) -> str:
    return (f"the {horizon} looks the {label} reference's alpha was spread over are spent: pin a new reference "
            "(a newer release's results file) to keep gating drift")


def drift_sentence(estimate: float, lower: float, upper: float, alpha: float, verdict: str, label: str,
                   look: int, horizon: int, margin: float, lower_is_better: bool = False) -> str:
    """'DRIFT: 0.08 below the v1.2 reference (interval ...)' or the no-drift reading of the same numbers.

    `estimate` is signed so that negative is worse; with `lower_is_better` the words are "worse than" /
    "better than" (a cost 0.08 *below* the reference is a gain)."""
    level = format_level(1 - alpha) if alpha > 0 else "n/a"
    shown = f"[{lower:+.4g}, {upper:+.4g}]" if math.isfinite(lower) and math.isfinite(upper) else "n/a"
    words = ("worse than", "better than") if lower_is_better else ("below", "above")
    where = (f"{abs(estimate):.4g} {words[0] if estimate < 0 else words[1]} the {label} reference"
             if math.isfinite(estimate) else f"no estimate against the {label} reference")
    tail = (f"(interval {shown}, one-sided {level} bounds, look {look} of {horizon}, margin {margin:.4g})")
    if verdict == "FAIL":
        return f"DRIFT: {where} {tail}"
    if verdict == "PASS":
        return f"no drift: {where}, within the margin {tail}"
    return f"drift undecided: {where} {tail}"
