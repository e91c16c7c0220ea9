"""The gate's verdict as GitHub job-summary markdown (what `$GITHUB_STEP_SUMMARY` receives).

Formatting lives in reports, the gate's decisions in `baselines.analysis.gating.gate`: the
analysis layer never imports the presentation layer.
"""
from __future__ import annotations

import math

from baselines.analysis.gating.gate import FAIL, INCONCLUSIVE, PASS, GateResult
from baselines.core.units import nouns_of

from .text import budget_text, md


def gate_markdown(results: list[GateResult], baseline: str, candidate: str, fixed: str | None,
                  verdict: str) -> str:
    """GitHub job-summary markdown (appended to $GITHUB_STEP_SUMMARY); `fixed` None: each group's budget unit.

    `verdict` is the gate's overall verdict (`baselines.analysis.gating.gate.overall`), decided by the
    caller: the summary prints it, it does not decide it.
    """
    icon = {PASS: "✅", FAIL: "❌", INCONCLUSIVE: "⚠️"}
    at = f"at equal {md(fixed)}" if fixed else "at equal spend in the unit each group's budget names"
    lines = [f"### costmatch check: {icon[verdict]} {verdict}", "",
             f"Candidate **{md(candidate)}** against baseline **{md(baseline)}** {at}.", "",
             "| workload | budget | verdict | n | diff | bounds | margin | reason |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        with nouns_of(r.unit_nouns):
            budget = budget_text(r.budget)
        bounds = f"[{r.lower:+.3g}, {r.upper:+.3g}]" if math.isfinite(r.lower) and math.isfinite(r.upper) else "n/a"
        diff = f"{r.diff:+.3g}" if math.isfinite(r.diff) else "n/a"
        margin = f"{r.margin:.3g}" if math.isfinite(r.margin) else "n/a"
        lines.append(f"| {md(r.workload)} | {md(budget)} | {icon[r.verdict]} {r.verdict} | {r.n} | {diff} | "
                     f"{bounds} | {margin} | {md(r.reason)} |")
    confounds = [c for r in results for c in r.confounds]
    if confounds:
        lines += ["", "Confounds (other units that diverged):"] + [f"- {md(c)}" for c in confounds]
    return "\n".join(lines) + "\n"
