"""Every module path, import line and `costmatch` command the docs show works as shown (issue 43).

Why: docs/python.md said `import baselines.meter` and docs/suite.md named
`baselines.clients` after both had moved to `baselines.core` (there are no
aliases at old paths, by design), and nothing failed. This test finds, in
README.md, docs/*.md and benchmarks/README.md:

- every dotted path of the four packages (`baselines.core.meter`,
  `baselines.analysis.gating.gate_bounds.margin_verdict`,
  `arms.selection:Greedy`) and imports it: the longest importable module,
  then attributes;
- every `import` / `from ... import` line of a python block, and executes it;
- every `costmatch` command in a shell block, and parses it with the real
  parser (a verb or option that no longer exists fails);
- every transcript (a block of `$ costmatch ...`, its output, `(exit N)`:
  docs/importing.md), and runs it in-process, output and exit code byte for
  byte.

docs/architecture.md's table of old module paths is the one place old paths
appear: there each old path must *not* import and each new one must.
"""
from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest

from baselines.cli import build_parser
from baselines.core.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
PACKAGES = ("baselines", "arms", "workloads", "reports")
#: a dotted path of our packages; not after `[` (TOML tables `[arms.greedy]`), `/` or `.` (file paths)
_PATH = re.compile(r"(?<![\w./\[-])((?:%s)(?:\.[A-Za-z_]\w*)+)(?::([A-Za-z_]\w*))?" % "|".join(PACKAGES))
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.S | re.M)
#: the last part of a file name, not a module (`reports.md`)
_FILE_SUFFIXES = {"md", "py", "toml", "json", "jsonl", "html", "csv", "txt", "yml", "yaml", "ipynb", "png", "svg",
                  "pdf", "eval", "tex"}
#: placeholders the prose uses on purpose
EXAMPLES = {"baselines.running.runner.x"}
OLD_PATHS_DOC = ROOT / "docs" / "architecture.md"
OLD_PATHS_HEADING = "## Old module path -> new module path"


def resolve(dotted: str, attr: str | None = None):
    """The object a doc's path names: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name) and exc.name != parts[0]:
                continue  # this prefix is not a module: try a shorter one and read the rest as attributes
            raise
        for part in [*parts[i:], *([attr] if attr else [])]:
            obj = getattr(obj, part)
        return obj
    raise ModuleNotFoundError(dotted)


def _old_path_table() -> tuple[str, list[tuple[str, str]]]:
    """The architecture doc's old -> new table as (its text, [(old cell, new cell)])."""
    text = OLD_PATHS_DOC.read_text(encoding="utf-8")
    section = text[text.index(OLD_PATHS_HEADING):]
    rows = [line for line in section.split("\n\n", 3)[2].splitlines() if line.startswith("| `")]
    return section, [tuple(c.strip() for c in row.strip("|").split("|")[:2]) for row in rows]


def doc_paths(doc: Path, text: str | None = None) -> list[tuple[str, int, str, str | None]]:
    """(doc name, line, dotted path, attribute) of every path the doc names, the old-path column aside."""
    text = doc.read_text(encoding="utf-8") if text is None else text
    old = {p for cell, _ in _old_path_table()[1] for p, _ in _PATH.findall(cell)} if doc == OLD_PATHS_DOC else set()
    found = []
    for m in _PATH.finditer(text):
        dotted, attr = m.group(1), m.group(2) or None
        if dotted.split(".")[-1] in _FILE_SUFFIXES or dotted in EXAMPLES or dotted in old:
            continue
        found.append((doc.relative_to(ROOT).as_posix() if doc.is_relative_to(ROOT) else doc.name,
                      text.count("\n", 0, m.start()) + 1, dotted, attr))
    return found


def _path_params():
    return [pytest.param(*p, id=f"{p[0]}:{p[1]} {p[2]}{':' + p[3] if p[3] else ''}") for d in DOCS for p in doc_paths(d)]


@pytest.mark.parametrize("doc, line, dotted, attr", _path_params())
def test_every_module_path_in_the_docs_imports(doc, line, dotted, attr):
    try:
        resolve(dotted, attr)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"{doc}:{line}: `{dotted}{':' + attr if attr else ''}` does not import ({type(exc).__name__}: "
                    f"{exc}); write the path the module has now (docs/architecture.md lists moved modules)")


def test_the_old_path_table_is_true_old_paths_fail_and_new_paths_import():
    _, rows = _old_path_table()
    assert len(rows) > 20
    for old, new in rows:
        kept = {dotted for dotted, _ in _PATH.findall(new)}  # unchanged, or split with the old module kept
        for dotted, _ in _PATH.findall(old):
            if dotted in kept:
                continue
            with pytest.raises((ImportError, AttributeError)):
                resolve(dotted)
        for dotted, attr in _PATH.findall(new):
            resolve(dotted, attr or None)


def _import_lines():
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in _FENCE.finditer(text):
            if block.group(1) != "python":
                continue
            start = text.count("\n", 0, block.start()) + 2
            for i, line in enumerate(block.group(2).splitlines()):
                code = line.split("#", 1)[0].strip()
                if re.match(r"(import|from)\s+(%s)\b" % "|".join(PACKAGES), code):
                    yield pytest.param(doc.relative_to(ROOT).as_posix(), start + i, code, id=f"{doc.name}:{start + i}")


@pytest.mark.parametrize("doc, line, code", list(_import_lines()))
def test_every_import_line_of_a_python_block_runs(doc, line, code):
    try:
        exec(compile(code, f"{doc}:{line}", "exec"), {})
    except ImportError as exc:
        pytest.fail(f"{doc}:{line}: `{code}` fails: {exc}")


def _commands():
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in _FENCE.finditer(text):
            if block.group(1) not in ("bash", "sh", "shell", "console"):
                continue
            start = text.count("\n", 0, block.start()) + 2
            for i, line in enumerate(block.group(2).splitlines()):
                code = line.split(" #", 1)[0].strip().removeprefix("$ ")
                for part in re.split(r"&&|\|\||;|\|(?!\w*\|)", code):
                    part = part.strip()
                    if part.startswith("costmatch ") or part == "costmatch":
                        yield pytest.param(doc.relative_to(ROOT).as_posix(), start + i, part,
                                           id=f"{doc.name}:{start + i}")


def parse(command: str) -> None:
    """Parse a doc's `costmatch ...` with the real parser (redirections and `$VAR`s left as words)."""
    words = [w for w in shlex.split(command, comments=True) if not w.startswith((">", "<", "2>"))]
    try:
        build_parser().parse_args(words[1:])
    except SystemExit as exc:  # --help and --version exit 0
        assert exc.code == 0, command


@pytest.mark.parametrize("doc, line, command", list(_commands()))
def test_every_costmatch_command_in_a_shell_block_parses(doc, line, command):
    try:
        parse(command)
    except InputError as exc:
        pytest.fail(f"{doc}:{line}: `{command}` is refused by the parser: {exc}")


def test_a_module_path_that_does_not_import_fails(tmp_path):
    """The stale-doc check: the old `baselines.meter` path is found and does not import."""
    doc = tmp_path / "python.md"
    doc.write_text("`import baselines.meter`, all an arm's worker needs, and `arms.selection:Greedy`.\n")
    found = doc_paths(doc)
    assert [(d, line, p, a) for d, line, p, a in found] == [("python.md", 1, "baselines.meter", None),
                                                            ("python.md", 1, "arms.selection", "Greedy")]
    with pytest.raises(AttributeError):
        resolve("baselines.meter")
    resolve("arms.selection", "Greedy")
    with pytest.raises(InputError):
        parse("costmatch run --no-such-option")


# -- transcripts: `$ costmatch ...`, its output, `(exit N)` ------------------------------------------
#: the inputs transcripts name, as the files they stand for in the repository (the docs say which)
TRANSCRIPT_INPUTS = {"results.json": "tests/data/promptfoo/results.json", "lm-out": "tests/data/lm_eval/output"}
_STEP = re.compile(r"^\$ (costmatch [^\n]*)\n(.*?)^\(exit (\d+)\)$", re.S | re.M)


def _transcripts():
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in _FENCE.finditer(text):
            if block.group(2).startswith("$ costmatch"):
                start = text.count("\n", 0, block.start()) + 1
                yield pytest.param(doc.relative_to(ROOT).as_posix(), start, block.group(2), id=f"{doc.name}:{start}")


@pytest.mark.parametrize("doc, line, block", list(_transcripts()))
def test_every_transcript_prints_what_it_shows_byte_for_byte(doc, line, block, tmp_path, monkeypatch, capsys):
    """A shown session (`$ costmatch ...`, its output, `(exit N)`) is run in order, in one folder."""
    from baselines.cli import main

    for name, source in TRANSCRIPT_INPUTS.items():
        (tmp_path / name).symlink_to(ROOT / source)
    monkeypatch.chdir(tmp_path)
    steps = _STEP.findall(block)
    assert steps, f"{doc}:{line}: a transcript block with no `$ costmatch ...` ... `(exit N)` step"
    for command, shown, code in steps:
        status = main(shlex.split(command)[1:])
        out = capsys.readouterr()
        printed = out.out + out.err
        assert (printed.rstrip("\n"), status) == (shown.rstrip("\n"), int(code)), (
            f"{doc}:{line}: `{command}` no longer prints what the doc shows (or exits otherwise); "
            f"run it and paste its output. It printed (exit {status}):\n{printed}")
