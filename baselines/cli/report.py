"""`costmatch report`: paper tables (markdown, LaTeX, CSV) and figures."""
from __future__ import annotations

import argparse
import sys

from .options import EXIT_OK, add_results_args, output_dir, output_file, unit

HELP = "paper-ready tables (md, latex, csv) and cost-reward plots"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_args(p)
    p.add_argument("--format", choices=["md", "latex", "csv"], default="md",
                   help="table format: md (GitHub markdown, default), latex (booktabs) or csv")
    p.add_argument("--baseline", metavar="ARM", help="add each arm's paired difference to this arm")
    p.add_argument("--plots", metavar="DIR", help="write figures (PNG and SVG) to this folder (created if missing)")
    p.add_argument("--x-unit", type=unit, metavar="UNIT",
                   help="cost-reward x axis (default: tokens, else another reported unit)")
    p.add_argument("--out", metavar="FILE", help="write the table here instead of stdout")


def run(*, results, fixed, workloads, budgets, tolerance, keep_last, allow_early_stop, alpha, metric, start,
        confounds,
        format, baseline, plots, x_unit, out) -> int:
    from reports.markdown import comparison_markdown
    from reports.tables import comparison_latex, to_csv

    from ..fileio import atomic_write_text
    from .results import load_comparison, read_runs

    out_path = output_file(out, "table file") if out else None
    plots_dir = output_dir(plots, "figures folder") if plots else None
    records = read_runs(results, keep_last) if plots_dir else None
    comparison = load_comparison("report", results, fixed, tolerance=tolerance, keep_last=keep_last,
                                 allow_early_stop=allow_early_stop, alpha=alpha, metric=metric, start=start,
                                 workloads=workloads, budgets=budgets, baseline=baseline, confounds=confounds,
                                 records=records)
    if format == "md":
        text = comparison_markdown(comparison, baseline=baseline, paper=True)
    elif format == "latex":
        text = comparison_latex(comparison, baseline=baseline)
    else:
        text = to_csv(comparison, baseline=baseline)
    if plots_dir:
        from reports.plots import write_comparison_plots
        files = write_comparison_plots(comparison, records, plots_dir, x_unit=x_unit)
        print(f"costmatch: wrote {len(files)} figure file(s) to {plots_dir}", file=sys.stderr)
    if out_path:
        atomic_write_text(out_path, text, "table file")
        print(f"costmatch: wrote the table to {out_path}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK
