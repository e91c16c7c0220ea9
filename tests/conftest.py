"""Test settings (hypothesis without deadlines) and the path to the real result files.

Record builders live in `tests/builders.py`: tests import them from a module, not from conftest."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.sizes import DEFAULT_EXAMPLES, examples

# No wall-clock deadline in any property test: a loaded 2-core machine must not turn a
# slow example into a failure. CI also derandomizes, so a red run can be rerun exactly.
# Examples: a quarter of each count by default, all with COSTMATCH_FULL_EXAMPLES=1 (tests/sizes.py).
settings.register_profile("costmatch", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          max_examples=examples(DEFAULT_EXAMPLES))
settings.register_profile("ci", parent=settings.get_profile("costmatch"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "costmatch")

from tests.builders import AGENTDESCENT  # noqa: E402 - after the hypothesis profile


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: the mark added here counts
def pytest_collection_modifyitems(items) -> None:
    """A `process` test (signals, kills, worker engines, subprocesses) runs with the slow tests unless it is
    one of the few `smoke` ones: the default run stays in-process and cheap as tests are added, and
    `-m slow` (what .ci/run adds) still runs every process test (tests/README.md)."""
    for item in items:
        if item.get_closest_marker("process") and not item.get_closest_marker("smoke"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def agentdescent_dir() -> Path:
    if not AGENTDESCENT.is_dir():
        pytest.fail(f"the real result files are missing at {AGENTDESCENT} (tests/data/agentdescent ships them; "
                    "COSTMATCH_SHARED_DATA=DIR reads DIR/agentdescent)")
    return AGENTDESCENT


@pytest.fixture
def loky_in_process(monkeypatch):
    """Cells a command would send to loky worker processes run in this process instead: for tests of what a
    command prints or writes (the README's commands as shown, whose suites say `jobs = 2`), not of the
    engine. Records do not depend on the engine (test_runner's slow test_results_do_not_depend_on_jobs_or_backend
    checks that), so the default run starts no worker pool for them."""
    from baselines.running import engines

    monkeypatch.setattr(engines, "LokyPool", lambda jobs, work: engines.InlinePool(work))


@pytest.fixture(autouse=True)
def _no_looks_ledger(monkeypatch):
    """`check` keeps `.costmatch-looks.json` beside its first results file; tests that check fixtures in the
    repository must not write one there (tests/test_gate_decides.py turns it back on where it is tested)."""
    monkeypatch.setenv("COSTMATCH_LOOKS_LEDGER", "off")
