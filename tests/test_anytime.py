import math

import pytest

from baselines import compare

from baselines.analysis.curves import anytime
from tests.builders import rec

TRACE = [{"spend": {"tokens": 100}, "best": 0.2}, {"spend": {"tokens": 300}, "best": 0.5},
         {"spend": {"tokens": 600}, "best": 0.4}]  # a dip is not a loss: best-so-far stays 0.5


def test_best_at_steps_and_start_value():
    assert math.isnan(anytime.best_at(TRACE, "tokens", 50))
    assert anytime.best_at(TRACE, "tokens", 50, start=0.0) == 0.0
    assert anytime.best_at(TRACE, "tokens", 100) == 0.2
    assert anytime.best_at(TRACE, "tokens", 999) == 0.5
    assert math.isnan(anytime.best_at(TRACE, "calls", 999))  # the unit is not in the trace: unknown


def test_auc_by_hand():
    # [0,100): 0 (start), [100,300): 0.2, [300,1000]: 0.5  -> (0 + 40 + 350) / 1000
    assert anytime.budget_auc(TRACE, "tokens", 1000, start=0.0) == pytest.approx(0.39)
    assert anytime.budget_auc(TRACE, "tokens", 200, start=0.0) == pytest.approx((0 + 100 * 0.2) / 200)
    assert math.isnan(anytime.budget_auc(TRACE, "rollouts", 1000))


def test_cost_to_target_and_ert_with_censoring():
    assert anytime.cost_to_target(TRACE, "tokens", 0.5, spent=700) == (300.0, True)
    assert anytime.cost_to_target(TRACE, "tokens", 0.9, spent=700) == (700.0, False)
    assert anytime.expected_running_time([300, 700, 500], [True, False, True]) == pytest.approx(750)
    assert anytime.expected_running_time([700], [False]) == math.inf


def test_cost_of_pass():
    assert anytime.cost_of_pass([10, 20, 30, 40], [1, 0, 1, 0]) == pytest.approx(50)
    assert anytime.cost_of_pass([10], [0]) == math.inf


def test_compare_on_an_anytime_metric_pairs_it_like_the_final_reward():
    records = []
    for seed in range(6):
        good = [{"spend": {"tokens": 100}, "best": 0.5}, {"spend": {"tokens": 900}, "best": 0.6}]
        slow = [{"spend": {"tokens": 800}, "best": 0.5 + seed * 0.001}, {"spend": {"tokens": 900}, "best": 0.6}]
        for arm, trace in (("fast", good), ("slow", slow)):
            r = rec(arm, seed, 0.6, tokens=1000)
            r.trace = trace
            records.append(r)
    final = compare(records, fixed="tokens")
    assert final.groups[0].pairs[0].verdict in ("no difference detected", "underpowered")
    auc = compare(records, fixed="tokens", metric="auc")
    [pair] = auc.groups[0].pairs
    assert (pair.a, pair.b, pair.verdict) == ("fast", "slow", "a>b")
    assert auc.metric == "auc" and "start value 0" in auc.metric_note
    half = compare(records, fixed="tokens", metric="reward@50%")
    assert half.groups[0].arm("fast").mean == pytest.approx(0.5)


def test_anytime_metric_on_a_run_without_trace_is_unscored():
    records = [rec("a", s, 0.5, tokens=1000) for s in range(3)]
    c = compare(records, fixed="tokens", metric="auc")
    assert c.groups[0].arms[0].scored == 0


def test_cost_table_ert_cost_of_pass_and_paired_difference():
    records = []
    for seed in range(6):
        fast = rec("fast", seed, 1.0, tokens=1000)
        fast.trace = [{"spend": {"tokens": 100 + seed}, "best": 0.9}]
        slow = rec("slow", seed, 1.0 if seed % 2 else 0.0, tokens=1000)
        slow.trace = [{"spend": {"tokens": 800}, "best": 0.9 if seed % 2 else 0.1}]
        never = rec("never", seed, 0.0, tokens=1000)
        records += [fast, slow, never]
    rows = {r["arm"]: r for r in anytime.cost_table(records, "tokens", 0.5, baseline="slow")}
    assert rows["fast"]["reached"] == 6 and rows["fast"]["ert"] == pytest.approx(102.5)
    assert rows["slow"]["ert"] == pytest.approx((3 * 800 + 3 * 1000) / 3)
    assert rows["never"]["ert"] == math.inf and rows["never"]["ert_ci"][1] == math.inf
    assert rows["slow"]["cost_of_pass"] == pytest.approx(2000)
    lo, hi = rows["fast"]["ert_diff_ci"]
    assert lo <= rows["fast"]["ert_diff_vs_baseline"] <= hi < 0
    again = {r["arm"]: r for r in anytime.cost_table(records, "tokens", 0.5, baseline="slow")}
    assert again["fast"]["ert_ci"] == rows["fast"]["ert_ci"]  # seeded


def test_compare_target_cli_keeps_the_sign_of_unbounded_differences(tmp_path, capsys):
    import json
    from baselines.cli import main
    from baselines.core.records import write_records

    records = []
    for seed in range(4):
        good = rec("good", seed, 1.0, tokens=1000)
        good.trace = [{"spend": {"tokens": 100}, "best": 1.0}]
        bad = rec("bad", seed, 1.0 if seed == 0 else 0.0, tokens=1000)  # resamples without its one success
        bad.trace = [{"spend": {"tokens": 900}, "best": 1.0 if seed == 0 else 0.0}]
        records += [good, bad]
    path = tmp_path / "r.jsonl"
    write_records(path, records)
    assert main(["compare", str(path), "--fixed", "tokens", "--target", "0.5", "--baseline", "bad", "--json"]) == 0
    rows = {r["arm"]: r for r in json.loads(capsys.readouterr().out)["cost_to_target"][0]["arms"]}
    assert rows["good"]["ert_diff_ci"][0] == "-inf" and rows["good"]["ert_diff_vs_baseline"] < 0
    assert main(["compare", str(path), "--fixed", "tokens", "--target", "0.5", "--baseline", "bad"]) == 0
    assert "−∞" in capsys.readouterr().out


# -- issue 17 item 5 / issue 20: one score, crashed runs, instances ---------------------------
def test_ert_uses_the_held_out_reward_of_the_trace_and_says_when_it_falls_back():
    dev_only, held_out = [], []
    for seed in range(4):
        r = rec("a", seed, 0.2, tokens=100)          # final held-out reward 0.2: never passes 0.5
        r.trace = [{"spend": {"tokens": 30}, "best": 0.9}]
        dev_only.append(r)
        h = rec("a", seed, 0.2, tokens=100)
        h.trace = [{"spend": {"tokens": 30}, "best": 0.9, "reward": 0.2}]
        held_out.append(h)
    [row] = anytime.cost_table(held_out, "tokens", 0.5)
    assert row["reached"] == 0 and row["ert"] == math.inf and row["cost_of_pass"] == math.inf
    assert row["score"] == "held-out reward"
    [row] = anytime.cost_table(dev_only, "tokens", 0.5)
    assert row["reached"] == 4 and row["ert"] == 30       # from the dev score, and it says so
    assert row["score"].startswith("dev score (best)")


def test_a_crashed_run_with_recorded_spend_counts_in_ert():
    runs = [rec("a", 0, 1.0, tokens=40), rec("a", 1, 1.0, tokens=100), rec("a", 2, None, tokens=100)]
    [row] = anytime.cost_table(runs, "tokens", 0.5)
    assert row["ert"] == pytest.approx(240 / 2) and row["runs"] == 3 and row["crashed"] == 1
    assert row["cost_of_pass"] == pytest.approx(80 / (2 / 3))


def test_target_must_be_finite():
    with pytest.raises(ValueError, match="target must be a finite number"):
        anytime.cost_table([rec("a", 0, 1.0, tokens=40)], "tokens", math.inf)


def _bbob_like():
    """Five instances (functions), one run each; only f21 is solved (cocopp: 992 there, inf elsewhere)."""
    out = []
    for seed, inst in enumerate(["f1-i1", "f8-i1", "f15-i1", "f21-i1", "f24-i1"]):
        r = rec("cma", seed, 1.0 if inst == "f21-i1" else 0.0, evaluations=1000)
        r.trace = [{"spend": {"evaluations": 992}, "best": 1.0 if inst == "f21-i1" else 0.0}]
        r.extra = {"instance": inst}
        out.append(r)
    return out


def test_ert_is_per_instance_never_pooled_across_functions():
    [row] = anytime.cost_table(_bbob_like(), "evaluations", 0.5)
    per = {i["instance"]: i["ert"] for i in row["instances"]}
    assert per["f21-i1"] == 992 and all(per[k] == math.inf for k in per if k != "f21-i1")
    assert math.isnan(row["ert"]) and "never pooled" in row["aggregation"]
    assert row["instances_solved"] == 1 and row["instances_total"] == 5
    assert row["ecdf"] == [(992.0, pytest.approx(0.2))]


def test_per_instance_ert_agrees_with_cocopp():
    toolsstats = pytest.importorskip("cocopp.toolsstats", reason="cocopp is not installed")
    import numpy as np
    rng = np.random.default_rng(0)
    runs = []
    for inst in ("f3-i1", "f3-i2"):
        for seed in range(7):
            hit = bool(rng.random() < 0.6)
            cost = float(rng.integers(10, 500))
            r = rec("es", seed, 1.0 if hit else 0.0, evaluations=600)
            r.trace = [{"spend": {"evaluations": cost}, "best": 1.0 if hit else 0.0}]
            r.extra = {"instance": inst}
            runs.append(r)
    [row] = anytime.cost_table(runs, "evaluations", 0.5)
    for item in row["instances"]:
        mine = [r for r in runs if r.extra["instance"] == item["instance"]]
        data = [r.trace[0]["spend"]["evaluations"] if r.reward else 600.0 for r in mine]
        ref = toolsstats.sp(data, issuccessful=[bool(r.reward) for r in mine])[0]
        assert item["ert"] == pytest.approx(ref)


def test_many_runs_use_the_delta_method_and_agree_with_the_bootstrap_scale():
    import numpy as np
    rng = np.random.default_rng(1)
    runs = [rec("a", s, float(rng.random() < 0.5), tokens=float(rng.integers(50, 150))) for s in range(6000)]
    [row] = anytime.cost_table(runs, "tokens", 0.5)
    lo, hi = row["ert_ci"]
    assert row["interval_method"].startswith("delta method") and lo < row["ert"] < hi
    assert hi - lo < 0.1 * row["ert"]


def test_cost_tables_from_columns_equal_the_per_record_rows():
    from baselines.analysis.tables.table import RunTable
    runs = []
    for seed in range(8):
        a = rec("a", seed, 1.0 if seed % 3 else 0.0, tokens=100 + seed)
        a.trace = [{"spend": {"tokens": 20 + seed}, "best": 0.2, "reward": 0.1},
                   {"spend": {"tokens": 60 + seed}, "best": 0.9, "reward": 0.8 if seed % 2 else 0.3}]
        b = rec("b", seed, None if seed == 3 else float(seed % 2), tokens=90)   # one crashed run
        runs += [a, b]
    table = RunTable.from_records(runs)
    [group] = anytime.cost_tables(table, "tokens", 0.5, baseline="b")
    by_columns = {r["arm"]: r for r in group["arms"]}
    by_records = {r["arm"]: r for r in anytime.cost_table(runs, "tokens", 0.5, baseline="b")}
    assert by_columns.keys() == by_records.keys()
    for arm in by_records:
        for key, value in by_records[arm].items():
            assert by_columns[arm][key] == (pytest.approx(value, nan_ok=True) if isinstance(value, float)
                                            else value), (arm, key)
    assert by_columns["b"]["crashed"] == 1 and anytime.json_ready(by_columns["b"])["ert"] is not None


def test_instance_column_gives_the_per_record_per_instance_rows(tmp_path):
    """Both readers keep `instance`, so ERT per instance comes from the columns, equal to the records'."""
    from baselines.core.records import read_records, write_records
    from baselines.analysis.tables.table import RunTable

    runs = _bbob_like()
    for r in runs[:2]:
        r.extra = {"instance": 7 if r is runs[0] else "f8-i1"}   # an integer instance too
    path = tmp_path / "bbob.jsonl"
    write_records(path, runs)
    by_records = anytime.cost_table(read_records(path), "evaluations", 0.5)
    for table in (RunTable.read([path]), RunTable.from_records(read_records(path))):
        assert list(table.frame["instance"]) == ["7", "f8-i1", "f15-i1", "f21-i1", "f24-i1"]
        [group] = anytime.cost_tables(table, "evaluations", 0.5)
        assert anytime.json_ready(group["arms"]) == anytime.json_ready(by_records)


def test_start_must_be_finite():
    with pytest.raises(ValueError, match="--start must be a finite number"):
        anytime.check_start(float("nan"))
    assert anytime.check_start(0) == 0.0


def test_compare_target_cli_reports_per_instance_ert(tmp_path, capsys):
    import json
    from baselines.cli import main
    from baselines.core.records import write_records

    path = tmp_path / "bbob.jsonl"
    runs = _bbob_like()
    for r in runs:
        r.budget = {"evaluations": 1000}
    write_records(path, runs)
    assert main(["compare", str(path), "--fixed", "evaluations", "--target", "0.5", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["cost_to_target"][0]["arms"]
    per = {i["instance"]: i["ert"] for i in row["instances"]}
    assert per["f21-i1"] == 992 and per["f1-i1"] == "inf" and row["ert"] is None
