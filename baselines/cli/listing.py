"""`costmatch list`: the built-in workloads and arms with their parameters and defaults, and the units."""
from __future__ import annotations

import argparse
import sys

from .options import EXIT_OK, UNIT_ALIASES, builtin_suites

HELP = "list the built-in workloads and arms (parameters and defaults), the units with their meaning, and the shipped suites"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No options: the catalog is short enough to read whole."""


def run() -> int:
    from ..running.scaffold import catalog, format_catalog  # start-up: only when the verb runs

    sys.stdout.write(format_catalog(catalog(), aliases=UNIT_ALIASES))
    shipped = builtin_suites()
    if shipped:
        sys.stdout.write(f"\nShipped suites (costmatch run NAME, costmatch plan NAME): {', '.join(shipped)}\n")
    return EXIT_OK
