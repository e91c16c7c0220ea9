"""`costmatch list`: the built-in workloads and arms with their parameters and defaults, and the units."""
from __future__ import annotations

import argparse
import sys

from .options import EXIT_OK, UNIT_ALIASES

HELP = "list the built-in workloads and arms (parameters and defaults) and the units with their meaning"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No options: the catalog is short enough to read whole."""


def run() -> int:
    from ..running.scaffold import catalog, format_catalog

    sys.stdout.write(format_catalog(catalog(), aliases=UNIT_ALIASES))
    return EXIT_OK
