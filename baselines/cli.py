"""The `costmatch` command line (contract section 2).

I/O lives here and only here. Every user mistake surfaces as one line,
``costmatch: <problem>``, and exit code 2; outputs are written atomically so
a failed command never leaves a half-written file behind.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
from pathlib import Path

from .errors import InputError

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE, EXIT_INCONCLUSIVE = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with exit code 2."""

    def error(self, message: str):  # noqa: D102 - argparse hook
        raise InputError(f"{self.prog}: {message} (see --help)")


def _tolerance(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tolerance must be a number like 0.1 or 10%, got {text!r}")
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"--tolerance must be finite and non-negative, got {text!r}")
    return value


def _add_results_args(p: argparse.ArgumentParser, fixed_required: bool = True) -> None:
    p.add_argument("results", nargs="+", metavar="RESULTS", help="JSON Lines results files")
    p.add_argument("--fixed", required=fixed_required, metavar="UNIT",
                   help="the unit the arms were matched in (rollouts, calls, tokens, usd, seconds, ...)")
    p.add_argument("--tolerance", type=_tolerance, default=0.1, metavar="T",
                   help="allowed relative drift, e.g. 0.1 or 10%% (default 0.1)")
    p.add_argument("--keep-last", action="store_true",
                   help="when a run identity appears twice, keep the later line instead of failing")
    p.add_argument("--allow-early-stop", action="store_true",
                   help="accept under-spend of runs that stopped on their own as a note, not a break")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--metric", default="reward",
                   help="what to compare: reward (default), dev_reward, auc, reward@25%%, reward@50%%, reward@100%%")
    p.add_argument("--start", type=float, default=0.0,
                   help="anytime metrics: the score before a run's first trace point (default 0)")


def _check_files(args: argparse.Namespace) -> None:
    for path in args.results:
        if not Path(path).is_file():
            raise InputError(f"{path}: no such results file; pass the results.jsonl that `costmatch run` wrote")


def _records_if(args: argparse.Namespace, needed: bool):
    """Per-run records (traces, per-run spend), read once, only when a table is not enough."""
    if not needed:
        return None
    from .records import read_records

    _check_files(args)
    return read_records(args.results, keep_last=args.keep_last)


def load_comparison(args: argparse.Namespace, baseline: str | None = None, records=None):
    """Compare the results files named on the command line (or `records` already read from them).

    Without `records` the files go through the fast columnar reader, which
    keeps no per-run objects; callers that need those read them once and pass them.
    """
    from .compare import compare
    from .table import RunTable

    if records is None:
        _check_files(args)
        table = RunTable.read(args.results, keep_last=args.keep_last)
    else:
        table = RunTable.from_records(records)
    if len(table) == 0:
        raise InputError(f"{', '.join(args.results)}: no runs in the results; nothing to compare")
    try:
        return compare(table, args.fixed, args.tolerance, alpha=args.alpha,
                       allow_early_stop=args.allow_early_stop, baseline=baseline,
                       margin=getattr(args, "equivalence_margin", None), metric=args.metric, start=args.start,
                       pairs=not getattr(args, "no_pairs", False), bootstrap=getattr(args, "bootstrap", False))
    except ValueError as exc:
        raise InputError(f"{args.verb}: {exc}") from None


def cmd_compare(args: argparse.Namespace) -> int:
    from reports.markdown import comparison_markdown

    records = _records_if(args, args.target is not None)
    comparison = load_comparison(args, baseline=args.baseline, records=records)
    costs = _cost_tables(args, comparison, records) if records is not None else None
    if args.json:
        payload = comparison.to_json()
        if costs is not None:
            payload["cost_to_target"] = costs
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, allow_nan=False, default=_finite) + "\n")
    else:
        sys.stdout.write(comparison_markdown(comparison))
        if costs is not None:
            from reports.tables import cost_markdown
            sys.stdout.write("\n" + cost_markdown(costs, comparison.fixed, args.target))
    return EXIT_OK


def _finite(value):
    raise TypeError(f"not JSON: {value!r}")


def _json_number(x: float):
    """JSON has no infinity: an unbounded cost is the string "inf" (or "-inf"); NaN is null."""
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _cost_tables(args, comparison, records) -> list[dict]:
    """ERT and cost-of-pass per group (needs the per-run records: traces)."""
    from .anytime import cost_table
    from .records import budget_key

    out = []
    for g in comparison.groups:
        key = budget_key(g.budget)
        rows = cost_table([r for r in records if r.workload == g.workload and budget_key(r.budget) == key],
                          comparison.fixed, args.target, baseline=args.baseline)
        for row in rows:
            for k, v in list(row.items()):
                if isinstance(v, float):
                    row[k] = _json_number(v)
                elif isinstance(v, tuple):
                    row[k] = [_json_number(x) for x in v]
        out.append({"workload": g.workload, "budget": g.budget, "target": args.target, "arms": rows})
    return out


def cmd_report(args: argparse.Namespace) -> int:
    from reports.markdown import comparison_markdown
    from reports.plots import write_comparison_plots
    from reports.tables import comparison_latex, to_csv

    records = _records_if(args, bool(args.plots))
    comparison = load_comparison(args, baseline=args.baseline, records=records)
    if args.format == "md":
        text = comparison_markdown(comparison, baseline=args.baseline, paper=True)
    elif args.format == "latex":
        text = comparison_latex(comparison, baseline=args.baseline)
    else:
        text = to_csv(comparison, baseline=args.baseline)
    if args.plots:
        files = write_comparison_plots(comparison, records, Path(args.plots), x_unit=args.x_unit)
        print(f"costmatch: wrote {len(files)} figure file(s) to {args.plots}", file=sys.stderr)
    if args.out:
        out = Path(args.out)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from .importers import IMPORTERS
    from .records import write_records

    if args.format not in IMPORTERS:
        raise InputError(f"import: unknown format {args.format!r}; known formats: {', '.join(sorted(IMPORTERS))}")
    if args.format == "csv" and not args.map:
        raise InputError("import csv: --map is required, e.g. --map arm=policy,seed=seed,reward=acc,tokens=tok")
    records = []
    for path in args.files:
        if args.format == "csv":
            records += IMPORTERS["csv"](path, args.map, workload=args.workload)
        else:
            records += IMPORTERS[args.format](path, arm_suffix=Path(path).stem if args.arm_from_file else None)
    seen = {}
    for record in records:
        ident = record.identity()
        if ident in seen:
            raise InputError(f"import: run (workload={ident[0]!r}, arm={ident[2]!r}, seed={ident[3]}) "
                             "appears twice across the input files; pass --arm-from-file to tell the files' arms apart")
        seen[ident] = True
    write_records(args.output, records)
    print(f"wrote {len(records)} runs to {args.output}", file=sys.stderr)
    return EXIT_OK


DEFAULT_SUITE = Path(__file__).with_name("data") / "default-suite.toml"


def cmd_plan(args: argparse.Namespace) -> int:
    from .suite import load_suite
    from .units import ordered_units

    suite = load_suite(args.suite)
    cells = suite.cells()
    rows, totals = [], {}
    for cell in cells:
        rows.append(f"{cell.workload.name}\t{cell.budget.key()}\t{cell.arm.name}\t{cell.seed}")
        for unit, value in cell.budget.limits.items():
            totals[unit] = totals.get(unit, 0) + value
    print("workload\tbudget\tarm\tseed")
    print("\n".join(rows))
    from reports.text import quantity
    total_text = ", ".join(f"{quantity(totals[u])} {u}" for u in ordered_units(totals))
    print(f"{len(cells)} cells; they may spend at most: {total_text} (plus each cell's last-step overshoot)")
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from .progress import Progress
    from .runner import run_suite
    from .suite import load_suite

    suite = load_suite(args.suite or DEFAULT_SUITE)
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    out_dir = Path(args.out or suite.out)
    if args.looks or args.gate:
        return _run_sequential(args, suite, out_dir)
    progress = Progress(suite.fixed_units, quiet=args.quiet)
    outcome = run_suite(suite, out_dir, args.jobs, args.backend, args.fresh, args.retry_errors, progress)
    if outcome.interrupted:
        print(f"costmatch: interrupted; {len(outcome.records)} finished cell(s) are kept in {outcome.results}; "
              "run the same command to resume", file=sys.stderr)
        return 130
    from reports.run_report import write_run_report

    text = write_run_report(suite, outcome.records, out_dir, plots=not args.no_plots)
    if not args.quiet:
        sys.stdout.write(text)
    failed = sum(r.error is not None for r in outcome.records)
    if failed:
        print(f"costmatch: {failed} cell(s) failed; their records carry the error "
              "(rerun with --retry-errors to try them again)", file=sys.stderr)
        return EXIT_NEGATIVE
    return EXIT_OK


def _print_gate(results, verdict, args, seeds_used=None) -> None:
    from .gate import gate_markdown

    if getattr(args, "json", False):
        payload = {"verdict": verdict, "baseline": args.baseline, "candidate": args.candidate,
                   "groups": [r.to_json() for r in results]}
        if seeds_used is not None:
            payload["seeds_used"] = seeds_used
        print(json.dumps(payload, allow_nan=False))
    else:
        print(f"costmatch check: {verdict} ({args.candidate} vs {args.baseline})")
        from reports.text import quantity
        for r in results:
            budget = ", ".join(f"{quantity(v)} {u}" for u, v in r.budget.items())
            print(f"  {r.workload} at {budget}: {r.verdict}: {r.reason}")
            for c in r.confounds:
                print(f"    confound: {c}")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(gate_markdown(results, args.baseline, args.candidate, args.fixed or "the suite's units"))


def _gate_exit(verdict: str, inconclusive: str) -> int:
    from .gate import FAIL, PASS

    if verdict == PASS:
        return EXIT_OK
    if verdict == FAIL:
        return EXIT_NEGATIVE
    return {"pass": EXIT_OK, "fail": EXIT_NEGATIVE}.get(inconclusive, EXIT_INCONCLUSIVE)


def _margin(text: str) -> str:
    try:
        value = float(text[:-1]) if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--margin must be a number like 0.02 or a percentage like 2%, got {text!r}")
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"--margin must be finite and non-negative, got {text!r}")
    return text


def cmd_check(args: argparse.Namespace) -> int:
    from .gate import overall, run_gate
    from .records import read_records

    if not 0 < args.alpha < 0.5:
        raise InputError(f"--alpha must be between 0 and 0.5 (one-sided), got {args.alpha}")
    for path in args.results + ([args.against] if args.against else []):
        if not Path(path).is_file():
            raise InputError(f"{path}: no such results file")
    records = read_records(args.results, keep_last=args.keep_last)
    if args.against:
        stored = [r for r in read_records(args.against) if r.arm == args.baseline]
        if not stored:
            raise InputError(f"{args.against}: no runs of baseline arm {args.baseline!r}")
        records = [r for r in records if r.arm != args.baseline] + stored
    try:
        results, _ = run_gate(records, args.fixed, args.baseline, args.candidate, args.margin, args.alpha,
                              args.tolerance, args.lower_is_better)
    except ValueError as exc:
        raise InputError(f"check: {exc}") from None
    verdict = overall(results)
    _print_gate(results, verdict, args)
    return _gate_exit(verdict, args.inconclusive)


def _run_sequential(args, suite, out_dir: Path) -> int:
    from .progress import Progress
    from .runner import run_suite
    from .sequential import parse_looks, run_sequential

    if not (args.looks and args.gate and args.margin):
        raise InputError("the sequential gate needs --looks, --gate BASELINE:CANDIDATE and --margin together")
    if ":" not in args.gate:
        raise InputError(f"--gate must be BASELINE:CANDIDATE, got {args.gate!r}")
    try:
        looks = parse_looks(args.looks)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    args.baseline, args.candidate = args.gate.split(":", 1)
    args.fixed = None
    for arm in (args.baseline, args.candidate):
        if arm not in suite.arms:
            raise InputError(f"--gate: arm {arm!r} is not in {suite.source}; arms: {', '.join(suite.arms)}")

    def run(look_suite, out, progress):
        return run_suite(look_suite, out, args.jobs, args.backend, fresh=False, retry_errors=args.retry_errors,
                         progress=progress)

    if args.fresh and (out_dir / "results.jsonl").exists():
        run_suite(dataclasses.replace(suite, workloads=[]), out_dir, fresh=True)
    verdict, used, results, outcome = run_sequential(
        suite, out_dir, looks, args.baseline, args.candidate, args.margin, args.alpha, args.lower_is_better,
        run, lambda: Progress(suite.fixed_units, quiet=args.quiet))
    if outcome is not None and outcome.interrupted:
        print("costmatch: interrupted; finished cells are kept; run the same command to resume", file=sys.stderr)
        return 130
    if not args.json:
        print(f"costmatch: sequential gate stopped after {used} seeds (looks {args.looks})", file=sys.stderr)
    _print_gate(results, verdict, args, seeds_used=used)
    return _gate_exit(verdict, args.inconclusive)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="costmatch", description="Cost-matched A/B comparisons of search and "
                     "selection policies: does arm A beat arm B at the same budget?")
    from . import __version__
    parser.add_argument("--version", action="version", version=f"costmatch {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("compare", help="flags and paired statistics, as markdown or JSON")
    _add_results_args(p)
    p.add_argument("--json", action="store_true", help="print the JSON of contract section 3")
    p.add_argument("--baseline", metavar="ARM", help="pair every arm with this arm only")
    p.add_argument("--no-pairs", action="store_true", help="flags and per-arm summaries only (no paired tests)")
    p.add_argument("--target", type=float, metavar="R",
                   help="also report the cost to reach reward R (ERT, censored runs counted) and cost-of-pass "
                        "(reward >= R is a pass) in the fixed unit, with seeded paired bootstrap intervals")
    p.add_argument("--bootstrap", action="store_true",
                   help="add a seeded paired bootstrap interval per pair (secondary: it under-covers at small n)")
    p.add_argument("--equivalence-margin", type=float, metavar="M",
                   help="report 'equivalent' when a two one-sided tests procedure puts the difference within +-M")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("report", help="paper-ready tables (md, latex, csv) and cost-reward plots")
    _add_results_args(p)
    p.add_argument("--format", choices=["md", "latex", "csv"], default="md")
    p.add_argument("--baseline", metavar="ARM", help="add each arm's paired difference to this arm")
    p.add_argument("--plots", metavar="DIR", help="write figures (PNG and SVG) to this directory")
    p.add_argument("--x-unit", metavar="UNIT", help="cost-reward x axis (default: tokens, else another reported unit)")
    p.add_argument("--out", metavar="FILE", help="write the table here instead of stdout")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("check", help="the CI gate: PASS (0), FAIL (1) or INCONCLUSIVE (3)")
    _add_results_args(p)
    p.add_argument("--baseline", required=True, metavar="ARM")
    p.add_argument("--candidate", required=True, metavar="ARM")
    p.add_argument("--margin", required=True, type=_margin, metavar="M",
                   help="largest tolerated loss, in reward units (0.02) or relative to the baseline (2%%)")
    p.add_argument("--against", metavar="FILE", help="take the baseline arm's runs from this stored results file")
    p.add_argument("--lower-is-better", action="store_true", help="the reward is a cost: lower is better")
    p.add_argument("--inconclusive", choices=["inconclusive", "pass", "fail"], default="inconclusive",
                   help="map INCONCLUSIVE to exit 0 (pass) or 1 (fail) for a binary gate (default: exit 3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("run", help="run every cell of a suite (the built-in demo suite without SUITE)")
    p.add_argument("suite", nargs="?", metavar="SUITE.toml")
    p.add_argument("--out", metavar="DIR", help="output directory (default: the suite's 'out')")
    p.add_argument("--jobs", type=int, metavar="N", help="parallel cells (default: the suite's 'jobs')")
    p.add_argument("--backend", choices=["loky", "threading", "sequential", "dask", "ray"],
                   help="joblib backend: loky processes (default), threading for unpicklable clients, dask, ray")
    p.add_argument("--fresh", action="store_true", help="start over (the old results file is moved aside)")
    p.add_argument("--retry-errors", action="store_true", help="rerun the cells whose records carry an error")
    p.add_argument("--quiet", action="store_true", help="no progress and no printed table")
    p.add_argument("--no-plots", action="store_true", help="write tables only")
    p.add_argument("--looks", metavar="N,N,...", help="sequential gate: add seeds in these pre-planned looks "
                   "(e.g. 5,10,15,20) and stop once the gate decides; needs --gate and --margin")
    p.add_argument("--gate", metavar="BASELINE:CANDIDATE", help="the two arms the sequential gate compares")
    p.add_argument("--margin", type=_margin, metavar="M", help="the sequential gate's margin")
    p.add_argument("--alpha", type=float, default=0.05, help="the sequential gate's total one-sided alpha")
    p.add_argument("--lower-is-better", action="store_true")
    p.add_argument("--inconclusive", choices=["inconclusive", "pass", "fail"], default="inconclusive")
    p.add_argument("--json", action="store_true", help="print the sequential gate's verdict as JSON")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("plan", help="list the cells of a suite and the most they may spend; runs nothing")
    p.add_argument("suite", metavar="SUITE.toml")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("import", help="convert other tools' results into run records")
    p.add_argument("format", metavar="FORMAT", help="agentdescent, inspect (inspect_ai logs) or csv")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    p.add_argument("--map", help="csv only: FIELD=COLUMN pairs, e.g. arm=policy,seed=seed,reward=acc,tokens=tok")
    p.add_argument("--workload", help="csv only: workload name when no column is mapped to it")
    p.add_argument("--arm-from-file", action="store_true",
                   help="append each file's name to its arm names (files that reuse arm names for variants)")
    p.set_defaults(func=cmd_import)

    for name, module in _EXTRA_VERBS:
        __import__(f"baselines.{module}", fromlist=["register"]).register(sub)
    return parser


# Verbs defined beside the code they drive; each module has register(subparsers).
_EXTRA_VERBS: list[tuple[str, str]] = []


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except InputError as exc:
        print(f"costmatch: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `costmatch compare ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
