"""Every importer is total: any input is either imported into records `compare` reads back, or one
InputError line with nothing written. Random JSON in the places of the source fields, random bytes,
random CSV text (issue 18: 17 import tracebacks came from inputs like these)."""
from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from baselines import InputError
from baselines.importers import import_records as import_records_, run_import
from baselines.core.records import read_records
from tests.sizes import examples

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

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


# -- lm-evaluation-harness and promptfoo (issue 29) -----------------------------------------
_DATE = "2026-12-01T10-00-00.000001"
_LM_RESULTS = {"results": {"t": {"alias": "t", "acc,none": 0.5, "acc_stderr,none": 0.1}},
               "configs": {"t": {"task": "t", "metric_list": [{"metric": "acc", "aggregation": "mean"}],
                                 "metadata": {"version": 1}}},
               "config": {"model": "hf", "model_args": "pretrained=m", "random_seed": 0, "gen_kwargs": None},
               "n-samples": {"t": {"original": 2, "effective": 2}}, "model_name": "m",
               "total_evaluation_time_seconds": "3.5"}
_LM_SAMPLE = {"doc_id": 0, "filter": "none", "acc": 1.0, "resps": [["a"]], "doc_hash": "h0"}
LM_RESULT_KEYS = ["results", "configs", "config", "n-samples", "model_name", "total_evaluation_time_seconds"]
LM_SAMPLE_KEYS = ["doc_id", "filter", "acc", "resps", "doc_hash"]


def _check_lm_eval(tmp_path, results: bytes, samples: bytes, **options):
    folder = tmp_path / "lm"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / f"results_{_DATE}.json").write_bytes(results)
    (folder / f"samples_t_{_DATE}.jsonl").write_bytes(samples)
    out = tmp_path / "out.jsonl"
    out.unlink(missing_ok=True)
    try:
        written = run_import("lm-eval", [folder], out, **options)
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc)
        assert not out.exists()
        return None
    assert len(read_records(out)) == written
    return read_records(out)


def _lines(*objs) -> bytes:
    return b"".join(_dump(o) + b"\n" for o in objs)


@SETTINGS
@given(sample=st.fixed_dictionaries({}, optional={k: values for k in LM_SAMPLE_KEYS}),
       top=st.fixed_dictionaries({}, optional={k: values for k in LM_RESULT_KEYS}))
def test_lm_eval_any_values(tmp_path, sample, top):
    second = {**_LM_SAMPLE, "doc_id": 1, "doc_hash": "h1"}
    _check_lm_eval(tmp_path, _dump({**_LM_RESULTS, **top}), _lines({**_LM_SAMPLE, **sample}, second))


@SETTINGS
@given(results=st.binary(max_size=48), samples=st.binary(max_size=48))
def test_lm_eval_any_bytes(tmp_path, results, samples):
    _check_lm_eval(tmp_path, results, _lines(_LM_SAMPLE, {**_LM_SAMPLE, "doc_id": 1}))
    _check_lm_eval(tmp_path, _dump(_LM_RESULTS), samples)


@pytest.mark.parametrize("samples, words", [
    (_lines(_LM_SAMPLE, _LM_SAMPLE), "appears twice in one run"),
    (_lines(_LM_SAMPLE, {**_LM_SAMPLE, "doc_id": 1, "acc": float("nan")}), "NaN, which is not a finite number"),
    (_lines(_LM_SAMPLE, {**_LM_SAMPLE, "doc_id": 1, "acc": float("inf")}), "Infinity, which is not a finite"),
    (_lines(_LM_SAMPLE), "holds 1 documents for filter 'none', the results file says 2"),
    (_lines(_LM_SAMPLE, {"doc_id": 1, "filter": "none"}), "field \"acc\" is missing"),
    (_lines(_LM_SAMPLE, [1]), "a samples line must be a JSON object"),
    (b"{\n", "not a JSON line"),
])
def test_lm_eval_hostile_samples(tmp_path, samples, words):
    folder = tmp_path / "lm"
    folder.mkdir()
    (folder / f"results_{_DATE}.json").write_bytes(_dump(_LM_RESULTS))
    (folder / f"samples_t_{_DATE}.jsonl").write_bytes(samples)
    with pytest.raises(InputError) as info:
        run_import("lm-eval", [folder], tmp_path / "o.jsonl")
    assert words in str(info.value) and str(folder) in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "o.jsonl").exists()


def test_lm_eval_well_formed_file_imports(tmp_path):
    [record] = _check_lm_eval(tmp_path, _dump(_LM_RESULTS), _lines(_LM_SAMPLE, {**_LM_SAMPLE, "doc_id": 1,
                                                                                "acc": 0.0, "doc_hash": "h1"}))
    assert (record.arm, record.reward, record.spend["seconds"], record.spend["tokens"]) == ("m", 0.5, 3.5, None)


_PF_ROW = {"promptIdx": 0, "testIdx": 0, "provider": {"id": "echo", "label": "echo"},
           "prompt": {"raw": "hi {{x}}", "label": "p"}, "vars": {"x": 1}, "success": True, "score": 1,
           "latencyMs": 12, "failureReason": 0, "testCase": {"vars": {"x": 1}},
           "response": {"output": "hi 1", "tokenUsage": {"prompt": 3, "completion": 2, "numRequests": 1},
                        "cost": 0.001}, "tokenUsage": {"numRequests": 1}, "namedScores": {}}
PF_KEYS = list(_PF_ROW)


def _pf(*rows, repeat=None) -> bytes:
    top = {"results": {"version": 3, "results": list(rows)}, "config": {"description": "d"}}
    if repeat is not None:
        top["runtimeOptions"] = {"repeat": repeat}
    return _dump(top)


@SETTINGS
@given(row=st.fixed_dictionaries({}, optional={k: values for k in PF_KEYS}),
       repeat=st.one_of(st.none(), values), metric=st.sampled_from(["pass", "score", "named:x"]))
def test_promptfoo_any_values(tmp_path, row, repeat, metric):
    other = {**_PF_ROW, "testIdx": 1, "vars": {"x": 2}}
    top = json.loads(_pf({**_PF_ROW, **row}, other))
    top["runtimeOptions"] = {"repeat": repeat}
    _check(tmp_path, "promptfoo", _dump(top), metric=metric)


@SETTINGS
@given(content=st.binary(max_size=64))
def test_promptfoo_any_bytes(tmp_path, content):
    _check(tmp_path, "promptfoo", content)


@pytest.mark.parametrize("content", [b"", b"null", b"[]", b"{}", b'{"results": []}', b'{"results": {"results": {}}}',
                                     b'{"results": {"results": [null]}}', b'{"results": {"results": []}}'])
def test_promptfoo_degenerate_files(tmp_path, content):
    _check(tmp_path, "promptfoo", content)


@pytest.mark.parametrize("content, words", [
    (_pf(_PF_ROW, {**_PF_ROW, "testIdx": 1, "score": float("nan")}), "NaN, which is not a finite number"),
    (_pf({**_PF_ROW, "success": "yes"}), "field 'success' must be true or false"),
    (_pf({**_PF_ROW, "testIdx": -1}), "field 'testIdx' must be an integer >= 0"),
    (_pf({**_PF_ROW, "provider": {"id": None}}), "field \"provider\" must be a non-empty string"),
    (_pf({**_PF_ROW, "vars": [1]}), "field 'vars' must be an object"),
    (_pf({**_PF_ROW, "latencyMs": -5}), "field 'latencyMs' must be a finite number >= 0"),
    (_pf(_PF_ROW, repeat=0), "field \"runtimeOptions.repeat\" must be an integer >= 1"),
    (_pf(_PF_ROW, {**_PF_ROW, "promptIdx": 1, "prompt": {"label": "p"}}), "appears twice in one run; two columns"),
    (_pf(_PF_ROW, {**_PF_ROW, "promptIdx": 1, "prompt": {"label": "q"}}), None),  # two prompts: two arms
])
def test_promptfoo_hostile_fields(tmp_path, content, words):
    src = tmp_path / "r.json"
    src.write_bytes(content)
    if words is None:
        assert {r.arm for r in import_records_("promptfoo", [src])} == {"p", "q"}
        return
    with pytest.raises(InputError) as info:
        run_import("promptfoo", [src], tmp_path / "o.jsonl")
    assert words in str(info.value) and str(src) in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "o.jsonl").exists()


def test_promptfoo_same_test_twice_in_a_column_is_a_second_repeat_or_a_second_copy(tmp_path):
    src = tmp_path / "r.json"
    src.write_bytes(_pf(_PF_ROW, {**_PF_ROW, "testIdx": 1, "success": False}, repeat=2))
    assert sorted((r.seed, r.reward) for r in import_records_("promptfoo", [src])) == [(0, 1.0), (1, 0.0)]
    src.write_bytes(_pf(_PF_ROW, {**_PF_ROW, "testIdx": 1, "success": False}))
    [run] = import_records_("promptfoo", [src])
    assert run.reward == 0.5 and run.extra["tests"] == 2


@pytest.mark.parametrize("fmt, content", [
    ("promptfoo", _pf({**_PF_ROW, "provider": {"label": "x\ud800"}})),
    ("promptfoo", _pf({**_PF_ROW, "vars": {"x": "\udc00"}})),
    ("agentdescent", _dump({"dataset": "d", "arms": [{"arm": "\ud800", "seed": 0, "test_reward": 0.5}]})),
])
def test_a_lone_surrogate_escape_is_one_line_not_a_traceback(tmp_path, fmt, content):
    """Found while fuzzing the promptfoo importer: a \\ud800 escape parsed into a name that UTF-8 cannot write."""
    _check(tmp_path, fmt, content)
    with pytest.raises(InputError, match="not valid Unicode"):
        run_import(fmt, [tmp_path / "src.in"], tmp_path / "out.jsonl")


def test_lm_eval_lone_surrogate_in_a_doc_id(tmp_path):
    assert _check_lm_eval(tmp_path, _dump(_LM_RESULTS), _lines({**_LM_SAMPLE, "doc_id": "\ud800"},
                                                               {**_LM_SAMPLE, "doc_id": 1})) is None
