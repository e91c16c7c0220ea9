"""What `costmatch run` writes beside results.jsonl after the cells.

One comparison per fixed unit (a suite may hold search-sim at equal tokens,
the same arms at equal rollouts, and bbob at equal calls): the markdown
report, each comparison's JSON, and the figures.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from baselines.compare import Comparison, compare
from baselines.records import RunRecord, budget_key

from .markdown import comparison_markdown
from .plots import ranking_across_units, ranking_markdown


def comparisons_by_fixed_unit(suite, records: list[RunRecord]) -> list[tuple[str, Comparison]]:
    out = []
    for unit in suite.fixed_units:
        keys = {(w.name, b.key()) for w in suite.workloads if w.fixed == unit for b in w.budgets}
        tolerance = min(w.tolerance for w in suite.workloads if w.fixed == unit)
        subset = [r for r in records if (r.workload, budget_key(r.budget)) in keys]
        if subset:
            out.append((unit, compare(subset, unit, tolerance)))
    return out


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_run_report(suite, records: list[RunRecord], out_dir: Path, plots: bool = True) -> str:
    sections = [f"# costmatch report: {suite.name}", ""]
    for unit, comparison in comparisons_by_fixed_unit(suite, records):
        sections += [f"## At equal {unit}", "", comparison_markdown(comparison, paper=True)]
        for group in comparison.groups:
            by_unit = ranking_across_units(group, records)
            ranking = ranking_markdown(by_unit) if len(by_unit) > 1 else ""
            if ranking:
                sections += [f"#### {group.workload}: ranking at equal spend in each unit, from the same runs", "",
                             ranking, ""]
        _atomic_write(out_dir / f"comparison-{unit}.json",
                      json.dumps(comparison.to_json(), ensure_ascii=False, allow_nan=False, indent=1) + "\n")
        if plots:
            from .plots import write_comparison_plots
            figures = write_comparison_plots(comparison, records, out_dir / "plots")
            sections += [f"![{p.stem}]({p.relative_to(out_dir)})" for p in figures if p.suffix == ".png"] + [""]
    text = "\n".join(sections).rstrip() + "\n"
    _atomic_write(out_dir / "report.md", text)
    return text
