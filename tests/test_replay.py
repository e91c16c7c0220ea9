"""The replay workload, its strategies and the per-item outcomes they write.

Every number the docs quote comes from these code paths, so the checks are
against the raw files computed here independently (plain JSON and Counter),
not against costmatch's own helpers.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from arms.replay_tts import AdaptiveMajority, FirstSample, Majority, ModelMix, leader_probability
from baselines.core.budget import Budget
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.core.meter import Meter
from baselines.core.scored import Scored, unpack_score
from workloads.replay import Replay, shipped_folder

SHIPPED = sorted(shipped_folder().glob("analysis_aime2025_*.jsonl"))
MEASURES = ("calls", "completion_tokens", "seconds")


def raw(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def model_of(path: Path) -> str:
    return path.stem.removeprefix("analysis_aime2025_")


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def problem(pid: str, gold: str, answers: list, tokens: int = 10) -> dict:
    return {"id": pid, "gold": gold, "samples": [{"answer": a, "tokens": tokens} for a in answers]}


def play(arm, workload: Replay, seed: int = 0, budget: dict | None = None):
    instance = workload.instance(seed)
    meter = Meter(Budget(budget) if budget else None, measures=MEASURES)
    out = arm.run(instance, meter, np.random.default_rng(0))
    return workload.score(instance, out.choice), workload.score(instance, out.alternatives[0]), meter


def suite_text(tmp_path: Path, arms: dict[str, tuple[str, dict]], params: dict, budget: str,
               fixed: str = "completion_tokens", seeds: int = 2) -> Path:
    lines = [f'name = "t"\nseeds = {seeds}\njobs = 1\nbackend = "sequential"\n']
    for name, (cls, p) in arms.items():
        lines.append(f'[arms.{name}]\npath = "arms.replay_tts:{cls}"\nparams = {_toml(p)}\n')
    lines.append(f'[[workloads]]\nname = "w"\npath = "workloads.replay:Replay"\nparams = {_toml(params)}\n'
                 f'fixed = "{fixed}"\nbudget = {budget}\narms = {json.dumps(list(arms))}\n')
    suite = tmp_path / "suite.toml"
    suite.write_text("\n".join(lines))
    return suite


def _toml(params: dict) -> str:
    if not params:
        return "{}"
    parts = []
    for key, value in params.items():
        if isinstance(value, dict):
            value = "{ " + ", ".join(f'"{k}" = {json.dumps(v)}' for k, v in value.items()) + " }"
        else:
            value = json.dumps(value)
        parts.append(f"{key} = {value}")
    return "{ " + ", ".join(parts) + " }"


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


# -- agreement with the raw files -------------------------------------------------------------
@pytest.mark.parametrize("path", SHIPPED, ids=model_of)
def test_majority_over_all_samples_matches_the_raw_file(path):
    """Majority over the whole pool in generation order with "" voting = the file's own majority_answer
    (null never votes, ties to the first seen), checked against it and gold."""
    rows = raw(path)
    expected = []
    for row in rows:
        votes = Counter(a for a, _ in row["all_answers"] if a is not None)
        top = votes.most_common(1)[0][0]
        assert top == row["majority_answer"]
        expected.append(top == row["gold_answer"])
    workload = Replay(models=[model_of(path)], order="generation", empty="votes")
    scored, oracle, meter = play(Majority(model=model_of(path)), workload)
    assert scored.reward == pytest.approx(sum(expected) / len(rows))
    assert meter.spend()["calls"] == sum(len(r["all_answers"]) for r in rows)
    assert meter.spend()["completion_tokens"] == sum(t for r in rows for _, t in r["all_answers"])
    assert oracle.reward == pytest.approx(np.mean([any(a == r["gold_answer"] for a, _ in r["all_answers"])
                                                   for r in rows]))


@pytest.mark.parametrize("path", SHIPPED, ids=model_of)
def test_single_sample_accuracy_matches_the_raw_file(path):
    """Best-of-1: the first recorded sample (generation order) and the pool's mean single-sample accuracy."""
    from baselines.analysis.curves.tts_curves import pool_curves

    rows = raw(path)
    first = np.mean([r["all_answers"][0][0] == r["gold_answer"] for r in rows])
    mean_single = np.mean([np.mean([a == r["gold_answer"] for a, _ in r["all_answers"]]) for r in rows])
    workload = Replay(models=[model_of(path)], order="generation")
    scored, _, meter = play(FirstSample(model=model_of(path)), workload)
    assert scored.reward == pytest.approx(first)
    assert meter.spend()["completion_tokens"] == sum(r["all_answers"][0][1] for r in rows)
    pool = workload.pools.pools[model_of(path)]
    curves = pool_curves(pool.codes, pool.tokens, pool.sizes, workload.pools.gold_codes, draws=8)
    assert curves["majority"].accuracy[0] == pytest.approx(mean_single)
    mean_tokens = np.mean([np.mean([t for _, t in r["all_answers"]]) for r in rows])
    assert curves["majority"].tokens[0] == pytest.approx(mean_tokens)


def test_first_sample_over_shuffled_seeds_estimates_single_sample_accuracy():
    path = SHIPPED[0]
    rows = raw(path)
    mean_single = np.mean([np.mean([a == r["gold_answer"] for a, _ in r["all_answers"]]) for r in rows])
    workload = Replay(models=[model_of(path)])
    rewards = [play(FirstSample(model=model_of(path)), workload, seed)[0].reward for seed in range(60)]
    assert abs(np.mean(rewards) - mean_single) < 0.03   # 1,800 draws: the standard error is about 0.01


# -- the rules that change numbers -----------------------------------------------------------
def test_ties_go_to_the_answer_seen_first_which_is_a_fair_coin_over_seeds(tmp_path):
    write(tmp_path / "b_m.jsonl", [problem("p", "b", ["a", "b"]), problem("q", "b", ["b", "a"])])
    fixed = Replay(benchmark="b", folder=str(tmp_path), order="generation")
    assert play(Majority(), fixed)[0].items == {"p": 0.0, "q": 1.0}
    shuffled = Replay(benchmark="b", folder=str(tmp_path))
    wins = [play(Majority(), shuffled, seed)[0].items["p"] for seed in range(400)]
    assert 0.42 < np.mean(wins) < 0.58


def test_empty_answers_abstain_by_default_as_the_authors_rule_and_null_never_votes(tmp_path):
    write(tmp_path / "b_m.jsonl", [problem("e", "7", ["", "", "7"]), problem("n", "7", [None, None, "7"])])
    voting = Replay(benchmark="b", folder=str(tmp_path), order="generation", empty="votes")
    assert play(Majority(), voting)[0].items == {"e": 0.0, "n": 1.0}
    assert Replay(benchmark="b", folder=str(tmp_path), empty_votes=True).vote_rule == voting.vote_rule  # old spelling
    abstaining = Replay(benchmark="b", folder=str(tmp_path), order="generation")
    assert abstaining.vote_rule.name == "authors"
    assert play(Majority(), abstaining)[0].items == {"e": 1.0, "n": 1.0}
    assert play(FirstSample(), abstaining)[0].items == {"e": 0.0, "n": 0.0}  # the first sample has no answer


def test_a_used_up_pool_stops_the_arm_below_its_budget(tmp_path):
    write(tmp_path / "b_m.jsonl", [problem("p", "1", ["1", "2", "1"], tokens=5), problem("q", "2", ["2"], tokens=7)])
    workload = Replay(benchmark="b", folder=str(tmp_path))
    for arm in (Majority(), Majority(n=10), AdaptiveMajority(confidence=0.999)):
        scored, _, meter = play(arm, workload, budget={"completion_tokens": 1000})
        assert meter.spend()["calls"] == 4 and meter.spend()["completion_tokens"] == 22
        assert meter.exhausted is None and scored.reward == 1.0


def test_the_sample_that_crosses_a_token_budget_is_cut_and_its_answer_unused(tmp_path):
    write(tmp_path / "b_m.jsonl", [problem("p", "1", ["1", "1"], tokens=10), problem("q", "2", ["2", "2"], tokens=10)])
    workload = Replay(benchmark="b", folder=str(tmp_path), order="generation")
    scored, _, meter = play(Majority(), workload, budget={"completion_tokens": 15})
    assert meter.spend()["completion_tokens"] == 15 and meter.spend()["calls"] == 2
    assert scored.items == {"p": 1.0, "q": 0.0}   # q's sample was cut at 5 tokens: no answer
    scored, _, meter = play(Majority(), workload, budget={"calls": 2})
    assert scored.items == {"p": 1.0, "q": 1.0}   # a call budget: the last sample is whole and counts


@pytest.mark.parametrize("calls", [1, 2, 3, 5])
def test_a_budget_of_n_calls_draws_exactly_n_samples_and_never_an_extra_call(tmp_path, calls):
    write(tmp_path / "b_m.jsonl", [problem(f"p{k}", "1", ["1", "1"]) for k in range(3)])
    workload = Replay(benchmark="b", folder=str(tmp_path), order="generation")
    scored, _, meter = play(Majority(), workload, budget={"calls": calls})
    assert meter.spend()["calls"] == calls
    assert sum(v is not None and v > 0 for v in scored.items.values()) == min(calls, 3)


def test_two_arms_at_one_seed_draw_the_same_samples_in_the_same_order(tmp_path):
    suite = suite_text(tmp_path, {"maj": ("Majority", {"model": "gpt-oss-20b"}),
                                  "ada": ("AdaptiveMajority", {"model": "gpt-oss-20b", "min_samples": 3}),
                                  "mix": ("ModelMix", {"models": ["gpt-oss-20b", "Qwen3-4B"]})},
                       {"models": ["gpt-oss-20b", "Qwen3-4B"]}, "{ completion_tokens = 3000000 }", seeds=3)
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--quiet", "--no-plots"]) == 0
    first_round = {}
    for r in records(out):  # trace[1]: after one sample of every problem from the first model
        first_round.setdefault(r["seed"], set()).add(r["trace"][1]["spend"]["completion_tokens"])
    assert all(len(v) == 1 for v in first_round.values())
    assert len({v.pop() for v in first_round.values()}) == 3  # and another order at each seed
    workload = Replay(models=["gpt-oss-20b"])
    assert np.array_equal(workload.instance(4).order("gpt-oss-20b"), Replay().instance(4).order("gpt-oss-20b"))


# -- records: items, oracle, spend ---------------------------------------------------------
def test_records_carry_items_oracle_and_honest_spend(tmp_path):
    suite = suite_text(tmp_path, {"first": ("FirstSample", {"model": "Qwen3-4B"}),
                                  "maj": ("Majority", {"n": 4, "model": "Qwen3-4B"})},
                       {"models": ["Qwen3-4B"], "problems": 12}, "{ calls = 48 }", fixed="calls", seeds=1)
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--quiet", "--no-plots"]) == 0
    by_arm = {r["arm"]: r for r in records(out)}
    for r in by_arm.values():
        assert len(r["items"]) == 12 and len({i["id"] for i in r["items"]}) == 12
        assert r["reward"] == pytest.approx(np.mean([i["reward"] for i in r["items"]]))
        assert {i["reward"] for i in r["items"]} <= {0.0, 1.0}
        assert r["spend"]["prompt_tokens"] is None and r["spend"]["tokens"] is None and r["spend"]["usd"] is None
        assert r["oracle_reward"] >= r["reward"]
    assert [i["id"] for i in by_arm["first"]["items"]] == [i["id"] for i in by_arm["maj"]["items"]]
    assert by_arm["first"]["spend"]["calls"] == 12 and by_arm["maj"]["spend"]["calls"] == 48


def test_dollars_where_the_price_table_knows_every_model_else_unreported(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"date": "2026-01-01", "source": "test",
                                  "models": {"gpt-oss-20b": {"input": 0.1, "output": 0.5}}}))
    workload = Replay(models=["gpt-oss-20b", "Qwen3-4B"], prices=str(prices), problems=5)
    _, _, meter = play(Majority(n=2, model="gpt-oss-20b"), workload)
    assert meter.spend()["usd"] == pytest.approx(meter.spend()["completion_tokens"] * 0.5 / 1e6)
    _, _, meter = play(ModelMix(models=["gpt-oss-20b", "Qwen3-4B"], n=2), workload)
    assert meter.spend()["usd"] is None    # Qwen3-4B has no price: unknown, never 0


def test_a_budget_in_tokens_is_refused_with_the_fix(tmp_path):
    workload = Replay(models=["Qwen3-4B"], problems=3)
    with pytest.raises(InputError, match="budget completion_tokens instead"):
        play(Majority(), workload, budget={"tokens": 1000})


def test_adaptive_stops_confident_problems_and_spends_the_rest_on_open_ones(tmp_path):
    rows = [problem(f"easy{i}", "1", ["1"] * 40) for i in range(5)] + [problem("hard", "1", ["1", "2"] * 20)]
    write(tmp_path / "b_m.jsonl", rows)
    workload = Replay(benchmark="b", folder=str(tmp_path))
    _, _, meter = play(AdaptiveMajority(confidence=0.95, min_samples=2), workload, budget={"calls": 60})
    assert meter.spend()["calls"] == 60   # easy problems stop at 4 agreeing votes (P = 31/32), hard takes the rest
    assert leader_probability(4, 0) == pytest.approx(31 / 32) and leader_probability(3, 0) == pytest.approx(15 / 16)


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("line, words", [
    ({"id": "p1", "samples": [{"answer": "1", "tokens": 3}]}, ["problem 'p1'", "missing 'gold'"]),
    ({"id": "p1", "gold": "1", "samples": [{"answer": "1"}]}, ["problem 'p1'", "samples[0]", "missing 'tokens'"]),
    ({"id": "p1", "gold": "1", "samples": [{"answer": "1", "tokens": -4}]}, ["samples[0].tokens", ">= 0", "-4"]),
    ({"problem_num": 3, "gold_answer": "1", "all_answers": [["1"]]}, ["problem '3'", "all_answers[0]", "tokens"]),
    ({"problem_num": 3, "all_answers": [["1", 4]]}, ["problem '3'", "missing 'gold_answer'"]),
    ({"problem_num": 3, "gold_answer": "1", "all_answers": [["1", 2.5]]}, ["all_answers[0][1] (tokens)", "2.5"]),
])
def test_a_bad_file_is_exit_2_with_one_line_naming_file_line_problem_and_field(tmp_path, capsys, line, words):
    data = tmp_path / "data"
    data.mkdir()
    write(data / "b_m.jsonl", [problem("p0", "1", ["1"]), line])
    suite = suite_text(tmp_path, {"maj": ("Majority", {})}, {"benchmark": "b", "folder": str(data)},
                       "{ calls = 4 }", fixed="calls")
    assert main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{data / 'b_m.jsonl'}:2" in err
    for word in words:
        assert word in err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_files_of_one_benchmark_must_hold_the_same_problems(tmp_path):
    write(tmp_path / "b_m1.jsonl", [problem("p", "1", ["1"])])
    write(tmp_path / "b_m2.jsonl", [problem("q", "1", ["1"])])
    with pytest.raises(InputError, match="same problems"):
        Replay(benchmark="b", folder=str(tmp_path))
    with pytest.raises(InputError, match="no samples files for benchmark 'nope'"):
        Replay(benchmark="nope", folder=str(tmp_path))
    with pytest.raises(InputError, match="'m3' has no samples file"):
        Replay(benchmark="b", folder=str(tmp_path), models=["m3"])


def test_files_by_path_and_the_native_format_with_scores(tmp_path):
    path = write(tmp_path / "anything.jsonl", [{"id": "p", "gold": "4", "samples": [
        {"answer": "4", "tokens": 3, "score": 0.9}, {"answer": 5, "tokens": 2}]}])
    workload = Replay(files={"mine": str(path)})
    pool = workload.pools.pools["mine"]
    assert workload.pools.vocab[0][pool.codes[0, 1]] == "5" and np.isnan(pool.scores[0, 1])
    assert play(Majority(), workload)[1].reward == 1.0


# -- the Scored type --------------------------------------------------------------------
def test_unpack_score_keeps_plain_numbers_and_checks_items():
    assert unpack_score(0.5) == (0.5, None) and unpack_score(None) == (None, None)
    assert unpack_score(Scored(0.5, {1: 1.0, "b": None})) == (0.5, [{"id": "1", "reward": 1.0},
                                                                   {"id": "b", "reward": None}])
    with pytest.raises(ValueError, match="finite"):
        unpack_score(Scored(0.5, {"a": float("nan")}))
    with pytest.raises(ValueError, match="same id"):
        unpack_score(Scored(0.5, {1: 1.0, "1": 0.0}))


# -- the shipped suite -----------------------------------------------------------------------
def test_the_shipped_suite_is_found_by_name(capsys):
    assert main(["plan", "replay-aime2025"]) == 0
    assert "first-sample-gpt-oss" in capsys.readouterr().out


@pytest.mark.slow
def test_the_shipped_suite_runs(tmp_path):
    assert main(["run", "replay-aime2025", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert len(records(tmp_path / "out")) == 70


def test_the_full_files_suite_in_docs_runs_on_files_by_path(tmp_path, monkeypatch):
    """docs/replay-files-suite.toml, pointed at two synthetic MATH500-shaped files (the real ones are not shipped)."""
    from benchmarks.replay_synthetic import write_synthetic

    folder = tmp_path / "boinf" / "jsonl"
    folder.mkdir(parents=True)
    for i, model in enumerate(("gpt-oss-20b", "Qwen3-14B")):
        write_synthetic(folder / f"analysis_math500_{model}.jsonl", problems=20, samples=12, seed=i)
    text = (Path(__file__).resolve().parents[1] / "docs" / "replay-files-suite.toml").read_text()
    suite = tmp_path / "suite.toml"
    suite.write_text(text.replace("seeds = 5", "seeds = 2").replace("jobs = 2", 'jobs = 1\nbackend = "sequential"'))
    monkeypatch.chdir(tmp_path)  # folder = "boinf/jsonl" is relative to where costmatch runs
    assert main(["run", str(suite), "--quiet", "--no-plots"]) == 0
    rows = records(tmp_path / "replay-math500-out")
    assert len(rows) == 10 and all(len(r["items"]) == 20 and r["error"] is None for r in rows)
