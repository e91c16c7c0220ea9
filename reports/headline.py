"""The answer first: one headline per group (valid or not, leader, decided pairs, main confound) and its level.

The terminal's one line per group was the best summary there was and the
page lacked it. The level says how to style it: "bad" (not valid, not a
comparison: no verdicts), "warn" (incomplete, or a confound the reward
column does not account for), "ok" otherwise. A confound is never styled
as success. Groups are ordered most informative first (valid, then most
decided pairs), so the page does not open on a group where every pair is
underpowered.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from baselines.analysis.compare.comparison import Group
from baselines.analysis.compare.claims import claim_phrase
from baselines.analysis.result.model import GroupAnalysis

from .figure_base import not_valid_arms
from .summary import arms_beaten, group_state, support_text
from .text import budget_text


@dataclass
class Headline:
    level: str      # ok | info (nothing decided) | warn | bad
    text: str


def main_confound(ga: GroupAnalysis) -> str:
    """The leader's spend against each arm it is compared with ("b spent 3× a's tokens"), or "".

    A ratio to a named arm, from the analysis (`GroupAnalysis.headline_confound`): a ratio to the median of
    two arms turned "b spent 3x a" into "a spent 0.5x the median".
    """
    return "; ".join(c.sentence for c in ga.headline_confound[:3]) + (
        f" (and {len(ga.headline_confound) - 3} more)" if len(ga.headline_confound) > 3 else "")


def group_headline(ga: GroupAnalysis) -> Headline:
    """The group's headline from its analysis (a bare Group reads its own, `Comparison.analysis`-free: no confound
    ratio is invented for it)."""
    group = ga.group if isinstance(ga, GroupAnalysis) else ga
    state = group_state(group)
    where = f"{group.workload} at {budget_text(group.budget)}"
    if state in ("NOT VALID", "NOT A COMPARISON"):
        why = group.not_a_comparison or "; ".join(f"{a} {w}" for a, w in not_valid_arms(group).items())
        return Headline("bad", f"{where}: {state}: {why}. No verdicts.")
    parts = [f"{where}: {state}"]
    scored = [a for a in group.arms if a.scored and not math.isnan(a.mean)]
    if scored:
        best = max(scored, key=lambda a: a.mean)
        parts.append(_leader(group, best.arm, best.mean) if len(scored) > 1 else f"one arm: {best.arm} ({best.mean:.3g})")
    decided = sum(p.verdict in ("a>b", "b>a") for p in group.pairs)
    if group.pairs:
        parts.append(f"{decided} of {len(group.pairs)} pairs decided{claim_phrase(group.pairs, about=True)}")
    confound = main_confound(ga) if isinstance(ga, GroupAnalysis) else ""
    if confound:
        parts.append(f"main confound: {confound}")
    elif group.confounded:  # the leader's spend matches its rivals'; other arms' spend differs
        parts.append("confounded: other arms' spend differs (see the confound table)")
    level = "warn" if confound or group.confounded or state == "INCOMPLETE" else "ok" if decided else "info"
    return Headline(level, "; ".join(parts) + ".")


def _leader(group: Group, arm: str, mean: float) -> str:
    """"leader X" only when X is detected better than every other arm; else "highest mean X" (not a win)."""
    others = {a.arm for a in group.arms} - {arm}
    beaten = arms_beaten(group, arm)
    if others and others <= beaten:
        return f"leader {arm} ({mean:.3g}, detected better than every other arm{claim_phrase(group.pairs)})"
    return f"highest mean {arm} ({mean:.3g}; {support_text(group, arm, ' by the paired test')})"


def informative_first(groups: list[Group]) -> list[Group]:
    """Valid groups before the rest, then the most decided pairs, then the share decided; stable otherwise."""
    def key(g: Group):
        decided = sum(p.verdict in ("a>b", "b>a") for p in g.pairs)
        return (not g.valid, -decided, -(decided / len(g.pairs)) if g.pairs else 0.0)
    return sorted(groups, key=key)
