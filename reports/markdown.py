"""The markdown summary that `costmatch compare` prints (GitHub pipe tables)."""
from __future__ import annotations

from baselines.analysis.compare.comparison import Group
from baselines.analysis.result.model import VERDICT_LEGEND, Analysis, ClaimResult, GroupAnalysis, PairRow
from baselines.core.units import nouns_of, unit_noun

from .degraded import degraded_sentence
from .flags import (clip_note, comparison_headline, confound_sentence, group_caption, run_notes, skipped_lines,
                    unequal_sentence, unreported_grouped, unreported_lines, unverified_sentence)
from .confounds import confound_markdown
from .table_rows import family_line, shown_units
from .tables import group_markdown
from .text import budget_text, fixed, interval, md, pipe_table


def _name(arm: str) -> str:
    return f"**{md(arm)}**"


def claim_rows(ga: GroupAnalysis) -> list[tuple[PairRow, ClaimResult]]:
    """(pair, claim) for every row of a pairs table: one per claim decided for each pair."""
    return [(p, c) for p in ga.pairs for c in p.claims]


def p_header(rows: list) -> str | None:
    """"p (sign-flip)" when every row's p is of one method, else None (each cell then names its own)."""
    labels = {c.p_label for _, c in rows}
    return f"p ({labels.pop()})" if len(labels) == 1 else None


def p_cell(c: ClaimResult, header: str | None) -> str:
    return f"{c.p:.3g}" if header else f"{c.p:.3g} ({c.p_label})"


def pairs_table(ga: GroupAnalysis) -> str:
    """All pairs of a group as the analysis printed them: one row per claim, one decimals for the column,
    each p under its own test's name; the decided pairs' sentences below.

    A group that is not valid gets "not valid" for every verdict. Notes that
    repeat (the same 240 characters on every decided row) are said once,
    below the table, and referred to by number.
    """
    if not ga.pairs:
        return ""
    decimals = ga.pair_decimals
    shown = claim_rows(ga)
    boot = any(p.bootstrap is not None for p in ga.pairs)
    head = p_header(shown)
    notes: list[str] = []
    rows = []
    for p, c in shown:
        row = [md(p.a), md(p.b), str(p.n), c.claim_word, fixed(c.estimate, decimals, signed=True),
               interval(c.interval.lo, c.interval.hi, decimals, signed=True), p_cell(c, head),
               f"{c.p_adjusted:.3g}", c.verdict_word]
        if boot:
            row.append(interval(p.bootstrap.lo, p.bootstrap.hi, decimals, signed=True) if p.bootstrap else "n/a")
        refs = []
        for n in (c.notes if len(p.claims) > 1 else p.notes):
            if n not in notes:
                notes.append(n)
            refs.append(f"[{notes.index(n) + 1}]")
        rows.append(row + [" ".join(refs)])
    headers = ["a", "b", "n", "claim", "a − b", "95% CI", head or "p", "p (Holm)", "verdict"] + \
        (["bootstrap 95% CI"] if boot else []) + ["notes"]
    text = pipe_table(rows, headers, align="llrlrrrrl" + ("r" if boot else "") + "l")
    if notes:
        text += "\n\n" + "\n".join(f"[{i + 1}] {md(n)}" for i, n in enumerate(notes))
    decided = [p.sentence for p in ga.pairs if p.decided and p.sentence]
    if decided:
        text += "\n\n" + "\n".join(f"- {md(sentence)}" for sentence in decided)
    family = family_line(ga.pairs)
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


def run_note_bullets(ga: GroupAnalysis) -> list[str]:
    """The `notes` of the group's runs (e.g. a fork that failed while the selected one was scored), with arm and seed.

    Records carry them and no table showed them: a reader saw a clean
    result where a run had hit timeouts.
    """
    group = ga.group
    items = [(arm, r.seed, n) for arm, runs in ga.runs.items()
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


#: what each p column label means, said once below the pairs
P_MEANING = {
    "sign-flip": "p (sign-flip) is the exact sign-flip p-value (McNemar on 0/1 rewards, seeded Monte Carlo at "
                 "large n), the larger of it and the t p",
    "paired t": "p (paired t) is the paired t p-value, the larger of it and the exact sign-flip p",
    "Welch t": "p (Welch t) is the Welch t p-value of arms that do not share seeds",
    "seed-clustered t": "p (seed-clustered t) is the seed-clustered t p-value on paired item differences",
    "two-way clustered t": "p (two-way clustered t) is the two-way seed x question clustered t p-value on paired "
                           "item differences (the claim about the question population)",
    "permutation": "p (permutation) is the permutation p-value of arms that do not share seeds",
    "sign test": "p (sign test) is the exact sign test over the seeds where the arms differ (ties dropped)",
}


def pairs_footnote(pairs: list[PairRow]) -> str:
    """What the pairs columns mean, naming only the p methods the tables print (never "sign-flip" for a t p)."""
    labels = sorted({c.p_label for p in pairs for c in p.claims} or {p.p_label for p in pairs})
    meanings = "; ".join(P_MEANING.get(label, f"p ({label}) is the p-value of {label}") for label in labels)
    typical = any(c.claim == "typical" for p in pairs for c in p.claims)
    claims = ("Each row names its claim: typical seed: a − b is the median per-seed difference over the seeds "
              "where the arms differ, with its distribution-free order-statistic 95% interval; mean: " if typical
              else "Pairs: ")
    return (f"{claims}a − b is the mean per-seed paired difference with its 95% interval ({_mean_intervals(pairs)}: "
            f"each pair's interval_method in --json); {meanings}; p (Holm) is adjusted over every claim in the "
            "table (pairs x claims), and a verdict needs it below alpha. \"underpowered\" and \"no difference "
            "detected\" are not evidence of equality.")


#: how the pairs footnote names each mean interval method (issue 37: the legend said "Student t" over
#: seed-clustered rows; it now names the methods the table's pairs used)
MEAN_INTERVAL_WORDS = (("two-way", "two-way seed x question clustered t over question-paired differences"),
                       ("seed-clustered", "seed-clustered t over question-paired differences"),
                       ("betting", "distribution-free betting for bounded rewards"),
                       ("hull", "the hull of t and bootstrap-t for unbounded rewards at small n"),
                       ("Welch", "Welch t for arms that do not share seeds"),
                       ("t", "Student t"))
GENERIC_MEAN_INTERVALS = ("Student t; the hull of t and bootstrap-t for unbounded rewards at small n; "
                          "distribution-free betting for bounded rewards")


def _mean_intervals(pairs: list[PairRow]) -> str:
    """The mean intervals the table prints, in words (all of them when there are no pairs to read)."""
    methods = {c.interval.method for p in pairs for c in p.claims if c.claim == "mean" and c.interval} or \
        {p.interval.method for p in pairs if p.interval and not p.claims}
    words = []
    for m in sorted(methods):
        w = next((w for key, w in MEAN_INTERVAL_WORDS if (m == key if key == "t" else key in m)), m)
        if w not in words:
            words.append(w)
    return "; ".join(words) if words else GENERIC_MEAN_INTERVALS


PAIRS_FOOTNOTE = pairs_footnote([])  # kept for readers of the old constant; the report prints pairs_footnote


def comparison_markdown(analysis: Analysis, baseline: str | None = None, paper: bool = False,
                        ranges: dict | None = None, confound_units: list[str] | None = None,
                        compact_confounds: bool = False, records=None) -> str:
    """The summary: headline, per group a caption, table, flags, confounds and pairs.

    `analysis` is the `Analysis` to print (a Comparison prints its own,
    `Comparison.analysis(baseline, records, ranges)`). `paper` drops columns
    of units that no arm reports (the flags still name them). With
    `compact_confounds` (reports) confounds are one arm x unit table of ratios
    instead of one sentence each (`confound_units` chooses the units shown).
    """
    if not isinstance(analysis, Analysis):
        analysis = analysis.analysis(baseline, records, ranges)
    comparison = analysis.comparison
    shared = [g.unit_nouns for g in comparison.groups]
    with nouns_of(shared[0] if shared and all(n == shared[0] for n in shared) else None):
        parts = [f"**{md(comparison_headline(comparison))}**", ""]
    if comparison.warnings:  # e.g. runs of one arm from different code: the document says so, not only stderr
        parts += [f"- warning: {md(w)}" for w in comparison.warnings] + [""]
    if comparison.metric_note:
        parts += [md(comparison.metric_note), ""]
    for ga in analysis.groups:
        with nouns_of(ga.group.unit_nouns):
            parts += _group_section(ga, comparison, paper, confound_units, compact_confounds)
    pairs = [p for ga in analysis.groups for p in ga.pairs]
    if pairs:
        parts += [pairs_footnote(pairs), ""]
    skipped = skipped_lines(comparison)
    if skipped:
        parts += ["Groups left out of this comparison:", ""] + [f"- {md(line)}" for line in skipped] + [""]
    text = "\n".join(parts).rstrip() + "\n"
    if "n.d." in text and "n.d. =" not in text:   # every abbreviation on the page is defined on it (issue 39)
        text += "\n" + md(VERDICT_LEGEND) + "\n"
    return text


def _group_section(ga: GroupAnalysis, comparison, paper: bool, confound_units, compact_confounds: bool) -> list[str]:
    group, rng = ga.group, ga.reward_range
    parts = [f"### {md(group.workload)} at {md(budget_text(group.budget))}", "",
             md(group_caption(group, comparison.fixed, comparison.tolerance, comparison.metric)), "",
             group_markdown(ga, comparison.metric, drop_unreported=paper), ""]
    if ga.baseline_note:
        parts += [md(ga.baseline_note) + ".", ""]
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
    if ga.pairs:
        parts += [pairs_table(ga), ""]
    notes = run_note_bullets(ga) if ga.runs else []
    if notes:
        parts += notes + [""]
    return parts
