"""The fuzz corpus: every hostile input through every verb that reads it (issue 18).

Done means: each case is refused with exit 2 and exactly one line, or accepted
correctly; never a traceback (an exception out of `main` fails the test), never
a hang (a per-test timeout). The cases are files under `tests/fuzz_corpus/`
(regenerate with its `make_corpus.py`); their names say what is expected:
``ok-*`` accepted, ``bad-*`` refused, ``any-*`` either. Option cases are below.

Cases that fail because of another area's open work are marked
``xfail(strict=False, reason="owned by <area>")``, never hidden.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from baselines.cli import main

CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
RECORDS = sorted((CORPUS / "records").glob("*.jsonl"))
SUITES = sorted((CORPUS / "suites").glob("*.toml"))
USER_MODULES = sorted((CORPUS / "user_modules").glob("*.py"))
GOOD_RECORDS = CORPUS / "records" / "ok-base.jsonl"
GOOD_SUITE = CORPUS / "suites" / "ok-base.toml"

# verb-specific expectations where the verb's own rules differ from the file's name
CHECK_NEEDS_BOTH_ARMS = {"ok-one-arm", "ok-all-null-rewards", "ok-arm-name-200"}
OWNED: dict[tuple[str, str], str] = {}   # (verb, case) -> the area whose open work makes it fail (none now)


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """Run the entry point in-process; SystemExit (argparse's --help) counts as its code."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # pragma: no cover - argparse paths
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def judge(expect: str, code: int, err: str, accepted: set[int]) -> None:
    assert "Traceback" not in err, err[-2000:]
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("costmatch: "), err[-2000:]
        assert len(err) < 2000, f"an error line of {len(err)} characters"
        assert expect != "ok", f"refused a valid input: {err}"
    else:
        assert expect != "bad", f"accepted a bad input with exit {code}"
        assert code in accepted, (code, err[-2000:])


def _expect(path: Path) -> str:
    return path.name.split("-", 1)[0]


def _owned(verb: str, case: str):
    area = OWNED.get((verb, case))
    return [pytest.mark.xfail(strict=False, reason=f"owned by {area}")] if area else []


def _cases(paths, verb):
    return [pytest.param(p, id=p.stem, marks=_owned(verb, p.stem)) for p in paths]


# -- records ----------------------------------------------------------------------------
@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", _cases(RECORDS, "compare"))
def test_compare_on_every_record_case(case, capsys):
    code, _, err = cli(["compare", case, "--fixed", "tokens", "--json"], capsys)
    judge(_expect(case), code, err, {0})


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", _cases(RECORDS, "check"))
def test_check_on_every_record_case(case, capsys):
    code, _, err = cli(["check", case, "--fixed", "tokens", "--baseline", "a", "--candidate", "b",
                        "--margin", "0.1"], capsys)
    judge("any" if case.stem in CHECK_NEEDS_BOTH_ARMS else _expect(case), code, err, {0, 1, 3})


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", _cases(RECORDS, "report"))
def test_report_csv_on_every_record_case(case, capsys, tmp_path):
    code, _, err = cli(["report", case, "--fixed", "tokens", "--format", "csv", "--out", tmp_path / "t.csv"], capsys)
    judge(_expect(case), code, err, {0})


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", _cases(RECORDS, "plots"))
def test_report_plots_on_every_record_case_stay_inside_the_folder(case, capsys, tmp_path):
    plots = tmp_path / "deep" / "plots"
    code, _, err = cli(["report", case, "--fixed", "tokens", "--plots", plots, "--out", tmp_path / "t.md"], capsys)
    judge(_expect(case), code, err, {0})
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and plots not in p.parents and p.name != "t.md"]
    assert not outside, outside


# -- suites ---------------------------------------------------------------------------------
@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", _cases(SUITES, "plan"))
def test_plan_on_every_suite_case(case, capsys):
    code, _, err = cli(["plan", case], capsys)
    judge(_expect(case), code, err, {0})


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", _cases(SUITES, "run"))
def test_run_on_every_suite_case_refuses_before_any_cell(case, capsys, tmp_path):
    out = tmp_path / "out"
    code, _, err = cli(["run", case, "--out", out, "--quiet", "--no-plots"], capsys)
    judge(_expect(case), code, err, {0, 1})
    if code == 2:
        assert not out.exists()  # a refused run makes no folder and no lock (issue 31)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("module", _cases(USER_MODULES, "plan"))
def test_user_modules_that_fail_are_reported_with_file_and_line(module, capsys, tmp_path):
    shutil.copy(module, tmp_path / "userarm.py")
    suite = tmp_path / "suite.toml"
    suite.write_text(GOOD_SUITE.read_text().replace('path = "tests.helpers:Guess"', 'path = "userarm:Arm"'))
    code, _, err = cli(["plan", suite], capsys)
    judge(_expect(module), code, err, {0})
    if module.stem in ("bad-user-syntax-error", "bad-user-import-raises"):
        assert f"{tmp_path / 'userarm.py'}:" in err


# -- options on every verb ------------------------------------------------------------------
R, S = "{R}", "{S}"
COMPARE = ["compare", R, "--fixed", "tokens"]
CHECK = ["check", R, "--fixed", "tokens", "--baseline", "a", "--candidate", "b"]
OPTIONS = [
    # (argv, expectation, owner of the check if another helper's)
    (COMPARE + ["--tolerance", "nan"], "bad", None),
    (COMPARE + ["--tolerance", "-1"], "bad", None),
    (COMPARE + ["--tolerance", "abc"], "bad", None),
    (COMPARE + ["--tolerance", "1e400"], "bad", None),
    (COMPARE + ["--tolerance", "10%"], "ok", None),
    (COMPARE + ["--alpha", "7"], "bad", None),
    (COMPARE + ["--alpha", "nan"], "bad", None),
    (COMPARE + ["--alpha", "0"], "bad", None),
    (COMPARE + ["--alpha", "-1"], "bad", None),
    (COMPARE + ["--start", "nan"], "bad", None),
    (COMPARE + ["--start", "inf"], "bad", None),
    (COMPARE + ["--target", "inf"], "bad", None),
    (COMPARE + ["--target", "nan"], "bad", None),
    (COMPARE + ["--target", "0.5"], "ok", None),
    (COMPARE + ["--equivalence-margin", "-1"], "bad", None),
    (COMPARE + ["--equivalence-margin", "nan"], "bad", None),
    (COMPARE + ["--equivalence-margin", "0.1"], "ok", None),
    (COMPARE + ["--metric", "reward@200%"], "bad", None),
    (COMPARE + ["--metric", "reward@abc"], "bad", None),
    (COMPARE + ["--metric", "nope"], "bad", None),
    (COMPARE + ["--metric", "dev_reward"], "any", None),
    (COMPARE + ["--baseline", "nope"], "bad", None),
    (COMPARE + ["--baseline", "a"], "ok", None),
    (COMPARE + ["--workload", "nope"], "bad", None),
    (COMPARE + ["--budget", "tokens=abc"], "bad", None),
    (COMPARE + ["--budget", "=5"], "bad", None),
    (COMPARE + ["--budget", "tokens=1000"], "ok", None),
    (COMPARE + ["--budget", "tokens=nan"], "bad", None),
    (["compare", R, "--fixed", ""], "bad", None),
    (["compare", R, "--fixed", "nope"], "any", None),
    (["compare", R, "--fixed", "dollars"], "any", None),
    (["compare", "{T}"], "bad", None),
    (["compare", "{T}/missing.jsonl"], "bad", None),
    (["compare", "/dev/null"], "bad", None),
    (["compare", R, R], "bad", None),
    (["compare", R, "--keep-last", "--json"], "ok", None),
    (CHECK + ["--margin", "nan"], "bad", None),
    (CHECK + ["--margin", "-1"], "bad", None),
    (CHECK + ["--margin", "abc%"], "bad", None),
    (CHECK + ["--margin", "2%"], "ok", None),
    (CHECK + ["--margin", "1e400"], "bad", None),
    (CHECK + ["--margin", "0.1", "--alpha", "7"], "bad", None),
    (CHECK + ["--margin", "0.1", "--inconclusive", "maybe"], "bad", None),
    (CHECK + ["--margin", "0.1", "--against", "{T}/missing.jsonl"], "bad", None),
    (CHECK + ["--margin", "0.1", "--against", "{T}"], "bad", None),
    (["check", R, "--fixed", "tokens", "--baseline", "a", "--candidate", "a", "--margin", "0.1"], "bad", None),
    (["check", R, "--fixed", "tokens", "--baseline", "nope", "--candidate", "a", "--margin", "0.1"], "bad", None),
    (["report", R, "--fixed", "tokens", "--format", "nope"], "bad", None),
    (["report", R, "--fixed", "tokens", "--out", "{T}/nodir/t.md"], "bad", None),
    (["report", R, "--fixed", "tokens", "--out", "{T}"], "bad", None),
    (["report", R, "--fixed", "tokens", "--out", "{R}/t.md"], "bad", None),
    (["report", R, "--fixed", "tokens", "--plots", R], "bad", None),
    (["report", R, "--fixed", "tokens", "--format", "latex"], "ok", None),
    (["run", S, "--jobs", "0", "--out", "{T}/o"], "bad", None),
    (["run", S, "--jobs", "-1", "--out", "{T}/o"], "bad", None),
    (["run", S, "--jobs", "abc", "--out", "{T}/o"], "bad", None),
    (["run", S, "--backend", "nope", "--out", "{T}/o"], "bad", None),
    (["run", S, "--out", R], "bad", None),
    (["run", S, "--out", "{T}/o", "--looks", "abc", "--gate", "guess:once", "--margin", "1"], "bad", None),
    (["run", S, "--out", "{T}/o", "--looks", "2,4", "--gate", "nocolon", "--margin", "1"], "bad", None),
    (["run", S, "--out", "{T}/o", "--looks", "2,4", "--gate", "guess:nope", "--margin", "1"], "bad", None),
    (["run", S, "--out", "{T}/o", "--looks", "4,2", "--gate", "guess:once", "--margin", "1"], "bad", None),
    (["run", S, "--out", "{T}/o", "--quiet", "--no-plots", "--backend", "sequential"], "ok", None),
    (["run", "{T}/missing.toml"], "bad", None),
    (["plan", "{T}/missing.toml"], "bad", None),
    (["plan", "{T}"], "bad", None),
    (["plan", R], "bad", None),
    (["plan", S], "ok", None),
    (["import", "csv", "{T}/missing.csv", "-o", "{T}/o.jsonl", "--map", "arm=a,seed=s,reward=r"], "bad", None),
    (["import", "nope", R, "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "csv", R, "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "csv", R, "-o", "{T}/o.jsonl", "--map", "garbage"], "bad", None),
    (["import", "agentdescent", R, "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "agentdescent", "/dev/null", "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "csv", R, "-o", "{T}/nodir/o.jsonl", "--map", "arm=a,seed=s,reward=r"], "bad", None),
    (["import", "lm-eval", R, "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "lm-eval", "{T}", "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "lm-eval", R, "-o", "{T}/o.jsonl", "--arm", "solver"], "bad", None),
    (["import", "promptfoo", R, "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "promptfoo", R, "-o", "{T}/o.jsonl", "--metric", "acc"], "bad", None),
    (["import", "promptfoo", "/dev/null", "-o", "{T}/o.jsonl"], "bad", None),
    (["import", "agentdescent", R, "-o", "{T}/o.jsonl", "--metric", "acc"], "bad", None),
    # issue 31: no command writes over its input, empty values and duplicate targets are refused
    (["import", "csv", "{T}/in.csv", "-o", "{T}/in.csv", "--map", "arm=a,seed=s,reward=r"], "bad", None),
    (["import", "csv", "{T}/in.csv", "-o", "{T}/o.jsonl", "--map", "arm=a,seed=s,reward=r,reward=s"], "bad", None),
    (["import", "csv", "{T}/in.csv", "-o", "{T}/o.jsonl", "--map", "arm=a,seed=s,reward=r"], "ok", None),
    (["import", "csv", "{T}/in.csv", "-o", "{T}/o.jsonl", "--map", "arm=a,seed=s,reward=r", "--workload", ""],
     "bad", None),
    (["import", "inspect", "{T}/in.csv", "-o", "{T}/o.jsonl", "--arm", ""], "bad", None),
    (["report", R, "--fixed", "tokens", "--out", R], "bad", None),
    (["report", R, "--fixed", "tokens", "--plots", "{T}/p", "--x-unit", "bogus"], "bad", None),
    (["report", R, "--fixed", "tokens", "--x-unit", "tokens"], "bad", None),
    (COMPARE + ["--workload", ""], "bad", None),
    (COMPARE + ["--workload", "xx-w-xx"], "bad", None),
    (["run", S, "--out", "{T}/o", "--backend", "dask", "--address", ""], "bad", None),
    (["run", S, "--out", ""], "bad", None),
    (["init", ""], "bad", None),
    # issue 31: curves --out is checked before any work, and a refused one leaves no folder
    (["curves", "--out", R], "bad", None),
    (["curves", "--out", ""], "bad", None),
    (["curves", "--out", "{T}/figs", "--draws", "0"], "bad", None),
    (["nope"], "bad", None),
    (["compar", R], "bad", None),
    ([], "bad", None),
]


def _option_params():
    out = []
    for i, (argv, expect, owner) in enumerate(OPTIONS):
        marks = [pytest.mark.xfail(strict=False, reason=f"owned by {owner}")] if owner else []
        out.append(pytest.param(argv, expect, id=f"{i:02d}-" + "_".join(str(a) for a in argv[:1] + argv[2:])[:60],
                                marks=marks))
    return out


@pytest.mark.timeout(300)
@pytest.mark.parametrize("argv, expect", _option_params())
def test_options_on_every_verb(argv, expect, capsys, tmp_path):
    records = tmp_path / "r.jsonl"
    shutil.copy(GOOD_RECORDS, records)
    suite = tmp_path / "s.toml"
    shutil.copy(GOOD_SUITE, suite)
    (tmp_path / "in.csv").write_text("a,s,r\nx,1,0.5\nx,2,0.25\n")
    filled = [a.replace("{R}", str(records)).replace("{S}", str(suite)).replace("{T}", str(tmp_path)) for a in argv]
    before = {p for p in tmp_path.parent.rglob("*")}
    contents = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, _, err = cli(filled, capsys)
    judge(expect, code, err, {0, 1, 3})
    if code == 2:  # a refused command changes nothing: every file there before is byte-identical, none is new
        assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == contents
        assert sorted(tmp_path.iterdir()) == sorted(contents)
    stray = [p for p in tmp_path.parent.rglob("*") if p not in before and tmp_path not in p.parents and p != tmp_path]
    assert not stray, stray


def test_the_corpus_is_big_enough_and_named():
    assert len(RECORDS) + len(SUITES) + len(USER_MODULES) + len(OPTIONS) >= 250
    for path in RECORDS + SUITES + USER_MODULES:
        assert _expect(path) in ("ok", "bad", "any"), path.name


# -- random bytes and random JSON to every reader and importer ----------------------------------
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from tests.sizes import examples  # noqa: E402


def _one_line_or_ok(argv, capsys):
    code, _, err = cli(argv, capsys)
    judge("any", code, err, {0})


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_to_compare_and_check(tmp_path, capsys, data):
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    _one_line_or_ok(["compare", path, "--fixed", "tokens"], capsys)
    code, _, err = cli(["check", path, "--fixed", "tokens", "--baseline", "a", "--candidate", "b",
                        "--margin", "0.1"], capsys)
    judge("any", code, err, {0, 1, 3})


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_random_bytes_to_the_csv_importer(tmp_path, capsys, data):
    path = tmp_path / "r.csv"
    path.write_bytes(b"policy,seed,acc,tok\n" + data)
    _one_line_or_ok(["import", "csv", path, "-o", tmp_path / "o.jsonl", "--map",
                     "arm=policy,seed=seed,reward=acc,tokens=tok"], capsys)


json_docs = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
                         lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                         max_leaves=20)


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=json_docs)
def test_random_json_to_the_agentdescent_importer(tmp_path, capsys, doc):
    import json
    path = tmp_path / "a.json"
    path.write_text(json.dumps(doc))
    _one_line_or_ok(["import", "agentdescent", path, "-o", tmp_path / "o.jsonl"], capsys)


@pytest.mark.timeout(60)
def test_run_refuses_a_fifo_as_its_results_file_before_touching_the_folder(tmp_path, capsys):
    """A FIFO at --out/results.jsonl made `run` wait forever for a writer (issue 31): one line, exit 2."""
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "results.jsonl")
    code, _, err = cli(["run", GOOD_SUITE, "--out", out, "--backend", "sequential", "--quiet"], capsys)
    judge("bad", code, err, set())
    assert "is a FIFO" in err and sorted(p.name for p in out.iterdir()) == ["results.jsonl"]   # no lock left


def test_a_resume_of_changed_code_with_other_runs_kept_reruns_it_and_keeps_them(tmp_path, capsys):
    """Was a refusal (exit 2) until issue 39: a changed arm's kept cell now reruns, with one line saying so, beside
    the note naming kept runs of an arm the suite no longer has (which stay in the file)."""
    out = tmp_path / "out"
    assert cli(["run", GOOD_SUITE, "--out", out, "--quiet", "--no-plots"], capsys)[0] == 0
    results = out / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    lines[0]["arm"] = "ghost"                                   # a kept run of an arm the suite no longer has
    lines[1]["provenance"]["arm_code"] = "0" * 16               # a kept run whose arm's code has changed since
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = cli(["run", GOOD_SUITE, "--out", out, "--quiet", "--no-plots"], capsys)
    assert code == 0 and "Traceback" not in err
    assert "which" in err and "does not have" in err and "code changed since the kept cells ran" in err
    after = [json.loads(line) for line in results.read_text().splitlines()]
    assert any(r["arm"] == "ghost" for r in after) and all(r["provenance"]["arm_code"] != "0" * 16 for r in after)
    assert len(list(out.glob("results.*-old-code.jsonl"))) == 1


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_cluster_address_refused_with_jobs_given_is_one_line(tmp_path, capsys):
    """`--jobs N` with `--address` printed its note before the address was refused: two lines, exit 2."""
    pytest.importorskip("distributed")
    code, _, err = cli(["run", GOOD_SUITE, "--out", tmp_path / "o", "--backend", "dask", "--address",
                        "tcp://127.0.0.1:9", "--jobs", "2", "--worker-wait", "1"], capsys)
    judge("bad", code, err, set())
    assert not (tmp_path / "o").exists()
