"""What a resume keeps and refuses (`running/resume.py`), judged in process on records built by hand (issue 44).

The runner tests that reach these rules start processes and take seconds per mutant; these call the rules
directly on a two-arm, two-workload suite and records whose provenance is chosen, so each test pins one rule:
same params (key order and TOML values aside), same class path, another suite's runs (refused when nothing is
shared, else named in one line), changed code (rerun: dropped and moved aside; keep: marked stale), the
identities of cells, and the order in which `_kept_records` applies its change (the notes first, once asked).
"""
from __future__ import annotations

import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from baselines import InputError, RunRecord, read_records
from baselines.core.budget import Budget
from baselines.core.records import budget_key, write_records
from baselines.running import resume
from baselines.running.code_check import Expected
from baselines.running.suite import ArmSpec, Cell, Suite, WorkloadSpec

A_PATH, B_PATH, W_PATH, V_PATH = "arms_mod:A", "arms_mod:B", "tasks_mod:W", "tasks_mod:V"
RESULTS = Path("out/results.jsonl")


def suite(a_params=None, w_params=None, arms=("a", "b"), workloads=("w", "v")) -> Suite:
    specs = {"a": ArmSpec("a", A_PATH, {"k": 1, "j": [1, 2]} if a_params is None else a_params),
             "b": ArmSpec("b", B_PATH, {})}
    paths = {"w": W_PATH, "v": V_PATH}
    works = [WorkloadSpec(name, paths[name], ({"size": 3} if w_params is None else w_params) if name == "w" else {},
                          "rollouts", (Budget(rollouts=10),), tuple(arms), (0, 1), 0.05) for name in workloads]
    return Suite("s", "suite.toml", {n: specs[n] for n in arms}, works)


def rec(arm="a", workload="w", seed=0, params=None, wparams=None, prov=None, error=None, **extra):
    params = ({"k": 1, "j": [1, 2]} if arm == "a" else {}) if params is None else params
    wparams = ({"size": 3} if workload == "w" else {}) if wparams is None else wparams
    extra = {"workload_params": wparams, **extra}
    if prov is not None:
        extra["provenance"] = prov
    return RunRecord(workload, arm, seed, {"rollouts": 10}, None if error else 0.5, budget={"rollouts": 10},
                     params=params, error=error, extra=extra)


def prov(arm="a", workload="w", arm_code="a1", workload_code="w1", **kw):
    paths = {"a": A_PATH, "b": B_PATH, "w": W_PATH, "v": V_PATH}
    return {"arm_path": paths.get(arm, "x:X"), "workload_path": paths.get(workload, "x:Y"), "arm_code": arm_code,
            "workload_code": workload_code, "arm_module": None, "workload_module": None, **kw}


def start(a="a1", b="b1", w="w1", v="v1", files=("arms_mod.py",)):
    """What `changed_since` and `_what_changed` read of a `StartCode`: the code versions the run read now."""
    return SimpleNamespace(expected={A_PATH: Expected(a, None, tuple(files)), B_PATH: Expected(b, None, ("b.py",)),
                                     W_PATH: Expected(w, None, ("tasks_mod.py",)),
                                     V_PATH: Expected(v, None, ("tasks_mod.py",))})


# -- check_same_params ----------------------------------------------------------------------------------------

def test_the_same_params_in_another_key_order_or_as_toml_values_read_back_are_the_same():
    resume.check_same_params([rec(params={"j": [1, 2], "k": 1}), rec("b")], suite(), RESULTS)
    # a TOML date in the suite is the same value as the string its record holds (json's default=str)
    dated = suite(a_params={"since": datetime.date(2024, 1, 2)})
    resume.check_same_params([rec(params={"since": "2024-01-02"})], dated, RESULTS)


def test_an_arm_run_with_other_params_is_refused_with_both_in_the_line():
    with pytest.raises(InputError) as caught:
        resume.check_same_params([rec("b"), rec(params={"k": 2})], suite(), RESULTS)
    assert str(caught.value) == (
        'out/results.jsonl: arm \'a\' ran with params {"k": 2} but suite.toml now says {"j": [1, 2], "k": 1}; '
        "give the changed arm a new name, use another --out, or pass --fresh")


def test_a_workload_run_with_other_params_is_refused_and_none_recorded_is_empty_params():
    with pytest.raises(InputError) as caught:
        resume.check_same_params([rec(wparams={"size": 4})], suite(), RESULTS)
    assert str(caught.value) == (
        "out/results.jsonl: workload 'w' ran with params {\"size\": 4} but suite.toml now says {\"size\": 3}; "
        "give it a new name, use another --out, or pass --fresh")
    bare = rec()
    del bare.extra["workload_params"]
    with pytest.raises(InputError, match=r"workload 'w' ran with params \{\} but"):
        resume.check_same_params([bare], suite(), RESULTS)
    empty = rec(workload="v")
    del empty.extra["workload_params"]
    resume.check_same_params([empty], suite(), RESULTS)     # v has no params: a record without them matches


def test_runs_of_arms_or_workloads_the_suite_does_not_have_are_not_judged_for_params():
    # another arm on a suite workload, or a suite arm on another workload: any params, no refusal
    resume.check_same_params([rec("gone", params={"z": 1}), rec(workload="old", params={"z": 1}, wparams={"q": 1})],
                             suite(), RESULTS)


# -- _check_same_path ---------------------------------------------------------------------------------------

def test_an_arm_or_workload_run_from_another_class_is_refused():
    with pytest.raises(InputError) as caught:
        resume.check_same_params([rec(prov=prov(arm_path="old_mod:A"))], suite(), RESULTS)
    assert str(caught.value) == ("out/results.jsonl: arm 'a' ran from old_mod:A but suite.toml now says arms_mod:A; "
                                 "give the changed arm a new name, use another --out, or pass --fresh")
    with pytest.raises(InputError) as caught:
        resume.check_same_params([rec(prov=prov(workload_path="old_mod:W"))], suite(), RESULTS)
    assert str(caught.value) == ("out/results.jsonl: workload 'w' ran from old_mod:W but suite.toml now says "
                                 "tasks_mod:W; give the changed workload a new name, use another --out, or pass "
                                 "--fresh")


def test_records_without_a_recorded_path_are_not_judged_by_it():
    resume.check_same_params([rec(prov=prov(arm_path=None, workload_path=None)), rec(prov="not a dict"),
                              rec(prov=prov())], suite(), RESULTS)


# -- _names, check_other_runs ----------------------------------------------------------------------------------

def test_names_are_sorted_and_cut_after_five_with_the_rest_counted():
    assert resume._names(["c", "a", "b"]) == "a, b, c"
    assert resume._names([f"x{i}" for i in range(5)]) == "x0, x1, x2, x3, x4"
    assert resume._names([f"x{i}" for i in range(7)]) == "x0, x1, x2, x3, x4 and 2 more"
    assert resume._names(["c", "a", "b"], limit=2) == "a, b and 1 more"


def test_a_file_sharing_runs_names_the_others_in_one_line():
    assert resume.check_other_runs([rec(), rec("b")], suite(), RESULTS) is None
    line = resume.check_other_runs([rec(), rec("gone"), rec("gone", seed=1)], suite(), RESULTS)
    assert line == ("costmatch: out/results.jsonl: 2 kept run(s) of arm(s) gone, which suite.toml does not have, "
                    "stay in the file and are left out of this run's report")
    line = resume.check_other_runs([rec(), rec(workload="old"), rec("zz", workload="old2")], suite(), RESULTS)
    assert line == ("costmatch: out/results.jsonl: 2 kept run(s) of arm(s) zz; workload(s) old, old2, which "
                    "suite.toml does not have, stay in the file and are left out of this run's report")


def test_a_file_of_another_suite_is_refused():
    with pytest.raises(InputError) as caught:
        resume.check_other_runs([rec(workload="old"), rec(workload="old", seed=1)], suite(), RESULTS)
    assert str(caught.value) == ("out/results.jsonl: holds 2 run(s) of another suite (workload(s) old) and none of "
                                 "suite.toml's arms on its workloads; use another --out, or pass --fresh to move "
                                 "the old file aside")


# -- _check_stale, _what_changed, _marked ----------------------------------------------------------------------

def test_an_unchanged_suite_keeps_every_record_as_it_is():
    kept = [rec(prov=prov()), rec("b", prov=prov("b", arm_code="b1")), rec(seed=1)]
    stale = resume.Stale()
    assert resume._check_stale(kept, suite(), RESULTS, start(), stale) == kept
    assert stale.notes == [] and stale.dropped == [] and stale.mode == "rerun"


def test_changed_code_is_rerun_by_default_the_old_records_dropped_and_one_note_per_change():
    old_a = [rec(prov=prov(arm_code="a0")), rec(seed=1, prov=prov(arm_code="a0"))]
    old_v = rec("b", "v", prov=prov("b", "v", arm_code="b1", workload_code="v0"))
    fine = rec("b", prov=prov("b", arm_code="b1"))
    stale = resume.Stale()
    out = resume._check_stale([old_a[0], fine, old_a[1], old_v], suite(), RESULTS, start(), stale)
    assert out == [None, fine, None, None]
    assert stale.dropped == [old_a[0], old_a[1], old_v]
    assert stale.notes == [
        "costmatch: code changed since the kept cells ran: arm \"a\" (2 kept cell(s); its code is read from "
        "arms_mod.py): rerunning them (--keep-stale keeps them instead)",
        "costmatch: code changed since the kept cells ran: workload \"v\" (1 kept cell(s); its code is read from "
        "tasks_mod.py): rerunning them (--keep-stale keeps them instead)"]


def test_keep_stale_marks_the_changed_records_and_says_so():
    old = rec(prov=prov(arm_code="a0"))
    fine = rec("b", prov=prov("b", arm_code="b1"))
    already = rec(seed=1, prov=prov(arm_code="a0", stale=True))
    stale = resume.Stale("keep")
    out = resume._check_stale([old, fine, already], suite(), RESULTS, start(files=[f"f{i}.py" for i in range(5)]),
                              stale)
    assert out[1] is fine and out[2] is already               # unchanged, or marked before: as they are
    assert out[0].extra["provenance"] == {**old.extra["provenance"], "stale": True}
    assert out[0].extra["workload_params"] == {"size": 3} and "stale" not in old.extra["provenance"]
    assert stale.dropped == []
    assert stale.notes == [
        "costmatch: code changed since the kept cells ran: arm \"a\" (2 kept cell(s); its code is read from f0.py, "
        "f1.py, f2.py and 2 more); --keep-stale: they are reported as they are and marked as old code in every "
        "report (run without --keep-stale to rerun them)"]


def test_what_changed_lists_three_files_at_most():
    for files, shown in [(("a.py",), "a.py"), (("a.py", "b.py", "c.py"), "a.py, b.py, c.py"),
                         (("a.py", "b.py", "c.py", "d.py"), "a.py, b.py, c.py and 1 more")]:
        said = resume._what_changed(("arm", "a"), 3, start(files=files), {"a": A_PATH}, {})
        assert said == f'arm "a" (3 kept cell(s); its code is read from {shown})'
    said = resume._what_changed(("workload", "w"), 1, start(), {"a": A_PATH}, {"w": W_PATH})
    assert said == 'workload "w" (1 kept cell(s); its code is read from tasks_mod.py)'


def test_a_record_without_provenance_is_not_marked():
    bare = rec()
    assert resume._marked(bare) is bare


# -- _identities -------------------------------------------------------------------------------------------

def test_identities_are_the_cells_own_each_budget_key_made_once():
    s = suite()
    small, large = Budget(rollouts=10), Budget(rollouts=20, tokens=5)
    w, a, b = s.workloads[0], s.arms["a"], s.arms["b"]
    cells = [Cell(w, a, small, 0, None), Cell(w, b, large, 3, None), Cell(w, a, small, 1, None),
             Cell(w, b, large, 4, None), Cell(w, a, Budget(rollouts=10), 2, None)]
    assert resume._identities(cells) == [c.identity() for c in cells]
    assert resume._identities(cells)[1] == ("w", budget_key({"rollouts": 20, "tokens": 5}), "b", 3)


# -- _kept_records: what is kept, what the file becomes, and when --------------------------------------------

def kept_records(results, s=None, fresh=False, retry=False, code=None, other="keep", stale="rerun", words=str):
    return resume._kept_records(s or suite(), results, fresh, retry, code or start(), other, stale, words)


def test_fresh_keeps_nothing_and_moves_the_old_file_aside_only_when_applied(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    write_records(results, [rec()])
    kept, change = kept_records(results, fresh=True)
    assert kept == [] and results.exists()                  # nothing moved before the change is applied
    change()
    assert not results.exists()
    [backup] = tmp_path.glob("results.*.jsonl")
    assert read_records(backup) == [rec()]
    assert capsys.readouterr().err == f"costmatch: --fresh: moved the old results to {backup}\n"
    kept, change = kept_records(tmp_path / "none.jsonl", fresh=True)   # no file: nothing to move
    change()
    assert kept == [] and capsys.readouterr().err == ""


def test_a_plain_resume_keeps_the_file_and_says_nothing(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    records = [rec(), rec("b"), rec("gone")]
    write_records(results, records)
    before = results.read_bytes()
    kept, change = kept_records(results)
    change()
    assert kept == records and results.read_bytes() == before
    assert capsys.readouterr().err == "" and sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]


def test_other_runs_are_named_only_when_asked_and_in_the_callers_words(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    write_records(results, [rec(), rec("gone")])
    kept, change = kept_records(results, other="check", words=str.upper)
    assert capsys.readouterr().err == ""                     # said when the change is applied, not before
    change()
    assert capsys.readouterr().err == ("COSTMATCH: " + str(results).upper() + ": 1 KEPT RUN(S) OF ARM(S) GONE, "
                                       "WHICH SUITE.TOML DOES NOT HAVE, STAY IN THE FILE AND ARE LEFT OUT OF THIS "
                                       "RUN'S REPORT\n")
    assert len(kept) == 2


def test_retry_errors_drops_the_errors_and_rewrites_the_file(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    err = {"type": "E", "message": "x"}
    write_records(results, [rec(), rec("b", error=err), rec(seed=1)])
    kept, change = kept_records(results, retry=True)
    assert kept == [rec(), rec(seed=1)]
    assert len(read_records(results)) == 3                   # not before the change
    change()
    assert read_records(results) == kept and capsys.readouterr().err == ""
    # without --retry-errors, errors are kept and the file stays as it was
    write_records(results, [rec(), rec("b", error=err)])
    kept, change = kept_records(results)
    change()
    assert len(kept) == 2 and len(read_records(results)) == 2


def test_changed_code_is_moved_aside_after_the_notes_and_the_rest_rewritten(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    old = rec(prov=prov(arm_code="a0"))
    fine = [rec("b", prov=prov("b", arm_code="b1")), rec("gone", prov=prov("gone"))]
    write_records(results, [old, *fine])
    kept, change = kept_records(results)
    assert kept == fine and capsys.readouterr().err == ""
    change()
    [aside] = tmp_path.glob("results.*-old-code.jsonl")
    assert read_records(aside) == [old] and read_records(results) == fine
    err = capsys.readouterr().err.splitlines()
    assert err == ["costmatch: code changed since the kept cells ran: arm \"a\" (1 kept cell(s); its code is read "
                   "from arms_mod.py): rerunning them (--keep-stale keeps them instead)",
                   f"costmatch: moved 1 record(s) of changed code to {aside}"]


def test_keep_stale_rewrites_the_marked_records_in_place(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    old, fine = rec(prov=prov(arm_code="a0")), rec("b", prov=prov("b", arm_code="b1"))
    write_records(results, [old, fine])
    kept, change = kept_records(results, stale="keep")
    change()
    assert [r.extra["provenance"].get("stale") for r in read_records(results)] == [True, None]
    assert read_records(results) == kept and list(tmp_path.glob("*old-code*")) == []
    assert "--keep-stale: they are reported as they are" in capsys.readouterr().err


def test_a_torn_last_line_is_set_aside_before_the_rewrite(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    err = {"type": "E", "message": "x"}
    write_records(results, [rec(), rec("b", error=err)])
    with open(results, "ab") as handle:
        handle.write(b'{"schema": 3, "workload": "w", "ar')
    kept, change = kept_records(results, retry=True)
    change()
    [torn] = tmp_path.glob("results.torn-*.jsonl")
    assert torn.read_bytes() == b'{"schema": 3, "workload": "w", "ar'
    assert read_records(results) == [rec()] == kept
    # no rewrite asked: the torn line alone is set aside
    write_records(results, [rec()])
    with open(results, "ab") as handle:
        handle.write(b'{"schema": 3, "work')
    kept, change = kept_records(results)
    change()
    assert read_records(results) == [rec()] and results.read_bytes().endswith(b"\n")


def test_retry_errors_on_a_file_of_errors_only_keeps_nothing(tmp_path):
    results = tmp_path / "results.jsonl"
    err = {"type": "E", "message": "x"}
    write_records(results, [rec(error=err), rec("b", error=err)])
    kept, change = kept_records(results, retry=True)
    change()
    assert kept == [] and read_records(results) == []


def test_a_refusal_of_changed_params_names_the_results_file(tmp_path):
    results = tmp_path / "results.jsonl"
    write_records(results, [rec(params={"k": 2})])
    with pytest.raises(InputError, match=rf"^{tmp_path}/results.jsonl: arm 'a' ran with params"):
        kept_records(results)


def test_a_suite_arms_runs_on_a_workload_it_no_longer_has_are_kept_even_when_the_arm_changed(tmp_path, capsys):
    # only the suite's own cells (its arm on its workload) are judged for changed code; the others stay as they are
    results = tmp_path / "results.jsonl"
    elsewhere = rec(workload="old", wparams={}, prov=prov(workload="old", arm_code="a0"))
    fine = rec("b", prov=prov("b", arm_code="b1"))
    write_records(results, [elsewhere, fine])
    before = results.read_bytes()
    kept, change = kept_records(results)
    change()
    assert kept == [elsewhere, fine] and results.read_bytes() == before
    assert capsys.readouterr().err == "" and list(tmp_path.glob("*old-code*")) == []


def test_each_budgets_key_is_made_once_per_budget_object(monkeypatch):
    s = suite()
    w, a = s.workloads[0], s.arms["a"]
    small, large = Budget(rollouts=10), Budget(rollouts=20)
    cells = [Cell(w, a, small, 0, None), Cell(w, a, large, 1, None), Cell(w, a, small, 2, None),
             Cell(w, a, large, 3, None), Cell(w, a, small, 4, None)]
    calls = []
    identity = Cell.identity
    monkeypatch.setattr(Cell, "identity", lambda self: calls.append(self.seed) or identity(self))
    assert [i[3] for i in resume._identities(cells)] == [0, 1, 2, 3, 4]
    assert calls == [0, 1]                                  # the first cell of each budget: 10,000s of cells, a few keys
