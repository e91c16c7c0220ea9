"""`costmatch import`: other tools' results as run records."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.input_files import check_input
from .options import EXIT_OK, output_file

HELP = "convert other tools' results into run records"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", metavar="FORMAT",
                   help="agentdescent, inspect (inspect_ai logs), lm-eval (lm-evaluation-harness --output_path "
                        "with --log_samples), promptfoo (promptfoo eval -o results.json) or csv")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="the files to convert (lm-eval: results_*.json files or their --output_path folder)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.jsonl", help="the results file to write")
    p.add_argument("--map", help="csv only: FIELD=COLUMN pairs, e.g. arm=policy,seed=seed,reward=acc,tokens=tok")
    p.add_argument("--workload", help="csv and promptfoo: workload name (csv: when no column is mapped to it; "
                                      "promptfoo: default the config's description)")
    p.add_argument("--arm", metavar="CHOICE",
                   help="what names an arm. inspect: solver|model|task-arg:NAME|meta:KEY (default: the solver "
                        "plan when every log used the same model, else the model); lm-eval: "
                        "model|model-arg:NAME|gen-kwarg:NAME|meta:KEY (default model); promptfoo: "
                        "provider|prompt|provider+prompt (default: whichever varies)")
    p.add_argument("--metric", help="the per-item score. lm-eval: NAME or NAME,FILTER (default: the task's first "
                                    "metric); promptfoo: pass|score|named:NAME (default pass)")
    p.add_argument("--arm-from-file", action="store_true",
                   help="append each file's name to its arm names (files that reuse arm names for variants)")


def run(*, format, files, output, map, workload, arm, arm_from_file, metric) -> int:
    from ..importers import IMPORTERS, run_import  # start-up: only when the verb runs

    if format not in IMPORTERS:
        raise InputError(f"import: unknown format {format!r}; known formats: {', '.join(sorted(IMPORTERS))}")
    out = output_file(output, "output file")
    for path in files:
        if not (format == "lm-eval" and Path(path).is_dir()):
            check_input(path, "file to import")  # missing, a FIFO, a device: one line before any read
    written = run_import(format, files, out, mapping=map, workload=workload, arm=arm, arm_from_file=arm_from_file,
                         metric=metric)
    print(f"wrote {written} runs to {out}", file=sys.stderr)
    return EXIT_OK
