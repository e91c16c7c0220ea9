"""How many examples a property test draws: a quarter in the default run, all of them in .ci/run's full pass.

Why: the README's test command has to stay cheap on a loaded 2-core machine
(about 150 s CPU for the whole default run), and the property tests were a
seventh of it. The default run still draws every test's examples from the same
strategies (a quarter of the count, at least 10); `COSTMATCH_FULL_EXAMPLES=1`
gives each test the count written in it, which `.ci/run` does for every
property test after the default run (`-m "hypothesis and not slow"`).
"""
from __future__ import annotations

import os

FULL = os.environ.get("COSTMATCH_FULL_EXAMPLES") == "1"
DEFAULT_EXAMPLES = 100  # hypothesis's own default, for a test that names no count


def examples(n: int) -> int:
    """The number of examples to draw for a test written for `n`."""
    return n if FULL else max(10, n // 4)
