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
from .lm_eval import ARM_CHOICES as LM_EVAL_ARMS, import_lm_eval, import_lm_eval_files
from .promptfoo import ARM_CHOICES as PROMPTFOO_ARMS, import_promptfoo, import_promptfoo_files

IMPORTERS: dict[str, Callable[..., list[RunRecord]]] = {
    "agentdescent": import_agentdescent,
    "csv": import_csv,
    "inspect": import_inspect,
    "lm-eval": import_lm_eval,
    "promptfoo": import_promptfoo,
}

#: what --arm may say, per format that has a choice
ARM_OPTIONS = {"inspect": ARM_CHOICES, "lm-eval": LM_EVAL_ARMS, "promptfoo": PROMPTFOO_ARMS}
#: the formats whose files are read together with one arm rule (the others file by file)
_TOGETHER = {"inspect": import_inspect_files, "lm-eval": import_lm_eval_files, "promptfoo": import_promptfoo_files}


def import_records(fmt: str, files: list[str | Path], *, mapping: str | None = None,
                   workload: str | None = None, arm: str | None = None,
                   arm_from_file: bool = False, metric: str | None = None) -> list[RunRecord]:
    """The records of `files` in format `fmt`, checked for duplicate runs (nothing written)."""
    _check_options(fmt, mapping=mapping, workload=workload, arm=arm, metric=metric)
    records: list[RunRecord] = []
    if fmt in _TOGETHER:
        options = {"arm": arm, **({"metric": metric} if fmt != "inspect" else {}),
                   **({"workload": workload} if fmt == "promptfoo" else {})}
        groups = [[path] for path in files] if arm_from_file else [list(files)]
        for group in groups:
            suffix = Path(group[0]).stem if arm_from_file else None
            records += _TOGETHER[fmt](group, arm_suffix=suffix, **options)
    else:
        for path in files:
            suffix = Path(path).stem if arm_from_file else None
            if fmt == "csv":
                records += import_csv(path, mapping, workload=workload)
            else:
                records += import_agentdescent(path, arm_suffix=suffix)
    hint = (f"pass --arm {ARM_OPTIONS[fmt].replace(', ', '|').replace(' or ', '|')} to name arms by what tells "
            "the runs apart, or --arm-from-file" if fmt in ARM_OPTIONS
            else "pass --arm-from-file to tell the files' arms apart")
    check_unique(records, hint)
    return records


def _check_options(fmt: str, *, mapping, workload, arm, metric) -> None:
    """Each option is for the formats that use it: a misplaced one is an error, never ignored."""
    if fmt not in IMPORTERS:
        raise InputError(f"import: unknown format {fmt!r}; known formats: {', '.join(sorted(IMPORTERS))}")
    if fmt == "csv" and not mapping:
        raise InputError("import csv: --map is required, e.g. --map arm=policy,seed=seed,reward=acc,tokens=tok")
    if arm and fmt not in ARM_OPTIONS:
        raise InputError(f"import {fmt}: --arm is for inspect logs ({ARM_CHOICES}), lm-eval and promptfoo "
                         "results; use --arm-from-file to tell files apart")
    if metric and fmt not in ("lm-eval", "promptfoo"):
        raise InputError(f"import {fmt}: --metric is for lm-eval and promptfoo results")
    if workload and fmt not in ("csv", "promptfoo"):
        raise InputError(f"import {fmt}: --workload is for csv and promptfoo files (lm-eval and inspect name "
                         "the workload after the task)")


def run_import(fmt: str, files: list[str | Path], output: str | Path, **options) -> int:
    """Import `files` and write them to `output` atomically; returns the number of runs written."""
    check_output_target(output, list(files), "import output")  # never over a source, nor a dangling link
    records = import_records(fmt, files, **options)
    write_records_atomic(output, records)
    return len(records)


__all__ = ["ARM_OPTIONS", "IMPORTERS", "import_agentdescent", "import_csv", "import_inspect", "import_inspect_files",
           "import_lm_eval", "import_lm_eval_files", "import_promptfoo", "import_promptfoo_files",
           "import_records", "run_import"]
