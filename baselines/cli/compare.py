"""`costmatch compare`: flags and paired statistics, as markdown or the JSON of contract section 3."""
from __future__ import annotations

import argparse
import json
import sys

from ..core.errors import InputError
from ..core.scoped import gc_paused
from .options import EXIT_OK, add_cache_arg, add_results_args, check_results_files, finite

HELP = "flags and paired statistics, as markdown or JSON"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_args(p)
    add_cache_arg(p)
    p.add_argument("--no-result-cache", action="store_true",
                   help="compute the comparison even when the same command on the same unchanged files printed "
                        "it before (.NAME.costmatch-result.json beside the first file); --no-cache turns this off "
                        "too")
    p.add_argument("--json", action="store_true", dest="as_json", help="print the JSON of contract section 3")
    p.add_argument("--baseline", metavar="ARM", help="pair every arm with this arm only")
    p.add_argument("--pairs", choices=["auto", "all", "none"], default="auto",
                   help="paired tests: auto (all pairs up to 20 arms, else each arm against --baseline or the "
                        "best arm), all, or none")
    p.add_argument("--no-pairs", action="store_const", const="none", dest="pairs",
                   help="same as --pairs none: flags and per-arm summaries only")
    p.add_argument("--target", type=finite("--target"), metavar="R",
                   help="also report the cost to reach reward R (ERT, censored runs counted) and cost-of-pass "
                        "(reward >= R is a pass) in the fixed unit, with seeded paired bootstrap intervals")
    p.add_argument("--bootstrap", action="store_true",
                   help="add a seeded paired bootstrap interval per pair (secondary: it under-covers at small n)")
    p.add_argument("--equivalence-margin", type=finite("--equivalence-margin", positive=True), metavar="M",
                   help="report 'equivalent' when a two one-sided tests procedure puts the difference within +-M")


def run(*, results, fixed, workloads, budgets, tolerance, keep_last, allow_early_stop, alpha, metric, start,
        claim=None, questions=None,
        confounds, reward_range=None,
        as_json, baseline, pairs, target, bootstrap, equivalence_margin, no_cache=False,
        no_result_cache=False) -> int:
    # (no_result_cache is read before this runs: see result_cache)

    with gc_paused():   # the comparison and its JSON are many small live objects: see gc_paused
        return _run(results=results, fixed=fixed, workloads=workloads, budgets=budgets, tolerance=tolerance,
                    keep_last=keep_last, allow_early_stop=allow_early_stop, alpha=alpha, metric=metric,
                    start=start, confounds=confounds, reward_range=reward_range, as_json=as_json,
                    baseline=baseline, pairs=pairs, target=target, bootstrap=bootstrap,
                    equivalence_margin=equivalence_margin, cache=not no_cache, claim=claim,
                    questions=questions)


def _run(*, results, fixed, workloads, budgets, tolerance, keep_last, allow_early_stop, alpha, metric, start,
         confounds, claim, reward_range, as_json, questions=None, baseline, pairs, target, bootstrap, equivalence_margin,
         cache) -> int:
    from .results import load_comparison  # start-up: only when the verb runs

    table = None
    if target is not None:   # ERT needs the traces (and instances): read them once, keep them for the cost tables
        from ..analysis.tables.table import RunTable  # start-up: only when the verb runs
        check_results_files(results)
        table = RunTable.read(results, keep_last=keep_last, cache=cache)
    comparison = load_comparison("compare", results, fixed, tolerance=tolerance, keep_last=keep_last,
                                 allow_early_stop=allow_early_stop, alpha=alpha, metric=metric, start=start,
                                 workloads=workloads, budgets=budgets, baseline=baseline,
                                 equivalence_margin=equivalence_margin, pairs=pairs, bootstrap=bootstrap,
                                 confounds=confounds, table=table, reward_range=reward_range, cache=cache,
                                 claim=claim, questions=questions)
    costs = None if table is None else cost_tables(comparison, table, target, baseline)
    if as_json:
        payload = comparison.to_json()
        if costs is not None:
            payload["cost_to_target"] = costs
        sys.stdout.write(_dumps(payload) + "\n")
    else:
        from reports.markdown import comparison_markdown  # start-up: only when the verb runs
        sys.stdout.write(comparison_markdown(comparison, compact_confounds=True, confound_units=confounds))
        if costs is not None:
            from reports.cost_table import cost_markdown
            sys.stdout.write("\n" + cost_markdown(costs, comparison.fixed, target))
    return EXIT_OK


def _dumps(payload) -> str:
    def refuse(value):
        raise TypeError(f"not JSON: {value!r}")
    return json.dumps(payload, ensure_ascii=False, allow_nan=False, default=refuse)


def cost_tables(comparison, table, target: float, baseline: str | None) -> list[dict]:
    """ERT and cost-of-pass per compared group, from the table's columns and traces (array work)."""
    from ..analysis.curves.anytime import cost_tables as by_group, json_ready  # start-up: only when the verb runs

    from ..core.records import budget_key

    declared = {(g.workload, budget_key(g.budget)): g.reward_range for g in comparison.groups if g.reward_range}
    out, skipped = [], []
    for unit in sorted({g.fixed or comparison.fixed or "" for g in comparison.groups}):
        wanted = [(g.workload, g.budget) for g in comparison.groups if (g.fixed or comparison.fixed or "") == unit]
        try:
            groups = by_group(table, unit, target, baseline=baseline, declared=declared)
        except ValueError as exc:
            raise InputError(f"compare: {exc}") from None
        chosen = [g for g in groups if (g["workload"], g["budget"]) in wanted]
        skipped += [g["not_computed"] for g in chosen if "not_computed" in g]
        out += [g for g in chosen if "not_computed" not in g]
    if skipped:   # one line: a target outside what the runs scored is said, not computed
        line = f"compare: cost to --target not computed: {'; '.join(skipped[:3])}" + \
            (f"; and {len(skipped) - 3} more group(s)" if len(skipped) > 3 else "")
        if not out:
            raise InputError(line + "; give a target within the scores the runs reached")
        print(f"costmatch: {line}", file=sys.stderr)
    order = {(g.workload, json.dumps(g.budget, sort_keys=True)): i for i, g in enumerate(comparison.groups)}
    out.sort(key=lambda g: order.get((g["workload"], json.dumps(g["budget"], sort_keys=True)), 0))
    nouns = {(g.workload, json.dumps(g.budget, sort_keys=True)): g.unit_nouns for g in comparison.groups}
    for g in out:  # the workload's words for the unit ("function evaluations" on bbob), for the printed table
        g["unit_nouns"] = dict(nouns.get((g["workload"], json.dumps(g["budget"], sort_keys=True))) or {})
    return json_ready(out)
