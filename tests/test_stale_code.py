"""A worker that runs other code than the client's is refused before its line is written (issue 31).

A Dask worker keeps the arm module it imported first: after an edit, `run --fresh` on the same workers ran
the old code, wrote the old module hash and said nothing. The same holds for this very process on the
in-process engines (a notebook that edits its arm file and runs again).
"""
from __future__ import annotations

import uuid

import pytest

from baselines import read_records
from baselines.cli import main

ARM = '''class Fixed:
    """Answers {value} whatever the instance (an edit changes the answer, so old code shows in the reward)."""

    def run(self, instance, meter, rng):
        meter.rollouts(1)
        return {value}
'''

SUITE = '''seeds = 2

[arms.fixed]
path = "{module}:Fixed"

[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {{ rollouts = 20 }}
arms = ["fixed"]
'''


def project(tmp_path, value: float = 0.25):
    """A suite beside its own arm module, under a name no other test imports (this process keeps modules)."""
    module = f"stale_arms_{uuid.uuid4().hex[:8]}"
    arm = tmp_path / f"{module}.py"
    arm.write_text(ARM.format(value=value))
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE.format(module=module))
    return suite, arm


def test_an_edit_this_process_did_not_import_is_refused_in_process_before_a_line_is_written(tmp_path, capsys):
    suite, arm = project(tmp_path)
    out = tmp_path / "out"
    args = ["run", str(suite), "--out", str(out), "--quiet", "--no-plots", "--backend", "sequential"]
    assert main(args) == 0
    before = read_records(out / "results.jsonl")
    arm.write_text(ARM.format(value=0.75))      # this process keeps the module it imported: old code would run
    capsys.readouterr()
    assert main([*args, "--fresh"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    refusal = err[-1]
    assert f"{arm.name}:" in refusal, refusal
    assert "restart this Python process" in refusal and "nothing was run or changed" in refusal
    # refused at run start (code identity is read once, issue 41 item 5): --fresh moved nothing aside and
    # no stale cell ran, so the file is as it was
    assert read_records(out / "results.jsonl") == before and len(before) == 2


@pytest.mark.slow
@pytest.mark.process
def test_a_stale_dask_worker_is_refused_and_a_restarted_one_runs_the_edit(tmp_path):
    pytest.importorskip("distributed")
    from .test_cluster import ENV, dask_cluster
    from .test_runner import costmatch

    suite, arm = project(tmp_path)
    out = tmp_path / "out"

    def run(address, *args):
        return costmatch("run", suite, "--out", out, "--quiet", "--no-plots", "--backend", "dask", "--address",
                         address, *args, env=ENV, timeout=600)

    with dask_cluster(1) as (address, _, _):
        assert run(address).returncode == 0
        old = read_records(out / "results.jsonl")
        arm.write_text(ARM.format(value=0.75))
        res = run(address, "--fresh")             # the same worker: it still holds the module it imported
    assert res.returncode == 2, res.stderr[-2000:]
    refusal = res.stderr.strip().splitlines()[-1]
    assert f"{arm.name}:" in refusal and "restart the Dask workers" in refusal, refusal
    assert "Traceback" not in res.stderr
    assert read_records(out / "results.jsonl") == []
    with dask_cluster(1) as (address, _, _):      # fresh workers import the edited module
        res = run(address)
    assert res.returncode == 0, res.stderr[-2000:]
    new = read_records(out / "results.jsonl")
    old_hash = {r.extra["provenance"]["arm_module"] for r in old}
    new_hash = {r.extra["provenance"]["arm_module"] for r in new}
    assert len(old_hash) == len(new_hash) == 1 and old_hash != new_hash
    assert {r.seed: r.reward for r in new} != {r.seed: r.reward for r in old}   # the edited code ran
