"""The generated blocks of the documentation: rendered from the code, spliced between markers.

    python3 -m baselines.cli.doc_blocks --write docs     # from the repository root

Why: a reference written by hand drifts from the code silently (issue 43:
34 options and a keyword missing). Each block below is rendered from its
source (the argument parsers, the API's signatures, ...) and written
between a BEGIN and an END marker; the prose around it is kept as written.
`tests/test_docs_generated.py` fails, quoting the command above, when a
block differs from what its source renders now.
"""
from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

#: The command that rewrites every generated block; the docs test quotes it when a block is stale.
REGENERATE = "python3 -m baselines.cli.doc_blocks --write docs"


@dataclass(frozen=True)
class DocBlock:
    name: str
    file: str                  # relative to the docs folder
    source: str                # what to edit instead of the block
    render: Callable[[], str]

    @property
    def begin(self) -> str:
        return (f"<!-- BEGIN GENERATED {self.name}: edit {self.source}, then run `{REGENERATE}` "
                "from the repository root; never edit this block by hand -->")

    @property
    def end(self) -> str:
        return f"<!-- END GENERATED {self.name} -->"


def _cli() -> str:
    from .reference import render

    return render()


def _python_api() -> str:
    from .reference_api import render

    return render()


def _record_fields() -> str:
    from .reference_schema import render

    return render()


BLOCKS: tuple[DocBlock, ...] = (
    DocBlock("cli-reference", "cli.md", "the parsers in baselines/cli/", _cli),
    DocBlock("python-signatures", "python.md", "the signatures in baselines/api.py, "
             "baselines/analysis/ (compare, Comparison)", _python_api),
    DocBlock("record-fields", "contract.md", "baselines/data/record.schema.json", _record_fields),
)


def find(text: str, block: DocBlock) -> tuple[int, int] | None:
    """The span of `block` in `text`, markers included, or None when it is not there."""
    head = f"<!-- BEGIN GENERATED {block.name}:"
    start = text.find(head)
    if start < 0:
        return None
    end = text.find(block.end, start)
    return None if end < 0 else (start, end + len(block.end))


def wrapped(block: DocBlock) -> str:
    return f"{block.begin}\n\n{block.render().strip()}\n\n{block.end}"


def _first_change(old: str, new: str) -> str:
    """The first line the docs lack or hold in excess, so the reader sees what changed."""
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            return f" (first change: {'docs lack' if line[0] == '+' else 'code lacks'} {line[1:][:160]!r})"
    return ""


def stale(docs: Path) -> list[str]:
    """One line per block that is missing or differs from what its source renders now."""
    problems = []
    for block in BLOCKS:
        path = docs / block.file
        text = path.read_text(encoding="utf-8")
        span = find(text, block)
        if span is None:
            problems.append(f"{path}: has no generated block {block.name!r} (BEGIN/END markers)")
        elif text[span[0]:span[1]] != wrapped(block):
            problems.append(f"{path}: the block {block.name!r} differs from {block.source}"
                            f"{_first_change(text[span[0]:span[1]], wrapped(block))}")
    return problems


def write(docs: Path) -> list[Path]:
    """Rewrite every generated block in place (a missing one is appended); the files changed."""
    changed = []
    for block in BLOCKS:
        path = docs / block.file
        text = path.read_text(encoding="utf-8")
        span = find(text, block)
        new = (text.rstrip("\n") + "\n\n" + wrapped(block) + "\n" if span is None
               else text[:span[0]] + wrapped(block) + text[span[1]:])
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m baselines.cli.doc_blocks", description=__doc__.splitlines()[0])
    p.add_argument("--write", metavar="DOCS", help="the docs folder whose generated blocks to rewrite")
    p.add_argument("--check", metavar="DOCS", help="exit 1 naming each stale block, change nothing")
    args = p.parse_args(argv)
    if args.write:
        for path in write(Path(args.write)):
            print(f"rewrote the generated blocks of {path}", file=sys.stderr)
        return 0
    if args.check:
        problems = stale(Path(args.check))
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    for block in BLOCKS:
        sys.stdout.write(f"{block.file}:\n{wrapped(block)}\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
