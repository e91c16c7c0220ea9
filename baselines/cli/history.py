"""`costmatch history FILE`: where the candidate's reward at equal budget changed across commits, and the page.

Prints per group the headline (drift from the pinned reference, the steps
with their commits, changes and intervals) and the false-alarm rate the step
search was calibrated to over this history's length; `--out DIR` writes
history.html (self-contained) and history.md; the markdown also goes to
$GITHUB_STEP_SUMMARY when set. Numbers come from `baselines.analysis.history`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ..core.errors import InputError
from ..core.input_files import check_input
from .options import EXIT_OK, alpha, output_dir, planned_dir, positive_int

HELP = "steps and drift in a gate history across commits (check --history), and its page"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("history", metavar="FILE", help="the history file `costmatch check --history FILE` appends to")
    p.add_argument("--out", metavar="DIR", help="write history.html and history.md here")
    p.add_argument("--last", type=positive_int("--last"), default=10, metavar="N",
                   help="commits in the markdown summary's table (default 10)")
    p.add_argument("--step-alpha", type=alpha, default=0.025, metavar="A",
                   help="chance of any step alarm over the whole history when nothing changed (default 0.025)")
    p.add_argument("--workload", action="append", dest="workloads", metavar="NAME", help="only this workload")
    p.add_argument("--json", action="store_true", dest="as_json", help="print the analysis as JSON")


def run(*, history, out, last, step_alpha, workloads, as_json) -> int:
    from ..analysis.history.entry import read_history
    from ..analysis.history.view import history_view
    from ..core.fileio import atomic_write_text
    from reports.history_markdown import history_markdown
    from reports.text import budget_text

    planned = planned_dir(out, "output folder") if out is not None else None
    if os.path.exists(history) and not os.path.isfile(history):   # a FIFO, a device, a folder: said as that
        check_input(history, "history file")
    if not os.path.isfile(history):
        raise InputError(f"{history}: no such history file; `costmatch check ... --history {history}` writes it")
    entries, warnings = read_history(history)
    for w in warnings:
        print(f"costmatch: warning: {w}", file=sys.stderr)
    if workloads:
        entries = [e for e in entries if e.workload in workloads]
    if not entries:
        raise InputError(f"{history}: no history lines{' for that workload' if workloads else ''}; nothing to show")
    groups = history_view(entries, step_alpha)
    markdown = history_markdown(groups, last)
    if as_json:
        print(json.dumps({"history": history, "groups": [g.to_json() for g in groups]}, allow_nan=False))
    else:
        for g in groups:
            print(f"{g.workload} at {budget_text(g.budget)}: {g.candidate} against {g.baseline} ({g.series})")
            print(f"  {g.headline}")
            for s in g.steps.steps:
                print(f"  step at {s.commit[:12]} (after {s.previous[:12]}): {s.change:+.4g}, interval "
                      f"[{s.lower:+.4g}, {s.upper:+.4g}]")
            print(f"  {g.false_alarm}")
    if planned is not None:
        from reports.history_page import history_html

        folder = output_dir(planned, "output folder")
        atomic_write_text(folder / "history.html", history_html(groups), "history page")
        atomic_write_text(folder / "history.md", markdown, "history summary")
        if not as_json:
            print(f"wrote {folder / 'history.html'} and {folder / 'history.md'}")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(markdown)
    return EXIT_OK
