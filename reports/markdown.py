"""The markdown summary that `costmatch compare` prints (GitHub pipe tables)."""
from __future__ import annotations

import dataclasses
import math

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.tables.group_runs import as_index
from baselines.core.units import nouns_of, unit_noun

from .degraded import degraded_sentence
from .flags import (clip_note, comparison_headline, confound_sentence, group_caption, run_notes, skipped_lines,
                    unequal_sentence, unreported_grouped, unreported_lines, unverified_sentence)
from .ranges import range_for
from .confounds import confound_markdown
from .table_rows import CLAIM_WORDS, claim_rows, clip_pair, family_line, pair_verdict, shown_units
from .tables import group_markdown
from .text import budget_text, decimals_for, fixed, interval, md, pipe_table


def _name(arm: str) -> str:
    return f"**{md(arm)}**"


def pairs_table(group: Group, rng=None) -> str:
    """All pairs of a group; with a reward range `rng`, differences are clipped to ±(hi − lo).

    A group that is not valid gets "not valid" for every verdict. Notes that
    repeat (the same 240 characters on every decided row) are said once,
    below the table, and referred to by number.
    """
    if not group.pairs:
        return ""
    if rng is not None:
        group = dataclasses.replace(group, pairs=[clip_pair(p, rng) for p in group.pairs])
    shown = [(p, c) for p in group.pairs for c in claim_rows(p)]
    decimals = decimals_for((c.ci[1] - c.ci[0]) / 2 for _, c in shown
                            if math.isfinite(c.ci[0]) and math.isfinite(c.ci[1]))
    boot = any(p.bootstrap_ci is not None for p in group.pairs)
    notes: list[str] = []
    rows = []
    for p, c in shown:
        row = [md(p.a), md(p.b), str(p.n), CLAIM_WORDS.get(c.claim, c.claim), fixed(c.estimate, decimals, signed=True),
               interval(c.ci[0], c.ci[1], decimals, signed=True), f"{c.p:.3g}",
               f"{c.p_adjusted:.3g}", pair_verdict(dataclasses.replace(p, verdict=c.verdict), group.valid)]
        if boot:
            row.append(interval(*p.bootstrap_ci, decimals, signed=True) if p.bootstrap_ci else "n/a")
        refs = []
        for n in (c.notes if len(p.claims) > 1 else p.notes) if group.valid else ():
            if n not in notes:
                notes.append(n)
            refs.append(f"[{notes.index(n) + 1}]")
        rows.append(row + [" ".join(refs)])
    headers = ["a", "b", "n", "claim", "a − b", "95% CI", "p", "p (Holm)", "verdict"] + \
        (["bootstrap 95% CI"] if boot else []) + ["notes"]
    text = pipe_table(rows, headers, align="llrlrrrrl" + ("r" if boot else "") + "l")
    if notes:
        text += "\n\n" + "\n".join(f"[{i + 1}] {md(n)}" for i, n in enumerate(notes))
    decided = [p.claim_text for p in group.pairs if p.verdict in ("a>b", "b>a") and p.claim_text] if group.valid else []
    if decided:
        text += "\n\n" + "\n".join(f"- {md(sentence)}" for sentence in decided)
    family = family_line(group.pairs)
    if family:
        text += "\n\n" + md(family)
    return text


def flag_bullets(group: Group, tolerance: float, compact: bool = False, shown: list[str] | None = None) -> list[str]:
    """Validity problems as sentences; confounds as sentences too unless `compact` (then a table says them).

    `shown`: the units the table gives a column (None: all); a unit without
    one is never said to be "shown as \u2014".
    """
    out = [f"- **unverified** ({md(unit_noun(u.unit))}): {unverified_sentence(u, _name)}" for u in group.unverified]
    out += [f"- **unequal** ({md(unit_noun(f.unit))}): {unequal_sentence(f, tolerance, _name)}" for f in group.unequal]
    if not compact:
        out += [f"- **confound** ({md(unit_noun(f.unit))}): {confound_sentence(f, _name)}" for f in group.confounded]
    out += [f"- **degraded**: {degraded_sentence(d, _name)}" for d in group.degraded]
    lines = unreported_grouped(group, _name, shown) if compact else unreported_lines(group, _name, shown)
    out += [f"- unreported ({md(unit_noun(unit))}): {text}" if unit else f"- unreported: {md(text)}" for unit, text in lines]
    out += [f"- note: {md(n)}" for n in group.notes]
    return out


MAX_RUN_NOTES = 20       # per group in the markdown report; the rest are counted (the HTML page has them all)
MAX_NOTE_CHARS = 240


def run_note_bullets(group: Group, records) -> list[str]:
    """The `notes` of the group's runs (e.g. a fork that failed while the selected one was scored), with arm and seed.

    Records carry them and no table showed them: a reader saw a clean
    result where a run had hit timeouts.
    """
    items = [(arm, r.seed, n) for arm, runs in as_index(records).of(group).items()
             for r in sorted(runs, key=lambda r: r.seed) for n in run_notes(r)]
    if not items:
        return []
    order = {a.arm: i for i, a in enumerate(group.arms)}
    items.sort(key=lambda t: (order.get(t[0], len(order)), t[1]))
    out = [f"Run notes from the records ({len(items)}):", ""]
    out += [f"- {_name(arm)}, seed {seed}: {md(clip_note(n, MAX_NOTE_CHARS))}"
            for arm, seed, n in items[:MAX_RUN_NOTES]]
    if len(items) > MAX_RUN_NOTES:
        out.append(f"- {len(items) - MAX_RUN_NOTES} more notes: see the results file or report.html")
    return out


PAIRS_FOOTNOTE = (
    "Pairs: each row names its claim. typical seed: a − b is the median per-seed difference over the seeds where "
    "the arms differ, with its distribution-free order-statistic 95% interval, and p is the exact sign test "
    "(ties dropped). mean: a − b is the mean per-seed paired difference with its 95% interval (Student t; the "
    "hull of t and bootstrap-t for unbounded rewards at small n; distribution-free betting for bounded rewards: "
    "each pair's interval_method in --json), and p is the larger of the t and exact sign-flip p-values. "
    "p (Holm) is adjusted over every claim in the table (pairs x claims), and a verdict needs it below alpha. "
    "\"underpowered\" and \"no difference detected\" are not evidence of equality.")


def comparison_markdown(comparison: Comparison, baseline: str | None = None, paper: bool = False,
                        ranges: dict | None = None, confound_units: list[str] | None = None,
                        compact_confounds: bool = False, records=None) -> str:
    """The summary: headline, per group a caption, table, flags, confounds and pairs.

    `paper` drops columns of units that no arm reports (the flags still name them).
    `ranges` ((workload, budget key) -> RewardRange) clips printed means and
    intervals to the reward's possible range, with a note. With
    `compact_confounds` (reports) confounds are one arm x unit table of ratios
    instead of one sentence each (`confound_units` chooses the units shown).
    With `records`, each group lists its runs' notes (arm, seed, note).
    """
    if ranges is None:  # without records: [0, 1] wherever every score is 0 or 1 (read off the score matrices)
        from .ranges import binary_ranges
        ranges = binary_ranges(comparison)
    shared = [g.unit_nouns for g in comparison.groups]
    with nouns_of(shared[0] if shared and all(n == shared[0] for n in shared) else None):
        parts = [f"**{md(comparison_headline(comparison))}**", ""]
    if comparison.warnings:  # e.g. runs of one arm from different code: the document says so, not only stderr
        parts += [f"- warning: {md(w)}" for w in comparison.warnings] + [""]
    if comparison.metric_note:
        parts += [md(comparison.metric_note), ""]
    for group in comparison.groups:
        with nouns_of(group.unit_nouns):
            rng = range_for(ranges, group) if comparison.metric == "reward" else None
            parts += [f"### {md(group.workload)} at {md(budget_text(group.budget))}", "",
                      md(group_caption(group, comparison.fixed, comparison.tolerance, comparison.metric)), "",
                      group_markdown(group, comparison.metric, baseline, drop_unreported=paper, rng=rng), ""]
            if rng is not None:
                parts += [md(rng.note()), ""]
            bullets = flag_bullets(group, comparison.tolerance, compact=compact_confounds,
                                   shown=shown_units(group, drop_unreported=paper))
            if bullets:
                parts += bullets + [""]
            if compact_confounds:
                table = confound_markdown(group, comparison.tolerance, confound_units)
                if table:
                    parts += [table, ""]
            if group.pairs:
                parts += [pairs_table(group, rng), ""]
            notes = run_note_bullets(group, records) if records else []
            if notes:
                parts += notes + [""]
    if any(g.pairs for g in comparison.groups):
        parts += [PAIRS_FOOTNOTE, ""]
    skipped = skipped_lines(comparison)
    if skipped:
        parts += ["Groups left out of this comparison:", ""] + [f"- {md(line)}" for line in skipped] + [""]
    return "\n".join(parts).rstrip() + "\n"
