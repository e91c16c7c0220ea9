"""`costmatch report`: paper tables (markdown, LaTeX, CSV) and figures."""
from __future__ import annotations

import argparse
import sys

from ..core.errors import InputError
from ..core.fileio import atomic_write_text, check_output_target
from .options import EXIT_OK, add_results_args, output_file, planned_dir, unit

HELP = "paper-ready tables (md, latex, csv), a self-contained HTML page, and figures"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_args(p)
    p.add_argument("--format", choices=["md", "latex", "csv", "html"], default="md",
                   help="md (GitHub markdown, default), latex (booktabs), csv, or html (one self-contained page "
                        "with sortable tables, per-seed runs, errors and inline figures)")
    p.add_argument("--columns", metavar="COLS",
                   help="latex: columns in order, from arm,seeds,spend,mean,ci,diff,diff_ci,verdict or unit names")
    p.add_argument("--figure-format", choices=["png", "svg", "pdf"],
                   help="write figures in this format only (default: png and svg); pdf embeds TrueType fonts")
    p.add_argument("--figure-width", choices=["single", "double"], default="single",
                   help="figure width: single column (3.33 in, default) or double column (6.8 in)")
    p.add_argument("--figure-style", choices=["report", "paper"], default="report",
                   help="report (title and notes drawn in each figure, default) or paper (neither: the caption is "
                        "written beside each figure as NAME.caption.txt)")
    p.add_argument("--baseline", metavar="ARM", help="add each arm's paired difference to this arm")
    p.add_argument("--plots", metavar="DIR", help="write figures (PNG and SVG) to this folder (created if missing)")
    p.add_argument("--x-unit", type=unit, metavar="UNIT",
                   help="cost-reward x axis (default: tokens, else another reported unit)")
    p.add_argument("--out", metavar="FILE", help="write the table here instead of stdout")


def run(*, results, fixed, workloads, budgets, tolerance, keep_last, allow_early_stop, alpha, metric, start,
        claim=None, questions=None,
        confounds, reward_range=None,
        format, baseline, plots, x_unit, out, columns=None, figure_format=None, figure_width="single",
        figure_style="report") -> int:
    from reports.run_report import render_report  # start-up: only when the verb runs

    from .results import load_comparison, read_runs

    # an option that would change nothing is a mistake worth one line, not silence
    if columns is not None and format != "latex":
        raise InputError(f"report: --columns applies to --format latex only, not {format}; drop it or pass "
                         "--format latex")
    if figure_format is not None and not plots:
        raise InputError("report: --figure-format needs --plots DIR, the folder the figures are written to")
    if x_unit is not None and not plots:
        raise InputError("report: --x-unit needs --plots DIR, the folder the cost-reward figures are written to")
    out_path = output_file(out, "table file") if out else None
    if out_path:
        check_output_target(out_path, results, "table file")  # never over a results file it reads
    plots_dir = planned_dir(plots, "figures folder") if plots else None
    records = read_runs(results, keep_last)
    comparison = load_comparison("report", results, fixed, tolerance=tolerance, keep_last=keep_last,
                                 allow_early_stop=allow_early_stop, alpha=alpha, metric=metric, start=start,
                                 workloads=workloads, budgets=budgets, baseline=baseline, confounds=confounds,
                                 reward_range=reward_range, records=records, claim=claim,
                                 questions=questions)
    _check_x_unit(x_unit, records, results)
    try:
        text, files, skipped = render_report(comparison, records, format, baseline=baseline, columns=columns,
                                             plots_dir=plots_dir, figure_format=figure_format,
                                             width=figure_width, x_unit=x_unit, figure_style_name=figure_style)
    except ValueError as exc:
        raise InputError(f"report: {exc}") from None
    if plots_dir:
        print(f"costmatch: wrote {len(files)} figure file(s) to {plots_dir}", file=sys.stderr)
        for title, reason in skipped:
            print(f"costmatch: not drawn: {title}: {reason}", file=sys.stderr)
    if out_path:
        atomic_write_text(out_path, text, "table file")
        print(f"costmatch: wrote the {'page' if format == 'html' else 'table'} to {out_path}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _check_x_unit(x_unit: str | None, records: list, results: list[str]) -> None:
    """--x-unit names a unit some run reported: a figure over an unknown unit was an empty axis, exit 0."""
    if x_unit is None or any(r.spend.get(x_unit) is not None for r in records):
        return
    reported = sorted({u for r in records for u, v in r.spend.items() if v is not None})
    raise InputError(f"report: --x-unit {x_unit!r}: no run in {', '.join(results)} reports it; units reported: "
                     f"{', '.join(reported) or 'none'}")
