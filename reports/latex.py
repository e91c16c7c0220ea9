"""Paper-ready LaTeX (booktabs) tables of a Comparison.

A caption keeps only what stays short (workload, budget, what was
verified, which units are confounded, from `flags.caption_parts`, so it
cannot claim a fixed unit that was not verified); per-arm flags go in
notes below the tabular and confound ratios in a table of their own, so
32 arms still make a float that fits a page. The group's fixed unit
always has a column. Cells come from the shared rows (`table_rows`).
"""
from __future__ import annotations

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.analysis.result.model import Analysis, GroupAnalysis
from baselines.core.units import nouns_of, unit_noun

from .confounds import confound_matrix, confound_reference
from .degraded import degraded_notes
from .flags import caption_parts, clip_note
from .latex_layout import WIDE_COLUMNS, arm_cell, choose_layout, latex_float, tex_arm, tex_num, tex_prose
from baselines.analysis.result.ranges import RewardRange
from .table_rows import baseline_pairs, family_line, shown_units, silent_units, spend_text
from .text import budget_text, fixed, interval, quantity, ratio, tex


LATEX_COLUMNS = ("arm", "seeds", "spend", "mean", "ci", "diff", "diff_ci", "verdict")
MAX_NOTE_CHARS = 160  # a first error quoted below a table: the rest is in the results file


def parse_columns(text: str | None, units: list[str] | None = None) -> list[str] | None:
    """``arm,seeds,tokens,mean,ci,verdict`` -> the column keys; unit names pick single spend columns."""
    if text is None:
        return None
    keys = [k.strip() for k in text.split(",") if k.strip()]
    allowed = set(LATEX_COLUMNS) | set(units or ())
    unknown = [k for k in keys if k not in allowed and units is not None]
    if unknown or not keys:
        raise ValueError(f"--columns: unknown column(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"choose from {', '.join(LATEX_COLUMNS)} or a unit name")
    return keys


def _latex_columns(group: Group, baseline: str | None, columns: list[str] | None) -> list[str]:
    units = shown_units(group, drop_unreported=True)
    wanted = list(columns) if columns else [c for c in LATEX_COLUMNS
                                            if baseline or c not in ("diff", "diff_ci", "verdict")]
    out = []
    for c in wanted:
        if c == "spend":
            out += [f"unit:{u}" for u in units]
        elif c in group.units:
            out.append(f"unit:{c}")
        elif c in ("diff", "diff_ci", "verdict") and not baseline:
            continue
        else:
            out.append(c)
    return out


LATEX_UNIT_HEADERS = {"rollouts": "Rollouts", "calls": "Calls", "prompt_tokens": "Prompt tok.",
                      "completion_tokens": "Compl. tok.", "tokens": "Tokens", "usd": "USD", "seconds": "Seconds"}


def group_latex(ga: GroupAnalysis, comparison: Comparison, label: str, columns: list[str] | None = None) -> str:
    """A booktabs table with a short caption and its notes below; confounds in a second table; then the pairs.

    The caption says what was verified in a few lines; everything that grows
    with the number of arms (flags, confound ratios) goes below the tabular or
    into the confound table, so 32 arms still give a float that fits a page.
    Verdicts are printed by default: with a baseline in the arm table, and
    every pair's in a pairs table of its own (as markdown and HTML print).
    """
    group, baseline, rng = ga.group, ga.baseline, ga.reward_range
    cols = _latex_columns(group, baseline, columns)
    dec, vs_dec = ga.decimals, ga.pair_decimals
    head = {"arm": "Arm", "seeds": "Seeds", "mean": tex(comparison.metric), "ci": "95\\% CI",
            "diff": "$\\Delta$ vs baseline", "diff_ci": "95\\% CI ($\\Delta$)", "verdict": "Verdict"}
    headers = [tex(LATEX_UNIT_HEADERS.get(c[5:], c[5:])) if c.startswith("unit:") else head[c] for c in cols]
    body = [_arm_cells(r, cols, baseline, dec, vs_dec) for r in ga.arms]
    arm_at = cols.index("arm") if "arm" in cols else None
    measure = [[tex_arm(c) if i == arm_at else c for i, c in enumerate(cells)] for cells in body]
    layout = choose_layout(headers, measure, cols, len(cols) > WIDE_COLUMNS)
    wraps = "p{" in layout.align
    for cells in body:
        if arm_at is not None:
            cells[arm_at] = arm_cell(cells[arm_at], wraps)
    conf_label = label + "-confounds"
    shown_conf, matrix = confound_matrix(group)
    has_diff = any(c in cols for c in ("diff", "diff_ci", "verdict"))
    short, caption = latex_caption(group, comparison, conf_label if matrix else None)
    notes = [tex_prose(n) for n in latex_notes(ga, comparison, has_diff, "verdict" in cols, rng,
                                                baseline if has_diff else None)]
    out = latex_float(layout, caption, short, label, headers, body, notes)
    if matrix:
        out += "\n" + _confound_latex(group, comparison, label, conf_label, shown_conf, matrix)
    if ga.pairs:
        out += "\n" + pairs_latex(ga, label)
    return out


def _arm_cells(r, cols: list[str], baseline: str | None, dec: int, vs_dec: int) -> list[str]:
    cells = []
    for c in cols:
        if c == "arm":
            cells.append(r.arm)   # set by the caller, once the layout says whether it wraps
        elif c == "seeds":
            cells.append(tex(r.seeds))
        elif c.startswith("unit:"):
            cell = r.spend[c[5:]]
            cells.append(spend_text(cell.median, cell.status, latex=True))
        elif c == "mean":
            cells.append(tex_num(fixed(r.mean, dec)))
        elif c == "ci":
            cells.append(tex_num(interval(r.interval.lo, r.interval.hi, dec)))
        elif r.arm == baseline:
            first = next(k for k in cols if k in ("diff", "diff_ci", "verdict"))
            cells.append("baseline" if c == first else "")
        elif r.vs_baseline is None:
            cells.append("n/a" if c == "diff" else "")
        elif c == "diff":
            cells.append(tex_num(fixed(r.vs_baseline.estimate, vs_dec, True)))
        elif c == "diff_ci":
            cells.append(tex_num(interval(r.vs_baseline.interval.lo, r.vs_baseline.interval.hi, vs_dec, True)))
        else:
            cells.append(tex(r.vs_baseline.against_word))
    return cells


MAX_LATEX_PAIRS = 30  # above this a pairs float outgrows a page: the decided pairs only, and a line saying so


def pairs_latex(ga: GroupAnalysis, label: str) -> str:
    """Every pair of the group, one row per claim, with its estimate, interval, p (under its test's name), Holm p
    and verdict, as markdown and HTML print them.

    With more than MAX_LATEX_PAIRS pairs only the decided ones are printed and
    a note says how many were not decided and where all of them are.
    """
    pairs = ga.pairs if len(ga.pairs) <= MAX_LATEX_PAIRS else [p for p in ga.pairs if p.decided]
    shown = [(p, c) for p in pairs for c in p.claims]
    labels = {c.p_label for _, c in shown}
    p_name = f"p ({labels.pop()})" if len(labels) == 1 else "p"
    headers = ["a", "b", "n", "Claim", "a $-$ b", "95\\% CI", tex(p_name), "p (Holm)", "Verdict"]
    dec = ga.pair_decimals
    body = [[tex_arm(p.a), tex_arm(p.b), str(p.n), tex(c.claim_word), tex_num(fixed(c.estimate, dec, True)),
             tex_num(interval(c.interval.lo, c.interval.hi, dec, True)),
             tex_num(f"{c.p:.3g}") + ("" if p_name != "p" else " " + tex(f"({c.p_label})")),
             tex_num(f"{c.p_adjusted:.3g}"), tex(c.verdict_word)] for p, c in shown]
    keys = ["arm", "arm", "seeds", "verdict", "mean", "ci", "mean", "mean", "verdict"]
    layout = choose_layout(headers, body, keys, len(keys) > WIDE_COLUMNS)
    where = f"{ga.group.workload} at {budget_text(ga.group.budget)}"
    caption = tex_prose(f"Pairs of {where}: a \u2212 b per seed with its 95% interval, the test's p, the "
                        "Holm-adjusted p and the verdict.")
    left = len(ga.pairs) - len(pairs)
    notes = [tex_prose(n) for n in (family_line(ga.pairs), "n.d. = no difference detected (not evidence of "
                                                           "equality).",
                                    f"{left} of {len(ga.pairs)} pairs are not decided and not listed here (too many "
                                    "for a page); every pair is in the markdown report and the comparison JSON."
                                    if left else "") if n]
    return latex_float(layout, caption, tex_prose(f"Pairs: {where}"), label + "-pairs", headers, body, notes)


def _confound_latex(group: Group, comparison: Comparison, label: str, conf_label: str, shown: list[str],
                    matrix: list[tuple[str, dict]]) -> str:
    """The arm x unit ratios of a group's confounds: their own table, so the caption stays short."""
    headers = ["Arm"] + [tex(LATEX_UNIT_HEADERS.get(u, u)) for u in shown]
    median = ["median across arms"] + [tex_num(quantity(confound_reference(group, u))).replace(",", "{,}")
                                       for u in shown]
    body = [[arm] + [tex_prose(cells.get(u, "")) for u in shown] for arm, cells in matrix]
    keys = ["arm"] + ["ratio"] * len(shown)
    layout = choose_layout(headers, [[tex_arm(r[0])] + r[1:] for r in body + [median]], keys, len(keys) > WIDE_COLUMNS)
    wraps = "p{" in layout.align
    for r in body:
        r[0] = arm_cell(r[0], wraps)
    caption = (f"Confounds of Table~\\ref{{{label}}}" + tex_prose(
        f": each arm's spend in units other than the fixed one, as a ratio to the median across arms (second "
        f"row); only cells beyond \u00b1{comparison.tolerance:.0%} are filled, \u2265 marks a lower bound. The "
        f"{comparison.metric} column does not account for them."))
    short = tex_prose(f"Confounds: {group.workload} at {budget_text(group.budget)}")
    return latex_float(layout, caption, short, conf_label, headers, body, [], extra_head=median)


def latex_caption(group: Group, comparison: Comparison, confound_label: str | None = None) -> tuple[str, str]:
    """(short caption for the list of tables, caption): workload, budget, what was verified, in a few lines.

    The long caption used to hold every flag and confound (6,055 characters
    for 32 arms): the float outgrew the page and the table never printed.
    """
    parts = caption_parts(group, comparison.fixed, comparison.tolerance, comparison.metric)
    where = f"{group.workload} at {budget_text(group.budget)}"
    text = [where + ".", parts.head]
    if parts.incomplete:
        text.append(f"INCOMPLETE: {len(parts.incomplete)} arm(s) scored fewer runs than they ran (see notes).")
    if parts.seeds:
        text.append(parts.seeds)
    caption = tex_prose(" ".join(text))
    if parts.confounded:
        ref = f" (Table~\\ref{{{confound_label}}})" if confound_label else ""
        caption += " " + tex_prose(f"Confounded: {', '.join(parts.confounded)}") + ref + "."
    return tex_prose(where), caption


def latex_notes(ga: GroupAnalysis, comparison: Comparison, has_diff: bool, verdicts: bool,
                rng: RewardRange | None = None, baseline: str | None = None) -> list[str]:
    """Sentences below a paper table (plain text; escaped by the caller), one line per kind, not per arm."""
    group = ga.group
    parts = caption_parts(group, comparison.fixed, comparison.tolerance, comparison.metric)
    out = [] if not parts.legend else [parts.legend]
    if parts.incomplete:
        out.append("Incomplete: " + "; ".join(clip_note(t, MAX_NOTE_CHARS) for t in parts.incomplete) + ".")
    by_kind: dict[tuple[str, str], list[str]] = {}
    for u in group.unverified:
        by_kind.setdefault((u.unit, u.reason), []).append(
            u.arm if u.reason == "unreported" else f"{u.arm} ({u.reported_runs} of {u.runs} runs complete)")
    for (unit, reason), arms in by_kind.items():
        what = ("did not report {n} on any run, so equal spend cannot be checked" if reason == "unreported" else
                "reported {n} on only part of their runs: lower bounds, equal spend not verified")
        out.append(f"Unverified: {', '.join(arms)} {what.format(n=unit_noun(unit))}.")
    if group.unequal:
        reference = "budget" if group.reference_source == "budget" else "median across arms"
        out.append(f"Outside \u00b1{comparison.tolerance:.0%} of the {reference}: " + "; ".join(
            f"{f.arm} spent {quantity(f.spend)} {unit_noun(f.unit)} on seed {f.seed} ({ratio(f.spend, f.reference)}; "
            f"{f.runs} of {f.of_runs} runs outside)" for f in group.unequal) + ".")
    silent = silent_units(group)
    if silent:
        out.append("Not reported by any arm (no column): " + ", ".join(unit_noun(u) for u in silent) + ".")
    partial = [u for u in group.unreported if u.reason == "partial"]
    if partial:
        out.append("Lower bounds: " + "; ".join(f"{u.arm} {unit_noun(u.unit)}" for u in partial) + ".")
    if has_diff:
        out.append(f"Baseline (\u0394 = arm \u2212 baseline): {baseline}." if baseline else "")
        out.append("Differences are per-seed paired with 95% intervals; a verdict needs both the paired t and the "
                   "exact sign-flip test to reject after Holm adjustment within its family, and its interval to "
                   "exclude 0.")
        out.append(family_line(baseline_pairs(ga)))
    if verdicts:
        out.append("n.d. = no difference detected (not evidence of equality).")
    if ga.baseline_note:
        out.append(ga.baseline_note + ".")
    if rng is not None:
        out.append(rng.note())
    out += degraded_notes(group)
    return [line for line in out if line]


LATEX_PREAMBLE = ("% costmatch tables. Needs in the preamble: \\usepackage{booktabs}\n"
                  "% Wide tables use table* (both columns of a two-column paper); long arm names wrap in a p{} "
                  "column.\n")


def comparison_latex(analysis: Analysis, baseline: str | None = None, columns: list[str] | None = None,
                     ranges: dict | None = None) -> str:
    """Every group's tables (a Comparison prints its own `Comparison.analysis(baseline, ranges=ranges)`)."""
    if not isinstance(analysis, Analysis):
        analysis = analysis.analysis(baseline, ranges=ranges)
    out = []
    for i, ga in enumerate(analysis.groups):
        g = ga.group
        label = "tab:costmatch-" + "".join(ch if ch.isalnum() else "-" for ch in f"{g.workload}-{i}")
        with nouns_of(g.unit_nouns):
            out.append(group_latex(ga, analysis.comparison, label, columns))
    return LATEX_PREAMBLE + "\n".join(out)
