"""The generated blocks of docs/ (CLI reference, API signatures) are what the code renders now.

Why: docs/cli.md once lacked 34 options of six verbs and docs/python.md a
keyword of `compare`, because a reference kept by hand fails nothing when
the code grows (issue 43). The blocks are rendered from the parsers and
signatures by `baselines.cli.doc_blocks`; this test fails, quoting the one
command that regenerates them, when a parser or signature changed and the
docs did not.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from baselines.cli import build_parser
from baselines.cli.doc_blocks import BLOCKS, REGENERATE, stale, write
from baselines.cli.reference import verb_parsers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _message(problems: list[str]) -> str:
    return ("\n".join(problems) + f"\nThe docs' generated blocks are stale. Regenerate them: run `{REGENERATE}` "
            "from the repository root and commit the changed docs/ files.")


def test_every_generated_block_is_what_its_source_renders():
    problems = stale(DOCS)
    assert not problems, _message(problems)


def _copy_docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for block in BLOCKS:
        shutil.copy(DOCS / block.file, docs / block.file)
    return docs


def test_a_reference_missing_one_option_fails_and_the_command_mends_it(tmp_path):
    docs = _copy_docs(tmp_path)
    cli = docs / "cli.md"
    text = cli.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `--worker-wait "))
    cli.write_text(text.replace(row + "\n", ""), encoding="utf-8")   # an option the parser has, missing
    problems = stale(docs)
    assert problems == [f"{cli}: the block 'cli-reference' differs from the parsers in baselines/cli/ "
                        f"(first change: docs lack {row!r})"]
    assert REGENERATE in _message(problems)
    assert write(docs) == [cli] and stale(docs) == []
    assert cli.read_text(encoding="utf-8") == text


def test_a_changed_signature_fails(tmp_path):
    docs = _copy_docs(tmp_path)
    py = docs / "python.md"
    py.write_text(py.read_text(encoding="utf-8").replace("seed: int | None = None, ", ""), encoding="utf-8")
    assert [p.split(": ")[0] for p in stale(docs)] == [str(py)]


def test_a_doc_without_its_markers_is_named(tmp_path):
    docs = _copy_docs(tmp_path)
    (docs / "cli.md").write_text("# The command line\n", encoding="utf-8")
    assert stale(docs) == [f"{docs / 'cli.md'}: has no generated block 'cli-reference' (BEGIN/END markers)"]


def _all_options() -> set[str]:
    parser = build_parser()
    found = {s for a in parser._actions for s in a.option_strings}
    for sub in verb_parsers(parser).values():
        found |= {s for a in sub._actions for s in a.option_strings}
    return found


def test_every_option_the_prose_of_cli_md_names_exists():
    """The hand-written part of cli.md (above the generated block) names only real options."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    prose = text[:text.index("<!-- BEGIN GENERATED cli-reference")]
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", prose))
    assert named, "cli.md's prose names options"
    assert named <= _all_options(), f"cli.md names options no verb has: {sorted(named - _all_options())}"
