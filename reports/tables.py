"""Paper-ready tables of a Comparison: markdown, LaTeX (booktabs), CSV and a DataFrame.

One row model, four renderings, so the formats cannot disagree. Numbers are
rounded to what their intervals support (two significant digits of the
interval's half-width), one precision per column. Captions come from
`flags.caption_parts`: they cannot claim a fixed unit that was not verified.
A LaTeX caption keeps only what stays short (workload, budget, what was
verified, which units are confounded); per-arm flags go in notes below the
tabular and confound ratios in a table of their own, so 32 arms still make
a float that fits a page. The group's fixed unit always has a column.
Means and intervals are clipped to the reward's possible range when one is
known (`reports.ranges`), so a success rate never prints as 1.084.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

import pandas as pd

from baselines.analysis.comparison import Comparison, Group
from baselines.analysis.pair_result import PairResult
from baselines.core.units import nouns_of, unit_noun

from .degraded import degraded_notes
from .flags import caption_parts, clip_note
from .ranges import RewardRange, range_for
from .text import (DASH, GE, budget_text, decimals_for, fixed, floor_for_display, interval, md, pipe_table, quantity,
                   ratio, tex)


@dataclass
class Row:
    arm: str
    seeds: str
    spend: dict[str, tuple[float | None, str]]   # unit -> (median, status)
    mean: float
    ci: tuple[float, float]
    vs: PairResult | None                        # paired difference to the baseline (None for it)


def _vs(group: Group, arm: str, baseline: str | None) -> PairResult | None:
    if baseline is None or arm == baseline:
        return None
    for p in group.pairs:
        if p.a == arm and p.b == baseline:
            return p
        if p.b == arm and p.a == baseline:  # flip so it reads arm - baseline
            return dataclasses.replace(p, a=arm, b=baseline, diff=-p.diff, ci=(-p.ci[1], -p.ci[0]),
                                       verdict={"a>b": "b>a", "b>a": "a>b"}.get(p.verdict, p.verdict),
                                       notes=list(p.notes))
    return None


def _clip_pair(p: PairResult | None, rng: RewardRange | None) -> PairResult | None:
    """A difference of two rewards in [lo, hi] lies in [-(hi-lo), hi-lo]."""
    if p is None or rng is None:
        return p
    span = rng.hi - rng.lo
    box = RewardRange(-span, span, rng.source)
    return dataclasses.replace(p, diff=box.clip(p.diff), ci=(box.clip(p.ci[0]), box.clip(p.ci[1])))


def rows(group: Group, baseline: str | None = None, rng: RewardRange | None = None) -> list[Row]:
    out = []
    for a in group.arms:
        seeds = f"{a.scored}/{a.runs}" if a.scored != a.runs else str(a.runs)
        spend = {u: (a.spend[u].median, a.spend[u].status) for u in group.units}
        mean, ci = a.mean, a.ci
        if rng is not None:
            mean, ci = rng.clip(mean), (rng.clip(ci[0]), rng.clip(ci[1]))
        out.append(Row(a.arm, seeds, spend, mean, ci, _clip_pair(_vs(group, a.arm, baseline), rng)))
    return out


# One word per verdict in every format (markdown, LaTeX, HTML, CSV). A pair table reads "a>b"/"b>a" (the
# row names a and b); a column against the baseline reads "better"/"worse" (the row is the arm).
VERDICT_SHORT = {"a>b": "better", "b>a": "worse", "no difference detected": "n.d.",
                 "underpowered": "underpowered", "equivalent": "equivalent"}
PAIR_WORDS = {"a>b": "a>b", "b>a": "b>a", "no difference detected": "n.d.", "underpowered": "underpowered",
              "equivalent": "equivalent"}
NOT_VALID = "not valid"   # the only word a pair of a not-valid group gets: its differences are no verdicts
VERDICT_LEGEND = ("n.d. = no difference detected; neither it nor \u201cunderpowered\u201d is evidence of "
                  "equality; \u201cnot valid\u201d = the group's budget is not verified equal, so no verdict.")


def pair_verdict(p: PairResult, valid: bool = True) -> str:
    """The verdict word of a pair (a>b, b>a, n.d., underpowered), or "not valid" in a group that is not."""
    if not valid:
        return NOT_VALID
    return PAIR_WORDS.get(p.verdict, p.verdict) + ("" if p.paired else " (unpaired)")


def _verdict_words(p: PairResult, valid: bool = True) -> str:
    """The verdict of an arm against the baseline (better, worse, n.d., underpowered), or "not valid"."""
    if not valid:
        return NOT_VALID
    return VERDICT_SHORT.get(p.verdict, p.verdict) + ("" if p.paired else " (unpaired)")


_verdict_short = _verdict_words


def _group_range(comparison: Comparison, group: Group, ranges: dict | None) -> RewardRange | None:
    return range_for(ranges, group) if comparison.metric == "reward" else None


def budget_cell(budget: dict) -> str:
    """Exact budget text for CSV/DataFrame cells: ``tokens=1500000`` (never 1.5e+06)."""
    return ", ".join(f"{u}={format(float(v), '.17g')}" for u, v in budget.items())


def frame(comparison: Comparison, baseline: str | None = None, ranges: dict | None = None) -> pd.DataFrame:
    """Long-form DataFrame: one row per (workload, budget, arm); NaN/None where unreported."""
    records = []
    for g in comparison.groups:
        for r in rows(g, baseline, _group_range(comparison, g, ranges)):
            rec = {"workload": g.workload, "budget": budget_cell(g.budget),
                   "arm": r.arm, "seeds": r.seeds, f"{comparison.metric}_mean": r.mean,
                   "ci_low": r.ci[0], "ci_high": r.ci[1]}
            for u, (median, status) in r.spend.items():
                rec[f"{u}_median"] = median
                rec[f"{u}_status"] = status
            if baseline is not None:
                rec.update({"vs_baseline": r.vs.diff if r.vs else None,
                            "vs_ci_low": r.vs.ci[0] if r.vs else None,
                            "vs_ci_high": r.vs.ci[1] if r.vs else None,
                            "vs_verdict": r.vs.verdict if r.vs and g.valid else None})
            rec["valid"] = g.valid
            records.append(rec)
    return pd.DataFrame.from_records(records)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """Text a spreadsheet would run as a formula (``=cmd|...``) gets a leading apostrophe; numbers pass."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(comparison: Comparison, baseline: str | None = None, ranges: dict | None = None) -> str:
    df = frame(comparison, baseline, ranges)
    for column in df.columns:
        if not (pd.api.types.is_numeric_dtype(df[column]) or pd.api.types.is_bool_dtype(df[column])):
            df[column] = df[column].astype(object).map(csv_cell)
    df.columns = [csv_cell(str(c)) for c in df.columns]
    return df.to_csv(index=False, lineterminator="\n")


def _spend_text(median, status, latex: bool) -> str:
    if status == "unreported" or median is None:
        return "---" if latex else DASH
    text = quantity(floor_for_display(median) if status == "partial" else median)
    if latex:
        text = text.replace(",", "{,}").replace("\u221e", "$\\infty$")
    if status == "partial":
        return f"$\\geq${text}" if latex else f"{GE}{text}"
    return text


def _present(group: Group, baseline: str | None) -> str | None:
    """The baseline only where it ran: a group without it gets no difference column."""
    return baseline if baseline is not None and any(a.arm == baseline for a in group.arms) else None


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


def group_markdown(group: Group, metric: str, baseline: str | None, drop_unreported: bool = False,
                   rng: RewardRange | None = None) -> str:
    baseline = _present(group, baseline)
    rs = rows(group, baseline, rng)
    units = shown_units(group, drop_unreported)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.ci[1] - r.vs.ci[0]) / 2 for r in rs if r.vs)
    headers = ["arm", "seeds"] + [f"{md(unit_noun(u))} (median)" for u in units] + [f"{md(metric)} (mean, 95% CI)"]
    if baseline:
        headers.append(f"vs {md(baseline)} (paired)")
    body = []
    for r in rs:
        line = [md(r.arm), r.seeds] + [_spend_text(*r.spend[u], latex=False) for u in units]
        line.append(f"{fixed(r.mean, dec)} {interval(r.ci[0], r.ci[1], dec)}")
        if baseline:
            line.append("baseline" if r.arm == baseline else (
                f"{fixed(r.vs.diff, vs_dec, True)} {interval(r.vs.ci[0], r.vs.ci[1], vs_dec, True)} "
                f"{_verdict_words(r.vs, group.valid)}" if r.vs else "n/a"))
        body.append(line)
    return pipe_table(body, headers, align="l" + "r" * (len(headers) - 1 - bool(baseline)) + "l" * bool(baseline))


# -- LaTeX -------------------------------------------------------------------------------
LATEX_COLUMNS = ("arm", "seeds", "spend", "mean", "ci", "diff", "diff_ci", "verdict")
WIDE_COLUMNS = 7      # more columns than this: table* (both columns of a two-column paper)
# Widths in em of \small type in a two-column paper (10 pt article: \columnwidth 229.5 pt, \textwidth 469 pt,
# \small 9 pt). Estimates to choose the layout; LaTeX still does the setting.
COLUMN_EM = 25.0
TEXT_EM = 52.0
MIN_ARM_EM = 8.0      # an arm column narrower than this wraps a name into a tower of fragments
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

_MINUS = re.compile(r"(?<![-\w])-(?=[\d.])")


def _tex_num(text: str) -> str:
    """A number for a LaTeX cell: a real minus sign (not a hyphen), --- for unknown, $\\infty$."""
    text = text.replace(DASH, "---").replace("\u2212", "-").replace("\u221e", "$\\infty$")
    return _MINUS.sub("$-$", text)


_PROSE_SYMBOLS = (("--", "-{}-"), ("\u2265", "$\\geq$"), ("\u2014", "---"), ("\u00b1", "$\\pm$"),
                  ("\u2212", "$-$"), ("\u221e", "$\\infty$"), ("\u00d7", "$\\times$"), ("\u0394", "$\\Delta$"))


def tex_prose(text: str) -> str:
    """Escape a sentence for LaTeX: symbols as math, a minus (not a hyphen) before a number, ``--`` not a dash."""
    text = tex(_MINUS.sub("\u2212", str(text)))
    for symbol, latex in _PROSE_SYMBOLS:   # "--" first: the em dash's "---" must stay one
        text = text.replace(symbol, latex)
    return text


def _tex_arm(name: str) -> str:
    """An arm name that may wrap: a break allowed after / _ . : (a hyphen already is one)."""
    return re.sub(r"(/|\\_|\.|:)", r"\1\\allowbreak{}", tex(name).replace("--", "-{}-"))


_TEX_MARKUP = (re.compile(r"\$\\[a-zA-Z]+\$|---|\$-\$"), re.compile(r"\\[a-zA-Z]+(\{\})?"),
               re.compile(r"[{}$\\]"))
# Widths in em of Computer Modern roman (the LaTeX default), near enough to choose a layout
_NARROW = set("ijlt.,:;'!|()[]/ ")
_WIDE = set("mwMW+=<>#%&@")


def _visible(cell: str) -> float:
    """Width in em a LaTeX cell prints (``1{,}000`` is about 2.3, ``$\\geq$7`` 1.3): to estimate layouts."""
    text = _TEX_MARKUP[0].sub("M", cell)
    text = _TEX_MARKUP[1].sub(lambda m: "" if m.group(0) == "\\allowbreak{}" else "M", text)
    text = _TEX_MARKUP[2].sub("", text)
    return sum(0.28 if ch in _NARROW else 0.85 if ch in _WIDE else 0.7 if ch.isupper() else 0.5 for ch in text)


@dataclass
class Layout:
    """How a table is set: float, type size, column spec and whether it still overflows."""

    env: str
    size: str
    align: str
    tabcolsep: str = ""
    overflow: bool = False
    split_head: bool = False      # headers on two lines ("Prompt" over "tok.")


def _layout(headers: list[str], body: list[list[str]], keys: list[str], many_columns: bool) -> Layout:
    """The float, type size and arm column width a table needs to fit, never scaled below footnote size.

    Why not \resizebox: it scaled a 32-arm table to about 3 pt type. A table
    too wide for a column spans both, then gets footnote size (8 pt) and
    narrower column gaps; only then do long arm names wrap in a p{} column
    (a wrapped name doubles a row's height), then script size (7 pt); past
    that it overflows with a comment saying to choose fewer --columns.
    """
    cells = [max([_visible(r[i]) for r in body], default=0.0) for i in range(len(keys))]
    one_line = [max(_visible(h), c) for h, c in zip(headers, cells)]
    two_lines = [max(max(map(_visible, split_header(h))), c) for h, c in zip(headers, cells)]
    arm = keys.index("arm") if "arm" in keys else None
    natural = one_line

    def fits(avail: float, pad: float, font: float) -> tuple[bool, float | None]:
        """(fits, arm width in em or None when names need not wrap); `font`: width of this size's type
        against the 10 pt estimate (cmr7 is 14% wider per em than cmr10)."""
        avail *= 1.0   # a margin for the estimate
        others = sum(w * font + pad for i, w in enumerate(natural) if i != arm)
        if arm is None or others + natural[arm] * font + pad <= avail:
            return others + (natural[arm] * font + pad if arm is not None else 0) <= avail, None
        room = avail - others - pad
        return room >= MIN_ARM_EM, max(room, MIN_ARM_EM)

    def spec(arm_em: float | None) -> str:
        cols = []
        for i, k in enumerate(keys):
            if i == arm and arm_em is not None:
                cols.append(f"p{{{arm_em:.1f}em}}")
            else:
                cols.append("l" if k in ("arm", "verdict") else "r")
        return "".join(cols)

    # (size, column gap in its em, text width scale, width of its type, \tabcolsep); wrapping a name doubles
    # a row's height, so footnote size comes before a wrapped small one; script size last
    small = ("\\small", 1.33, 1.0, 1.03, "")
    foot = ("\\footnotesize", 0.75, 9 / 8, 1.06, "3pt")
    script = ("\\scriptsize", 0.57, 9 / 7, 1.14, "2pt")
    envs = (["table"] if not many_columns else []) + ["table*"]
    for (size, pad, scale, font, gap), wrap, split in (
            (small, False, False), (foot, False, False), (small, False, True), (foot, False, True),
            (small, True, False), (foot, True, False), (foot, True, True), (script, False, True),
            (script, True, True)):
        natural = two_lines if split else one_line
        for env in envs:
            ok, arm_em = fits((COLUMN_EM if env == "table" else TEXT_EM) * scale, pad, font)
            if ok and (arm_em is None or wrap):
                return Layout(env, size, spec(arm_em), gap, split_head=split)
    size, pad, scale, font, gap = script
    natural = two_lines
    ok, arm_em = fits(TEXT_EM * scale, pad, font)
    return Layout("table*", size, spec(arm_em if arm_em is not None else MIN_ARM_EM), gap, True, True)


TEXT_HEIGHT_PT = 592.0  # \textheight of a 10 pt article on letter paper
_BASELINE_PT = {"\\small": 11.0, "\\footnotesize": 9.5, "\\scriptsize": 8.0}


def _too_tall(layout: Layout, rows: int, extra_head: bool, caption: str, notes: list[str]) -> bool:
    """Whether the float would outgrow a page: caption, tabular (a wrapped arm name takes two lines) and notes."""
    line = _BASELINE_PT.get(layout.size, 11.0)
    chars = 100 if layout.env == "table*" else 48          # characters a caption line holds
    height = 12.0 * math.ceil(_visible(caption) * 2 / chars) + 20.0    # caption at 10 pt, and the float's gaps
    height += line * (1 + layout.split_head + extra_head) + rows * line * (2 if "p{" in layout.align else 1)
    height += sum(9.5 * math.ceil(_visible(n) * 2 / (chars * 1.2)) for n in notes)
    return height > TEXT_HEIGHT_PT


def split_header(header: str) -> list[str]:
    """A header as two lines, split at the space nearest its middle (``Prompt``/``tok.``); one word: [word]."""
    spaces = [m.start() for m in re.finditer(" ", header)]
    if not spaces:
        return [header]
    at = min(spaces, key=lambda i: abs(_visible(header[:i]) - _visible(header[i + 1:])))
    return [header[:at], header[at + 1:]]


def _float(layout: Layout, caption: str, short: str, label: str, headers: list[str], body: list[list[str]],
           notes: list[str], extra_head: list[str] | None = None) -> str:
    """One booktabs float; `notes` are set below the tabular as footnote-size paragraphs."""
    end = r" \tabularnewline" if "p{" in layout.align else r" \\"
    rows = [" & ".join(cells) + end for cells in body]
    lines = [f"\\begin{{{layout.env}}}[t]", r"\centering", layout.size]
    if layout.tabcolsep:
        lines.append(f"\\setlength{{\\tabcolsep}}{{{layout.tabcolsep}}}")
    if layout.overflow:
        lines.append("% wider than the text even at script size: choose fewer columns with --columns")
    if _too_tall(layout, len(body), bool(extra_head), caption, notes):
        lines.append("% taller than a page at this size: choose fewer columns with --columns (so arm names need not "
                     "wrap) or fewer arms")
    lines += [r"\setlength{\belowcaptionskip}{4pt}",  # a caption above a table does not touch its \toprule
              f"\\caption[{short}]{{{caption}}}", f"\\label{{{label}}}",
              f"\\begin{{tabular}}{{{layout.align}}}", r"\toprule"]
    if layout.split_head and any(" " in h for h in headers):
        parts = [split_header(h) for h in headers]
        lines += [" & ".join(p[0] if len(p) == 2 else "" for p in parts) + end,
                  " & ".join(p[-1] for p in parts) + end]
    else:
        lines.append(" & ".join(headers) + end)
    if extra_head:
        lines.append(" & ".join(extra_head) + end)
    lines += [r"\midrule", *rows, r"\bottomrule", r"\end{tabular}"]
    if notes:
        lines += [r"\par\smallskip", r"\begin{minipage}{\linewidth}\footnotesize\raggedright",
                  "\n".join(f"{n}\\par" for n in notes), r"\end{minipage}"]
    return "\n".join(lines + [f"\\end{{{layout.env}}}"]) + "\n"


def _arm_cell(name: str, wraps: bool) -> str:
    return ("\\raggedright " + _tex_arm(name)) if wraps else tex(name).replace("--", "-{}-")


def group_latex(group: Group, comparison: Comparison, baseline: str | None, label: str,
                columns: list[str] | None = None, rng: RewardRange | None = None) -> str:
    """A booktabs table with a short caption and its notes below; confounds in a second table.

    The caption says what was verified in a few lines; everything that grows
    with the number of arms (flags, confound ratios) goes below the tabular or
    into the confound table, so 32 arms still give a float that fits a page.
    """
    baseline = _present(group, baseline)
    rs = rows(group, baseline, rng)
    cols = _latex_columns(group, baseline, columns)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.ci[1] - r.vs.ci[0]) / 2 for r in rs if r.vs)
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
                cells.append(_spend_text(*r.spend[c[5:]], latex=True))
            elif c == "mean":
                cells.append(_tex_num(fixed(r.mean, dec)))
            elif c == "ci":
                cells.append(_tex_num(interval(r.ci[0], r.ci[1], dec)))
            elif r.arm == baseline:
                first = next(k for k in cols if k in ("diff", "diff_ci", "verdict"))
                cells.append("baseline" if c == first else "")
            elif r.vs is None:
                cells.append("n/a" if c == "diff" else "")
            elif c == "diff":
                cells.append(_tex_num(fixed(r.vs.diff, vs_dec, True)))
            elif c == "diff_ci":
                cells.append(_tex_num(interval(r.vs.ci[0], r.vs.ci[1], vs_dec, True)))
            else:
                cells.append(tex(_verdict_words(r.vs, group.valid)))
        body.append(cells)
    arm_at = cols.index("arm") if "arm" in cols else None
    measure = [[_tex_arm(c) if i == arm_at else c for i, c in enumerate(cells)] for cells in body]
    layout = _layout(headers, measure, cols, len(cols) > WIDE_COLUMNS)
    wraps = "p{" in layout.align
    for cells in body:
        if arm_at is not None:
            cells[arm_at] = _arm_cell(cells[arm_at], wraps)
    conf_label = label + "-confounds"
    shown_conf, matrix = confound_matrix(group)
    has_diff = any(c in cols for c in ("diff", "diff_ci", "verdict"))
    short, caption = latex_caption(group, comparison, conf_label if matrix else None)
    notes = [tex_prose(n) for n in latex_notes(group, comparison, has_diff, "verdict" in cols, rng,
                                                baseline if has_diff else None)]
    out = _float(layout, caption, short, label, headers, body, notes)
    if matrix:
        out += "\n" + _confound_latex(group, comparison, label, conf_label, shown_conf, matrix)
    return out


def _confound_latex(group: Group, comparison: Comparison, label: str, conf_label: str, shown: list[str],
                    matrix: list[tuple[str, dict]]) -> str:
    """The arm x unit ratios of a group's confounds: their own table, so the caption stays short."""
    headers = ["Arm"] + [tex(LATEX_UNIT_HEADERS.get(u, u)) for u in shown]
    median = ["median across arms"] + [_tex_num(quantity(confound_reference(group, u))).replace(",", "{,}")
                                       for u in shown]
    body = [[arm] + [tex_prose(cells.get(u, "")) for u in shown] for arm, cells in matrix]
    keys = ["arm"] + ["ratio"] * len(shown)
    layout = _layout(headers, [[_tex_arm(r[0])] + r[1:] for r in body + [median]], keys, len(keys) > WIDE_COLUMNS)
    wraps = "p{" in layout.align
    for r in body:
        r[0] = _arm_cell(r[0], wraps)
    caption = (f"Confounds of Table~\\ref{{{label}}}" + tex_prose(
        f": each arm's spend in units other than the fixed one, as a ratio to the median across arms (second "
        f"row); only cells beyond \u00b1{comparison.tolerance:.0%} are filled, \u2265 marks a lower bound. The "
        f"{comparison.metric} column does not account for them."))
    short = tex_prose(f"Confounds: {group.workload} at {budget_text(group.budget)}")
    return _float(layout, caption, short, conf_label, headers, body, [], extra_head=median)


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
        out.append("Differences are per-seed paired with 95% intervals; a verdict needs both the paired t and "
                   "the exact sign-flip test to reject after Holm adjustment within the table.")
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
            out.append(group_latex(g, comparison, baseline, label, columns, _group_range(comparison, g, ranges)))
    return LATEX_PREAMBLE + "\n".join(out)


def cost_markdown(groups: list[dict], unit: str, target: float) -> str:
    """The cost-to-target table of `compare --target`, each group in its workload's words for the unit."""
    parts = []
    for g in groups:
        with nouns_of(g.get("unit_nouns") or None):
            parts += _cost_group(g, unit, target)
    return "\n".join(parts)


def _cost_fmt(v):
    return {"inf": "∞", "-inf": "−∞"}.get(v) if isinstance(v, str) else ("n/a" if v is None else quantity(v))


def _cost_ci(v):
    return "n/a" if v is None else f"[{_cost_fmt(v[0])}, {_cost_fmt(v[1])}]"


def _cost_group(g: dict, unit: str, target: float) -> list[str]:
    fmt, ci = _cost_fmt, _cost_ci
    parts = [f"Cost to reach reward {target:g} in {unit_noun(unit)} ({md(g['workload'])}): ERT counts "
             "runs that never reached it at their whole spend; cost-of-pass is mean spend over the pass "
             "rate. Intervals: seeded paired bootstrap over seeds (they under-cover at small n)."]
    table_rows = [[md(r["arm"]), f"{r['reached']}/{r['runs']}", fmt(r["ert"]), ci(r["ert_ci"]),
                   fmt(r["cost_of_pass"]), ci(r["cost_of_pass_ci"]),
                   (f"{fmt(r['ert_diff_vs_baseline'])} {ci(r.get('ert_diff_ci'))}"
                    if "ert_diff_vs_baseline" in r else "")]
                  for r in g["arms"]]
    parts.append(pipe_table(table_rows, ["arm", "reached", "ERT", "95% CI", "cost-of-pass", "95% CI",
                                         "ERT − baseline"], align="lrrrrrr"))
    parts += _instance_lines(g["arms"], fmt)
    parts += _function_lines(g["arms"], fmt, unit)
    parts.append("")
    return parts


def _function_lines(arms: list[dict], fmt, unit: str) -> list[str]:
    """ERT per function, instances as trials (COCO's convention), when the instances name their function."""
    rows_with = [r for r in arms if r.get("functions")]
    if not rows_with:
        return []
    names = sorted({f["function"] for r in rows_with for f in r["functions"]}, key=lambda f: (len(f), f))
    rows = []
    for r in rows_with:
        by = {f["function"]: f for f in r["functions"]}
        rows.append([md(r["arm"])] + [f"{fmt(by[n]['ert'])} ({by[n]['reached']}/{by[n]['runs']})" if n in by else ""
                                      for n in names])
    return ["", f"ERT per function in {unit_noun(unit)}, its instances as trials (COCO's convention: the spend of "
            "all runs on the function's instances, unsuccessful ones in full, over the runs that reached the "
            "target; ∞: none did; in parentheses runs reached / runs):", "",
            pipe_table(rows, ["arm"] + [md(n) for n in names], align="l" + "r" * len(names))]


def _instance_lines(arms: list[dict], fmt) -> list[str]:
    """Per-instance ERT (COCO-style: never pooled across problems) and which score the rows used."""
    out = []
    notes = sorted({f"{k}: {r[k]}" for r in arms for k in ("score", "aggregation") if isinstance(r.get(k), str)})
    out += [f"- {md(n)}" for n in notes]
    per_instance = [r for r in arms if r.get("instances")]
    if per_instance:
        names = sorted({i["instance"] for r in per_instance for i in r["instances"]})
        rows = []
        for r in per_instance:
            by_name = {i["instance"]: i for i in r["instances"]}
            rows.append([md(r["arm"]), f"{r.get('instances_solved', 0)}/{r.get('instances_total', len(names))}"]
                        + [fmt(by_name[n]["ert"]) if n in by_name else "" for n in names])
        out += ["", "ERT per instance (runs that never reached the target count at their whole spend; ∞: none "
                "reached it):", "", pipe_table(rows, ["arm", "solved"] + [md(n) for n in names])]
    return out


# -- confounds at a glance ----------------------------------------------------------------
def confound_ratio(spend: float, reference: float, lower_bound: bool = False) -> str:
    """Compact ratio to the reference in one style: ``0.35×``, ``1.2×``, ``12×``; ``≥`` for a lower bound.

    One style for the one quantity: a column that mixed ``0.35×`` and ``−45%``
    made the reader convert before comparing two cells.
    """
    if reference == 0:
        text = "> 0 (ref 0)"
    else:
        r = spend / reference
        text = f"{r:,.0f}\u00d7" if r >= 10 else f"{r:.2g}\u00d7"
    return (GE if lower_bound else "") + text


UNKNOWN = "unknown"   # a confound cell of an arm that did not report the unit (never 0, never left out)


def confound_matrix(group: Group, units: list[str] | None = None) -> tuple[list[str], list[tuple[str, dict]]]:
    """(units with a confound, [(arm, {unit: ratio text})]): only cells beyond tolerance are filled, and
    "unknown" where an arm did not report the unit.

    One table per group instead of one sentence per arm per unit: a suite of
    seven arms and five units made forty bullets nobody read.
    """
    flags = [f for f in group.confounded if units is None or f.unit in units]
    shown = [u for u in group.units if any(f.unit == u for f in flags)]
    by_arm: dict[str, dict[str, str]] = {}
    for f in flags:
        by_arm.setdefault(f.arm, {})[f.unit] = confound_ratio(f.spend, f.reference, f.lower_bound)
    for a in group.arms:  # an arm that did not report a shown unit is a row of unknowns, not a missing row
        for u in shown:
            if u in a.spend and a.spend[u].status == "unreported":
                by_arm.setdefault(a.arm, {})[u] = UNKNOWN
    order = [a.arm for a in group.arms if a.arm in by_arm]
    return shown, [(arm, by_arm[arm]) for arm in order]


def confound_reference(group: Group, unit: str) -> float | None:
    for f in group.confounded:
        if f.unit == unit:
            return f.reference
    return None


def confound_markdown(group: Group, tolerance: float, units: list[str] | None = None) -> str:
    shown, table_rows = confound_matrix(group, units)
    if not table_rows:
        return ""
    headers = ["arm"] + [f"{md(unit_noun(u))} (median {quantity(confound_reference(group, u))})" for u in shown]
    body = [[md(arm)] + [cells.get(u, "") for u in shown] for arm, cells in table_rows]
    return (f"Confounds (spend in other units, as a ratio to the median across arms; only cells beyond "
            f"\u00b1{tolerance:.0%}; the reward column does not account for them):\n\n"
            + pipe_table(body, headers, align="l" + "r" * len(shown)))

