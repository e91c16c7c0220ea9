"""The cells every table format prints, read off the analysis: rows, verdict words, spend text, which units.

Why one module under all formats: markdown, LaTeX, CSV and HTML build
their cells from the same `ArmRow`s and `PairRow`s of one
`baselines.analysis.result.model.GroupAnalysis` (means and intervals
already clipped to the reward's range, decimals chosen once), so the
formats cannot disagree on a number, an interval or a verdict.
"""
from __future__ import annotations

from baselines.analysis.compare.comparison import Group
from baselines.analysis.result.model import (NOT_VALID, PAIR_WORDS, VERDICT_LEGEND, VERDICT_SHORT,  # noqa: F401
                                             ArmRow, GroupAnalysis, PairRow)

from baselines.analysis.compare.claims import TYPICAL

from .text import DASH, GE, floor_for_display, quantity


def rows(ga: GroupAnalysis) -> list[ArmRow]:
    """The arm rows every table prints (computed by the analysis: clipped means, intervals, the baseline pair)."""
    return ga.arms


def family_line(pairs: list[PairRow | None]) -> str:
    """"Family: 3 pairs against a, Holm (...)." for the pairs a table prints; "" when none names a family.

    Why every format prints it: a pair's verdict depends on which pairs were
    Holm-adjusted with it, so the same pair can be n.d. among all pairs and
    decided against a baseline; a table that does not say which it is cannot
    be read against another.
    """
    families = sorted({p.family for p in pairs if p is not None and p.family})
    return f"Family: {'; '.join(families)} (a verdict depends on the pairs adjusted with it)." if families else ""


def baseline_pairs(ga: GroupAnalysis) -> list[PairRow]:
    """The pairs behind a column against the baseline (those `rows` prints beside each arm)."""
    return [a.vs_baseline for a in ga.arms if a.vs_baseline is not None]


def baseline_claim(ga: GroupAnalysis) -> str:
    """"typical seed" or "mean": the claim every pair of the column against the baseline decides ("" if mixed).

    Why the header says it: a typical-seed column prints the median per-seed
    gain, which differs from the mean gain `check` prints for the same two
    arms; a reader who is not told which claim a column is compares the two.
    """
    claims = {p.claim for p in baseline_pairs(ga)}
    if len(claims) != 1:
        return ""
    return "typical seed" if claims == {TYPICAL} else "mean"


def pair_verdict(p: PairRow) -> str:
    """The verdict word of a pair (a>b, b>a, n.d., underpowered, not valid), as the analysis chose it."""
    return p.verdict_word


def verdict_words(p: PairRow) -> str:
    """The verdict of an arm against the baseline (better, worse, n.d., underpowered), or "not valid"."""
    return p.against_word


def spend_text(median, status, latex: bool) -> str:
    if status == "unreported" or median is None:
        return "---" if latex else DASH
    text = quantity(floor_for_display(median) if status == "partial" else median)
    if latex:
        text = text.replace(",", "{,}").replace("\u221e", "$\\infty$")
    if status == "partial":
        return f"$\\geq${text}" if latex else f"{GE}{text}"
    return text


def shown_units(group: Group, drop_unreported: bool, seconds: bool = False) -> list[str]:
    """Units to give a column; paper tables drop units no arm reports (the caption names them) and wall
    time unless `seconds` (on simulators it measures the machine; confounds leave it out for the same reason).

    Never the group's fixed unit: the table is about spend in it, and a reader
    told "unreported units are shown as \u2014" must find its column (of \u2014).
    """
    if not drop_unreported:
        return list(group.units)
    return [u for u in group.units if u == group.fixed or (u != "seconds" or seconds) and
            any(a.spend[u].status != "unreported" for a in group.arms)]


def silent_units(group: Group) -> list[str]:
    """Units no arm reports that get no column in a paper table (the fixed unit always has one)."""
    return [u for u in group.units
            if u != group.fixed and all(a.spend[u].status == "unreported" for a in group.arms)]
