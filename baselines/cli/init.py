"""`costmatch init [DIR]`: a runnable starter project (suite, an arm and a workload of your own, README)."""
from __future__ import annotations

import argparse
import sys

from .options import EXIT_OK

HELP = "write a runnable starter project (suite, an arm and a workload of your own) into DIR"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", nargs="?", default=".", metavar="DIR",
                   help="where to write the starter files (created if missing; default: this folder); "
                        "existing files are never overwritten")


def run(*, directory: str) -> int:
    from ..running.scaffold import init_message, init_project  # start-up: only when the verb runs

    written = init_project(directory)
    sys.stdout.write(init_message(directory, written))
    return EXIT_OK
