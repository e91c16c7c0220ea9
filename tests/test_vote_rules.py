"""The vote rules: one implementation for `curves`, the arms and `run`, checked by hand and against the release.

Why by hand: the four shipped AIME files hold no empty plurality and no tie on
the gold answer, so the rules could differ there unseen (they did: `curves`
and `run` disagreed on 17 of the 35 release files). The fixture
`tests/data/vote-rules` has both, and unequal pool sizes; every expected value
below is counted by hand from its seven lines (written out in the comments).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from arms.replay_tts import Majority
from baselines.analysis.curves.pool_table import parse_ns, pool_table, render_table
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.core.meter import Meter
from baselines.core.votes import TIE_RULES, EMPTY_RULES, TiedAnswers, VoteRule, whole_pool_credit
from workloads.replay import Replay

FIXTURE = Path(__file__).parent / "data" / "vote-rules"
#: the release beside the clone (../shared/data/boinf), or where COSTMATCH_BOINF names
RELEASE = Path(os.environ.get("COSTMATCH_BOINF") or Path(__file__).resolve().parents[2] / "shared" / "data" / "boinf")
RULES = [(e, t) for e in EMPTY_RULES for t in TIE_RULES]

# The fixture, problem by problem (gold: answers in recorded order):
#   p0  5: "", "", 5          empty plurality: abstains -> 5 (1); votes -> "" (0)
#   p1  3: 4, 3, 3, 4         tie 4/3, 4 first: first-seen 0; random 1/2
#   p2  7: 8, "", 7, "", 7, 8 abstains: tie 8/7, 8 first: 0 or 1/2; votes: three-way 8/""/7: 0 or 1/3
#   p3  9: null, 9            null never votes: 1
#   p4  1: "", ""             abstains: no answer (0); votes: "" (0)
#   p5  2: 2                  a pool of one: 1
#   p6  6: 6, 0, 0, 6         tie 6/0, 6 first: first-seen 1; random 1/2
# Bo1 = right samples / all samples = (1+2+2+1+0+1+2) / (3+4+6+2+2+1+4) = 9/22 under every rule.
BO1 = 9 / 22
BOINF = {("abstains", "first-seen"): (1 + 0 + 0 + 1 + 0 + 1 + 1) / 7,         # 4/7: the authors' rule
         ("abstains", "random"): (1 + 0.5 + 0.5 + 1 + 0 + 1 + 0.5) / 7,       # 4.5/7
         ("votes", "first-seen"): (0 + 0 + 0 + 1 + 0 + 1 + 1) / 7,            # 3/7
         ("votes", "random"): (0 + 0.5 + 1 / 3 + 1 + 0 + 1 + 0.5) / 7}        # (10/3)/7


def fixture(empty: str, ties: str, **kw) -> Replay:
    return Replay(benchmark="rules", folder=str(FIXTURE), empty=empty, ties=ties, **kw)


@pytest.mark.parametrize("empty,ties", RULES)
def test_the_table_gives_the_hand_counted_bo1_and_boinf_under_each_rule(empty, ties):
    table = pool_table(fixture(empty, ties), ns=(1, "all"))
    (row,) = table.rows
    assert (row.problems, row.samples_min, row.samples_max) == (7, 1, 6)
    assert row.bo1 == pytest.approx(BO1)
    assert row.boinf == pytest.approx(BOINF[empty, ties])
    one, whole = row.majority
    # majority@1 is the mean of per-problem shares, not Bo1: unequal pools make them differ
    assert one.value == pytest.approx((1 / 3 + 2 / 4 + 2 / 6 + 1 / 2 + 0 + 1 + 2 / 4) / 7) and one.exact
    assert whole.value == pytest.approx(BOINF[empty, ties]) and whole.exact and whole.error == 0


@pytest.mark.parametrize("empty,ties", RULES)
def test_curves_and_run_in_recorded_order_give_the_same_boinf_under_every_rule(empty, ties, capsys):
    workload = fixture(empty, ties, order="generation")
    instance = workload.instance(0)
    meter = Meter(None)
    output = Majority().run(instance, meter, np.random.default_rng(0))
    run_boinf = workload.score(instance, output.choice).reward
    assert main(["curves", "--folder", str(FIXTURE), "--benchmark", "rules", "--empty", empty, "--ties", ties,
                 "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["vote_rule"]["empty"] == empty and printed["vote_rule"]["ties"] == ties
    assert printed["rows"][0]["boinf"] == pytest.approx(run_boinf, abs=1e-6)
    assert run_boinf == pytest.approx(BOINF[empty, ties])


def test_a_random_tie_is_returned_whole_and_scores_its_expectation():
    workload = fixture("abstains", "random", order="generation")
    instance = workload.instance(0)
    choice = Majority().run(instance, Meter(None), np.random.default_rng(0)).choice
    assert isinstance(choice["1"], TiedAnswers) and set(choice["1"]) == {"4", "3"}
    assert choice["0"] == "5" and choice["4"] is None
    assert workload.score(instance, choice).items["1"] == 0.5
    assert workload.score(instance, {"1": ["4", "3"]}).items["1"] == 1.0  # the oracle's list stays "any is right"


def test_whole_pool_credit_counts_first_seen_and_random_ties_exactly():
    codes = np.array([[1, 0, 0, 1, -1], [2, 2, 1, -1, -1], [-1, -1, -1, -1, -1]])
    gold = np.array([0, 1, 0])
    assert whole_pool_credit(codes, gold, "first-seen").tolist() == [0.0, 0.0, 0.0]
    assert whole_pool_credit(codes, gold, "random").tolist() == [0.5, 0.0, 0.0]
    assert whole_pool_credit(codes, np.array([1, 2, -2]), "first-seen").tolist() == [1.0, 1.0, 0.0]


def test_the_default_rule_is_the_authors_and_is_named_in_every_format(capsys):
    assert Replay(benchmark="rules", folder=str(FIXTURE)).vote_rule == VoteRule("abstains", "first-seen")
    for fmt in ("md", "csv", "json"):
        assert main(["curves", "--folder", str(FIXTURE), "--benchmark", "rules", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "authors" in out and "0.571" in out  # Bo-inf 4/7
    md = render_table(pool_table(fixture("votes", "random"), ns=(2,), draws=16), "md")
    assert "empty=votes,ties=random" in md and "±" in md and "Monte Carlo" in md


def test_bad_rule_names_and_n_are_one_clear_error(capsys):
    with pytest.raises(InputError, match="ties must be one of first-seen, random"):
        fixture("abstains", "coin")
    with pytest.raises(InputError, match="disagree"):
        Replay(benchmark="rules", folder=str(FIXTURE), empty="votes", empty_votes=False)
    with pytest.raises(ValueError, match="'all'"):
        parse_ns("1,zero")
    assert main(["curves", "--folder", str(FIXTURE), "--benchmark", "rules", "--n", "4"]) == 2
    assert "--format" in capsys.readouterr().err


# -- the 35 release files (slow, only when ../shared/data/boinf is present) --------------------
def authors_summary(path: Path) -> tuple[str, str]:
    """Bo1 and Bo-inf as the authors' jsonl_to_table.py computes them, from the summary fields of each line:
    answer_counts[gold] / total_answers pooled, and majority_answer == gold with an empty majority_answer
    replaced by the first non-empty key of answer_counts with the strictly highest count."""
    right = total = matches = problems = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        counts, gold = obj.get("answer_counts") or {}, str(obj["gold_answer"])
        majority = obj.get("majority_answer") or ""
        if majority == "":
            best = -1
            for key, count in counts.items():
                if key.strip() and int(count) > best:
                    best, majority = int(count), key.strip()
        right += int(counts.get(gold, 0))
        total += int(obj["total_answers"])
        matches += majority == gold
        problems += 1
    return f"{right / total:.3f}", f"{matches / problems:.3f}"


def counted_majority(path: Path, empty: str, ties: str) -> float:
    """The whole-pool majority counted with Counter from all_answers (tie credit by hand)."""
    scores = []
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        votes = Counter(a for a, _ in obj["all_answers"] if a is not None and (a != "" or empty == "votes"))
        if not votes:
            scores.append(0.0)
            continue
        top = max(votes.values())
        tied = [a for a, v in votes.items() if v == top]  # Counter keeps first-seen order
        gold = obj["gold_answer"]
        scores.append(float(tied[0] == gold) if ties == "first-seen" else (gold in tied) / len(tied))
    return float(np.mean(scores))


@pytest.mark.slow
@pytest.mark.skipif(not RELEASE.is_dir(), reason="the Best-of-inf release files (../shared/data/boinf) are not here")
@pytest.mark.parametrize("dataset", ["aime2024", "aime2025", "gpqa_diamond", "math500"])
def test_on_every_release_file_the_default_table_is_the_authors_and_every_rule_an_independent_count(dataset):
    files = sorted(RELEASE.glob(f"analysis_{dataset}_*.jsonl"))
    assert files
    for empty, ties in RULES:
        table = pool_table(Replay(benchmark=dataset, folder=str(RELEASE), empty=empty, ties=ties))
        for row, path in zip(table.rows, files, strict=True):
            assert path.stem.endswith(row.model)
            if (empty, ties) == ("abstains", "first-seen"):
                assert (f"{row.bo1:.3f}", f"{row.boinf:.3f}") == authors_summary(path), path.name
            assert row.boinf == pytest.approx(counted_majority(path, empty, ties), abs=1e-12), (path.name, empty, ties)


def test_the_grouped_walk_equals_a_numpy_loop_over_problems_with_varied_answer_sets():
    """Grouping problems by their number of distinct answers changes the cost, never a per-problem result."""
    from baselines.analysis.curves.tts_curves import orderings, walk
    from benchmarks.bench_boinf_curves import numpy_loop

    rng = np.random.default_rng(4)
    sizes = rng.integers(3, 13, size=40)
    width = int(sizes.max())
    spread = rng.integers(1, 7, size=40)[:, None]                       # 1 to 6 distinct answers per problem
    codes = rng.integers(-1, 6, size=(40, width)) % np.maximum(spread, 1) - (rng.random((40, width)) < 0.15)
    codes[np.arange(width)[None, :] >= sizes[:, None]] = -1
    gold = rng.integers(-2, 3, size=40)
    order = orderings(sizes, width, 6, seed=1)
    walks = walk(codes, np.ones_like(codes), sizes, gold, order, chunk=64)  # small chunks: groups split too
    correct, lead, second = numpy_loop(codes, gold, order)
    assert np.array_equal(walks.correct, correct) and walks.correct.any()
    assert np.array_equal(walks.lead, lead) and np.array_equal(walks.second, second)


@pytest.mark.slow
@pytest.mark.skipif(not RELEASE.is_dir(), reason="the Best-of-inf release files (../shared/data/boinf) are not here")
def test_the_curves_benchmark_runs_and_its_loop_gives_identical_results():
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    res = subprocess.run([sys.executable, "benchmarks/bench_boinf_curves.py", "--folder", str(RELEASE),
                          "--repeats", "1"], cwd=root, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("identical per-problem results: True") == 1 and "identical curves: True" in res.stdout
    assert res.stdout.count("exit 0") == 3


@pytest.mark.slow
@pytest.mark.skipif(not RELEASE.is_dir(), reason="the Best-of-inf release files (../shared/data/boinf) are not here")
@pytest.mark.parametrize("empty,ties", RULES)
def test_on_every_release_file_run_in_recorded_order_gives_the_tables_boinf(empty, ties):
    for dataset in ("aime2024", "aime2025", "gpqa_diamond", "math500"):
        workload = Replay(benchmark=dataset, folder=str(RELEASE), order="generation", empty=empty, ties=ties)
        table = {row.model: row.boinf for row in pool_table(workload).rows}
        instance = workload.instance(0)
        for model in workload.models:
            choice = Majority(model=model).run(instance, Meter(None), np.random.default_rng(0)).choice
            assert workload.score(instance, choice).reward == pytest.approx(table[model], abs=1e-12), (dataset, model)
