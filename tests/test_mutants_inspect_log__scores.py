"""An inspect epoch's reward: the primary scorer's mean, and the one error rule of importers/common (issue 44).

A sample that errored, or has no number from the scorer, leaves the epoch unscored (reward null, the mean of
the others kept as source_reward, the errors in `error`); an earlier failed attempt of a sample whose retry
was scored is a note and the reward is kept.
"""
from __future__ import annotations

import copy

import pytest

from tests.test_mutants_inspect_log__logs import NOTE, base_log, read, sample, samples, write_log


def epoch_one(log: dict) -> dict:
    log["samples"] = samples(log, 1)
    return log


def set_values(log: dict, values: list, scorer: str = "match") -> None:
    for s, value in zip(samples(log, 1), values):
        s["scores"] = {scorer: {"value": value}}


def error(message: str) -> dict:
    return {"message": message, "traceback": f"Traceback:\n{message}\n", "traceback_ansi": message}


def add_scorer(log: dict, name: str, first: bool = False) -> None:
    """A second scorer in the results (first or after match), and a value of it in every sample."""
    entry = copy.deepcopy(log["results"]["scores"][0])
    entry["name"] = entry["scorer"] = name
    log["results"]["scores"].insert(0 if first else 1, entry)


def one(tmp_path, log) -> dict:
    [record] = read(write_log(tmp_path, log))
    return record


@pytest.mark.parametrize("values, mean", [(["C", "I", "C"], 2 / 3), ([0.25, 1, 0.5], 1.75 / 3), ([True, False, False], 1 / 3),
                                          (["P", "C", "N"], 0.5), (["yes", "0.75", "no"], 0.5833333333333334)])
def test_the_reward_is_the_mean_of_the_scorer_values_as_inspect_reads_them(tmp_path, values, mean):
    log = epoch_one(base_log())
    set_values(log, values)
    record = one(tmp_path, log)
    assert record["reward"] == pytest.approx(mean) and record["scored"] == 3 and record["error"] is None
    assert "source_reward" not in record


def test_the_primary_scorer_is_the_first_in_the_results(tmp_path):
    log = epoch_one(base_log())
    add_scorer(log, "judge")
    for s, (m, j) in zip(log["samples"], [("C", 0.25), ("I", 0.25), ("I", 0.25)]):
        s["scores"] = {"match": {"value": m}, "judge": {"value": j}}
    record = one(tmp_path / "a", log)
    assert (record["reward"], record["scorer"]) == (1 / 3, "match")
    add_scorer(log, "first", first=True)
    for s, value in zip(log["samples"], [1.0, 0.5, 0.0]):
        s["scores"] = {"judge": {"value": 0.25}, "match": {"value": "C"}, "first": {"value": value}}
    record = one(tmp_path / "b", log)
    assert (record["reward"], record["scorer"]) == (0.5, "first")


def test_without_results_each_sample_first_score_counts_and_no_scorer_is_named(tmp_path):
    log = epoch_one(base_log())
    log["results"] = None
    for s, value in zip(log["samples"], [1.0, 0.5, 0.0]):
        s["scores"] = {"anything": {"value": value}, "match": {"value": "C"}}
    record = one(tmp_path, log)
    assert record["reward"] == 0.5 and "scorer" not in record and record["scored"] == 3


def test_results_without_scores_are_like_no_results(tmp_path):
    log = epoch_one(base_log())
    log["results"]["scores"] = []
    set_values(log, [1.0, 1.0, 0.5], scorer="other")
    record = one(tmp_path, log)
    assert record["reward"] == pytest.approx(2.5 / 3) and "scorer" not in record


def test_a_sample_without_the_scorer_value_leaves_the_epoch_unscored(tmp_path):
    log = epoch_one(base_log())
    set_values(log, ["C", "C", "I"])
    sample(log, 1, 1)["scores"] = {"judge": {"value": 1.0}}  # another scorer's value does not count
    record = one(tmp_path, log)
    assert (record["reward"], record["source_reward"], record["scored"]) == (None, 0.5, 2)
    assert record["error"] == "sample 1: no match value that is a number"


def test_a_sample_without_scores_and_a_log_without_results_say_no_score(tmp_path):
    log = epoch_one(base_log())
    log["results"] = None
    set_values(log, [1.0, 1.0, 0.5])
    del sample(log, 1, 2)["scores"]
    sample(log, 1, 0)["scores"] = {}
    record = one(tmp_path, log)
    assert record["error"] == "sample 0: no score value that is a number; sample 2: no score value that is a number"
    assert (record["reward"], record["source_reward"], record["scored"]) == (None, 1.0, 1)


def test_an_errored_sample_is_unscored_and_the_later_samples_still_count(tmp_path):
    log = epoch_one(base_log())
    set_values(log, ["C", "I", "C"])
    sample(log, 1, 0)["error"] = error("RuntimeError('boom')")   # its score is not the selected attempt's
    record = one(tmp_path, log)
    assert record["error"] == "sample 0: RuntimeError('boom')"
    assert (record["reward"], record["source_reward"], record["scored"], record["samples"]) == (None, 0.5, 2, 3)
    assert record["notes"] == [NOTE]   # sample 1 comes after the errored one: its note is kept


def test_every_errored_sample_is_named_in_order(tmp_path):
    log = epoch_one(base_log())
    set_values(log, ["C", "I", "C"])
    sample(log, 1, 0)["error"] = error("first")
    sample(log, 1, 2)["error"] = error("third")
    record = one(tmp_path, log)
    assert record["error"] == "sample 0: first; sample 2: third"
    assert (record["reward"], record["source_reward"], record["scored"]) == (None, 0.0, 1)


def test_an_epoch_whose_every_sample_errored_has_no_reward_at_all(tmp_path):
    log = epoch_one(base_log())
    for s in log["samples"]:
        s["error"] = error("down")
    record = one(tmp_path, log)
    assert record["reward"] is None and record["scored"] == 0 and "source_reward" not in record
    assert record["error"] == "sample 0: down; sample 1: down; sample 2: down"


def test_retried_attempts_are_notes_and_the_reward_is_kept(tmp_path):
    log = epoch_one(base_log())
    set_values(log, ["C", "C", "I"])
    sample(log, 1, 2)["error_retries"] = [error("TimeoutError()"), error("ConnectionError('x')")]
    record = one(tmp_path, log)
    assert record["reward"] == 2 / 3 and record["error"] is None
    assert record["notes"] == [NOTE, "sample 2: an earlier attempt failed and was retried: TimeoutError()",
                               "sample 2: an earlier attempt failed and was retried: ConnectionError('x')"]


def test_an_epoch_without_retries_has_no_notes(tmp_path):
    log = epoch_one(base_log())
    sample(log, 1, 1)["error_retries"] = []
    assert "notes" not in one(tmp_path, log)


def test_the_retry_of_an_errored_sample_is_a_note_beside_the_error(tmp_path):
    log = epoch_one(base_log())
    set_values(log, ["C", "C", "C"])
    sample(log, 1, 1)["error"] = error("still failing")
    record = one(tmp_path, log)
    assert record["notes"] == [NOTE] and record["error"] == "sample 1: still failing"
    assert (record["reward"], record["source_reward"]) == (None, 1.0)


@pytest.mark.parametrize("value", [{"accuracy": 1, "f1": 0.5}, [1, 1]])
def test_a_scorer_value_that_is_not_one_number_leaves_the_epoch_unscored_not_zero(tmp_path, value):
    """A scorer with several values (an object or a list) gives no one reward; inspect_ai's value_to_float
    makes it 0 with a warning, which counted every such sample as a wrong answer (failed before the fix)."""
    log = epoch_one(base_log())
    set_values(log, ["C", "C", "C"])
    sample(log, 1, 1)["scores"] = {"match": {"value": value}}
    record = one(tmp_path, log)
    assert record["error"] == "sample 1: no match value that is a number"
    assert (record["reward"], record["source_reward"], record["scored"]) == (None, 1.0, 2)


@pytest.mark.parametrize("value", ["correct", "abc", "", "nan", "inf", "1e999"])
def test_a_text_value_inspect_cannot_read_leaves_the_epoch_unscored_not_zero(tmp_path, value):
    """inspect_ai's value_to_float reads C/I/P/N, yes/no/true/false and finite number text; any other text it
    logs and makes 0, which counted a scorer's "correct" as a wrong answer (failed before the fix)."""
    log = epoch_one(base_log())
    set_values(log, ["C", "C", "C"])
    sample(log, 1, 1)["scores"] = {"match": {"value": value}}
    record = one(tmp_path, log)
    assert record["error"] == (f"sample 1: match value {value!r} is not a number, C, I, P, N, yes, no, true "
                               f"or false (what inspect_ai reads as a score)")
    assert (record["reward"], record["source_reward"], record["scored"]) == (None, 1.0, 2)


@pytest.mark.parametrize("value, reward", [("c", None), ("Yes", 1.0), ("FALSE", 0.0), (" 0.25 ", 0.25), ("-1e-1", -0.1),
                                           ("i", None)])
def test_text_values_are_read_as_inspect_reads_them(tmp_path, value, reward):
    """The words ignore case, the letters C/I/P/N do not (inspect compares them with ==), number text as float()."""
    log = epoch_one(base_log())
    set_values(log, [value, value, value])
    record = one(tmp_path, log)
    if reward is None:
        assert record["reward"] is None and record["scored"] == 0 and "is not a number" in record["error"]
    else:
        assert record["reward"] == pytest.approx(reward) and record["error"] is None


def test_unreadable_text_without_results_names_the_value_as_a_score(tmp_path):
    """With no scorer named in the results the message says "score", as the no-value message does."""
    log = epoch_one(base_log())
    log["results"] = None
    for s in log["samples"]:
        s["scores"] = {"anything": {"value": "C"}}
    sample(log, 1, 1)["scores"] = {"anything": {"value": "correct"}}
    record = one(tmp_path, log)
    assert record["error"] == ("sample 1: score value 'correct' is not a number, C, I, P, N, yes, no, true or false "
                               "(what inspect_ai reads as a score)")
    assert (record["reward"], record["source_reward"]) == (None, 1.0)
