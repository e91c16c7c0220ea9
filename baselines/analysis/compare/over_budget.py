"""Runs that spent beyond their budget in the fixed unit: how many, how far, said beside "verified equal spend".

Why (issue 39): an arm that skipped `meter.check()` spent 11 calls on a
budget of 10; the record said so, but `compare` printed "Every group
verified equal spend" without a word. Within the tolerance the comparison
stays valid (tokens are charged as reported, so the last call of a token
budget overshoots by design), yet a reader must learn that runs went over,
by how much and how often. Computed once here; every view prints these
sentences (markdown, HTML, LaTeX) or the JSON of `OverBudget`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.units import CHARGED_AS_REPORTED, unit_noun


@dataclass
class OverBudget:
    """The runs of one group whose spend in the fixed unit is above the allowance, with the worst of them."""

    unit: str
    allowance: float
    runs: int                    # runs above the allowance
    of_runs: int                 # runs with a known spend in the unit
    worst_arm: str
    worst_seed: int | None
    worst_spend: float
    arms: dict[str, int] = field(default_factory=dict)   # arm -> its runs above the allowance

    @property
    def worst_share(self) -> float:
        """How far the worst run went over, as a fraction of the allowance (0.1 = 10% over)."""
        return (self.worst_spend - self.allowance) / self.allowance if self.allowance > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "allowance": self.allowance, "runs": self.runs, "of_runs": self.of_runs,
                "worst": {"arm": self.worst_arm, "seed": self.worst_seed, "spend": self.worst_spend,
                          "over": None if self.allowance <= 0 else self.worst_share},
                "arms": dict(self.arms)}


def over_budget(arms: list[str], spends: list[np.ndarray], seeds: list[np.ndarray], unit: str,
                allowance: float) -> OverBudget | None:
    """The group's `OverBudget` from each arm's scored runs' spend in `unit`; None when no run went over."""
    counts: dict[str, int] = {}
    worst: tuple[float, str, int | None] | None = None
    known_runs = 0
    for arm, values, arm_seeds in zip(arms, spends, seeds):
        values = np.asarray(values, dtype=float)
        known = ~np.isnan(values)
        known_runs += int(known.sum())
        over = known & (values > allowance)
        if not over.any():
            continue
        counts[arm] = int(over.sum())
        i = int(np.argmax(np.where(over, values, -np.inf)))
        if worst is None or values[i] > worst[0]:
            worst = (float(values[i]), arm, int(arm_seeds[i]) if len(arm_seeds) > i else None)
    if worst is None:
        return None
    return OverBudget(unit, float(allowance), sum(counts.values()), known_runs, worst[1], worst[2], worst[0],
                      counts)


def _amount(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.6g}"


def group_sentence(found: OverBudget | None, nouns: dict[str, str] | None = None) -> str:
    """One sentence for a group's caption, or "" when no run went over its budget."""
    if found is None:
        return ""
    noun = unit_noun(found.unit, nouns or None)
    share = "" if found.allowance <= 0 else f", by at most {found.worst_share:.1%}"
    seed = "" if found.worst_seed is None else f" on seed {found.worst_seed}"
    who = ", ".join(f"{arm} {n}" for arm, n in sorted(found.arms.items()))
    why = (f" {noun.capitalize()} are charged as reported, so the call that crosses the budget ends the run "
           "beyond it: expected, and measured." if found.unit in CHARGED_AS_REPORTED else "")
    return (f"Over budget: {found.runs} of {found.of_runs} runs spent beyond the allowance of "
            f"{_amount(found.allowance)} {noun}{share} ({found.worst_arm}: {_amount(found.worst_spend)}{seed}; "
            f"runs over per arm: {who}).{why}")


def comparison_sentence(groups: list[Any]) -> str:
    """One sentence for the comparison's headline, beside "verified equal spend"; "" when no run went over.

    Only units checked before they are charged (calls, rollouts, evaluations) reach the headline: there an
    overshoot means an arm skipped `meter.check()`. A token, dollar or second budget is crossed by its last
    call by design; its group's caption says so (the headline said it on most token-budget runs, so loudly
    that a real overshoot would not stand out)."""
    found = [(g, g.over_budget) for g in groups if getattr(g, "over_budget", None) is not None
             and g.over_budget.unit not in CHARGED_AS_REPORTED]
    if not found:
        return ""
    runs = sum(o.runs for _, o in found)
    total = sum(o.of_runs for _, o in found)
    g, worst = max(found, key=lambda pair: pair[1].worst_share)
    share = "" if worst.allowance <= 0 else f" by at most {worst.worst_share:.1%}"
    seed = "" if worst.worst_seed is None else f", seed {worst.worst_seed}"
    return (f"Over budget: {runs} of {total} runs in {len(found)} group(s) spent beyond their budget in the fixed "
            f"unit{share} (worst: {worst.worst_arm} on {g.workload}{seed}).")
