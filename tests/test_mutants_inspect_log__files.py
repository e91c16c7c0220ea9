"""Which files `import inspect` refuses, each in one line naming the file, what is wrong and the fix (issue 44)."""
from __future__ import annotations

import os
import shutil
import sys
import zipfile

import pytest

from baselines.core.errors import InputError
from baselines.importers.inspect_log import check_log_file, read_log
from tests.test_mutants_inspect_log__logs import EVAL_LOG, base_log, read, refusal, write_log

NEEDS = "import inspect needs inspect_ai: pip install 'costmatch[inspect]'"


def test_a_missing_log_is_named_as_an_inspect_log(tmp_path):
    path = tmp_path / "gone.eval"
    assert refusal([path]) == f"{path}: no such inspect log; check the path"


def test_a_folder_is_refused_before_inspect_ai_reads_it(tmp_path):
    assert refusal([tmp_path]) == f"{tmp_path}: the inspect log is a folder, not a file; pass the file itself"


def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "pipe.eval"
    os.mkfifo(path)
    assert refusal([path]) == f"{path}: the inspect log is a named pipe (FIFO), not a file; save it to a regular file first"


def test_a_zip_with_a_member_outside_it_is_refused_as_an_inspect_log(tmp_path):
    path = tmp_path / "evil.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("../escape.json", "{}")
    assert refusal([path]) == (f"{path}: the inspect log has a member named '../escape.json', a path outside the "
                               "archive (absolute or with '..'); it is not a log inspect wrote")
    with pytest.raises(InputError, match="the inspect log has a member"):
        check_log_file(str(path))   # a path given as text is checked too


def test_a_sound_eval_log_passes_the_check(tmp_path):
    copy = tmp_path / "copy.eval"
    shutil.copy(EVAL_LOG, copy)
    assert check_log_file(copy) is None and check_log_file(str(copy)) is None
    assert len(read(copy)) == 2


def test_a_file_that_is_not_a_log_says_what_inspect_ai_said_and_what_is_expected(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text('{"hello": "world"}')
    message = refusal([path])
    assert message.startswith(f"{path}: not an inspect_ai evaluation log (")
    assert message.endswith("); expected a .eval or .json log written by inspect eval")


def test_inspect_ai_s_reason_is_one_line_of_at_most_200_characters(tmp_path):
    log = base_log()
    for s in log["samples"]:
        s["epoch"] = "one"   # inspect_ai's models refuse it: a long, multi-line validation message
    path = write_log(tmp_path, log)
    message = refusal([path])
    head = f"{path}: not an inspect_ai evaluation log ("
    tail = "); expected a .eval or .json log written by inspect eval"
    assert message.startswith(head) and message.endswith(tail)
    reason = message[len(head):-len(tail)]
    kind, said = reason.split(": ", 1)
    assert kind.isidentifier() and len(said) == 200 and "  " not in said


def test_a_short_reason_is_kept_whole_with_its_spaces_collapsed(tmp_path, monkeypatch):
    import inspect_ai.log

    def refuse(path, *args, **kwargs):
        raise ValueError(f"bad\n\n   header   in {os.path.basename(path)}")

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", refuse)
    path = write_log(tmp_path, base_log())
    assert refusal([path]) == (f"{path}: not an inspect_ai evaluation log (ValueError: bad header in arith.json); "
                               "expected a .eval or .json log written by inspect eval")


def test_a_log_without_samples_asks_about_no_log_samples(tmp_path):
    log = base_log()
    log["samples"] = []
    path = write_log(tmp_path, log)
    assert refusal([path]) == (f"{path}: the log has no samples (status 'success'); "
                               "was it written with --no-log-samples?")
    log["status"] = "error"
    del log["samples"]
    path = write_log(tmp_path / "b", log)
    assert refusal([path]) == (f"{path}: the log has no samples (status 'error'); "
                               "was it written with --no-log-samples?")


def test_read_log_returns_the_log_inspect_ai_read(tmp_path):
    log = read_log(write_log(tmp_path, base_log()))
    assert log.eval.task == "arith" and len(log.samples) == 6
    assert read_log(str(EVAL_LOG)).eval.model == "mockllm/model"


def test_the_first_bad_file_stops_the_import_before_any_record(tmp_path):
    good = write_log(tmp_path / "a", base_log())
    assert refusal([good, tmp_path / "none.json"]) == f"{tmp_path / 'none.json'}: no such inspect log; check the path"


def test_without_inspect_ai_a_json_log_says_how_to_install_it(tmp_path, monkeypatch):
    path = write_log(tmp_path, base_log())
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)   # import fails as when not installed
    assert refusal([path]) == NEEDS


def test_without_inspect_ai_an_eval_log_says_how_to_install_it_not_that_the_zip_is_bad(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zipfile_zstd", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.scorer", None)
    assert refusal([EVAL_LOG]) == NEEDS
    with pytest.raises(InputError) as caught:
        check_log_file(EVAL_LOG)
    assert str(caught.value) == NEEDS


def test_without_zipfile_zstd_but_with_inspect_ai_the_check_goes_on(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zipfile_zstd", None)
    assert check_log_file(EVAL_LOG) is None
    assert len(read(EVAL_LOG)) == 2


@pytest.mark.parametrize("where, edit", [
    ("plan", lambda log: log.update(plan=None)),
    ("input_tokens", lambda log: log["samples"][0]["model_usage"]["mockllm/model"].update(input_tokens=None)),
    ("output_tokens", lambda log: log["samples"][0]["model_usage"]["mockllm/model"].update(output_tokens=None)),
    ("error", lambda log: log["samples"][0].update(error="plain text")),
    ("error_retries", lambda log: log["samples"][0].update(error_retries=["plain text"])),
])
def test_inspect_ai_refuses_what_the_importer_s_fallbacks_would_cover(tmp_path, where, edit):
    """What benchmarks/mutation_equivalent/inspect_log.toml relies on: inspect_ai's models give every log a plan,
    every usage integer input and output tokens, and every error and retry a message; a log without them is
    refused whole, so the importer's `if log.plan`, `is None` and getattr defaults never decide anything."""
    log = base_log()
    edit(log)
    message = refusal([write_log(tmp_path, log)])
    assert "not an inspect_ai evaluation log (ValidationError" in message and where in message


def test_every_usage_part_the_importer_reads_is_a_field_of_inspect_ai_s_model_usage():
    from inspect_ai.model import ModelUsage
    from baselines.importers.inspect_log import _DIRECT
    assert {*_DIRECT, "input_tokens"} <= set(ModelUsage.model_fields)
    assert ModelUsage.model_fields["input_tokens"].annotation is int
    assert ModelUsage.model_fields["output_tokens"].annotation is int
