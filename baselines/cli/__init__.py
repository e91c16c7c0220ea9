"""The `costmatch` command line (contract section 2): one module per verb.

Each verb module has `HELP`, `add_arguments(parser)` and `run(**options)`.
Options become keyword arguments once, in `main`; verbs never see argparse.
The parser is built from light modules only, and a verb's heavy imports
(pandas, scipy, matplotlib) load when that verb runs, so `--help` and a
typo answer at once. Every user mistake is one line, `costmatch: <problem>`,
with exit code 2; a full disk is one line with exit code 1.

The modules, by topic:

- verbs: `run`, `plan`, `compare`, `report`, `check`, `curves`, `history`,
  `importing` (import), `listing` (list), `init`; `__main__` is the command.
- shared by the verbs: `options` (option types and checks), `results` (results
  files into one comparison, for compare, report and check), `history_options`
  (check's history and drift flags), `gate_output` (how a gate verdict prints
  and exits).
- start-up: `result_cache` (compare's kept output, replayed before any heavy
  import), `lean_scipy` (scipy.special without numpy's f2py and testing).
- documentation rendered from the code: `doc_blocks` (the generated blocks),
  `reference` (the CLI reference), `reference_api` (the Python API),
  `reference_schema` (the record fields).
"""
from __future__ import annotations

import gc
import importlib
import os
import sys

from .. import __version__
from ..core.errors import InputError
from ..core.fileio import DiskError
from . import result_cache
from .options import EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK, EXIT_USAGE, Parser, suggest

#: verb -> module in this package, in the order `--help` lists them.
VERBS: dict[str, str] = {
    "run": "run", "plan": "plan", "compare": "compare", "report": "report", "check": "check",
    "import": "importing", "list": "listing", "init": "init", "curves": "curves", "history": "history",
}


def _module(verb: str):
    return importlib.import_module(f"{__name__}.{VERBS[verb]}")


def build_parser(only: tuple[str, ...] | None = None) -> Parser:
    """The whole command line, or with `only` these verbs (the same parsers: a verb's options parse the same)."""
    parser = Parser(prog="costmatch", description="Cost-matched A/B comparisons of search and "
                    "selection policies: does arm A beat arm B at the same budget?")
    parser.add_argument("--version", action="version", version=f"costmatch {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)
    sub.required = True
    for verb in VERBS if only is None else [v for v in VERBS if v in only]:
        module = _module(verb)
        module.add_arguments(sub.add_parser(verb, help=module.HELP, description=module.HELP))
    return parser


def _unknown_verb(argv: list[str]) -> str | None:
    """The first positional word when it is not a verb (typos get a suggestion)."""
    for word in argv:
        if word.startswith("-"):
            if word in ("-h", "--help", "--version"):
                return None
            continue
        return None if word in VERBS else word
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        typo = _unknown_verb(argv)
        if typo is not None:
            raise InputError(f"unknown verb {typo!r}{suggest(typo, list(VERBS))} "
                             f"(verbs: {', '.join(VERBS)}; see costmatch --help)")
        # a result-cache verb first on the line is parsed by its own parser: the whole one imports numpy
        # (0.2 s), and a hit must print before any heavy import (see result_cache)
        quick = argv[:1] if argv[:1] and argv[0] in result_cache.VERBS else None
        options = vars(build_parser(only=tuple(quick) if quick else None).parse_args(argv))
        verb = options.pop("verb")
        return result_cache.cached(verb, options, lambda: _module(verb).run(**options))
    except InputError as exc:
        print(f"costmatch: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except DiskError as exc:
        print(f"costmatch: {_one_line(exc)}", file=sys.stderr)
        return EXIT_NEGATIVE
    except KeyboardInterrupt:  # Ctrl-C outside the cells (loading, the report): one line, no traceback
        print("costmatch: interrupted; every file is written whole or not at all, and a run keeps its finished "
              "cells: run the same command again", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `costmatch compare ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _one_line(exc: Exception) -> str:
    """Keep an error on one line even when a name inside it holds a newline."""
    return str(exc).replace("\r", "\\r").replace("\n", "\\n")


def quiet_blas(argv: list[str], environ: dict) -> None:
    """One OpenBLAS thread for every verb but `run`, unless the environment already says otherwise.

    numpy and scipy each load their own OpenBLAS, which starts a thread per core that spins while it
    waits: on a 2-core machine that was 0.26 s of the 2.56 s CPU of a cold `compare --json` on 1M runs
    (medians of 3; 1.51x polars' read_ndjson with the pools, 1.36x without). No verb that analyses results
    multiplies matrices big enough to gain from threads. `run` is left alone: its workers run the user's
    arms, whose own numerical code may want every core. Only the console script calls this, so a
    program calling `main()` keeps its environment.
    """
    if argv[:1] != ["run"]:
        environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def entry() -> None:
    quiet_blas(sys.argv[1:], os.environ)   # before any verb imports numpy
    code = main()
    # The process ends here: the interpreter's last garbage collections would walk every object
    # pandas, scipy and the run's records made (0.21 s from main's return to exit after a
    # 10,000-cell run, 0.05 s frozen). The OS frees frozen objects; atexit handlers still run.
    gc.freeze()
    sys.exit(code)
