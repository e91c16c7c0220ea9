"""Rules whose mutants the default suite once let through (issue 44), each pinned by the value it must give.

Each test names the mutant it kills. A rule checked only by its wording, or by a verdict that stays the
same either way, lets a faithful mutant pass: these check the number the rule produces.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from baselines import InputError, RunRecord, compare
from baselines.analysis.statistics.clustered import clustered_bounds
from baselines.analysis.gating.gate import run_gate
from baselines.importers import import_lm_eval

LM_EVAL = Path(__file__).parent / "data" / "lm_eval" / "output" / "strong"


# -- the gate's crash rule: a crashed candidate seed is a loss at the range floor, not a tie ---------------
def _crash_records(n=20, crashed=(1, 4, 7, 9, 15)):
    out = []
    for s in range(n):
        level = 0.6 + 0.01 * (s % 5)
        extra = {"reward_range": [0, 1]}
        out.append(RunRecord("w", "base", s, {"tokens": 1}, level, budget={"tokens": 1}, extra=dict(extra)))
        out.append(RunRecord("w", "cand", s, {"tokens": 1}, None if s in crashed else level + 0.02,
                             budget={"tokens": 1}, error={"type": "E", "message": "x"} if s in crashed else None,
                             extra=dict(extra)))
    return out


def test_a_crashed_candidate_seed_counts_at_the_floor_in_the_gates_mean():
    """Kills: the crashed seed scored as the baseline's reward (a tie), which moves the mean to +0.015."""
    [res], _ = run_gate(_crash_records(), "tokens", "base", "cand", 0.1)
    crashed_levels = sum(0.6 + 0.01 * (s % 5) for s in (1, 4, 7, 9, 15))   # each lost to the floor 0
    expected = (15 * 0.02 - crashed_levels) / 20                          # = -0.1405
    assert res.n == 20 and res.diff == pytest.approx(expected, abs=1e-12)
    assert res.lower <= expected <= res.upper


# -- seed clustering: the cluster-robust standard error, not its within-seed floor -------------------------
def test_the_clustered_standard_error_is_the_cluster_means_standard_error_with_equal_sizes():
    """With equal cluster sizes the CR1 standard error of the mean equals sd(cluster means)/sqrt(G).

    Kills: the clustered SE replaced by its within-seed floor (which ignores the seed effect; with 10-20
    seeds and a seed effect of sd 0.2 that mutant PASSes at the margin in 14-15% of data sets)."""
    rng = np.random.default_rng(7)
    seed_effect = rng.normal(0, 0.2, 8)
    clusters = [effect + rng.normal(0, 0.05, 20) for effect in seed_effect]
    mean, lower, upper, se = clustered_bounds(clusters, 0.05)
    means = np.array([c.mean() for c in clusters])
    assert se == pytest.approx(means.std(ddof=1) / math.sqrt(len(clusters)), rel=1e-12)
    floor = math.sqrt(sum(((c - c.mean()) ** 2).sum() for c in clusters) / (160 - 8) / 160)
    assert se > 3 * floor                                         # the seed effect dominates here
    assert mean == pytest.approx(means.mean()) and lower < mean < upper


def test_the_floor_still_holds_when_seeds_agree_too_well():
    """Clusters whose means coincide have a CR SE near 0; the within-seed floor keeps the interval honest."""
    base = np.linspace(-1, 1, 10) + 0.5                       # every seed's mean is 0.5: CR SE 0
    clusters = [base.copy(), base[::-1].copy(), base.copy()]
    mean, lower, upper, se = clustered_bounds(clusters, 0.05)
    floor = math.sqrt(3 * ((np.linspace(-1, 1, 10)) ** 2).sum() / (30 - 3) / 30)
    assert mean == pytest.approx(0.5) and se == pytest.approx(floor) and upper - lower > 0.1


def test_one_item_per_seed_has_no_within_seed_floor():
    """With one item per seed the within-seed variance is undefined: the CR SE alone (the seeds' t)."""
    clusters = [np.array([0.1]), np.array([0.3]), np.array([0.2]), np.array([0.6])]
    mean, lower, upper, se = clustered_bounds(clusters, 0.05)
    values = np.array([0.1, 0.3, 0.2, 0.6])
    assert se == pytest.approx(values.std(ddof=1) / 2, rel=1e-12) and mean == pytest.approx(0.3)


# -- lm-eval filters: --metric NAME,FILTER reads that filter's lines only ----------------------------------
def _two_filter_run(tmp_path: Path) -> Path:
    """The shipped strong run with a second filter, 'strict-match', whose exact_match is wrong on even doc ids."""
    results = sorted(LM_EVAL.glob("results_*.json"))[0]
    date = results.name[len("results_"):-len(".json")]
    samples = LM_EVAL / f"samples_arith20_{date}.jsonl"
    out = tmp_path / "run"
    out.mkdir()
    data = json.loads(results.read_text())
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    strict = []
    for line in lines:
        other = dict(line, filter="strict-match")
        other["exact_match"] = 0.0 if line["doc_id"] % 2 == 0 else line["exact_match"]
        strict.append(other)
    data["results"]["arith20"]["exact_match,strict-match"] = float(np.mean([s["exact_match"] for s in strict]))
    data["results"]["arith20"]["exact_match_stderr,strict-match"] = 0.1
    (out / results.name).write_text(json.dumps(data))
    interleaved = [x for pair in zip(lines, strict) for x in pair]
    (out / samples.name).write_text("".join(json.dumps(x) + "\n" for x in interleaved))
    return out / results.name, {str(x["doc_id"]): x["exact_match"] for x in lines}, \
        {str(x["doc_id"]): x["exact_match"] for x in strict}


def test_lm_eval_metric_filter_picks_that_filters_items(tmp_path):
    """Kills: the FILTER part of --metric ignored, and items taken from every filter's lines."""
    results, none_items, strict_items = _two_filter_run(tmp_path)
    assert none_items != strict_items
    [strict] = import_lm_eval(results, metric="exact_match,strict-match")
    assert strict.extra["metric"] == "exact_match,strict-match"
    assert {i["id"]: i["reward"] for i in strict.items} == strict_items
    assert strict.reward == pytest.approx(np.mean(list(strict_items.values())))
    [plain] = import_lm_eval(results, metric="exact_match,none")
    assert {i["id"]: i["reward"] for i in plain.items} == none_items
    [default] = import_lm_eval(results)          # the first reported metric: exact_match,none
    assert default.extra["metric"] == "exact_match,none" and len(default.items) == 20
    with pytest.raises(InputError, match="reports no metric 'exact_match,flexible'"):
        import_lm_eval(results, metric="exact_match,flexible")


# -- the drift tolerance is inclusive: exactly 10% over is equal spend, a hair more is not -----------------
def _drift_records(spend: float):
    out = []
    for s in range(5):
        out.append(RunRecord("w", "a", s, {"tokens": 100}, 0.5, budget={"tokens": 100}))
        out.append(RunRecord("w", "b", s, {"tokens": spend if s == 2 else 100}, 0.5, budget={"tokens": 100}))
    return out


@pytest.mark.parametrize("spend, drifted", [(110.0, False), (110.0001, True), (90.0, False), (89.9999, True)])
def test_drift_of_exactly_the_tolerance_is_allowed_and_beyond_it_is_not(spend, drifted):
    """Kills: `>` made `>=` (or `<` made `<=`) in the drift rule, on the path `compare()` takes."""
    result = compare(_drift_records(spend), fixed="tokens", tolerance=0.1)
    [group] = result.groups
    assert bool(group.unequal) is drifted and result.valid is (not drifted)
    if drifted:
        [flag] = group.unequal
        assert flag.arm == "b" and flag.seed == 2 and flag.runs == 1


# -- seed-clustered pairs: every field against an independent oracle (scipy's t test on seed means) ---------
def _equal_clusters(g=6, k=12, seed=11):
    rng = np.random.default_rng(seed)
    return [rng.normal(0.05, 0.3, k) + rng.normal(0, 0.1) for _ in range(g)]


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_a_clustered_pair_is_the_paired_t_on_seed_means_when_sizes_are_equal(level):
    """CR1 with equal sizes is exactly the one-sample t on the G per-seed mean differences (G - 1 df)."""
    from scipy import stats as sps

    from baselines.analysis.statistics.clustered import METHOD, ItemPairing, clustered_pair

    clusters = _equal_clusters()
    pairing = ItemPairing(clusters=clusters, seeds=list(range(6)))
    pair = clustered_pair("cand", "base", clusters, level, pairing)
    means = np.array([c.mean() for c in clusters])
    test = sps.ttest_1samp(means, 0.0)
    half = sps.t.ppf(1 - (1 - level) / 2, 5) * means.std(ddof=1) / math.sqrt(6)
    assert (pair.a, pair.b, pair.n, pair.paired) == ("cand", "base", 6, True)
    assert pair.diff == pytest.approx(means.mean(), rel=1e-12)
    assert pair.ci == pytest.approx((means.mean() - half, means.mean() + half), rel=1e-9)
    assert pair.p == pytest.approx(test.pvalue, rel=1e-9) and pair.p_t == pytest.approx(test.pvalue, rel=1e-9)
    assert pair.sd == pytest.approx(means.std(ddof=1), rel=1e-9)
    assert pair.p_method == pair.method == pair.interval_method == METHOD
    assert pair.items == 72 and math.isnan(pair.mde)


def test_two_seeds_are_enough_for_a_clustered_pair_and_one_is_not():
    from baselines.analysis.statistics.clustered import ItemPairing, clustered_pair

    two = _equal_clusters(g=2)
    assert clustered_pair("a", "b", two, 0.95, ItemPairing(clusters=two)) is not None
    assert clustered_bounds(two[:1], 0.05) is None
    flat = [np.zeros(5), np.zeros(5)]
    assert clustered_bounds(flat, 0.05) is None        # no spread at all: no interval, not a zero-width one


def test_pairing_items_counts_what_it_leaves_out_and_counts_crashes_at_the_floor():
    from baselines.analysis.statistics.clustered import pair_items

    item = lambda i, r: {"id": i, "reward": r}  # noqa: E731
    cand = {0: [item("q1", 1.0), item("q2", None), item("q3", 0.0), item("only-c", 1.0), item("q4", None)],
            1: [item("q1", 0.0), item("q2", 1.0)],
            2: [item("x", 1.0)]}
    base = {0: [item("q1", 0.0), item("q2", 1.0), item("q3", None), item("only-b", 0.0), item("q4", 0.5)],
            1: [item("q1", 1.0), item("q2", 1.0), item("q9", 0.0)],
            2: [item("y", 0.0)]}
    out = pair_items(cand, base, [0, 1, 2], 1.0, floor=0.0)
    assert out.seeds == [0, 1]                                    # seed 2 pairs nothing
    assert [c.tolist() for c in out.clusters] == [[1.0, -1.0, -0.5], [-1.0, 0.0]]
    assert (out.unpaired_items, out.crashed_items, out.dropped_items) == (5, 2, 1)
    assert out.items == 5 and all(c.dtype == float for c in out.clusters)
    assert out.notes() == ["paired by item: 5 question(s) over 2 seed(s)",
                           "5 item(s) answered by one arm only were left out",
                           "2 unscored candidate item(s) counted as a loss at the range floor",
                           "1 unscored item(s) were left out (no range floor to count them at)"]
    flipped = pair_items(cand, base, [0, 1], -1.0, floor=None)    # lower is better; no floor: crash dropped
    assert [c.tolist() for c in flipped.clusters] == [[-1.0], [1.0, -0.0]]
    assert (flipped.crashed_items, flipped.dropped_items) == (0, 3)


# -- the exact paired 0/1 test: its statistic, its worst-case tail, and its decisions against oracles --------
def _restricted_mle_z(x10: int, x01: int, n: int, d: float) -> float:
    """Tango's score Z with the restricted MLE of p01 found numerically (no closed form): the oracle."""
    from scipy import optimize

    xc = n - x10 - x01
    lo, hi = max(0.0, -d), (1 - d) / 2
    if hi - lo < 1e-12:
        p01 = lo
    else:
        def nll(p):
            p10, pc = p + d, 1 - 2 * p - d
            return -sum(k * math.log(max(q, 1e-300)) for k, q in ((x10, p10), (x01, p), (xc, pc)) if k)
        p01 = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-12}).x
    var = n * (2 * p01 + d - d * d)
    num = x10 - x01 - n * d
    return num / math.sqrt(var) if var > 1e-15 else (math.inf if num > 0 else -math.inf if num < 0 else 0.0)


@pytest.mark.parametrize("x10, x01, n, d", [(6, 1, 10, 0.0), (3, 3, 10, -0.1), (0, 4, 12, -0.2), (7, 0, 9, 0.3),
                                            (2, 5, 8, 0.1), (10, 0, 10, -0.05), (1, 1, 20, 0.25), (0, 0, 6, -0.3),
                                            (0, 0, 3, 0.01)])          # the last: variance below 1
def test_the_exact_tests_statistic_is_tangos_score_with_the_restricted_mle(x10, x01, n, d):
    from baselines.analysis.statistics.exact_paired import score_statistic

    z = float(score_statistic(np.array([x10]), np.array([x01]), n, d)[0])
    assert z == pytest.approx(_restricted_mle_z(x10, x01, n, d), rel=1e-5, abs=1e-6)
    assert float(score_statistic(x10, x01, n, d)) == pytest.approx(z)       # scalars too


def test_the_worst_case_tail_is_the_supremum_over_the_nuisance_parameter():
    """_tail_sup against a brute-force maximum over 1,001 values of p01 of scipy's multinomial tail."""
    from scipy import stats as sps

    from baselines.analysis.statistics.exact_paired import _outcomes, _tail_sup, score_statistic

    n, d = 10, -0.1
    x10, x01, xc, _ = _outcomes(n)
    z = score_statistic(x10, x01, n, d)
    reject = z >= float(score_statistic(np.array([6]), np.array([1]), n, d)[0]) - 1e-9
    cells = np.stack([x10[reject], x01[reject], xc[reject]], axis=1).astype(int)
    best = max(float(sps.multinomial.pmf(cells, n, [p01 + d, p01, max(1 - 2 * p01 - d, 0.0)]).sum())
               for p01 in np.linspace(0.1, 0.55, 1001))
    assert _tail_sup(n, d, reject) == pytest.approx(best, rel=1e-4)
    assert _tail_sup(n, d, np.zeros_like(reject)) == 0.0
    assert _tail_sup(n, 0.9, z >= np.inf) == 0.0


@pytest.mark.parametrize("n", [6, 8])
def test_exact_decisions_agree_with_their_p_values_and_their_bounds_show_them(n):
    """For every 0/1 data set of n seeds: PASS iff the exact p at -margin <= alpha, FAIL iff the mirrored one
    is, and the printed bounds sit beyond -margin exactly when the verdict says so."""
    from baselines.analysis.statistics.exact_paired import exact_bounds, exact_decision, ni_pvalue

    margin, alpha = 0.1, 0.05
    for x10 in range(n + 1):
        for x01 in range(n + 1 - x10):
            diffs = [1.0] * x10 + [-1.0] * x01 + [0.0] * (n - x10 - x01)
            passes, fails, lower, upper = exact_decision(diffs, margin, alpha)
            assert passes == (ni_pvalue(x10, x01, n, -margin) <= alpha)
            assert fails == (ni_pvalue(x01, x10, n, margin) <= alpha)
            assert (lower > -margin) == passes and (upper < -margin) == fails
            raw_lower, raw_upper = exact_bounds(diffs, alpha)
            assert -1.0 <= lower <= upper <= 1.0 and raw_lower <= raw_upper
            if passes == (raw_lower > -margin) and fails == (raw_upper < -margin):
                assert (lower, upper) == (raw_lower, raw_upper)     # the clamp moves only what disagrees


def test_paired_binary_counts_read_signs_not_magnitudes():
    from baselines.analysis.statistics.exact_paired import exact_bounds, paired_binary_counts

    assert paired_binary_counts([1.0, 1.0, -1.0, 0.0, 0.0]) == (2, 1, 5)
    assert paired_binary_counts(np.array([1, -1, -1])) == (1, 2, 3)
    # 10 of 10 seeds won: the worst case puts p01 at (1 - d) / 2, so the bound solves ((1 + d) / 2)^10 = alpha
    closed_form = 2 * 0.05 ** 0.1 - 1                                   # 0.4822
    lower, upper = exact_bounds([1.0] * 10, 0.05)
    assert lower == pytest.approx(closed_form, abs=1e-4) and upper == pytest.approx(1.0, abs=1e-6)
    lower, upper = exact_bounds([-1.0] * 10, 0.05)
    assert lower == pytest.approx(-1.0, abs=1e-6) and upper == pytest.approx(-closed_form, abs=1e-4)


@pytest.mark.parametrize("diffs, stub, expected", [
    ([1.0] * 10, (-0.5, 1.0), (-0.1 + 1e-9, 1.0)),      # PASS but bisection's lower bound disagrees: raised
    ([1.0] * 10, (-0.1, 1.0), (-0.1 + 1e-9, 1.0)),      # ... also when it sits exactly on -margin
    ([0.0] * 10, (0.3, 0.4), (-0.1, 0.4)),              # no PASS but a lower bound beyond -margin: lowered
    ([0.0] * 10, (0.05, 0.4), (-0.1, 0.4)),             # ... also one between -margin and +margin
    ([-1.0] * 10, (-1.0, 0.5), (-1.0, -0.1 - 1e-9)),    # FAIL but the upper bound disagrees: lowered
    ([-1.0] * 10, (-1.0, -0.1), (-1.0, -0.1 - 1e-9)),   # ... also exactly on -margin
    ([0.0] * 10, (-0.4, -0.9), (-0.4, -0.1)),           # no FAIL but an upper bound below -margin: raised
])
def test_exact_decision_clamps_bounds_that_contradict_the_test(diffs, stub, expected, monkeypatch):
    """The bounds printed beside an exact verdict always show it, even where bisection could not invert."""
    import baselines.analysis.statistics.exact_paired as ep

    monkeypatch.setattr(ep, "exact_bounds", lambda d, a: stub)
    passes, fails, lower, upper = ep.exact_decision(diffs, 0.1, 0.05)
    assert (lower, upper) == pytest.approx(expected, abs=1e-12)


def test_the_score_statistic_at_its_degenerate_points():
    """No discordant seeds at delta0 = 0 is Z = 0; at delta0 = 1 the variance is 0 and Z is +-inf or 0."""
    from baselines.analysis.statistics.exact_paired import score_statistic

    assert float(score_statistic(0, 0, 8, 0.0)) == 0.0
    z = score_statistic(np.array([8, 5, 0]), np.array([0, 0, 3]), 8, 1.0)
    assert z.tolist() == [0.0, -np.inf, -np.inf]
    assert float(score_statistic(3, 0, 3, -1.0)) == np.inf      # p01 = 1, variance 0, x10 - x01 + n = 6 > 0
    assert float(score_statistic(0, 2, 3, -1.0)) == np.inf      # ... and x10 - x01 + n = 1 > 0


def test_a_one_cell_rejection_region_has_its_closed_form_tail():
    """Rejecting only 'every seed won' (x10 = n): the tail (p01 + d)^n is largest at p01 = (1 - d) / 2."""
    from baselines.analysis.statistics.exact_paired import _outcomes, _tail_sup

    n, d = 10, -0.1
    x10, x01, _, _ = _outcomes(n)
    only = (x10 == n) & (x01 == 0)
    assert _tail_sup(n, d, only) == pytest.approx(((1 + d) / 2) ** n, rel=1e-9)
    assert _tail_sup(n, 0.2, only) == pytest.approx(0.6 ** n, rel=1e-9)
    assert _tail_sup(n, 1.0, only) == pytest.approx(1.0)       # a one-point nuisance range: p10 = 1


def test_clustered_seeds_to_decide_is_the_first_n_whose_t_bound_clears_the_margin():
    """Oracle: scipy's t quantile over seed counts tried one by one, at the clustered SE's per-seed spread:
    sd(seed means) when the seed effect dominates, the within-seed floor's when the items' noise does."""
    from scipy import stats as sps

    from baselines.analysis.statistics.clustered import seeds_to_decide

    rng = np.random.default_rng(4)
    seedy = [rng.normal(0.05, 0.02, 10) + rng.normal(0, 0.3) for _ in range(5)]    # the CR SE dominates
    noisy = [c - c.mean() + 0.05 for c in (rng.normal(0, 0.5, 10) for _ in range(5))]  # equal means: the floor
    for clusters in (seedy, noisy):
        means = np.array([c.mean() for c in clusters])
        floor = math.sqrt(sum(((c - c.mean()) ** 2).sum() for c in clusters) / (50 - 5) / 50)
        sd = max(means.std(ddof=1) / math.sqrt(5), floor) * math.sqrt(5)
        for margin in (0.05, 0.4):
            distance = abs(means.mean() + margin)
            expected = next((n for n in range(2, 101) if sps.t.ppf(0.95, n - 1) * sd / math.sqrt(n) < distance),
                            None)
            assert expected is not None and seeds_to_decide(clusters, margin, 0.05) == expected, (margin, sd)
    assert sd == pytest.approx(floor * math.sqrt(5))                   # the last case was the floor's
    assert seeds_to_decide(seedy, -float(np.mean(np.concatenate(seedy))), 0.05) is None   # mean on -margin
    assert seeds_to_decide(seedy[:1], 0.1, 0.05) is None               # one seed: no bound at all
    symmetric = [np.array([-0.5, 0.5]), np.array([-0.25, 0.25]), np.array([-1.0, 1.0])]   # mean exactly 0
    assert seeds_to_decide(symmetric, 1.0, 0.05) == next(                # distance exactly 1 decides too
        n for n in range(2, 101) if sps.t.ppf(0.95, n - 1) * math.sqrt(2.625 / 3 / 6) * math.sqrt(3)
        / math.sqrt(n) < 1.0)
