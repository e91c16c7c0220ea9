"""Importers: other tools' result files as costmatch run records.

Each importer is a function ``(path, **options) -> list[RunRecord]`` that
raises InputError naming the file and what was expected. Zero-filled spend
in a source file is translated to *unreported* wherever the source could not
have measured it; the importer never makes a number up. Every record is
validated by the reader `compare` uses before anything is written, and the
output is written atomically (`run_import`), so an import either writes a
file that compare accepts or writes nothing and exits 2 with one line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..core.errors import InputError
from ..core.fileio import check_output_target
from ..core.records import RunRecord
from .agentdescent import import_agentdescent
from .common import check_unique, write_records_atomic
from .csv_table import import_csv
from .inspect_log import ARM_CHOICES, import_inspect, import_inspect_files

IMPORTERS: dict[str, Callable[..., list[RunRecord]]] = {
    "agentdescent": import_agentdescent,
    "csv": import_csv,
    "inspect": import_inspect,
}


def import_records(fmt: str, files: list[str | Path], *, mapping: str | None = None,
                   workload: str | None = None, arm: str | None = None,
                   arm_from_file: bool = False) -> list[RunRecord]:
    """The records of `files` in format `fmt`, checked for duplicate runs (nothing written)."""
    if fmt not in IMPORTERS:
        raise InputError(f"import: unknown format {fmt!r}; known formats: {', '.join(sorted(IMPORTERS))}")
    if fmt == "csv" and not mapping:
        raise InputError("import csv: --map is required, e.g. --map arm=policy,seed=seed,reward=acc,tokens=tok")
    if arm and fmt != "inspect":
        raise InputError(f"import {fmt}: --arm is for inspect logs ({ARM_CHOICES}); "
                         "use --arm-from-file to tell files apart")
    records: list[RunRecord] = []
    if fmt == "inspect" and not arm_from_file:
        records = import_inspect_files(list(files), arm=arm)
    else:
        for path in files:
            suffix = Path(path).stem if arm_from_file else None
            if fmt == "csv":
                records += import_csv(path, mapping, workload=workload)
            elif fmt == "inspect":
                records += import_inspect_files([path], arm=arm, arm_suffix=suffix)
            else:
                records += import_agentdescent(path, arm_suffix=suffix)
    hint = ("pass --arm solver|model|task-arg:NAME|meta:KEY to name arms by what tells the logs apart"
            if fmt == "inspect" else "pass --arm-from-file to tell the files' arms apart")
    check_unique(records, hint)
    return records


def run_import(fmt: str, files: list[str | Path], output: str | Path, **options) -> int:
    """Import `files` and write them to `output` atomically; returns the number of runs written."""
    check_output_target(output, list(files), "import output")  # never over a source, nor a dangling link
    records = import_records(fmt, files, **options)
    write_records_atomic(output, records)
    return len(records)


__all__ = ["IMPORTERS", "import_agentdescent", "import_csv", "import_inspect", "import_inspect_files",
           "import_records", "run_import"]
