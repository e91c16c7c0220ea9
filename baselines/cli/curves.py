"""`costmatch curves`: budget curves from recorded samples, with no run: one pool, every n at once.

Prints, per model, the published-style figures (Best-of-1 = the pool's
single-sample accuracy, majority@n, majority over the whole pool = the
finite-pool Best-of-infinity, the adaptive rule, the oracle pass@n apart),
then the paired difference at equal expected tokens between two curves with
its band and crossover, and writes the figure. With ``--format md|csv|json``
it prints only the per-model table of the authors' summary (model, problems,
samples per problem, Bo1, Bo∞, majority@n for ``--n``), under the vote rule
it names (``--empty``, ``--ties``; default the authors'). Numbers come from
`baselines.analysis.curves.tts_curves` and `.pool_table`; this module reads the files and prints.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.votes import EMPTY_RULES, TIE_RULES
from .options import EXIT_OK, output_dir, planned_dir, positive_int

HELP = "budget curves of test-time-compute strategies from recorded samples (the replay workload's files)"
SHOWN_N = (1, 2, 4, 8, 16, 32, 64)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--benchmark", default="aime2025", help="the benchmark's files: [analysis_]BENCHMARK_MODEL.jsonl "
                   "(default aime2025, shipped); with --format, 'all': every release dataset in the folder, in the "
                   "authors' order (aime2024, aime2025, gpqa_diamond, math500)")
    p.add_argument("--folder", help="folder of the samples files (default: the shipped AIME 2025 slice)")
    p.add_argument("--models", help="comma-separated models (default: every file of the benchmark)")
    p.add_argument("--compare", metavar="A,B", help="the two curves to subtract, each MODEL:majority or "
                   "MODEL:adaptive (default: the first model's adaptive against its majority, and the first "
                   "two models' majorities)")
    p.add_argument("--confidence", type=float, default=0.95, help="the adaptive rule's setting shown in the table")
    p.add_argument("--draws", type=positive_int("--draws"), default=64, help="random orderings per problem (64)")
    p.add_argument("--seed", type=int, default=0, help="seed of the orderings and of the band's resamples")
    p.add_argument("--empty", choices=EMPTY_RULES, help="whether an empty answer \"\" votes: abstains (default, the "
                   "authors' rule) or votes (a wrong answer that can win)")
    p.add_argument("--ties", choices=TIE_RULES, help="who wins a tie for the most votes: first-seen (default, the "
                   "authors' rule: the first in recorded order over the whole pool) or random (exact expectation, 1/k)")
    p.add_argument("--empty-abstains", action="store_true", help="kept for old scripts: empty answers do not vote "
                   "(now the default; same as --empty abstains)")
    p.add_argument("--format", choices=("md", "csv", "json"), help="print only the per-model table (model, problems, "
                   "samples per problem, Bo1, Bo-inf, majority@n for --n) in this format, and nothing else")
    p.add_argument("--n", metavar="N,N,...", help="with --format: the majority@n columns, e.g. 1,4,16,all (n = 1 and "
                   "all are exact; others are estimated over --draws orderings, with their standard error)")
    p.add_argument("--out", metavar="DIR", help="write budget-curves-*.png/.svg here")


def run(*, benchmark, folder, models, compare, confidence, draws, seed, empty_abstains, out, empty=None, ties=None,
        format=None, n=None) -> int:
    from .lean_scipy import import_scipy_special

    import_scipy_special()  # before the analysis imports it: see lean_scipy
    from ..analysis.curves.pool_table import parse_ns, pool_table, render_tables
    from ..analysis.curves.tts_curves import DEFAULT_CONFIDENCES, compare_curves, pool_curves
    from workloads.replay import Replay

    if empty_abstains and empty == "votes":
        raise InputError("--empty-abstains and --empty votes disagree; give one")
    if n is not None and format is None:
        raise InputError("--n sets the majority@n columns of the table: give it with --format md|csv|json")
    try:
        ns = parse_ns(n)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    planned = planned_dir(out, "figure folder") if out is not None else None  # checked now, made when written
    chosen = [m.strip() for m in models.split(",") if m.strip()] if models else None
    rule = {"empty": "abstains" if empty_abstains else empty, "ties": ties}
    if format is not None:
        from workloads.replay import shipped_folder
        from workloads.replay_data import benchmarks_in

        names = benchmarks_in(folder or shipped_folder()) if benchmark == "all" else [benchmark]
        tables = [pool_table(Replay(benchmark=b, folder=folder, models=chosen, **rule), ns, draws, seed)
                  for b in names]
        sys.stdout.write(render_tables(tables, format))
        return EXIT_OK
    if benchmark == "all":
        raise InputError("--benchmark all prints every dataset's table: give it with --format md|csv|json")
    workload = Replay(benchmark=benchmark, folder=folder, models=chosen, **rule)
    settings = tuple(sorted(set(DEFAULT_CONFIDENCES) | {confidence}))
    pools = workload.pools
    curves = {m: pool_curves(p.codes, p.tokens, p.sizes, pools.gold_codes, draws, seed, settings,
                             ties=workload.vote_rule.ties)
              for m, p in pools.pools.items()}
    sys.stdout.write(_table(curves, confidence, len(pools.ids), benchmark, workload.vote_rule, draws))
    pairs = _pairs(compare, list(curves))
    differences = []
    for a, b in pairs:
        d = compare_curves(_curve(curves, a), _curve(curves, b), seed=seed)
        differences.append(d)
        sys.stdout.write(_difference_text(d))
    if planned is not None:
        _figures(curves, differences, output_dir(planned, "figure folder"))
    return EXIT_OK


def _curve(curves: dict, name: str):
    model, _, kind = name.rpartition(":")
    if model not in curves or kind not in ("majority", "adaptive"):
        raise InputError(f"--compare: {name!r} must be MODEL:majority or MODEL:adaptive with MODEL one of "
                         f"{', '.join(curves)}")
    curve = curves[model][kind]
    return type(curve)(name, curve.per_problem, curve.per_problem_tokens, curve.per_problem_samples, curve.settings)


def _pairs(compare: str | None, models: list[str]) -> list[tuple[str, str]]:
    if compare:
        parts = [p.strip() for p in compare.split(",")]
        if len(parts) != 2:
            raise InputError(f"--compare must be two curves A,B (e.g. gpt-oss-20b:adaptive,gpt-oss-20b:majority), "
                             f"got {compare!r}")
        return [(parts[0], parts[1])]
    pairs = [(f"{models[0]}:adaptive", f"{models[0]}:majority")]
    if len(models) > 1:
        pairs.append((f"{models[0]}:majority", f"{models[1]}:majority"))
    return pairs


def _table(curves: dict, confidence: float, problems: int, benchmark: str, rule, draws: int) -> str:
    from tabulate import tabulate

    shown = [n - 1 for n in SHOWN_N]
    error = max((float(c["majority"].error[[i for i in shown if i < len(c["majority"].error)]].max())
                 for c in curves.values() if c["majority"].error is not None), default=0.0)
    rows = []
    for model, c in curves.items():
        maj, ada, oracle = c["majority"], c["adaptive"], c["oracle"]
        width = len(maj.settings)
        j = ada.settings.index(confidence)
        row = [model, f"{maj.tokens[0]:,.0f}"] + [f"{maj.accuracy[n - 1]:.3f}" if n <= width else ""
                                                  for n in SHOWN_N]
        row += [f"{maj.accuracy[-1]:.3f} ({width})", f"{ada.accuracy[j]:.3f} @ {ada.samples[j]:.1f} samples",
                f"{oracle.accuracy[-1]:.3f}"]
        rows.append(row)
    head = ["model", "tokens/sample"] + [f"maj@{n}" for n in SHOWN_N] + [
        "majority, whole pool (n)", f"adaptive {confidence:g}", "oracle pass@pool"]
    return (f"{benchmark}: {problems} problems; vote rule {rule.name}: {rule.describe()}. maj@1 is the exact "
            "single-sample accuracy (Best-of-1 as a mean over problems); the whole-pool majority is exact under the "
            f"vote rule (the finite-pool Best-of-infinity); other maj@n are means over {draws} random orderings per problem "
            f"(Monte Carlo standard error at most {error:.4f}); the oracle (any sample right) is not an arm.\n"
            + tabulate(rows, head, tablefmt="github") + "\n\n")


def _difference_text(d) -> str:
    at = [0, len(d.tokens) // 4, len(d.tokens) // 2, 3 * len(d.tokens) // 4, len(d.tokens) - 1]
    points = "; ".join(f"{d.tokens[i]:,.0f}: {d.difference[i]:+.3f} [{d.low[i]:+.3f}, {d.high[i]:+.3f}]" for i in at)
    # "; " between crossings and a unit after each: "116,486, 170,663" read as one number or as four
    cross = ("; ".join(f"{x:,.0f} tokens" for x in d.crossovers[:5]) + ("; ..." if len(d.crossovers) > 5 else "")
             ) if d.crossovers else "none in the range both reach"
    return (f"{d.a} - {d.b} at equal expected tokens per problem ({d.level:.0%} band, problems resampled, "
            f"paired): {points}. Sign changes at: {cross}.\n")


def _figures(curves: dict, differences: list, out: Path) -> None:
    from reports.budget_curves import write_budget_curves

    first = next(iter(curves))
    written = write_budget_curves([curves[first]["majority"], curves[first]["adaptive"]], out,
                                  curves[first]["oracle"], differences[0], name=f"budget-curves-{first}",
                                  title=f"{first}: majority@n and adaptive")
    if len(curves) > 1:
        majorities = [_curve(curves, f"{m}:majority") for m in curves]
        written += write_budget_curves(majorities, out, None, differences[-1], name="budget-curves-models",
                                       title="models: majority@n")
    print(f"figures: {', '.join(str(p) for p in written)}")
