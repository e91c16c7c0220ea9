"""A Comparison as a markdown table per group, a long-form DataFrame and CSV.

One row model (`table_rows`), several renderings (LaTeX in `latex.py`,
HTML in `html.py`), so the formats cannot disagree. Numbers are rounded to
what their intervals support (two significant digits of the interval's
half-width), one precision per column.
"""
from __future__ import annotations

import pandas as pd

from baselines.analysis.compare.comparison import Comparison, Group
from baselines.core.units import unit_noun

from .degraded import degraded_sentence
from .ranges import RewardRange
from .table_rows import group_range, present_baseline, rows, shown_units, spend_text, verdict_words
from .text import decimals_for, fixed, interval, md, pipe_table


def budget_cell(budget: dict) -> str:
    """Exact budget text for CSV/DataFrame cells: ``tokens=1500000`` (never 1.5e+06)."""
    return ", ".join(f"{u}={format(float(v), '.17g')}" for u, v in budget.items())


def frame(comparison: Comparison, baseline: str | None = None, ranges: dict | None = None) -> pd.DataFrame:
    """Long-form DataFrame: one row per (workload, budget, arm); NaN/None where unreported.

    Columns `vs_*` only with a baseline (`vs_verdict`: the word every other format
    prints, `vs_verdict_text`: the analysis's verdict text, `vs_family`: the pairs
    Holm adjusted the verdict with); `degraded` only when some arm dropped governor stages (the
    sentence the other formats print, empty for an arm that ran every stage).
    """
    records = []
    any_degraded = any(g.degraded for g in comparison.groups)
    for g in comparison.groups:
        degraded = {d.arm: degraded_sentence(d, str) for d in g.degraded}
        for r in rows(g, baseline, group_range(comparison, g, ranges)):
            rec = {"workload": g.workload, "budget": budget_cell(g.budget),
                   "arm": r.arm, "seeds": r.seeds, f"{comparison.metric}_mean": r.mean,
                   "ci_low": r.ci[0], "ci_high": r.ci[1]}
            for u, (median, status) in r.spend.items():
                rec[f"{u}_median"] = median
                rec[f"{u}_status"] = status
            if baseline is not None:
                rec.update({"vs_baseline": r.vs.claim_estimate if r.vs else None,
                            "vs_ci_low": r.vs.claim_ci[0] if r.vs else None,
                            "vs_ci_high": r.vs.claim_ci[1] if r.vs else None,
                            # the word markdown prints (better, worse, n.d., underpowered); the
                            # analysis's own text (a>b, no difference detected) in vs_verdict_text
                            "vs_verdict": verdict_words(r.vs) if r.vs and g.valid else None,
                            "vs_family": r.vs.family if r.vs and r.vs.family else None,
                            "vs_verdict_text": r.vs.verdict if r.vs and g.valid else None})
            rec["valid"] = g.valid
            if any_degraded:  # the note md, HTML and LaTeX print below the table, on the arm's own row
                rec["degraded"] = degraded.get(r.arm)
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


def group_markdown(group: Group, metric: str, baseline: str | None, drop_unreported: bool = False,
                   rng: RewardRange | None = None) -> str:
    baseline = present_baseline(group, baseline)
    rs = rows(group, baseline, rng)
    units = shown_units(group, drop_unreported)
    dec = decimals_for((r.ci[1] - r.ci[0]) / 2 for r in rs)
    vs_dec = decimals_for((r.vs.claim_ci[1] - r.vs.claim_ci[0]) / 2 for r in rs if r.vs)
    headers = ["arm", "seeds"] + [f"{md(unit_noun(u))} (median)" for u in units] + [f"{md(metric)} (mean, 95% CI)"]
    if baseline:
        headers.append(f"vs {md(baseline)} (paired)")
    body = []
    for r in rs:
        line = [md(r.arm), r.seeds] + [spend_text(*r.spend[u], latex=False) for u in units]
        line.append(f"{fixed(r.mean, dec)} {interval(r.ci[0], r.ci[1], dec)}")
        if baseline:
            line.append("baseline" if r.arm == baseline else (
                f"{fixed(r.vs.claim_estimate, vs_dec, True)} {interval(r.vs.claim_ci[0], r.vs.claim_ci[1], vs_dec, True)} "
                f"{verdict_words(r.vs, group.valid)}" if r.vs else "n/a"))
        body.append(line)
    return pipe_table(body, headers, align="l" + "r" * (len(headers) - 1 - bool(baseline)) + "l" * bool(baseline))


