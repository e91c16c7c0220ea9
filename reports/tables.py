"""Paper-ready tables of a Comparison: markdown, LaTeX (booktabs), CSV and a DataFrame.

One row model, four renderings, so the formats cannot disagree. Numbers are
rounded to what their intervals support (two significant digits of the
interval's half-width), one precision per column. Captions come from
`flags.group_caption`: they cannot claim a fixed unit that was not verified.
Means and intervals are clipped to the reward's possible range when one is
known (`reports.ranges`), so a success rate never prints as 1.084.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import pandas as pd

from baselines.comparison import Comparison, Group
from baselines.stats import PairResult
from baselines.units import unit_noun

from .flags import group_caption, unequal_sentence, unverified_sentence
from .ranges import RewardRange, range_for
from .text import (DASH, GE, budget_text, decimals_for, fixed, floor_for_display, interval, md, pipe_table, quantity,
                   tex)


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


VERDICT_SHORT = {"a>b": "better", "b>a": "worse", "no difference detected": "n.d.",
                 "underpowered": "underpowered", "equivalent": "equivalent"}


def _verdict_words(p: PairResult) -> str:
    return {"a>b": "better", "b>a": "worse"}.get(p.verdict, p.verdict) + ("" if p.paired else ", unpaired")


def _verdict_short(p: PairResult) -> str:
    return VERDICT_SHORT.get(p.verdict, p.verdict) + ("" if p.paired else " (unpaired)")


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
                            "vs_verdict": r.vs.verdict if r.vs else None})
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


def shown_units(group: Group, drop_unreported: bool) -> list[str]:
    """Units to give a column; paper tables drop units no arm reports (the caption names them)."""
    if not drop_unreported:
        return list(group.units)
    return [u for u in group.units if any(a.spend[u].status != "unreported" for a in group.arms)]


def silent_units(group: Group) -> list[str]:
    return [u for u in group.units if all(a.spend[u].status == "unreported" for a in group.arms)]


def group_markdown(group: Group, metric: str, baseline: str | None, drop_unreported: bool = False,
                   rng: RewardRange | None = None) -> str:
    baseline = _present(group, baseline)
    rs = rows(group, baseline, rng)
    units = shown_units(group, drop_unreported)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.ci[1] - r.vs.ci[0]) / 2 for r in rs if r.vs)
    headers = ["arm", "seeds"] + [md(u) for u in units] + [f"{md(metric)} (95% CI)"]
    if baseline:
        headers.append(f"vs {md(baseline)} (paired)")
    body = []
    for r in rs:
        line = [md(r.arm), r.seeds] + [_spend_text(*r.spend[u], latex=False) for u in units]
        line.append(f"{fixed(r.mean, dec)} {interval(r.ci[0], r.ci[1], dec)}")
        if baseline:
            line.append("baseline" if r.arm == baseline else (
                f"{fixed(r.vs.diff, vs_dec, True)} {interval(r.vs.ci[0], r.vs.ci[1], vs_dec, True)} "
                f"{_verdict_words(r.vs)}" if r.vs else "n/a"))
        body.append(line)
    return pipe_table(body, headers)


# -- LaTeX -------------------------------------------------------------------------------
LATEX_COLUMNS = ("arm", "seeds", "spend", "mean", "ci", "diff", "diff_ci", "verdict")
WIDE_COLUMNS = 7      # more columns than this: table* (both columns of a two-column paper)
RESIZE_COLUMNS = 10   # more than this: also \resizebox to the text width


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


def _tex_num(text: str) -> str:
    """A number for a LaTeX cell: a real minus sign (not a hyphen), --- for unknown, $\\infty$."""
    text = text.replace(DASH, "---").replace("\u2212", "-").replace("\u221e", "$\\infty$")
    return re.sub(r"(?<![-\w])-(?=[\d.])", "$-$", text)


def group_latex(group: Group, comparison: Comparison, baseline: str | None, label: str,
                columns: list[str] | None = None, rng: RewardRange | None = None) -> str:
    """One booktabs table; verdict and interval in their own compact columns; wide tables span both columns."""
    baseline = _present(group, baseline)
    rs = rows(group, baseline, rng)
    cols = _latex_columns(group, baseline, columns)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.ci[1] - r.vs.ci[0]) / 2 for r in rs if r.vs)
    head = {"arm": "Arm", "seeds": "Seeds", "mean": tex(comparison.metric), "ci": "95\\% CI",
            "diff": f"$\\Delta$ vs {tex(baseline or '')}", "diff_ci": "95\\% CI ($\\Delta$)", "verdict": "Verdict"}
    headers = [tex(LATEX_UNIT_HEADERS.get(c[5:], c[5:])) if c.startswith("unit:") else head[c] for c in cols]
    lines = []
    for r in rs:
        cells = []
        for c in cols:
            if c == "arm":
                cells.append(tex(r.arm))
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
                cells.append(tex(_verdict_short(r.vs)))
        lines.append(" & ".join(cells) + r" \\")
    align = "".join("l" if c in ("arm", "verdict") else "r" for c in cols)
    caption = latex_caption(group, comparison, verdicts="verdict" in cols, rng=rng)
    caption = tex(caption).replace("\u2265", "$\\geq$").replace("\u2014", "---").replace(
        "\u00b1", "$\\pm$").replace("\u2212", "-").replace("\u221e", "$\\infty$").replace("\u00d7", "$\\times$")
    wide = len(cols) > WIDE_COLUMNS
    env = "table*" if wide else "table"
    tabular = [f"\\begin{{tabular}}{{{align}}}", r"\toprule", " & ".join(headers) + r" \\", r"\midrule",
               *lines, r"\bottomrule", r"\end{tabular}"]
    if len(cols) > RESIZE_COLUMNS:
        tabular = [r"\resizebox{\textwidth}{!}{%"] + tabular + ["}"]
    return "\n".join([f"\\begin{{{env}}}[t]", r"\centering", r"\small", f"\\caption{{{caption}}}",
                      f"\\label{{{label}}}", *tabular, f"\\end{{{env}}}"]) + "\n"


def latex_caption(group: Group, comparison: Comparison, verdicts: bool = False,
                  rng: RewardRange | None = None) -> str:
    parts = [f"{group.workload} at {budget_text(group.budget)}.",
             group_caption(group, comparison.fixed, comparison.tolerance, comparison.metric)]
    name = lambda a: a  # noqa: E731  (plain names; the caption is escaped as a whole)
    parts += [unverified_sentence(u, name) + "." for u in group.unverified]
    parts += [unequal_sentence(f, comparison.tolerance, name) + "." for f in group.unequal]
    if group.confounded:
        parts.append("Confounds (spend as a ratio to the median across arms): " + "; ".join(
            f"{unit_noun(u)} (median {quantity(confound_reference(group, u))}): "
            + ", ".join(f"{arm} {cells[u]}" for arm, cells in matrix if u in cells)
            for shown, matrix in [confound_matrix(group)] for u in shown) + ".")
    silent = silent_units(group)
    if silent:
        parts.append("Not reported by any arm (no column): " + ", ".join(unit_noun(u) for u in silent) + ".")
    partial = [u for u in group.unreported if u.reason == "partial"]
    if partial:
        parts.append("Lower bounds: " + "; ".join(f"{u.arm} {unit_noun(u.unit)}" for u in partial) + ".")
    if group.pairs:
        parts.append("Differences are per-seed paired with 95% intervals; a verdict needs both the paired t and "
                     "the exact sign-flip test to reject after Holm adjustment within the table.")
    if verdicts:
        parts.append("n.d. = no difference detected (not evidence of equality).")
    if rng is not None:
        parts.append(rng.note())
    return " ".join(parts)


LATEX_PREAMBLE = ("% costmatch tables. Needs in the preamble: \\usepackage{booktabs}{packages}\n"
                  "% Wide tables use table* (both columns of a two-column paper).\n")


def comparison_latex(comparison: Comparison, baseline: str | None = None, columns: list[str] | None = None,
                     ranges: dict | None = None) -> str:
    out = []
    for i, g in enumerate(comparison.groups):
        label = "tab:costmatch-" + "".join(ch if ch.isalnum() else "-" for ch in f"{g.workload}-{i}")
        out.append(group_latex(g, comparison, baseline, label, columns, _group_range(comparison, g, ranges)))
    body = "\n".join(out)
    extra = ", \\usepackage{graphicx} (for \\resizebox)" if "\\resizebox" in body else ""
    return LATEX_PREAMBLE.replace("{packages}", extra) + body


def cost_markdown(groups: list[dict], unit: str, target: float) -> str:
    """The cost-to-target table of `compare --target`."""
    def fmt(v):
        return {"inf": "∞", "-inf": "−∞"}.get(v) if isinstance(v, str) else ("n/a" if v is None else quantity(v))

    def ci(v):
        return "n/a" if v is None else f"[{fmt(v[0])}, {fmt(v[1])}]"

    parts = []
    for g in groups:
        parts.append(f"Cost to reach reward {target:g} in {unit_noun(unit)} ({md(g['workload'])}): ERT counts "
                     "runs that never reached it at their whole spend; cost-of-pass is mean spend over the pass "
                     "rate. Intervals: seeded paired bootstrap over seeds (they under-cover at small n).")
        table_rows = [[md(r["arm"]), f"{r['reached']}/{r['runs']}", fmt(r["ert"]), ci(r["ert_ci"]),
                       fmt(r["cost_of_pass"]), ci(r["cost_of_pass_ci"]),
                       (f"{fmt(r['ert_diff_vs_baseline'])} {ci(r.get('ert_diff_ci'))}"
                        if "ert_diff_vs_baseline" in r else "")]
                      for r in g["arms"]]
        parts.append(pipe_table(table_rows, ["arm", "reached", "ERT", "95% CI", "cost-of-pass", "95% CI",
                                             "ERT − baseline"]))
        parts += _instance_lines(g["arms"], fmt)
        parts.append("")
    return "\n".join(parts)


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
    """Compact ratio to the reference: ``3.1×``, ``+62%``, ``−45%``; ``≥`` for a lower bound."""
    if reference == 0:
        text = "> 0 (ref 0)"
    else:
        r = spend / reference
        text = f"{r:,.0f}\u00d7" if r >= 10 else f"{r:.2g}\u00d7" if (r >= 1.5 or r <= 0.5) else f"{(r - 1) * 100:+.0f}%".replace("-", "\u2212")
    return (GE if lower_bound else "") + text


def confound_matrix(group: Group, units: list[str] | None = None) -> tuple[list[str], list[tuple[str, dict]]]:
    """(units with a confound, [(arm, {unit: ratio text})]): only cells beyond tolerance are filled.

    One table per group instead of one sentence per arm per unit: a suite of
    seven arms and five units made forty bullets nobody read.
    """
    flags = [f for f in group.confounded if units is None or f.unit in units]
    shown = [u for u in group.units if any(f.unit == u for f in flags)]
    by_arm: dict[str, dict[str, str]] = {}
    for f in flags:
        by_arm.setdefault(f.arm, {})[f.unit] = confound_ratio(f.spend, f.reference, f.lower_bound)
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
            + pipe_table(body, headers))

