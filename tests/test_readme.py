"""The README is short and true: every command in it runs as shown, every link resolves in a clone.

Why: the README is the first thing a newcomer runs, and prose about commands
goes stale silently (a wrong flag, a moved file, an output that changed). So
its fenced blocks are executed here:

- ```bash blocks run in a fresh temporary folder, one command at a time,
  `&&` and new lines alike; `costmatch ...` runs in-process through
  `baselines.cli.main` and must exit 0, `cd DIR` changes folder. Any other
  command fails the test, so the README cannot grow a command nobody runs.
  Paths like `tests/data/...` resolve as in a clone's root (the folder holds
  links to the repository's `tests` and `docs`).
- A ```text block that follows a bash block with nothing but blank lines
  between them is that block's output: each of its lines (a trailing " ..."
  marks a cut) must appear in what the commands printed.
- ```python blocks are executed in the temporary folder.
- The two set-up commands (`pip install`, then the tests or the demo suite)
  are not run in the default run: installing the package from inside its own
  test run, or running pytest inside pytest, would test the machine, not the
  README. Instead the test set-up line must be exactly what `.ci/run` runs
  on every clean checkout (pinned both ways: a change to either fails here),
  and the demo line's `costmatch run` runs in the slow test below, which
  also checks the demo output the README quotes. The `pip install .` itself
  is what the slow packaging test does with a built wheel in a fresh venv.

Links: every markdown link and image in README.md, docs/ and
benchmarks/README.md must resolve to a file inside the repository (a clone
has nothing beside it), and every repository path quoted in backticks
(`baselines/...`, `docs/...`, ...) must exist, so moving a module breaks this
test instead of the documentation.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from baselines.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
SETUP = "python3 -m pip install"
TOP = ("baselines", "arms", "workloads", "reports", "tests", "benchmarks", "docs")

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.S | re.M)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_CODE_PATH = re.compile(r"`((?:%s)/[\w./-]*[\w/])`" % "|".join(TOP))


@dataclass
class Block:
    lang: str
    code: str
    start: int          # offset of the opening fence in the file
    end: int            # offset just after the closing fence


def blocks(text: str) -> list[Block]:
    return [Block(m.group(1), m.group(2), m.start(), m.end()) for m in _FENCE.finditer(text)]


def commands(code: str) -> list[str]:
    """The commands of a shell block: one per line or `&&` part, comments dropped."""
    found = []
    for line in code.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            found.extend(part.strip() for part in line.split("&&"))
    return found


def shell_blocks_with_output(text: str) -> list[tuple[Block, Block | None]]:
    """Each bash block with the text block that directly follows it (its output), if any."""
    found = blocks(text)
    pairs = []
    for i, block in enumerate(found):
        if block.lang not in ("bash", "sh", "shell", "console"):
            continue
        nxt = found[i + 1] if i + 1 < len(found) else None
        output = nxt if nxt is not None and nxt.lang == "text" and not text[block.end:nxt.start].strip() else None
        pairs.append((block, output))
    return pairs


def ci_setup_line() -> str:
    """What .ci/run installs and tests with, as one shell line (its quiet flags dropped)."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    pip = next(line for line in lines if line.startswith(SETUP))
    pip = " ".join(w for w in pip.split() if w not in ("--quiet", "--disable-pip-version-check"))
    test = next(line for line in lines if line.startswith("python3 -m pytest"))
    return f"{pip} && {test}"


def stated_exits(code: str) -> dict[str, int]:
    """Command -> the exit code its line's comment states ("# exit 3: ..."); a command without one must exit 0."""
    found = {}
    for line in code.splitlines():
        command, _, comment = line.partition(" #")
        stated = re.search(r"\bexit (\d)\b", comment)
        if stated and command.strip():
            found[command.strip()] = int(stated.group(1))
    return found


def run_commands(cmds: list[str], folder: Path, capsys, monkeypatch, exits: dict[str, int] | None = None) -> str:
    """Run README commands as a shell would, in-process; return everything they printed.

    Each must exit 0, or with the code its README line states (`exits`, from `stated_exits`)."""
    monkeypatch.chdir(folder)
    printed = []
    for cmd in cmds:
        words = shlex.split(cmd)
        if words[0] == "cd" and len(words) == 2:
            monkeypatch.chdir(Path.cwd() / words[1])
            continue
        assert words[0] == "costmatch", f"README command this test cannot run: {cmd!r}"
        try:
            code = main(words[1:])
        except SystemExit as exc:  # argparse's --help and usage errors exit
            code = exc.code
        out = capsys.readouterr()
        printed.append(out.out + out.err)
        assert code == (exits or {}).get(cmd, 0), f"{cmd!r} exited {code}:\n{out.out}{out.err}"
    return "\n".join(printed)


def assert_shown(expected: str, printed: str) -> None:
    for line in expected.splitlines():
        line = line.rstrip()
        line = line[:-4] if line.endswith(" ...") else line
        if line.strip():
            assert line in printed, f"the README shows {line!r}, the command printed:\n{printed}"


@pytest.fixture
def clone_root(tmp_path):
    """A fresh folder standing in for a clone's root: the repository's data folders, nothing else."""
    for name in ("tests", "docs"):
        os.symlink(ROOT / name, tmp_path / name)
    return tmp_path


def _readme() -> str:
    return README.read_text(encoding="utf-8")


# -- the shape of the README ---------------------------------------------------------------------
def test_the_readme_is_short_and_has_no_history_or_outside_links():
    text = _readme()
    assert len(text.splitlines()) < 250
    for pattern in (r"\bwas \d", r"\bwere \d", r"earlier version", r"\.\./shared", r"10,000 Monte Carlo"):
        assert not re.search(pattern, text), f"README holds {pattern!r}"


def test_the_setup_commands_are_exactly_what_ci_runs():
    setup = [b for b, _ in shell_blocks_with_output(_readme()) if SETUP in b.code]
    lines = [b.code.strip() for b in setup]
    assert lines == ["python3 -m pip install . && costmatch run", ci_setup_line()]
    assert ci_setup_line() == "python3 -m pip install -e '.[test]' && python3 -m pytest"


# -- every command as shown -----------------------------------------------------------------------
def _runnable():
    pairs = shell_blocks_with_output(_readme())
    return [pytest.param(b, out, id=commands(b.code)[0][:40]) for b, out in pairs if SETUP not in b.code]


@pytest.mark.parametrize("block, output", _runnable())
def test_each_shell_block_runs_as_shown(block, output, clone_root, capsys, monkeypatch, loky_in_process):
    printed = run_commands(commands(block.code), clone_root, capsys, monkeypatch, stated_exits(block.code))
    if output is not None:
        assert_shown(output.code, printed)


def test_the_python_blocks_run(clone_root, monkeypatch, capsys, loky_in_process):
    code = [b for b in blocks(_readme()) if b.lang == "python"]
    assert code, "the README shows the Python API"
    monkeypatch.chdir(clone_root)
    for block in code:
        exec(compile(block.code, "README.md", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()


@pytest.mark.slow
def test_the_demo_setup_line_runs_the_suite_the_readme_quotes(tmp_path, capsys, monkeypatch):
    """The demo set-up line's `costmatch run` (the built-in suite, ~30 s of CPU) prints what the README shows."""
    text = _readme()
    setup = next(b for b, _ in shell_blocks_with_output(text) if b.code.strip().startswith(SETUP + " ."))
    cmds = [c for c in commands(setup.code) if not c.startswith(SETUP)]
    printed = run_commands(cmds, tmp_path, capsys, monkeypatch)
    section = text[text.index("## What the demo suite shows"):]
    shown = next(b for b in blocks(section) if b.lang == "text")
    assert_shown(shown.code, printed)
    report = (tmp_path / "costmatch-out" / "report.md").read_text(encoding="utf-8")
    table = section[section.index("| arm"):].split("\n\n")[0]
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        line = next(r for r in report.splitlines() if r.startswith(f"| {cells[0]} ") and "| 80 " in r)
        assert all(c in line for c in cells), (row, line)
    assert_readme_figures(text, report)


def _section(report: str, heading: str) -> str:
    start = report.index(heading)
    end = report.find("\n### ", start + len(heading))
    return report[start:] if end < 0 else report[start:end]


def assert_readme_figures(readme: str, report: str) -> None:
    """The figures the README's prose quotes from the demo run are what its report.md prints (issue 43).

    The prose once said ucb1 spends "3.9x" the median prompt tokens where report.md printed 3.7x.
    """
    rollouts = _section(report, "### search-sim at 80 rollouts")
    ratio = re.search(r"`ucb1`, spends ([\d.]+)x the\s+median prompt tokens", readme)
    assert ratio, "the README's confound figure for ucb1 moved: update assert_readme_figures"
    confounds = rollouts[rollouts.index("Confounds"):]
    header = next(line for line in confounds.splitlines() if line.startswith("| arm"))
    column = [c.strip() for c in header.strip("|").split("|")].index(
        next(c.strip() for c in header.strip("|").split("|") if c.strip().startswith("prompt tokens")))
    row = next(line for line in confounds.splitlines() if line.startswith("| ucb1 "))
    shown = [c.strip() for c in row.strip("|").split("|")][column]
    assert shown == f"{ratio.group(1)}×", (f"README.md says ucb1 spends {ratio.group(1)}x the median prompt tokens; "
                                          f"report.md (costmatch run) prints {shown}: change the README")
    tokens = _section(report, "### search-sim at 1,500,000 tokens")
    spread = re.search(r"the same arms get ([\d.]+) \(ucb1\) to ([\d.]+) \(random\)\s+rollouts", readme)
    assert spread, "the README's equal-tokens rollouts figures moved: update assert_readme_figures"
    for arm, figure in (("ucb1", spread.group(1)), ("random", spread.group(2))):
        row = next(line for line in tokens.splitlines() if line.startswith(f"| {arm} "))
        assert [c.strip() for c in row.strip("|").split("|")][2] == figure, (arm, figure, row)


# -- links and quoted paths -----------------------------------------------------------------------
def _targets(path: Path):
    text = path.read_text(encoding="utf-8")
    for m in _LINK.finditer(text):
        yield m.group(1), "link"
    for m in _CODE_PATH.finditer(text):
        yield m.group(1), "path"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_and_quoted_path_resolves_inside_the_repository(doc):
    assert doc.is_file()
    bad = []
    for target, kind in _targets(doc):
        if kind == "link":
            if re.match(r"[a-z]+:", target):
                bad.append(f"{target} (outside the repository)")
                continue
            target = target.split("#", 1)[0]
            if not target:
                continue
            resolved = (doc.parent / target).resolve()
        else:
            resolved = (ROOT / target).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            bad.append(target)
    assert not bad, f"{doc.relative_to(ROOT)}: these do not resolve inside the repository: {bad}"


def test_the_link_check_can_fail(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("[a](../shared/contract.md) `baselines/nowhere.py` [b](https://example.org)\n")
    assert [t for t, _ in _targets(doc)] == ["../shared/contract.md", "https://example.org", "baselines/nowhere.py"]
