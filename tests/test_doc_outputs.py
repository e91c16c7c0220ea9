"""Every output a doc quotes is what its command prints now: the command is named beside it.

Why: docs/gate.md's simulation table differed in all six rows from what
`python benchmarks/gate_simulation.py` printed, and docs/suite.md's `plan`
example predated two demo arms (issue 43): a quoted number goes stale
silently. So a quote is marked with the command that prints it,

    <!-- output of: python3 benchmarks/gate_simulation.py -->

directly followed by a table, a fenced block, an inline code span (in
prose) or a paragraph printed as it is (footnotes), and this test runs that command (in-process, seeded as written) and
requires each quoted line in what it printed (a trailing " ..." marks a
cut). Cheap commands (`costmatch plan`, `costmatch list`) run in the
default run; the others (simulations) in the slow run.
"""
from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import runpy
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from baselines.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
MARKER = re.compile(r"(?<!`)<!-- output of: (.+?)(?:; file: (\S+))? -->[ \t]*\n?")
#: commands cheap enough for the default run (well under a second once the package is imported)
CHEAP = ("costmatch plan", "costmatch list")


@dataclass(frozen=True)
class Quote:
    doc: Path
    line: int
    command: str
    lines: tuple[str, ...]
    file: str | None = None     # the quote is of this file the command wrote (in its working folder), not stdout

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def _quoted(rest: str) -> list[str]:
    """What follows a marker: a fenced block, a table, an inline code span, or else the paragraph."""
    body = rest.lstrip("\n")
    if body.startswith("```"):
        return body.split("\n", 1)[1].split("\n```", 1)[0].splitlines()
    if body.startswith("|"):
        return [line for line in _leading(body, lambda l: l.startswith("|"))]
    if body.lstrip().startswith("`"):
        span = re.search(r"`([^`]+)`", body.split("\n\n", 1)[0])
        return [span.group(1)] if span else []
    return body.split("\n\n", 1)[0].splitlines()   # a paragraph quoted as it was printed (footnotes)


def _leading(text: str, keep) -> list[str]:
    out = []
    for line in text.splitlines():
        if not keep(line):
            break
        out.append(line)
    return out


def quotes(doc: Path, text: str | None = None) -> list[Quote]:
    text = doc.read_text(encoding="utf-8") if text is None else text
    return [Quote(doc, text.count("\n", 0, m.start()) + 1, m.group(1).strip(), tuple(_quoted(text[m.end():])),
                  m.group(2)) for m in MARKER.finditer(text)]


def run_command(command: str, folder: Path) -> str:
    """Run a doc's command in this process, in `folder` (a clean working folder); everything it printed."""
    words = shlex.split(command)
    out = io.StringIO()
    old_argv, old_cwd = sys.argv, Path.cwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            if words[0] == "costmatch":
                code = main(words[1:])
            elif words[0] in ("python", "python3") and words[1].endswith(".py"):
                sys.argv = [words[1], *words[2:]]
                code = 0
                try:
                    runpy.run_path(str(ROOT / words[1]), run_name="__main__")
                except SystemExit as exc:
                    code = exc.code or 0
            else:
                raise AssertionError(f"a doc quotes the output of {command!r}, which this test cannot run")
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    assert code == 0, f"{command!r} exited {code}:\n{out.getvalue()}"
    return out.getvalue()


@functools.cache
def _ran(command: str) -> tuple[str, Path]:
    """What `command` printed and the folder it ran in: once per session, however many quotes name it."""
    folder = Path(tempfile.mkdtemp(prefix="doc-output-"))
    return run_command(command, folder), folder


def quoted_source(quote: Quote) -> str:
    """The text the quote must come from: the command's output, or the file it wrote."""
    printed, folder = _ran(quote.command)
    return printed if quote.file is None else (folder / quote.file).read_text(encoding="utf-8")


def stale_lines(quote: Quote, printed: str) -> list[str]:
    """The quoted lines that the command's output does not hold."""
    missing = []
    for line in quote.lines:
        line = line.rstrip()
        line = line[:-4] if line.endswith(" ...") else line
        if line.strip() and line.strip() not in printed:
            missing.append(line)
    return missing


def _message(quote: Quote, missing: list[str], printed: str) -> str:
    what = "prints" if quote.file is None else f"writes to {quote.file}"
    return (f"{quote.where}: the output quoted after `<!-- output of: {quote.command} -->` is stale; "
            f"these quoted lines are not in what the command {what} now:\n  " + "\n  ".join(missing) +
            f"\nRun `{quote.command}` in an empty folder (benchmarks: from the repository root) and paste "
            f"what it {what} there (and update any figure the prose around it repeats). It {what}:\n{printed}")


def _all_quotes() -> list[Quote]:
    return [q for doc in DOCS for q in quotes(doc)]


def _params(cheap: bool):
    return [pytest.param(q, id=f"{q.where} {q.command}") for q in _all_quotes() if q.command.startswith(CHEAP) == cheap]


def test_every_marker_quotes_something():
    found = _all_quotes()
    assert any("gate_simulation" in q.command for q in found) and any(q.command == "costmatch plan" for q in found)
    assert all(q.lines for q in found), [q.where for q in found if not q.lines]


@pytest.mark.parametrize("quote", _params(cheap=True))
def test_each_cheap_quoted_output_is_what_its_command_prints(quote):
    printed = quoted_source(quote)
    missing = stale_lines(quote, printed)
    assert not missing, _message(quote, missing, printed)


@pytest.mark.slow
@pytest.mark.parametrize("quote", _params(cheap=False))
def test_each_quoted_output_is_what_its_command_prints(quote):
    printed = quoted_source(quote)
    missing = stale_lines(quote, printed)
    assert not missing, _message(quote, missing, printed)


def test_a_changed_number_in_a_quote_is_found(tmp_path):
    """A quoted plan line with one number changed is reported (the default run's stale-doc check)."""
    doc = tmp_path / "suite.md"
    doc.write_text("The demo suite (<!-- output of: costmatch plan -->\n"
                   "`tokens: at most 135,000,001 over 90 cells; unbounded in 95 cells`).\n", encoding="utf-8")
    [quote] = quotes(doc)
    assert quote.lines == ("tokens: at most 135,000,001 over 90 cells; unbounded in 95 cells",)
    assert stale_lines(quote, run_command(quote.command, tmp_path)) == list(quote.lines)
