"""Issue 41 item 5 on a real Dask cluster (slow): the arm file edited while a run goes on.

The client used to hash the arm file lazily, at the first record it wrote
itself, so the `timeout` record of a cell that started before the edit
carried the hash of the *edited* file, and after restoring the file (and
restarting the workers) the resume was refused as "code changed". Now the
code is read once at the start: every record carries the start's identity,
and restoring the file resumes with exit 0.
"""
from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
import textwrap
import time

import pytest

from baselines import read_records
from baselines.core.class_code import class_code

from .test_cluster import ENV, REPO, dask_cluster, stop, wait_for_lines

pytestmark = [pytest.mark.slow, pytest.mark.process]

ARMS = '''
import os
import time

MARKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stuck.marker")


class Quick:
    def run(self, instance, meter, rng):
        meter.rollouts(1)
        meter.progress(0.5, choice=0.5)
        return 0.5


class Stuck:
    """Blocks in one C call while the marker exists: a Dask worker thread cannot be interrupted there."""

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        if os.path.exists(MARKER):
            time.sleep(600)
        return 0.5
'''

SUITE = '''
seeds = 2
timeout = 1
[arms.quick]
path = "edit_arms:Quick"
[arms.stuck]
path = "edit_arms:Stuck"
[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {rollouts = 1}
arms = ["quick", "stuck"]
'''


def code_of(path, name: str) -> str:
    """The class code version of `name` in the file at `path`, as a run reads it."""
    spec = importlib.util.spec_from_file_location("edit_arms_copy", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["edit_arms_copy"] = module
    try:
        spec.loader.exec_module(module)
        return class_code(getattr(module, name)).digest
    finally:
        sys.modules.pop("edit_arms_copy", None)


def run(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "baselines.cli", *map(str, args)], cwd=REPO, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_an_arm_file_edited_mid_run_on_dask_leaves_every_record_with_the_start_identity(tmp_path):
    arms, suite = tmp_path / "edit_arms.py", tmp_path / "suite.toml"
    arms.write_text(textwrap.dedent(ARMS))
    suite.write_text(SUITE)
    (tmp_path / "stuck.marker").write_text("")
    original = arms.read_bytes()
    start_module = hashlib.sha256(original).hexdigest()[:16]
    start_stuck, start_quick = code_of(arms, "Stuck"), code_of(arms, "Quick")
    out = tmp_path / "out"
    with dask_cluster(2) as (address, _, _):
        proc = run(["run", suite, "--out", out, "--quiet", "--no-plots", "--backend", "dask", "--address", address])
        try:
            wait_for_lines(out / "results.jsonl", 1)    # a quick cell is back: both workers hold a cell
            time.sleep(1.0)
            arms.write_text(arms.read_text().replace("time.sleep(600)", "time.sleep(600)  # edited\n"
                                                     "            meter.rollouts(1)"))
            assert code_of(arms, "Stuck") != start_stuck      # the edit changes the stuck arm's code
            _, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                stop(proc)
    assert proc.returncode == 1, err[-2000:]                  # two timeouts: failed cells, nothing refused
    records = read_records(out / "results.jsonl")
    stuck = [r for r in records if r.arm == "stuck"]
    assert len(stuck) == 2 and all(r.stop_reason == "timeout" for r in stuck)
    assert any(r.extra["provenance"]["worker"] is None for r in stuck)    # written by the client
    for r in records:
        prov = r.extra["provenance"]
        assert prov["arm_module"] == start_module, (r.arm, prov)
        assert prov["arm_code"] == (start_stuck if r.arm == "stuck" else start_quick), (r.arm, prov)

    arms.write_bytes(original)                                # restore the file, restart the workers
    (tmp_path / "stuck.marker").unlink()
    with dask_cluster(2) as (address, _, _):
        proc = run(["run", suite, "--out", out, "--quiet", "--no-plots", "--backend", "dask", "--address",
                    address, "--retry-errors"])
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    assert "code changed" not in err
    after = read_records(out / "results.jsonl")
    assert len(after) == 4 and all(r.error is None for r in after)
