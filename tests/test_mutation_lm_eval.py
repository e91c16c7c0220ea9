"""The lm-eval importer's rules that mutation testing found unchecked (issue 44, `importers/lm_eval.py`).

Each test writes a small results file and its samples file (the layout lm-eval writes), changes one field,
and checks the one rule that field is read by: the arm choices and their settings text, the metric and its
filter, the mean aggregation, the documents' count, the run's clock, the response count and the cache, the
reward range, the document hashes across files, and the folder expansion.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from baselines import InputError
from baselines.importers import lm_eval
from baselines.importers.lm_eval import import_lm_eval, import_lm_eval_files

DATE = "2026-12-01T16-29-31.661085"


def sample(doc_id, value=1.0, filt="none", metric="exact_match", resps=(("44",),), doc_hash=None, **extra):
    line = {"doc_id": doc_id, "resps": None if resps is None else [r if isinstance(r, str) else list(r) for r in resps],
            "filter": filt, metric: value,
            "doc_hash": f"h{doc_id}" if doc_hash is None else doc_hash, **extra}
    if resps is None:
        del line["resps"]
    return line


def results(task="arith", metrics=("exact_match,none",), n=None, seed=0, config=None, task_config=None,
            extra_tasks=(), **top):
    data = {"results": {task: {"alias": task, **{m: 0.5 for m in metrics}, "exact_match_stderr,none": 0.1}},
            "configs": {task: {"task": task, "num_fewshot": 0,
                               "metric_list": [{"metric": "exact_match", "aggregation": "mean"}],
                               "metadata": {"version": 1.0, "size": "big"}, **(task_config or {})}},
            "n-samples": {task: {"original": 2, "effective": 2 if n is None else n}},
            "config": {"model": "local-chat-completions", "model_args": {"model": "strong", "temp": 0},
                       "gen_kwargs": {"top_p": 0.5}, "random_seed": seed, "use_cache": None, **(config or {})},
            "model_name": "strong", "total_evaluation_time_seconds": "12.5", **top}
    for other in extra_tasks:
        data["results"][other] = {"exact_match,none": 0.5}
        data["configs"][other] = {"task": other}
        data["n-samples"][other] = {"effective": 1}
    return data


def write(folder: Path, data: dict, samples: dict[str, list[dict]], date: str = DATE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"results_{date}.json"
    path.write_text(json.dumps(data))
    for task, lines in samples.items():
        (folder / f"samples_{task}_{date}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def one(tmp_path, data=None, lines=None, **kw):
    path = write(tmp_path, results() if data is None else data,
                 {"arith": [sample(0, 1.0), sample(1, 0.0)] if lines is None else lines})
    [record] = import_lm_eval(path, **kw)
    return record


def refused(tmp_path, data=None, lines=None, **kw) -> str:
    with pytest.raises(InputError) as caught:
        one(tmp_path, data, lines, **kw)
    return str(caught.value)


# -- the record --------------------------------------------------------------------------------------------

def test_a_record_is_the_files_own_items_seed_metric_and_spend(tmp_path):
    r = one(tmp_path, results(seed=7))
    assert (r.workload, r.arm, r.seed, r.reward) == ("arith", "strong", 7, 0.5)
    assert r.items == [{"id": "0", "reward": 1.0}, {"id": "1", "reward": 0.0}]
    assert r.extra["metric"] == "exact_match,none" and r.extra["source"] == f"lm-eval:results_{DATE}.json"
    assert r.extra["reward_range"] == [0.0, 1.0] and r.extra["source_reward"] == 0.5
    assert r.spend == {"calls": 2, "prompt_tokens": None, "completion_tokens": None, "tokens": None, "usd": None,
                       "seconds": 12.5}
    assert r.params == {"model": "local-chat-completions", "model_args": {"model": "strong", "temp": 0},
                        "gen_kwargs": {"top_p": 0.5}, "num_fewshot": 0}


def test_rewards_outside_zero_one_declare_no_range(tmp_path):
    r = one(tmp_path, lines=[sample(0, 2.5), sample(1, 0.5)])
    assert r.reward == 1.5 and "reward_range" not in r.extra


def test_the_seed_must_be_an_integer(tmp_path):
    for bad in (True, 1.5, "3"):
        assert "field 'config.random_seed' must be an integer, got " in refused(tmp_path, results(seed=bad))
    data = results()
    del data["config"]["random_seed"]
    assert one(tmp_path, data).seed == 0


# -- arms ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, arm", [("model", "strong"), ("model-arg:temp", "0"), ("gen-kwarg:top_p", "0.5"),
                                       ("meta:size", "big"), ("model-arg:model", "strong")])
def test_each_arm_choice_reads_its_own_setting(tmp_path, spec, arm):
    assert one(tmp_path, arm=spec).arm == arm
    assert one(tmp_path, arm=spec, arm_suffix="v2").arm == f"{arm} [v2]"


@pytest.mark.parametrize("spec", ["models", "model-arg", "model-arg:", "meta", "gen-kwarg:", "other:x", ""])
def test_an_arm_spec_that_is_not_a_choice_is_refused(spec):
    with pytest.raises(InputError) as caught:
        lm_eval.check_arm_spec(spec)
    assert str(caught.value) == f"--arm: {spec!r} is not one of model, model-arg:NAME, gen-kwarg:NAME or meta:KEY"


def test_the_model_name_falls_back_to_pretrained_then_model_then_the_config():
    def named(model_name=None, args=None, model=None):
        data = {"config": {"model_args": args or {}, "model": model}}
        if model_name is not None:
            data["model_name"] = model_name
        return lm_eval.arm_of(data, {}, "model", "here")
    assert named("m", {"pretrained": "p", "model": "x"}, "c") == "m"
    assert named(None, {"pretrained": "p", "model": "x"}, "c") == "p"
    assert named(None, {"model": "x"}, "c") == "x"
    assert named(None, {}, "c") == "c"
    assert named("", {"pretrained": "p"}) == "p"
    for bad in (None, "  "):
        with pytest.raises(InputError) as caught:
            named(None, {}, bad)
        assert str(caught.value) == ("here: no model name (field 'model_name'); choose another --arm "
                                     "(model, model-arg:NAME, gen-kwarg:NAME or meta:KEY)")


def test_an_arm_setting_the_run_lacks_names_the_ones_it_has():
    data = {"config": {"model_args": {"b": 1, "a": 2}}}
    with pytest.raises(InputError) as caught:
        lm_eval.arm_of(data, {}, "model-arg:c", "here")
    assert str(caught.value) == ("here: --arm model-arg:c: the run has no model-arg 'c' (it has: a, b); choose "
                                 "another --arm (model, model-arg:NAME, gen-kwarg:NAME or meta:KEY)")
    with pytest.raises(InputError, match=r"the run has no meta 'k' \(it has: none\)"):
        lm_eval.arm_of(data, {}, "meta:k", "here")
    with pytest.raises(InputError, match=r"the run has no gen-kwarg 'k' \(it has: none\)"):
        lm_eval.arm_of(data, {}, "gen-kwarg:k", "here")
    assert lm_eval.arm_of(data, {"metadata": {"k": "v"}}, "meta:k", "here") == "v"
    assert lm_eval.arm_of({"config": {"gen_kwargs": "k=1,j=2"}}, {}, "gen-kwarg:j", "here") == "2"


def test_settings_text_is_split_on_commas_and_the_first_equals_sign():
    assert lm_eval._settings("pretrained=gpt2,dtype=float16,x=a=b,junk") == \
        {"pretrained": "gpt2", "dtype": "float16", "x": "a=b"}
    assert lm_eval._settings(None) == {} and lm_eval._settings({"a": 1}) == {"a": 1}
    with pytest.raises(InputError) as caught:
        lm_eval._settings(3, "here: config", "model_args")
    assert "here: config" in str(caught.value) and "model_args" in str(caught.value)
    assert "an object or 'k=v,k=v' text" in str(caught.value)


# -- the metric and its filter ----------------------------------------------------------------------------------

def test_the_first_reported_metric_is_the_default_and_stderr_and_names_are_not_metrics():
    data = {"results": {"t": {"alias": "t", "name": "t", "sample_len": 3, " ": "x", "acc_stderr,none": 0.1,
                              "acc": 0.2, "acc,none": 0.5, "em,strict": 0.4}}}
    assert lm_eval.choose_metric(data, "t", None, "here") == ("acc", "none")
    assert lm_eval.choose_metric(data, "t", "em", "here") == ("em", "strict")
    assert lm_eval.choose_metric(data, "t", "acc,none", "here") == ("acc", "none")
    with pytest.raises(InputError) as caught:
        lm_eval.choose_metric(data, "t", "acc,strict", "here")
    assert str(caught.value) == ("here: task 't' reports no metric 'acc,strict' (it has: acc,none, em,strict); "
                                 "choose one with --metric NAME[,FILTER]")
    with pytest.raises(InputError) as caught:
        lm_eval.choose_metric({"results": {"t": {"alias": "t"}}}, "t", "acc", "here")
    assert "(it has: none)" in str(caught.value)
    with pytest.raises(InputError) as caught:
        lm_eval.choose_metric({"results": {"t": {"alias": "t", "acc_stderr,none": 1}}}, "t", None, "here")
    assert str(caught.value) == "here: task 't' reports no metric; was the run complete?"


def test_a_filter_in_a_metric_name_keeps_its_commas():
    data = {"results": {"t": {"em,a,b": 0.5}}}
    assert lm_eval.choose_metric(data, "t", "em,a,b", "here") == ("em", "a,b")


def test_items_are_those_of_the_chosen_filter_only(tmp_path):
    data = results(metrics=("exact_match,none", "exact_match,strict"))
    lines = [sample(0, 1.0), sample(1, 1.0), sample(0, 0.0, filt="strict"), sample(1, 0.0, filt="strict")]
    assert one(tmp_path, data, lines).reward == 1.0
    assert one(tmp_path, data, lines, metric="exact_match,strict").reward == 0.0
    # a line without a filter is the filter 'none'
    bare = [sample(0, 1.0), sample(1, 0.0)]
    for line in bare:
        del line["filter"]
    assert one(tmp_path, lines=bare).reward == 0.5


def test_a_metric_aggregated_other_than_by_the_mean_is_refused():
    config = {"metric_list": [{"metric": "other"}, {"metric": "f1", "aggregation": "f1_score"}]}
    with pytest.raises(InputError) as caught:
        lm_eval._check_mean_aggregation(config, "f1", "here")
    assert str(caught.value) == ("here: metric 'f1' is aggregated by \"f1_score\", not the mean of per-document "
                                 "values, so it has no per-item outcome; choose another with --metric")
    lm_eval._check_mean_aggregation(config, "other", "here")          # no aggregation given: the mean
    lm_eval._check_mean_aggregation({"metric_list": [{"metric": "f1", "aggregation": None}]}, "f1", "here")
    lm_eval._check_mean_aggregation({"metric_list": [{"metric": "f1", "aggregation": "mean"}]}, "f1", "here")
    lm_eval._check_mean_aggregation({"metric_list": ["f1"]}, "f1", "here")
    lm_eval._check_mean_aggregation({}, "f1", "here")


# -- documents --------------------------------------------------------------------------------------------------

def test_the_documents_must_number_what_the_results_file_says(tmp_path):
    assert refused(tmp_path, results(n=3)).endswith(
        "holds 2 documents for filter 'none', the results file says 3; was the samples file cut short?")
    data = results()
    del data["n-samples"]["arith"]["effective"]
    assert one(tmp_path, data).reward == 0.5
    for bad in (True, -1, 2.0, "2"):
        assert "a count of documents (an integer >= 0)" in refused(tmp_path, results(n=bad))


def test_a_samples_line_is_checked_field_by_field(tmp_path):
    assert "a samples line must be a JSON object (one document)" in refused(tmp_path, lines=[[1], sample(1)])
    assert "filter" in refused(tmp_path, lines=[sample(0, filt=3), sample(1)])
    for bad in (True, 1.5, "", None):
        message = refused(tmp_path, lines=[sample(bad), sample(1)])
        assert "field 'doc_id' must be an integer or a non-empty string, got" in message, bad
    line = sample(0)
    del line["exact_match"]
    message = refused(tmp_path, lines=[line, sample(1)])
    assert message.endswith(":1: field \"exact_match\" is missing; the document has no value for the chosen "
                            "metric (choose another with --metric)")
    assert refused(tmp_path, lines=[sample(0), sample(0)]).count("lm-eval writes each document once per filter")
    assert [i["id"] for i in one(tmp_path, lines=[sample("q7"), sample(1)]).items] == ["q7", "1"]


def test_responses_are_counted_per_document_and_unknown_when_one_lacks_them_or_the_cache_was_on(tmp_path):
    lines = [sample(0, resps=(("a", "b"), ("c",))), sample(1, resps=("x",))]      # [[a, b], [c]]: 3; ["x"]: 1
    assert one(tmp_path, lines=lines).spend["calls"] == 4          # a list counts its entries, anything else one
    assert one(tmp_path, lines=[sample(0, resps=None), sample(1)]).spend["calls"] is None
    assert one(tmp_path, lines=[sample(0), sample(1, resps=None)]).spend["calls"] is None
    assert one(tmp_path, results(config={"use_cache": "cache/db"})).spend["calls"] is None
    assert one(tmp_path, results(config={"use_cache": False})).spend["calls"] == 2
    message = refused(tmp_path, results(config={"use_cache": 3}))
    assert "use_cache" in message and "a cache path (string), true, false or null" in message


def test_num_fewshot_is_an_integer_or_null(tmp_path):
    assert one(tmp_path, results(task_config={"num_fewshot": None})).params["num_fewshot"] is None
    assert one(tmp_path, results(task_config={"num_fewshot": 5})).params["num_fewshot"] == 5
    for bad in (True, 1.5):
        assert "an integer or null" in refused(tmp_path, results(task_config={"num_fewshot": bad}))


# -- the run's clock -------------------------------------------------------------------------------------------

def test_the_runs_seconds_are_its_clock_when_it_evaluated_one_task_only(tmp_path):
    assert lm_eval._seconds("35.25", "here") == 35.25 and lm_eval._seconds(4, "here") == 4.0
    assert lm_eval._seconds(None, "here") is None and lm_eval._seconds(0, "here") == 0.0
    with pytest.raises(InputError) as caught:
        lm_eval._seconds("soon", "here")
    assert str(caught.value) == "here: field 'total_evaluation_time_seconds' must be a number of seconds, got \"soon\""
    for bad in ("-1", "inf", "nan"):
        with pytest.raises(InputError) as caught:
            lm_eval._seconds(bad, "here")
        assert str(caught.value) == (f"here: field 'total_evaluation_time_seconds' is \"{bad}\"; a time is a "
                                     "finite number >= 0")
    path = write(tmp_path, results(extra_tasks=("other",)),
                 {"arith": [sample(0), sample(1)], "other": [sample(0)]})
    records = import_lm_eval(path)
    assert [r.workload for r in records] == ["arith", "other"]
    assert [r.spend["seconds"] for r in records] == [None, None]     # two tasks share one clock: unreported


# -- files ------------------------------------------------------------------------------------------------------

def test_a_folder_stands_for_its_results_files_and_an_empty_one_is_refused(tmp_path):
    write(tmp_path / "out" / "b", results(seed=1), {"arith": [sample(0), sample(1)]})
    write(tmp_path / "out" / "a", results(seed=2), {"arith": [sample(0), sample(1)]})
    assert [r.seed for r in import_lm_eval_files([tmp_path / "out"])] == [2, 1]     # sorted paths
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as caught:
        import_lm_eval(tmp_path / "empty")
    assert str(caught.value) == (f"{tmp_path / 'empty'}: no results_*.json under this folder; give lm_eval's "
                                 "--output_path folder or its results files")


def test_not_a_results_file_or_no_date_in_its_name_is_refused(tmp_path):
    for data in ({"results": {}}, {"configs": {}}, {"results": [], "configs": {}}, [1]):
        path = tmp_path / f"results_{DATE}.json"
        path.write_text(json.dumps(data))
        with pytest.raises(InputError, match="not an lm-evaluation-harness results file"):
            import_lm_eval(path)
    path = tmp_path / "results_today.json"
    path.write_text(json.dumps(results()))
    with pytest.raises(InputError, match="cannot tell the run's date from the file name"):
        import_lm_eval(path)


def test_a_document_id_must_name_the_same_document_in_every_file(tmp_path):
    first = write(tmp_path / "a", results(), {"arith": [sample(0), sample(1)]})
    same = write(tmp_path / "b", results(seed=1), {"arith": [sample(0), sample(1, doc_hash="h1")]})
    other = write(tmp_path / "c", results(seed=2), {"arith": [sample(0), sample(1, doc_hash="changed")]})
    assert len(import_lm_eval_files([first, same])) == 2
    with pytest.raises(InputError) as caught:
        import_lm_eval_files([first, same, other])
    assert str(caught.value) == (f"{other}: task 'arith' document 1 is not the document of the same id in {first} "
                                 "(doc_hash differs); items would pair different questions: compare runs of one "
                                 "dataset version")
    # a line without a hash is not judged
    bare = write(tmp_path / "d", results(seed=3), {"arith": [sample(0), {**sample(1), "doc_hash": None}]})
    assert len(import_lm_eval_files([first, bare])) == 2


# -- every refusal names its file, its task or line, and its field (the rule: one line naming the fix) ---------

FIX = "fix or remove it in the source file"


def _set(path, value):
    def edit(data, lines):
        *keys, last = path
        target = data
        for key in keys:
            target = target[key]
        target[last] = value
    return edit


def _line(**fields):
    def edit(data, lines):
        lines[0].update(fields)
    return edit


def _arm_meta_empty(data, lines):
    data["configs"]["arith"]["metadata"]["size"] = ""


REFUSALS = [
    # (what is wrong, the edit, the arm asked for, the message: R the results file, S the samples file)
    ("config", _set(("config",), [1]), None, "{R}: field 'config' must be an object, got list; " + FIX),
    ("n-samples", _set(("n-samples",), [1]), None, "{R}: field 'n-samples' must be an object, got list; " + FIX),
    ("n-samples task", _set(("n-samples", "arith"), 3), None,
     "{R}: n-samples: field 'arith' must be an object, got int; " + FIX),
    ("effective", _set(("n-samples", "arith", "effective"), -1), None,
     "{R}: n-samples: arith: field 'effective' must be a count of documents (an integer >= 0), got number -1; " + FIX),
    ("use_cache", _set(("config", "use_cache"), 3), None,
     "{R}: config: field 'use_cache' must be a cache path (string), true, false or null, got number 3; " + FIX),
    ("num_fewshot", _set(("configs", "arith", "num_fewshot"), 1.5), None,
     "{R}: configs: arith: field 'num_fewshot' must be an integer or null, got number 1.5; " + FIX),
    ("seconds", _set(("total_evaluation_time_seconds",), "soon"), None,
     "{R}: task 'arith': field 'total_evaluation_time_seconds' must be a number of seconds, got \"soon\""),
    ("model name", lambda d, l: (d.update(model_name=""), d["config"].update(model=None, model_args={})), None,
     "{R}: task 'arith': no model name (field 'model_name'); choose another --arm (model, model-arg:NAME, "
     "gen-kwarg:NAME or meta:KEY)"),
    ("model label", _set(("config", "model"), 3), None,
     "{R}: config: field 'model' must be a non-empty string or null, got number 3; " + FIX),
    ("model_args", _set(("config", "model_args"), 3), None,
     "{R}: task 'arith': config: field 'model_args' must be an object or 'k=v,k=v' text, got number 3; " + FIX),
    ("gen_kwargs", _set(("config", "gen_kwargs"), 3), None,
     "{R}: config: field 'gen_kwargs' must be an object or 'k=v,k=v' text, got number 3; " + FIX),
    ("gen_kwargs for the arm", _set(("config", "gen_kwargs"), 3), "gen-kwarg:top_p",
     "{R}: task 'arith': config: field 'gen_kwargs' must be an object or 'k=v,k=v' text, got number 3; " + FIX),
    ("metadata", _set(("configs", "arith", "metadata"), [1]), "meta:size",
     "{R}: task 'arith': configs: field 'metadata' must be an object, got list; " + FIX),
    ("empty arm", _arm_meta_empty, "meta:size", "{R}: task 'arith': field 'arm' must be a non-empty string, got \"\""),
    ("seed", _set(("config", "random_seed"), "3"), None,
     "{R}: task 'arith': field 'config.random_seed' must be an integer, got \"3\"; lm-eval writes the first value "
     "of --seed there"),
    ("source reward", _set(("results", "arith", "exact_match,none"), "high"), None,
     "{R}: results: arith: field 'exact_match,none' must be a finite number or null, got string \"high\"; " + FIX),
    ("task config", _set(("configs", "arith"), [1]), None, "{R}: configs: field 'arith' must be an object, got list; "
     + FIX),
    ("task results", _set(("results", "arith"), [1]), None,
     "{R}: task 'arith': results: field 'arith' must be an object, got list; " + FIX),
    ("no metric", _set(("results", "arith"), {"alias": "arith"}), None,
     "{R}: task 'arith': task 'arith' reports no metric; was the run complete?"),
    ("aggregation", _set(("configs", "arith", "metric_list"), [{"metric": "exact_match", "aggregation": "median"}]),
     None, "{R}: task 'arith': metric 'exact_match' is aggregated by \"median\", not the mean of per-document values, "
     "so it has no per-item outcome; choose another with --metric"),
    ("metric_list", _set(("configs", "arith", "metric_list"), 3), None,
     "{R}: task 'arith': configs: field 'metric_list' must be a list or null, got number 3; " + FIX),
    ("filter", _line(filter=3), None, "{S}:1: field 'filter' must be a filter name (string), got number 3; " + FIX),
    ("doc_id", _line(doc_id=1.5), None,
     "{S}:1: field 'doc_id' must be an integer or a non-empty string, got 1.5; fix it in the samples file"),
    ("item reward", _line(exact_match="yes"), None,
     "{S}:1: field \"exact_match\" must be a finite number per item, got \"yes\"; choose a per-item metric with "
     "--metric"),
    ("doc_hash", _line(doc_hash=3), None, "{S}:1: field 'doc_hash' must be a non-empty string or null, got number 3; "
     + FIX),
    ("resps", _line(resps="x"), None, "{S}:1: field 'resps' must be a list or null, got string \"x\"; " + FIX),
    ("twice", _line(doc_id=1), None, "{S}: item \"1\" appears twice in one run; lm-eval writes each document once per "
     "filter: is this two runs' samples in one file?"),
]


@pytest.mark.parametrize("edit, arm, message", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_each_refusal_is_one_line_naming_its_file_and_field(tmp_path, edit, arm, message):
    data, lines = results(), [sample(0, 1.0), sample(1, 0.0)]
    edit(data, lines)
    path = write(tmp_path, data, {"arith": lines})
    samples = tmp_path / f"samples_arith_{DATE}.jsonl"
    with pytest.raises(InputError) as caught:
        import_lm_eval(path, arm=arm)
    assert str(caught.value) == message.format(R=path, S=samples)


def test_unreadable_files_say_which_kind_of_lm_eval_file_they_are(tmp_path):
    path = write(tmp_path, results(), {"arith": [sample(0), sample(1)]})
    samples = tmp_path / f"samples_arith_{DATE}.jsonl"
    samples.write_text('{"doc_id": 0\n')
    with pytest.raises(InputError) as caught:
        import_lm_eval(path)
    assert str(caught.value).startswith(f"{samples}:1: not a JSON line (")
    assert str(caught.value).endswith("; lm-eval samples writes one JSON object per line")
    path.write_text("{")
    with pytest.raises(InputError) as caught:
        import_lm_eval(path)
    assert str(caught.value).startswith(f"{path}: not a JSON file (")
    assert str(caught.value).endswith("; lm-eval results are one JSON object")
    path.write_text("[1]")
    with pytest.raises(InputError) as caught:
        import_lm_eval(path)
    assert str(caught.value) == (f"{path}: not an lm-evaluation-harness results file; expected the results_<date>.json "
                                 "that lm_eval --output_path writes (an object with 'results' and 'configs')")


def test_the_samples_file_is_found_by_the_results_files_date(tmp_path):
    undated = tmp_path / "results_today.json"
    undated.write_text(json.dumps(results()))
    with pytest.raises(InputError) as caught:
        import_lm_eval(undated)
    assert str(caught.value) == (f"{undated}: cannot tell the run's date from the file name; lm-eval names it "
                                 "results_<date>.json, with samples_<task>_<date>.jsonl beside it")
    path = write(tmp_path / "x", results(), {})
    with pytest.raises(InputError) as caught:
        import_lm_eval(path)
    assert str(caught.value) == (f"{path}: no samples_arith_{DATE}.jsonl beside it; run lm_eval with --log_samples "
                                 "(per-item outcomes come from the samples files)")


def test_the_readers_own_where_when_called_directly():
    with pytest.raises(InputError, match=r"^here: field 'config' must be an object, got list; "):
        lm_eval.arm_of({"config": [1]}, {}, "model", "here")
    with pytest.raises(InputError, match=r"^here: field 'results' must be an object, got list; "):
        lm_eval.choose_metric({"results": [1]}, "t", None, "here")
    with pytest.raises(InputError, match=r"^here: field 'config' must be an object, got list; "):
        lm_eval._seed({"config": [1]}, "here")


def test_a_key_with_a_colon_is_read_after_the_first_colon(tmp_path):
    assert lm_eval.check_arm_spec("meta:a:b") == "meta:a:b"
    assert lm_eval.arm_of({"config": {}}, {"metadata": {"a:b": "x"}}, "meta:a:b", "here") == "x"


def test_the_default_metrics_filter_keeps_its_commas():
    assert lm_eval.choose_metric({"results": {"t": {"em,a,b": 0.5}}}, "t", None, "here") == ("em", "a,b")


def test_several_folders_are_read_in_turn(tmp_path):
    write(tmp_path / "one", results(seed=1), {"arith": [sample(0), sample(1)]})
    write(tmp_path / "two", results(seed=2), {"arith": [sample(0), sample(1)]})
    assert [r.seed for r in import_lm_eval_files([tmp_path / "one", tmp_path / "two"])] == [1, 2]


def test_a_response_that_is_not_a_list_counts_one_whatever_its_length(tmp_path):
    assert one(tmp_path, lines=[sample(0, resps=("long answer",)), sample(1)]).spend["calls"] == 2


def test_a_task_with_no_documents_of_the_filter_has_zero_documents_and_no_reward(tmp_path):
    r = one(tmp_path, results(n=0), [sample(0, filt="other"), sample(1, filt="other")])
    assert r.items == [] and r.reward is None and r.spend["calls"] == 0
