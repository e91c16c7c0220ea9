"""A Comparison as a markdown table per group, a long-form DataFrame and CSV.

One row model (`table_rows`), several renderings (LaTeX in `latex.py`,
HTML in `html.py`), so the formats cannot disagree. Numbers are rounded to
what their intervals support (two significant digits of the interval's
half-width), one precision per column.
"""
from __future__ import annotations

import pandas as pd

from baselines.analysis.result.model import Analysis, GroupAnalysis
from baselines.analysis.result.precision import mean_and_interval
from baselines.core.units import unit_noun

from .degraded import degraded_sentence
from .table_rows import baseline_claim, shown_units, spend_text
from .text import fixed, interval, md, pipe_table


def budget_cell(budget: dict) -> str:
    """Exact budget text for CSV/DataFrame cells: ``tokens=1500000`` (never 1.5e+06)."""
    return ", ".join(f"{u}={format(float(v), '.17g')}" for u, v in budget.items())


def frame(analysis: Analysis, baseline: str | None = None) -> pd.DataFrame:
    """Long-form DataFrame: one row per (workload, budget, arm), then one per pair; NaN/None where unreported.

    Columns `vs_*` only with a baseline (`vs_verdict`: the word every other format
    prints, `vs_verdict_text`: the analysis's verdict text, `vs_family`: the pairs
    Holm adjusted the verdict with); `degraded` only when some arm dropped governor stages (the
    sentence the other formats print, empty for an arm that ran every stage).
    `kind` is "arm" or "pair": a pair row carries a, b, n, the estimate
    (`diff`), its interval (`ci_low`, `ci_high`, `interval_method`), the test
    that decided, the printed p with its method, the Holm p and the verdict:
    the same numbers md, LaTeX and HTML print, at full precision.
    """
    analysis = _analysis(analysis, baseline)
    metric = analysis.metric
    records = []
    any_degraded = any(ga.group.degraded for ga in analysis.groups)
    for ga in analysis.groups:
        g = ga.group
        degraded = {d.arm: degraded_sentence(d, str) for d in g.degraded}
        for r in ga.arms:
            rec = {"workload": g.workload, "budget": budget_cell(g.budget),
                   "arm": r.arm, "seeds": r.seeds, f"{metric}_mean": r.mean,
                   "ci_low": r.interval.lo, "ci_high": r.interval.hi}
            for u, cell in r.spend.items():
                rec[f"{u}_median"] = cell.median
                rec[f"{u}_status"] = cell.status
            if analysis.baseline is not None:
                vs = r.vs_baseline
                rec.update({"vs_baseline": vs.estimate if vs else None,
                            "vs_ci_low": vs.interval.lo if vs else None,
                            "vs_ci_high": vs.interval.hi if vs else None,
                            # the word markdown prints (better, worse, n.d., underpowered); the
                            # analysis's own text (a>b, no difference detected) in vs_verdict_text
                            "vs_verdict": vs.against_word if vs and g.valid else None,
                            "vs_family": vs.family if vs and vs.family else None,
                            "vs_verdict_text": vs.verdict if vs and g.valid else None})
            rec["valid"] = g.valid
            if any_degraded:  # the note md, HTML and LaTeX print below the table, on the arm's own row
                rec["degraded"] = degraded.get(r.arm)
            rec["kind"] = "arm"
            records.append(rec)
        for p in ga.pairs:
            for c in p.claims:  # one row per claim, as every other format prints them
                records.append({"workload": g.workload, "budget": budget_cell(g.budget), "ci_low": c.interval.lo,
                                "ci_high": c.interval.hi, "valid": g.valid, "kind": "pair", "a": p.a, "b": p.b,
                                "n": p.n, "claim": c.claim, "diff": c.estimate,
                                "interval_method": c.interval.method, "test": c.test, "p": c.p,
                                "p_method": c.p_label, "p_holm": c.p_adjusted, "verdict": c.verdict_word,
                                # item-paired mean claim: which questions it is about (contract 6.37.b)
                                **({"about": c.about} if c.about else {})})
    df = pd.DataFrame.from_records(records)
    if "degraded" in df.columns:  # contract 5.10: `degraded` stays the last column
        df = df[[c for c in df.columns if c != "degraded"] + ["degraded"]]
    return df


def _analysis(analysis, baseline: str | None = None) -> Analysis:
    """An `Analysis` as given, or a Comparison's own (`Comparison.analysis`, computed once and cached)."""
    return analysis if isinstance(analysis, Analysis) else analysis.analysis(baseline)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """Text a spreadsheet would run as a formula (``=cmd|...``) gets a leading apostrophe; numbers pass."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(analysis: Analysis, baseline: str | None = None) -> str:
    df = frame(analysis, baseline)
    for column in df.columns:
        if not (pd.api.types.is_numeric_dtype(df[column]) or pd.api.types.is_bool_dtype(df[column])):
            df[column] = df[column].astype(object).map(csv_cell)
    df.columns = [csv_cell(str(c)) for c in df.columns]
    return df.to_csv(index=False, lineterminator="\n")


def group_markdown(ga: GroupAnalysis, metric: str, drop_unreported: bool = False) -> str:
    """The arm table: spend, mean with its interval and, with a baseline that ran here, the paired column."""
    baseline = ga.baseline
    units = shown_units(ga.group, drop_unreported)
    dec, vs_dec = ga.decimals, ga.pair_decimals
    headers = ["arm", "seeds"] + [f"{md(unit_noun(u))} (median)" for u in units] + [f"{md(metric)} (mean, 95% CI)"]
    if baseline:
        claim = baseline_claim(ga)
        headers.append(f"vs {md(baseline)} (paired{', ' + claim if claim else ''})")
    body = []
    for r in ga.arms:
        line = [md(r.arm), r.seeds] + [spend_text(r.spend[u].median, r.spend[u].status, latex=False) for u in units]
        line.append(mean_and_interval(r.mean, r.interval.lo, r.interval.hi, dec))
        if baseline:
            vs = r.vs_baseline
            line.append("baseline" if r.arm == baseline else (
                f"{fixed(vs.estimate, vs_dec, True)} {interval(vs.interval.lo, vs.interval.hi, vs_dec, True)} "
                f"{vs.against_word}" if vs else "n/a"))
        body.append(line)
    return pipe_table(body, headers, align="l" + "r" * (len(headers) - 1 - bool(baseline)) + "l" * bool(baseline))
