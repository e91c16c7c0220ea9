"""`costmatch import`: other tools' results as run records."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError
from .options import EXIT_OK, output_file

HELP = "convert other tools' results into run records"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", metavar="FORMAT", help="agentdescent, inspect (inspect_ai logs) or csv")
    p.add_argument("files", nargs="+", metavar="FILE", help="the files to convert")
    p.add_argument("-o", "--output", required=True, metavar="OUT.jsonl", help="the results file to write")
    p.add_argument("--map", help="csv only: FIELD=COLUMN pairs, e.g. arm=policy,seed=seed,reward=acc,tokens=tok")
    p.add_argument("--workload", help="csv only: workload name when no column is mapped to it")
    p.add_argument("--arm-from-file", action="store_true",
                   help="append each file's name to its arm names (files that reuse arm names for variants)")


def run(*, format, files, output, map, workload, arm_from_file) -> int:
    from ..importers import IMPORTERS
    from ..records import write_records

    if format not in IMPORTERS:
        raise InputError(f"import: unknown format {format!r}; known formats: {', '.join(sorted(IMPORTERS))}")
    if format == "csv" and not map:
        raise InputError("import csv: --map is required, e.g. --map arm=policy,seed=seed,reward=acc,tokens=tok")
    out = output_file(output, "output file")
    for path in files:
        if not Path(path).is_file():
            raise InputError(f"{path}: no such file to import")
    records = []
    for path in files:
        if format == "csv":
            records += IMPORTERS["csv"](path, map, workload=workload)
        else:
            records += IMPORTERS[format](path, arm_suffix=Path(path).stem if arm_from_file else None)
    seen = {}
    for record in records:
        ident = record.identity()
        if ident in seen:
            raise InputError(f"import: run (workload={ident[0]!r}, arm={ident[2]!r}, seed={ident[3]}) "
                             "appears twice across the input files; pass --arm-from-file to tell the files' arms apart")
        seen[ident] = True
    write_records(out, records)
    print(f"wrote {len(records)} runs to {out}", file=sys.stderr)
    return EXIT_OK
