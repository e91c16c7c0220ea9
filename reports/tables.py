"""Paper-ready tables of a Comparison: markdown, LaTeX (booktabs), CSV and a DataFrame.

One row model, four renderings, so the formats cannot disagree. Numbers are
rounded to what their intervals support (two significant digits of the
interval's half-width), one precision per column. Captions come from
`flags.group_caption`: they cannot claim a fixed unit that was not verified.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from tabulate import tabulate

from baselines.compare import Comparison, Group
from baselines.stats import PairResult
from baselines.units import unit_noun

from .flags import group_caption, unequal_sentence, unverified_sentence
from .text import DASH, GE, decimals_for, fixed, interval, md, quantity, tex


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
            return PairResult(arm, baseline, p.n, -p.diff, (-p.ci[1], -p.ci[0]), p.p, p.p_method, p.p_t, p.sd,
                              p.paired, p.mde, p.p_adjusted, {"a>b": "b>a", "b>a": "a>b"}.get(p.verdict, p.verdict),
                              p.equivalent, p.notes)
    return None


def rows(group: Group, baseline: str | None = None) -> list[Row]:
    out = []
    for a in group.arms:
        seeds = f"{a.scored}/{a.runs}" if a.scored != a.runs else str(a.runs)
        spend = {u: (a.spend[u].median, a.spend[u].status) for u in group.units}
        out.append(Row(a.arm, seeds, spend, a.mean, a.ci, _vs(group, a.arm, baseline)))
    return out


def _verdict_words(p: PairResult) -> str:
    return {"a>b": "better", "b>a": "worse"}.get(p.verdict, p.verdict) + ("" if p.paired else ", unpaired")


def frame(comparison: Comparison, baseline: str | None = None) -> pd.DataFrame:
    """Long-form DataFrame: one row per (workload, budget, arm); NaN/None where unreported."""
    records = []
    for g in comparison.groups:
        for r in rows(g, baseline):
            rec = {"workload": g.workload, "budget": ", ".join(f"{u}={v:g}" for u, v in g.budget.items()),
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


def to_csv(comparison: Comparison, baseline: str | None = None) -> str:
    return frame(comparison, baseline).to_csv(index=False, lineterminator="\n")


def _spend_text(median, status, latex: bool) -> str:
    if status == "unreported" or median is None:
        return "---" if latex else DASH
    text = quantity(median)
    if latex:
        text = text.replace(",", "{,}")
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


def group_markdown(group: Group, metric: str, baseline: str | None, drop_unreported: bool = False) -> str:
    baseline = _present(group, baseline)
    rs = rows(group, baseline)
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
    return tabulate(body, headers, tablefmt="github", disable_numparse=True)


def group_latex(group: Group, comparison: Comparison, baseline: str | None, label: str) -> str:
    baseline = _present(group, baseline)
    rs = rows(group, baseline)
    units = shown_units(group, drop_unreported=True)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.ci[1] - r.vs.ci[0]) / 2 for r in rs if r.vs)
    headers = ["Arm", "Seeds"] + [tex(unit_noun(u)) for u in units] + [f"{tex(comparison.metric)} (95\\% CI)"]
    if baseline:
        headers.append(f"$\\Delta$ vs {tex(baseline)}")
    cols = "l" + "r" * (len(headers) - 1)
    lines = []
    for r in rs:
        cells = [tex(r.arm), tex(r.seeds)] + [_spend_text(*r.spend[u], latex=True) for u in units]
        cells.append(f"{fixed(r.mean, dec)} {interval(r.ci[0], r.ci[1], dec)}".replace(DASH, "---"))
        if baseline:
            cells.append("baseline" if r.arm == baseline else (
                f"{fixed(r.vs.diff, vs_dec, True)} {interval(r.vs.ci[0], r.vs.ci[1], vs_dec, True)} "
                f"{tex(_verdict_words(r.vs))}" if r.vs else "n/a"))
        lines.append(" & ".join(cells) + r" \\")
    caption = tex(latex_caption(group, comparison)).replace("\u2265", "$\\geq$").replace(
        "\u2014", "---").replace("\u00b1", "$\\pm$")
    return "\n".join([
        r"\begin{table}[t]", r"\centering", r"\small", f"\\caption{{{caption}}}", f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{cols}}}", r"\toprule", " & ".join(headers) + r" \\", r"\midrule", *lines,
        r"\bottomrule", r"\end{tabular}", r"\end{table}"]) + "\n"


def latex_caption(group: Group, comparison: Comparison) -> str:
    budget = ", ".join(f"{quantity(v)} {unit_noun(u)}" for u, v in group.budget.items())
    parts = [f"{group.workload} at {budget}.", group_caption(group, comparison.fixed, comparison.tolerance,
                                                             comparison.metric)]
    name = lambda a: a  # noqa: E731  (plain names; the caption is escaped as a whole)
    parts += [unverified_sentence(u, name) + "." for u in group.unverified]
    parts += [unequal_sentence(f, comparison.tolerance, name) + "." for f in group.unequal]
    if group.confounded:
        parts.append("Confounds: " + "; ".join(confound_phrase(f) for f in group.confounded) + ".")
    silent = silent_units(group)
    if silent:
        parts.append("Not reported by any arm (no column): " + ", ".join(unit_noun(u) for u in silent) + ".")
    partial = [u for u in group.unreported if u.reason == "partial"]
    if partial:
        parts.append("Lower bounds: " + "; ".join(f"{u.arm} {unit_noun(u.unit)}" for u in partial) + ".")
    if group.pairs:
        parts.append("Differences are per-seed paired with Student-t 95% intervals; verdicts use Holm-adjusted "
                     "paired t tests within the table.")
    return " ".join(parts)


def confound_phrase(flag) -> str:
    """Short form for captions: arm, both numbers, unit."""
    from .text import ratio
    bound = "at least " if flag.lower_bound else ""
    return (f"{flag.arm} {bound}{quantity(flag.spend)} {unit_noun(flag.unit)} vs a median of "
            f"{quantity(flag.reference)} ({ratio(flag.spend, flag.reference)})")


def comparison_latex(comparison: Comparison, baseline: str | None = None) -> str:
    out = []
    for i, g in enumerate(comparison.groups):
        label = "tab:costmatch-" + "".join(ch if ch.isalnum() else "-" for ch in f"{g.workload}-{i}")
        out.append(group_latex(g, comparison, baseline, label))
    return "\n".join(out)


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
        rows = [[md(r["arm"]), f"{r['reached']}/{r['runs']}", fmt(r["ert"]), ci(r["ert_ci"]), fmt(r["cost_of_pass"]),
                 ci(r["cost_of_pass_ci"]),
                 (f"{fmt(r['ert_diff_vs_baseline'])} {ci(r.get('ert_diff_ci'))}" if "ert_diff_vs_baseline" in r else "")]
                for r in g["arms"]]
        parts.append(tabulate(rows, ["arm", "reached", "ERT", "95% CI", "cost-of-pass", "95% CI", "ERT − baseline"],
                              tablefmt="github", disable_numparse=True))
        parts.append("")
    return "\n".join(parts)
