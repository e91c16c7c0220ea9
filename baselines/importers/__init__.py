"""Importers: other tools' result files as costmatch run records.

Each importer is a function ``(path, **options) -> list[RunRecord]`` that
raises InputError naming the file and what was expected. Zero-filled spend
in a source file is translated to *unreported* wherever the source could not
have measured it; the importer never makes a number up.
"""
from __future__ import annotations

from typing import Callable

from ..records import RunRecord
from .agentdescent import import_agentdescent
from .csv_table import import_csv
from .inspect_log import import_inspect

IMPORTERS: dict[str, Callable[..., list[RunRecord]]] = {
    "agentdescent": import_agentdescent,
    "csv": import_csv,
    "inspect": import_inspect,
}

__all__ = ["IMPORTERS", "import_agentdescent", "import_csv", "import_inspect"]
