"""The few lines `costmatch run` prints when it finishes: per group, the state, the leader, the decided pairs.

Why not the whole report: the built-in suite's report is 200 lines; printed
to a terminal it buries the one thing a user needs first (did every group
check out, and who leads) and the path of the file that has the rest.
"""
from __future__ import annotations

import math
from pathlib import Path

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.compare.claims import claim_phrase
from baselines.core.units import nouns_of, unit_noun

from .text import budget_text


def group_state(group: Group) -> str:
    if group.not_a_comparison:
        return "NOT A COMPARISON"
    if not group.complete:
        return "INCOMPLETE"
    return "valid" if group.valid else "NOT VALID"


#: Incomplete arms described in full; the rest are named after "and N more".
SHOWN_ARMS = 3
#: Names listed after "and N more" (a suite of hundreds of arms must not print a page).
NAMED_ARMS = 20

_STAGE_WORDS = {"score": "in the workload's score()", "workload": "in the workload, before the arm ran",
                "setup": "while setting up", "worker": "its worker died", "record": "its record could not be stored"}


def first_errors(records) -> dict[tuple[str, str, str], tuple[int, str | None]]:
    """(workload, budget key, arm) -> (seed, stage) of the arm's error on its earliest seed.

    The comparison quotes the error of the earliest failing seed; the run's
    progress printed the first error to arrive, which with parallel cells or
    a resume can be another seed. Naming the seed (and whose code failed)
    says which one the summary quotes.
    """
    from baselines.core.records import budget_key

    out: dict[tuple[str, str, str], tuple[int, str | None]] = {}
    for r in records or ():
        if r.error is None:
            continue
        key = (r.workload, budget_key(r.budget), r.arm)
        if key not in out or r.seed < out[key][0]:
            stage = r.error.get("stage") if isinstance(r.error, dict) else None
            out[key] = (r.seed, stage if isinstance(stage, str) else None)
    return out


def _incomplete_text(group: Group, errors: dict) -> str:
    """Each incomplete arm with its scored count and first error; past SHOWN_ARMS, "and N more: names"."""
    from baselines.core.records import budget_key

    arms = group.incomplete_arms()
    shown = arms if len(arms) <= SHOWN_ARMS + 1 else arms[:SHOWN_ARMS]
    key = budget_key(group.budget)
    texts = []
    for a in shown:
        text = f"{a.arm} scored {a.scored} of {len(group.seeds)} seeds"
        if a.first_error:
            seed, stage = errors.get((group.workload, key, a.arm), (None, None))
            where = "".join([f"seed {seed}" if seed is not None else "",
                             f", {_STAGE_WORDS[stage]}" if stage in _STAGE_WORDS and seed is not None else ""])
            text += f" ({where + ': ' if where else ''}{a.first_error})"
        texts.append(text)
    rest = arms[len(shown):]
    if rest:
        names = ", ".join(a.arm for a in rest[:NAMED_ARMS]) + (f" and {len(rest) - NAMED_ARMS} others"
                                                                if len(rest) > NAMED_ARMS else "")
        texts.append(f"and {len(rest)} more: {names}")
    return "; ".join(texts)


def group_line(group: Group, errors: dict | None = None) -> str:
    """One line per group; `errors` (:func:`first_errors` of the records) names the seed of each quoted error."""
    state = group_state(group)
    scored = [a for a in group.arms if a.scored and not math.isnan(a.mean)]
    parts = [f"{group.workload} at {budget_text(group.budget)} (fixed {unit_noun(group.fixed)}): {state}"]
    if state == "INCOMPLETE":
        parts.append(_incomplete_text(group, errors or {}))
    if scored:
        best = max(scored, key=lambda a: a.mean)
        parts.append(_top_arm(group, best.arm, best.mean, len(scored)))
    decided = [p for p in group.pairs if p.verdict in ("a>b", "b>a")]
    if group.pairs and not group.valid:  # a not-valid group's differences are no verdicts
        parts.append("no verdicts (equal spend not verified)")
    elif group.pairs:
        names = [f"{p.a}>{p.b}" if p.verdict == "a>b" else f"{p.b}>{p.a}" for p in decided[:4]]
        more = f" and {len(decided) - 4} more" if len(decided) > 4 else ""
        parts.append(f"{len(decided)} of {len(group.pairs)} pairs decided{claim_phrase(group.pairs, about=True)}"
                     + (f": {', '.join(names)}{more}"
                                                                              if names else ""))
    return "; ".join(parts)


def arms_beaten(group: Group, arm: str) -> set[str]:
    """The arms `arm` is detected better than by the paired test; none in a group that is not valid.

    One rule for every place that names a leader (this summary, the page's
    headlines): a higher mean is not a win, a decided pair is.
    """
    if not group.valid:
        return set()
    return {p.b if p.a == arm else p.a for p in group.pairs
            if (p.a == arm and p.verdict == "a>b") or (p.b == arm and p.verdict == "b>a")}


def arms_compared(group: Group, arm: str) -> set[str]:
    """The arms `arm` was paired with: an arm with no scored runs (dead) is in no pair, and "better than 0
    of 4 others" must not count it as one `arm` failed to beat."""
    return {p.b if p.a == arm else p.a for p in group.pairs if arm in (p.a, p.b)}


def support_text(group: Group, arm: str, how: str = ", paired") -> str:
    """"better than K of N others" over the arms compared, and how many arms no pair could include."""
    others = {a.arm for a in group.arms} - {arm}
    compared = arms_compared(group, arm)
    beaten = arms_beaten(group, arm)
    plural = "s" if len(compared) != 1 else ""
    text = f"better than {len(beaten)} of {len(compared)} other{plural}{claim_phrase(group.pairs)}{how}"
    if others - compared:
        left = len(others - compared)
        text += f"; {left} arm{'s' if left != 1 else ''} with no scored runs not compared"
    return text


def _top_arm(group: Group, arm: str, mean: float, scored: int) -> str:
    """"leader X" only when X is detected better than every other arm; else "highest mean X", with its support."""
    if scored < 2:
        return f"one arm: {arm} {mean:.3g}"
    others = {a.arm for a in group.arms} - {arm}
    beaten = arms_beaten(group, arm)
    if others <= beaten:
        return f"leader {arm} {mean:.3g} (better than every other arm{claim_phrase(group.pairs)}, paired)"
    support = f" ({support_text(group, arm)})" if group.valid else ""
    return f"highest mean {arm} {mean:.3g}{support}"


def _in_own_words(group: Group, errors: dict) -> str:
    with nouns_of(group.unit_nouns):
        return group_line(group, errors)


def run_summary(comparisons: list[Comparison], report: Path, records=None) -> str:
    """The summary `run` prints; `records` (the run's) let each quoted first error name its seed."""
    errors = first_errors(records)
    lines = [_in_own_words(g, errors) for c in comparisons for g in c.groups]
    lines += [f"skipped {s.workload}: {s.reason}" for c in comparisons for s in c.skipped]
    page = Path(report).with_name("report.html")
    lines.append(f"full report: {report}" + (f" and {page}" if page.is_file() else ""))
    return "\n".join(lines) + "\n"
