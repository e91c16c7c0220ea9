"""Every field an importer reads is checked for its type, in one line naming the file, the field, the type and
the fix (issue 41).

Failed before: agentdescent `"dataset": {"a": 1}` was ignored and the
workload became the file's name; `"test_oracle": "x"` was written as
`"oracle_reward": "x"`, which `compare` then read with exit 0; a `model`
that was a number, a `metric_list` that was text, a promptfoo `config` that
was a list, and a CSV row with a cell too many went through in silence.
(inspect logs are read by inspect_ai, whose models check every field's type.)
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from baselines.core.errors import InputError
from baselines.importers import run_import

DATA = Path(__file__).parent / "data"
ARMS = {"dataset": "hotpot", "model": "m", "budget": {"rollouts": 9},
        "arms": [{"arm": "a", "seed": 0, "rollouts": 9, "calls": 5, "prompt_tokens": 10, "completion_tokens": 2,
                  "test_reward": 0.5, "dev_reward": 0.5, "test_oracle": None, "forks": [], "stop_reason": "done",
                  "error": None, "width": 1}]}
OBS = {"config": {"model": "m"}, "observations": [
    {"algorithm": "pb", "mode": "serial", "seed": 0, "fidelity": "micro", "final_quality": 0.5,
     "validation_quality": 0.5, "usage": {"calls": 3, "prompt_tokens": 9, "completion_tokens": 1},
     "budget": {"matched": True}, "framework": {"stop_reason": "done"}, "error": None}]}


def _arm_edit(**fields):
    return {**ARMS, "arms": [{**ARMS["arms"][0], **fields}]}


def _obs_edit(**fields):
    return {**OBS, "observations": [{**OBS["observations"][0], **fields}]}


AGENTDESCENT = [
    ({**ARMS, "dataset": {"a": 1}}, "field 'dataset' must be a non-empty string or null, got object"),
    (_arm_edit(test_oracle="x"), "field 'test_oracle' must be a finite number or null, got string \"x\""),
    ({**ARMS, "model": 5}, "field 'model' must be a non-empty string or null, got number 5"),
    (_arm_edit(forks="x"), "field 'forks' must be a list or null, got string"),
    (_arm_edit(forks=[5]), "field 'forks[0]' must be an object"),
    (_arm_edit(forks=[{"seed": 1, "test_reward": "0.1"}]), "forks[0]: field 'test_reward' must be a finite number"),
    (_arm_edit(width="wide"), "field 'width' must be a finite number >= 0 or null"),
    (_arm_edit(error=3), "field 'error' must be a message (string), an object or null, got number 3"),
    (_obs_edit(fidelity=5), "field 'fidelity' must be a non-empty string or null"),
    (_obs_edit(final_quality="high"), "field 'final_quality' must be a finite number or null"),
    (_obs_edit(budget={"matched": "yes"}), "budget: field 'matched' must be true, false or null"),
    (_obs_edit(framework={"stop_reason": ["x"]}), "framework: field 'stop_reason' must be a non-empty string"),
    ({**OBS, "config": {"model": [1]}}, "config: field 'model' must be a non-empty string or null"),
]


def _refused(fmt: str, sources: list[Path], words: str, tmp_path: Path, **options) -> None:
    out = tmp_path / "o.jsonl"
    with pytest.raises(InputError) as caught:
        run_import(fmt, sources, out, **options)
    message = str(caught.value)
    assert words in message and "\n" not in message, message
    assert "fix" in message and any(str(s) in message for s in sources + [p.parent for p in sources]), message
    assert not out.exists()


@pytest.mark.parametrize("content, words", AGENTDESCENT, ids=[w.split("must")[0].strip() for _, w in AGENTDESCENT])
def test_agentdescent_fields_of_the_wrong_type(tmp_path, content, words):
    source = tmp_path / "src.json"
    source.write_text(json.dumps(content))
    _refused("agentdescent", [source], words, tmp_path)


def test_a_good_agentdescent_file_still_imports(tmp_path):
    for content in (ARMS, OBS):
        source = tmp_path / "ok.json"
        source.write_text(json.dumps(content))
        assert run_import("agentdescent", [source], tmp_path / "o.jsonl") == 1


@pytest.mark.parametrize("text, words", [
    ("w,a,s,r\nq,x,1,0.5,9\n", "5 cells where the header names 4; quote a cell that holds a comma"),
    ("w,a,s,r\n,x,1,0.5\n", "empty workload name in column 'w'"),
])
def test_csv_rows_of_the_wrong_shape(tmp_path, text, words):
    source = tmp_path / "r.csv"
    source.write_text(text)
    out = tmp_path / "o.jsonl"
    with pytest.raises(InputError, match=words):
        run_import("csv", [source], out, mapping="workload=w,arm=a,seed=s,reward=r")
    assert not out.exists()


def _lm_eval_copy(tmp_path: Path, edit_results=None, edit_sample=None) -> Path:
    src = DATA / "lm_eval" / "output" / "strong"
    results = sorted(src.glob("results_*.json"))[0]
    samples = src / results.name.replace("results_", "samples_arith20_").replace(".json", ".jsonl")
    folder = tmp_path / "lm"
    folder.mkdir()
    data = json.loads(results.read_text())
    if edit_results:
        edit_results(data)
    (folder / results.name).write_text(json.dumps(data))
    lines = samples.read_text().splitlines()
    if edit_sample:
        first = json.loads(lines[0])
        edit_sample(first)
        lines[0] = json.dumps(first)
    (folder / samples.name).write_text("\n".join(lines) + "\n")
    return folder / results.name


LM_EVAL = [
    (lambda d: d["config"].update(model_args=5), None, "field 'model_args' must be an object or 'k=v,k=v' text"),
    (lambda d: d["config"].update(model=7), None, "config: field 'model' must be a non-empty string or null"),
    (lambda d: d["config"].update(use_cache=3), None, "field 'use_cache' must be a cache path"),
    (lambda d: d["n-samples"]["arith20"].update(effective="20"), None, "field 'effective' must be a count"),
    (lambda d: d["configs"]["arith20"].update(num_fewshot="0"), None, "field 'num_fewshot' must be an integer"),
    (lambda d: d["configs"]["arith20"].update(metric_list="exact_match"), None, "field 'metric_list' must be a list"),
    (None, lambda s: s.update(doc_hash=5), "field 'doc_hash' must be a non-empty string or null"),
    (None, lambda s: s.update(resps="x"), "field 'resps' must be a list or null"),
    (None, lambda s: s.update(filter=0), "field 'filter' must be a filter name"),
]


@pytest.mark.parametrize("edit_results, edit_sample, words", LM_EVAL, ids=[w for _, _, w in LM_EVAL])
def test_lm_eval_fields_of_the_wrong_type(tmp_path, edit_results, edit_sample, words):
    source = _lm_eval_copy(tmp_path, edit_results, edit_sample)
    _refused("lm-eval", [source], words, tmp_path)


def test_an_unedited_lm_eval_copy_imports(tmp_path):
    assert run_import("lm-eval", [_lm_eval_copy(tmp_path)], tmp_path / "o.jsonl") == 1


PROMPTFOO = [
    (lambda d: d.update(config=[1]), "field 'config' must be an object"),
    (lambda d: d.update(config={"description": 5}), "config: field 'description' must be a non-empty string"),
    (lambda d: d.update(runtimeOptions="fast"), "field 'runtimeOptions' must be an object"),
    (lambda d: d["results"]["results"][0].update(failureReason="2"), "field 'failureReason' must be promptfoo's"),
    (lambda d: d["results"]["results"][0].setdefault("response", {}).update(error=5),
     "response: field 'error' must be a message (string), an object or null"),
]


@pytest.mark.parametrize("edit, words", PROMPTFOO, ids=[w for _, w in PROMPTFOO])
def test_promptfoo_fields_of_the_wrong_type(tmp_path, edit, words):
    data = json.loads((DATA / "promptfoo" / "results.json").read_text())
    edit(data)
    source = tmp_path / "results.json"
    source.write_text(json.dumps(data))
    _refused("promptfoo", [source], words, tmp_path)


def test_the_compare_reader_never_sees_a_wrong_oracle(tmp_path, capsys):
    """The issue's chain: import, then compare with exit 0. Now the import stops, so there is no file to compare."""
    from baselines.cli import main

    source = tmp_path / "src.json"
    source.write_text(json.dumps(_arm_edit(test_oracle="x")))
    assert main(["import", "agentdescent", str(source), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "test_oracle" in capsys.readouterr().err and not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("fmt", ["agentdescent", "promptfoo", "lm-eval"])
def test_a_compressed_source_is_named_as_such(tmp_path, fmt):
    """Failed before: a .json.gz was "not UTF-8 text (byte 1)", naming neither the format nor the fix."""
    import gzip

    source = tmp_path / "results_2026-01-01T00-00-00.json"
    source.write_bytes(gzip.compress(json.dumps(ARMS).encode()))
    with pytest.raises(InputError) as caught:
        run_import(fmt, [source], tmp_path / "o.jsonl")
    message = str(caught.value)
    assert f"{source}: is gzip-compressed data, not text; decompress it first (gunzip)" in message, message
    assert "\n" not in message and not (tmp_path / "o.jsonl").exists()


def test_a_compressed_csv_and_suite_are_named_as_such(tmp_path, capsys):
    import gzip

    from baselines.cli import main

    csv_file = tmp_path / "r.csv"
    csv_file.write_bytes(gzip.compress(b"a,s,r\nx,1,0.5\n"))
    with pytest.raises(InputError, match="is gzip-compressed data, not a CSV file; decompress it first"):
        run_import("csv", [csv_file], tmp_path / "o.jsonl", mapping="arm=a,seed=s,reward=r")
    suite = tmp_path / "suite.toml"
    suite.write_bytes(gzip.compress(b"seeds = 2\n"))
    assert main(["plan", str(suite)]) == 2
    assert "is gzip-compressed data, not a suite (UTF-8 TOML); decompress it first" in capsys.readouterr().err
