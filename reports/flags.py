"""Flags and captions in words that fit their unit.

A caption may only claim what the comparison verified: "held fixed in
tokens" is printed only when every arm reported tokens in full and none
drifted. Each flag names the arm, the unit and both numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from baselines.analysis.compare.comparison import Comparison, Flag, Group, Unverified
from baselines.analysis.compare.over_budget import comparison_sentence, group_sentence
from baselines.core.units import nouns_of, unit_noun

from .text import quantity, ratio


#: what the two marks of a spend cell mean; said once per table
LEGEND = ("CI = confidence interval; \u2014 = not reported (unknown, not zero); \u2265 = lower bound (reported on "
          "some calls or runs only; a run without the unit counts as 0).")
#: n/a is not \u2014: the number is not defined (one seed has no interval), not unknown
NA_LEGEND = "n/a = not defined (an interval needs two scored seeds)."


def _plural_runs(n: int) -> str:
    return f"{n} run" if n == 1 else f"{n} runs"


def unequal_sentence(flag: Flag, tolerance: float, name) -> str:
    budget = "budget" if flag.reference_source == "budget" else "median across arms"
    return (f"{name(flag.arm)} spent {quantity(flag.spend)} {unit_noun(flag.unit)} on seed {flag.seed}, "
            f"{flag.direction} the {quantity(flag.reference)} {budget} ({ratio(flag.spend, flag.reference)}); "
            f"{flag.runs} of {_plural_runs(flag.of_runs)} outside \u00b1{tolerance:.0%}")


def unverified_sentence(item: Unverified, name) -> str:
    noun = unit_noun(item.unit)
    if item.reason == "unreported":
        return (f"{name(item.arm)} did not report {noun} on any of its {_plural_runs(item.runs)}: "
                f"its spend in {noun} is unknown, so equal spend cannot be checked")
    return (f"{name(item.arm)} reported {noun} on only part of its calls or runs ({item.reported_runs} of "
            f"{_plural_runs(item.runs)} complete): its figure is a lower bound and cannot be verified")


def confound_sentence(flag: Flag, name) -> str:
    noun = unit_noun(flag.unit)
    bound = "at least " if flag.lower_bound else ""
    more_less = "more" if flag.direction == "over" else "fewer"
    return (f"{name(flag.arm)} used {bound}{quantity(flag.spend)} {noun} against a median of "
            f"{quantity(flag.reference)} across arms ({ratio(flag.spend, flag.reference)}): "
            f"{more_less} {noun} than the others, a difference the quality column does not account for")


def unreported_lines(group: Group, name, shown: list[str] | None = None) -> list[tuple[str, str]]:
    """One line per unit: which arms do not report it, or report it on some runs only.

    `shown`: the units the table gives a column (None: all). A unit no arm
    reports may have no column (paper tables drop it); its line then says
    so instead of "shown as \u2014", which would send the reader to a column
    that is not there.
    """
    lines = []
    for unit in group.units:
        missing = [u.arm for u in group.unreported if u.unit == unit and u.reason == "unreported"]
        partial = [u for u in group.unreported if u.unit == unit and u.reason == "partial"]
        noun = unit_noun(unit)
        if missing:
            who = "any arm" if len(missing) == len(group.arms) else ", ".join(name(a) for a in missing)
            where = ("shown as \u2014: unknown, not 0" if shown is None or unit in shown
                     else "no column: unknown, not 0")
            lines.append((unit, f"{noun} not reported by {who} ({where})"))
        for u in partial:
            lines.append((unit, f"{name(u.arm)} reports {noun} on only part of its calls or runs "
                                f"({u.reported_runs} of {_plural_runs(u.runs)} complete): shown as a lower bound"))
    return lines


def unreported_grouped(group: Group, name, shown: list[str] | None = None) -> list[tuple[str, str]]:
    """`unreported_lines`, with the units no arm reports said in one line (per column kind), not one per unit."""
    lines = unreported_lines(group, name, shown)
    silent = [u for u in group.units if all(a.spend[u].status == "unreported" for a in group.arms)]
    out = []
    for has_column in (True, False):
        same = [u for u in silent if (shown is None or u in shown) == has_column]
        if len(same) > 1:
            where = "shown as \u2014: unknown, not 0" if has_column else "no column: unknown, not 0"
            out.append(("", f"not reported by any arm ({where}): " + ", ".join(unit_noun(u) for u in same)))
            lines = [(u, t) for u, t in lines if u not in same]
    return out + lines


@dataclass
class CaptionParts:
    """The sentences of a group's caption, apart, so a paper table can keep the short ones in its caption
    and move the per-arm ones (which grow with the number of arms) below the table."""

    head: str                                        # what was verified, or NOT A LIKE-FOR-LIKE ...
    incomplete: list[str] = field(default_factory=list)   # "a scored 2 of 3 runs (first error: ...)"
    seeds: str = ""                                  # "3 seeds per arm; reward is the mean ..."
    confounded: list[str] = field(default_factory=list)   # unit nouns
    legend: str = ""


def caption_parts(group: Group, fixed: str | None, tolerance: float, metric: str = "reward") -> CaptionParts:
    """What the group verified (in its own fixed unit), then how to read the numbers, sentence by sentence."""
    fixed = getattr(group, "fixed", "") or fixed
    noun = unit_noun(fixed) if fixed else "the budget's unit"
    if getattr(group, "not_a_comparison", None):
        return CaptionParts(f"NOT A COMPARISON: {group.not_a_comparison}.")
    arms_total = len(group.arms)
    seeds = sorted({a.runs for a in group.arms})
    seed_text = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
    if group.valid and group.reference is not None:
        where = (f"the requested allowance of {quantity(group.reference)}" if group.reference_source == "budget"
                 else f"the median across arms, {quantity(group.reference)}")
        head = (f"Budget held fixed in {noun}: every scored run of all {arms_total} arms is within "
                f"\u00b1{tolerance:.0%} of {where}")
        if group.early_stopped:
            head += (f", except runs of {', '.join(group.early_stopped)} that stopped on their own below it "
                     "(accepted as early stops; see notes)")
        head += "."
        over = group_sentence(getattr(group, "over_budget", None), getattr(group, "unit_nouns", None))
        head += f" {over}" if over else ""
    else:
        problems = []
        if group.unverified:
            problems.append(f"{len({u.arm for u in group.unverified})} arm(s) did not report {noun} in full")
        if group.unequal:
            problems.append(f"{len({f.arm for f in group.unequal})} arm(s) drifted beyond \u00b1{tolerance:.0%}")
        if not problems:
            problems.append(f"no arm reports {noun}")
        head = (f"NOT A LIKE-FOR-LIKE COMPARISON: equal spend in {noun} was not verified "
                f"({'; '.join(problems)}); the {metric} column compares arms at different or unknown budgets.")
    incomplete = [f"{a.arm} scored {a.scored} of {a.runs} runs"
                  + (f" (first error: {a.first_error})" if getattr(a, "first_error", None) else "")
                  for a in group.arms if a.scored < a.runs or a.scored == 0]
    seeds_sentence = (f"{seed_text} {'seed' if seeds == [1] else 'seeds'} per arm; {metric} is the mean with a "
                      f"95% {_interval_words(group)} over seeds; spend columns are medians over seeds.")
    legend = LEGEND + (" " + NA_LEGEND if any(a.scored < 2 for a in group.arms) else "")
    return CaptionParts(head, incomplete, seeds_sentence, sorted({unit_noun(f.unit) for f in group.confounded}),
                        legend)


#: how each kind of per-arm interval is named in a caption (`ArmSummary.interval`)
INTERVAL_WORDS = {"t": "Student-t interval", "clopper-pearson": "exact binomial (Clopper-Pearson) interval",
                  "t (skewed rewards: may under-cover)":
                      "Student-t interval (rewards skewed: it may cover less than 95%)",
                  "betting": "distribution-free betting interval"}


def _interval_words(group: Group) -> str:
    """"Student-t interval", or for arms with different kinds "interval (Student-t for a, b; ... for c)".

    Why not "X / Y": the caption read "the mean with a 95% Student-t interval / Student-t interval
    (rewards skewed: ...)", which is not a sentence (issue 39)."""
    by_kind: dict[str, list[str]] = {}
    for a in group.arms:
        if getattr(a, "scored", 1):  # an arm without a score has no interval (its row prints n/a, defined in the legend)
            by_kind.setdefault(getattr(a, "interval", "t"), []).append(a.arm)
    if not by_kind:
        return "interval"
    if len(by_kind) == 1:
        return INTERVAL_WORDS.get(next(iter(by_kind)), next(iter(by_kind)))
    parts = [f"{INTERVAL_WORDS.get(k, k).removesuffix(' interval').replace(' interval (', ' (')} for "
             f"{', '.join(arms)}" for k, arms in sorted(by_kind.items())]
    return f"interval ({'; '.join(parts)})"


def group_caption(group: Group, fixed: str | None, tolerance: float, metric: str = "reward") -> str:
    """The caption: what the group verified (in its own fixed unit), then how to read the numbers."""
    parts = caption_parts(group, fixed, tolerance, metric)
    if not parts.seeds:  # not a comparison: nothing else to say
        return parts.head
    text = parts.head
    if parts.incomplete:
        text += " INCOMPLETE: " + "; ".join(parts.incomplete) + "."
    text += " " + parts.seeds
    if parts.confounded:
        text += f" Confounded: {', '.join(parts.confounded)} (see the confound table)."
    return text + " " + parts.legend


def comparison_headline(comparison: Comparison) -> str:
    """One line: INCOMPLETE first (an arm that failed must not hide behind "verified"), then validity."""
    if not comparison.groups:
        return "No runs to compare." + (f" {len(comparison.skipped)} group(s) skipped (see below)."
                                        if getattr(comparison, "skipped", None) else "")
    fixed_units = sorted({getattr(g, "fixed", "") or comparison.fixed or "" for g in comparison.groups} - {""})
    noun = ", ".join(_fixed_noun(comparison, u) for u in fixed_units) or "the budget's unit"
    head = ""
    short = [(g, a) for g in comparison.groups for a in g.arms if a.scored < a.runs or a.scored == 0]
    if short:
        g, a = short[0]
        first = getattr(a, "first_error", None)
        head = (f"INCOMPLETE: {len(short)} arm(s) scored fewer runs than they ran (e.g. {a.arm} on {g.workload}: "
                f"{a.scored} of {a.runs}" + (f"; first error: {first}" if first else "") + "). ")
    over = comparison_sentence(comparison.groups)   # issue 39: runs beyond their budget are said beside it
    over = f" {over}" if over else ""
    if comparison.valid:
        where = noun if len(fixed_units) == 1 else "its fixed unit"
        scored = " on the runs that were scored" if short else ""  # a crashed run's spend is not verified
        return head + f"Fixed unit: {noun}. Every group verified equal spend in {where}{scored}.{over}"
    bad = sum(not g.valid for g in comparison.groups)
    return head + (f"NOT VALID: {bad} of {len(comparison.groups)} group(s) could not verify equal spend. "
                   f"Fixed unit: {noun}.{over}")


def _fixed_noun(comparison: Comparison, unit: str) -> str:
    """A fixed unit in the words of the groups fixed in it: bbob's calls are "function evaluations"."""
    words = {unit_noun(unit, getattr(g, "unit_nouns", None) or None) for g in comparison.groups
             if (getattr(g, "fixed", "") or comparison.fixed) == unit}
    return " / ".join(sorted(words)) or unit_noun(unit)


def skipped_lines(comparison: Comparison) -> list[str]:
    """One line per group the selection left out, with the reason (never silently)."""
    from .text import budget_text
    out = []
    for s in getattr(comparison, "skipped", ()) or ():
        with nouns_of(getattr(s, "unit_nouns", None)):  # bbob at 500 function evaluations
            out.append(f"skipped: {s.workload} at {budget_text(s.budget)}: {s.reason}")
    return out


def run_notes(record) -> list[str]:
    """A record's `notes` (an extra field: what else happened on the run, e.g. a fork that failed), as text."""
    notes = (record.extra or {}).get("notes")
    if notes is None:
        return []
    return [str(n) for n in notes] if isinstance(notes, list) else [str(notes)]


def clip_note(text: str, limit: int) -> str:
    """One line of at most `limit` characters (an ellipsis says it was cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"
