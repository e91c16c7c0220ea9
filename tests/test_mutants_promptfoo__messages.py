"""The promptfoo importer's refusals (importers/promptfoo.py), one whole message per rule a mutant broke.

Each message is what a user sees when `costmatch import promptfoo` refuses a results file: the file and the
result (`results.results[i]`), the field as the file spells it (`testCase.options.repeat`, `response.tokenUsage`),
the value as JSON names it, and the fix. Small files written to tmp_path; see tests/test_importers_eval_tools.py
for the importer on a real promptfoo file.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from baselines.core.errors import InputError
from baselines.importers import import_promptfoo

ROW = {"promptIdx": 0, "testIdx": 0, "provider": {"id": "file://p.py", "label": "echo"},
       "prompt": {"raw": "hi {{x}}", "label": "p"}, "vars": {"x": 1}, "success": True, "score": 1,
       "latencyMs": 12, "failureReason": 0, "testCase": {"vars": {"x": 1}, "options": {}},
       "response": {"output": "hi 1", "tokenUsage": {"prompt": 3, "completion": 2, "numRequests": 1}, "cost": 0.001},
       "tokenUsage": {"numRequests": 1}, "namedScores": {}}


def row(**fields) -> dict:
    return {**copy.deepcopy(ROW), **fields}


def write(tmp_path: Path, *rows: dict, **top) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"version": 3, "results": list(rows)}, "config": {"description": "d"},
                                **top}))
    return path


def refused(path: Path, message: str, **options) -> None:
    with pytest.raises(InputError) as info:
        import_promptfoo(path, **options)
    assert str(info.value) == message


# -- the command line's choices -------------------------------------------------------------------------------
def test_an_unknown_arm_or_metric_is_refused_with_the_choices(tmp_path):
    path = write(tmp_path, row())
    refused(path, "--arm: 'providers' is not one of provider, prompt or provider+prompt", arm="providers")
    refused(path, "--metric: 'accuracy' is not one of pass, score or named:NAME (promptfoo)", metric="accuracy")
    refused(path, "--metric: 'named:' is not one of pass, score or named:NAME (promptfoo)", metric="named:")


# -- the file as a whole ------------------------------------------------------------------------------------
def test_a_file_that_is_not_promptfoo_json_says_what_promptfoo_writes(tmp_path):
    path = tmp_path / "results.json"
    path.write_bytes(b"\xff{}")
    refused(path, f"{path}: not UTF-8 text (byte 0); promptfoo files are UTF-8 JSON")
    path.write_text("[1,")
    with pytest.raises(InputError) as info:
        import_promptfoo(path)
    assert str(info.value).startswith(f"{path}: not a JSON file (") \
        and str(info.value).endswith("; promptfoo results are one JSON object")
    path.write_text('{"results": []}')
    refused(path, f"{path}: not a promptfoo results file; expected the JSON that promptfoo eval -o results.json "
                  "writes (an object with 'results': {'results': [...]})")
    path.write_text('{"results": {"results": [1]}}')
    refused(path, f"{path}: results.results[0] must be an object (one test result)")
    refused(write(tmp_path, row(), runtimeOptions={"repeat": 0}),
            f'{path}: field "runtimeOptions.repeat" must be an integer >= 1, got 0')


# -- one test result ------------------------------------------------------------------------------------
FIX = "fix it in the source file"
FIX_OR_REMOVE = "fix or remove it in the source file"


@pytest.mark.parametrize("fields, message", [
    ({"vars": [1]}, f"field 'vars' must be an object, got [1]; {FIX}"),
    ({"provider": {"url": "x"}}, f'field "provider" must be a non-empty string, got null; {FIX}'),
    ({"prompt": {"label": " "}}, f'field "prompt.label" must be a non-empty string, got " "; {FIX}'),
    ({"prompt": "hi"}, f"field 'prompt' must be an object, got str; {FIX_OR_REMOVE}"),
    ({"testIdx": -1}, f"field 'testIdx' must be an integer >= 0, got -1; {FIX}"),
    ({"promptIdx": "0"}, f"field 'promptIdx' must be an integer >= 0, got \"0\"; {FIX}"),
    ({"testCase": "t"}, f"field 'testCase' must be an object, got str; {FIX_OR_REMOVE}"),
    ({"testCase": {"options": []}}, f"field 'options' must be an object, got list; {FIX_OR_REMOVE}"),
    ({"testCase": {"options": {"repeat": 1.5}}}, 'field "testCase.options.repeat" must be an integer >= 1, got 1.5'),
    ({"failureReason": "2"}, "field 'failureReason' must be promptfoo's failure code (an integer) or null, "
                             f"got string \"2\"; {FIX_OR_REMOVE}"),
    ({"response": "hi"}, f"field 'response' must be an object, got str; {FIX_OR_REMOVE}"),
    ({"error": 5}, f"field 'error' must be a message (string), an object or null, got number 5; {FIX_OR_REMOVE}"),
    ({"success": "yes"}, "field 'success' must be true or false, got \"yes\""),
    ({"tokenUsage": []}, f"field 'tokenUsage' must be an object, got list; {FIX_OR_REMOVE}"),
    ({"latencyMs": -1}, f"field 'latencyMs' must be a finite number >= 0 or null, got -1; {FIX} "
                        "(null when it was not measured)"),
])
def test_a_bad_field_names_the_result_the_field_the_value_and_the_fix(tmp_path, fields, message):
    """The bad result is the second one, so the message must name results.results[1], not the first."""
    path = write(tmp_path, row(vars={"x": 0}), row(**{"testIdx": 1, **fields}))
    refused(path, f"{path}: results.results[1]: {message}")


NUMBER = "must be a finite number >= 0 or null, got -1; fix it in the source file (null when it was not measured)"


@pytest.mark.parametrize("edit, message", [
    (lambda r: r["response"].update(tokenUsage=[]), f"response: field 'tokenUsage' must be an object, got list; "
                                                    f"{FIX_OR_REMOVE}"),
    (lambda r: r["tokenUsage"].update(numRequests=-1), f"tokenUsage: field 'numRequests' {NUMBER}"),
    (lambda r: r["response"]["tokenUsage"].update(prompt=-1), f"response.tokenUsage: field 'prompt' {NUMBER}"),
    (lambda r: r["response"]["tokenUsage"].update(completion=-1), f"response.tokenUsage: field 'completion' {NUMBER}"),
    (lambda r: r["response"]["tokenUsage"].update(cached=-1), f"response.tokenUsage: field 'cached' {NUMBER}"),
    (lambda r: r["response"].update(cost=-1), f"response: field 'cost' {NUMBER}"),
])
def test_a_bad_spend_field_names_where_in_the_result_it_is(tmp_path, edit, message):
    bad = row(testIdx=1)
    edit(bad)
    path = write(tmp_path, row(vars={"x": 0}), bad)
    refused(path, f"{path}: results.results[1]: {message}")


def test_a_score_the_metric_cannot_use_is_refused_with_the_metric_to_change(tmp_path):
    path = write(tmp_path, row(score="high"))
    refused(path, f'{path}: results.results[0]: field "score" must be a finite number per item, got "high"; '
                  "choose a per-item metric with --metric", metric="score")
    path = write(tmp_path, row(namedScores={"acc": "x"}))
    refused(path, f'{path}: results.results[0]: field "namedScores.acc" must be a finite number per item, got "x"; '
                  "choose a per-item metric with --metric", metric="named:acc")
    path = write(tmp_path, row(namedScores=[]))
    refused(path, f"{path}: results.results[0]: field 'namedScores' must be an object, got list; {FIX_OR_REMOVE}",
            metric="named:acc")
    path = write(tmp_path, row(namedScores={"length": 1, "fluency": 0.5}))
    refused(path, f"{path}: results.results[0]: no named score 'acc' (it has: fluency, length); choose another --metric",
            metric="named:acc")


def test_two_columns_on_one_arm_say_which_arm_and_how_to_tell_them_apart(tmp_path):
    path = write(tmp_path, row(), row(promptIdx=1, prompt={"label": "q"}))
    refused(path, f'{path}: arm "echo" repeat 0: item "{{\\"x\\":1}}" appears twice in one run; two columns of the '
                  "file (provider x prompt) map to this arm: choose an --arm that tells them apart (provider+prompt) "
                  "or give them distinct labels", arm="provider")


def test_a_record_the_reader_refuses_names_its_arm_and_repeat(tmp_path):
    """A lone surrogate escape in a short `vars` becomes an item id UTF-8 cannot write."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": {"results": [row(vars={"x": "\udc00"})]}}))
    refused(path, f'{path}: arm "echo" repeat 0: a field holds text that is not valid Unicode (a lone surrogate '
                  "escape such as \\ud800); fix it in the source file")


def test_vars_holding_a_number_json_cannot_write_are_one_line_not_a_traceback(tmp_path):
    """Defect found by the allow_nan mutants: a var of 1e999 parses as inf, and json.dumps(allow_nan=False)
    raised ValueError (a traceback from `costmatch import promptfoo`) instead of a one-line refusal."""
    path = write(tmp_path, row(vars={"x": 12345}))
    path.write_text(path.read_text().replace('"x": 12345', '"x": 1e999'))
    refused(path, f'{path}: results.results[0]: field \'vars\' holds a number too large for JSON, got {{"x": Infinity}}; '
                  f"{FIX}")
