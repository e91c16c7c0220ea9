"""Degradation in words: which arm dropped which stages, from which share of its budget.

Why beside the confounds: spend in another unit and work left undone are
the two ways arms at an equal budget stop being like for like, and a reward
column accounts for neither (see `baselines.analysis.tables.degradation`).
"""
from __future__ import annotations

from baselines.analysis.tables.degradation import Degraded

_ENDED = {"projected": "cleanly by projection", "budget": "budget exhausted", "converged": "on its own (converged)"}


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.0f}%"


def degraded_sentence(item: Degraded, name) -> str:
    """"arm degraded in the last 25% of its budget in 10 of 10 runs (...): rank dropped from 75%, ...; ended: ..."."""
    stages = ", ".join(f"{stage} from {_percent(f)}" for stage, f in item.stages.items())
    runs = f"{item.runs} of {item.of_runs} run{'s' if item.of_runs != 1 else ''}"
    earliest = "" if round(100 * item.earliest) == round(100 * item.first) else \
        f"; from {_percent(item.earliest)} at the earliest"
    text = (f"{name(item.arm)} degraded in the last {_percent(item.last_share)} of its budget in {runs} "
            f"(median{earliest}): dropped {stages} (median share of the budget spent when each stage was "
            "first refused)")
    if item.stops:
        text += "; ended: " + ", ".join(f"{n} {_ENDED.get(kind, kind)}" for kind, n in sorted(
            item.stops.items(), key=lambda kv: (-kv[1], kv[0])))
    return text + ". Its reward is not like for like with arms that ran every stage to the end."


def degraded_notes(group) -> list[str]:
    """One plain sentence per degraded arm, for the notes below a paper table."""
    return ["Degraded: " + degraded_sentence(d, lambda a: a) for d in group.degraded]
