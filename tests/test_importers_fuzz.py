"""Every importer is total: any input is either imported into records `compare` reads back, or one
InputError line with nothing written. Random JSON in the places of the source fields, random bytes,
random CSV text (issue 18: 17 import tracebacks came from inputs like these)."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from baselines import InputError
from baselines.importers import run_import
from baselines.core.records import read_records

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=8)
ARM_KEYS = ["arm", "seed", "rollouts", "calls", "prompt_tokens", "completion_tokens", "wallclock",
            "wallclock_parallel", "dev_reward", "test_reward", "test_oracle", "forks", "stop_reason", "error",
            "width"]
OBS_KEYS = ["algorithm", "mode", "seed", "usage", "actor_usage", "budget", "framework", "final_quality",
            "validation_quality", "wall_seconds", "error", "fidelity"]


def _dump(obj) -> bytes:
    return json.dumps(obj, allow_nan=True).encode()  # NaN/Infinity literals on purpose


def _check(tmp_path, fmt, content: bytes, **options):
    src = tmp_path / "src.in"
    src.write_bytes(content)
    out = tmp_path / "out.jsonl"
    out.unlink(missing_ok=True)
    try:
        written = run_import(fmt, [src], out, **options)
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc)
        assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["src.in"]
        return
    assert len(read_records(out)) == written  # what was written is what compare reads


@SETTINGS
@given(item=st.fixed_dictionaries({}, optional={k: values for k in ARM_KEYS}),
       top=st.dictionaries(st.sampled_from(["dataset", "budget", "model", "provider"]), values, max_size=3))
def test_agentdescent_arms_any_values(tmp_path, item, top):
    base = {"arm": "a", "seed": 1, "calls": 3, "test_reward": 0.5}
    _check(tmp_path, "agentdescent", _dump({**top, "arms": [{**base, **item}, base | {"seed": 2}]}))


@SETTINGS
@given(obs=st.fixed_dictionaries({}, optional={k: values for k in OBS_KEYS}),
       config=values)
def test_agentdescent_observations_any_values(tmp_path, obs, config):
    base = {"algorithm": "x", "mode": "serial", "seed": 0, "usage": {"calls": 2}}
    _check(tmp_path, "agentdescent", _dump({"config": config, "observations": [{**base, **obs}]}))


@SETTINGS
@given(content=st.binary(max_size=64))
def test_agentdescent_any_bytes(tmp_path, content):
    _check(tmp_path, "agentdescent", content)


@SETTINGS
@given(rows=st.lists(st.lists(st.text(max_size=6), min_size=0, max_size=5), max_size=4),
       raw=st.binary(max_size=24))
def test_csv_any_cells_and_bytes(tmp_path, rows, raw):
    text = "arm,seed,reward,tokens\n" + "\n".join(",".join(r) for r in rows) + "\n"
    for content in (text.encode("utf-8", "surrogatepass"), b"arm,seed,reward\n" + raw):
        _check(tmp_path, "csv", content, mapping="arm=arm,seed=seed,reward=reward")


@pytest.mark.parametrize("content", [b"", b"null", b"[]", b"{}", b'{"arms": {}}', b'{"observations": null}'])
def test_agentdescent_degenerate_files(tmp_path, content):
    _check(tmp_path, "agentdescent", content)


def test_a_field_name_with_a_line_break_stays_one_line(tmp_path):
    """Found by the fuzz test above: a budget key holding a newline was printed raw, making two lines."""
    _check(tmp_path, "agentdescent", _dump({"model": 1, "budget": {"tokens\n": {"": []}},
                                            "arms": [{"arm": "a", "seed": 0, "test_reward": 0.5}]}))
