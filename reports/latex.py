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
from baselines.core.units import nouns_of, unit_noun

from .confounds import confound_matrix, confound_reference
from .degraded import degraded_notes
from .flags import caption_parts, clip_note
from .latex_layout import WIDE_COLUMNS, arm_cell, choose_layout, latex_float, tex_arm, tex_num, tex_prose
from .ranges import RewardRange
from .table_rows import baseline_pairs, family_line, group_range, present_baseline, rows, shown_units, silent_units, spend_text, verdict_words
from .text import budget_text, decimals_for, fixed, interval, quantity, ratio, tex


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


def group_latex(group: Group, comparison: Comparison, baseline: str | None, label: str,
                columns: list[str] | None = None, rng: RewardRange | None = None) -> str:
    """A booktabs table with a short caption and its notes below; confounds in a second table.

    The caption says what was verified in a few lines; everything that grows
    with the number of arms (flags, confound ratios) goes below the tabular or
    into the confound table, so 32 arms still give a float that fits a page.
    """
    baseline = present_baseline(group, baseline)
    rs = rows(group, baseline, rng)
    cols = _latex_columns(group, baseline, columns)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.claim_ci[1] - r.vs.claim_ci[0]) / 2 for r in rs if r.vs)
    head = {"arm": "Arm", "seeds": "Seeds", "mean": tex(comparison.metric), "ci": "95\\% CI",
            "diff": "$\\Delta$ vs baseline", "diff_ci": "95\\% CI ($\\Delta$)", "verdict": "Verdict"}
    headers = [tex(LATEX_UNIT_HEADERS.get(c[5:], c[5:])) if c.startswith("unit:") else head[c] for c in cols]
    body = []
    for r in rs:
        cells = []
        for c in cols:
            if c == "arm":
                cells.append(r.arm)   # set below, once the layout says whether it wraps
            elif c == "seeds":
                cells.append(tex(r.seeds))
            elif c.startswith("unit:"):
                cells.append(spend_text(*r.spend[c[5:]], latex=True))
            elif c == "mean":
                cells.append(tex_num(fixed(r.mean, dec)))
            elif c == "ci":
                cells.append(tex_num(interval(r.ci[0], r.ci[1], dec)))
            elif r.arm == baseline:
                first = next(k for k in cols if k in ("diff", "diff_ci", "verdict"))
                cells.append("baseline" if c == first else "")
            elif r.vs is None:
                cells.append("n/a" if c == "diff" else "")
            elif c == "diff":
                cells.append(tex_num(fixed(r.vs.claim_estimate, vs_dec, True)))
            elif c == "diff_ci":
                cells.append(tex_num(interval(r.vs.claim_ci[0], r.vs.claim_ci[1], vs_dec, True)))
            else:
                cells.append(tex(verdict_words(r.vs, group.valid)))
        body.append(cells)
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
    notes = [tex_prose(n) for n in latex_notes(group, comparison, has_diff, "verdict" in cols, rng,
                                                baseline if has_diff else None)]
    out = latex_float(layout, caption, short, label, headers, body, notes)
    if matrix:
        out += "\n" + _confound_latex(group, comparison, label, conf_label, shown_conf, matrix)
    return out


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


def latex_notes(group: Group, comparison: Comparison, has_diff: bool, verdicts: bool,
                rng: RewardRange | None = None, baseline: str | None = None) -> list[str]:
    """Sentences below a paper table (plain text; escaped by the caller), one line per kind, not per arm."""
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
        out.append(family_line(baseline_pairs(group, baseline)))
    if verdicts:
        out.append("n.d. = no difference detected (not evidence of equality).")
    if rng is not None:
        out.append(rng.note())
    out += degraded_notes(group)
    return [line for line in out if line]


LATEX_PREAMBLE = ("% costmatch tables. Needs in the preamble: \\usepackage{booktabs}\n"
                  "% Wide tables use table* (both columns of a two-column paper); long arm names wrap in a p{} "
                  "column.\n")


def comparison_latex(comparison: Comparison, baseline: str | None = None, columns: list[str] | None = None,
                     ranges: dict | None = None) -> str:
    out = []
    for i, g in enumerate(comparison.groups):
        label = "tab:costmatch-" + "".join(ch if ch.isalnum() else "-" for ch in f"{g.workload}-{i}")
        with nouns_of(g.unit_nouns):
            out.append(group_latex(g, comparison, baseline, label, columns, group_range(comparison, g, ranges)))
    return LATEX_PREAMBLE + "\n".join(out)
