"""Many groups in one comparison give what each group gives on its own (the screen and the batches change nothing).

Why: `compare` decides most groups' spend checks in one whole-column pass
(`comparing_screen`) and pairs groups of one shape in one batch; a rounding
slip or an off-by-one in a segment there would silently drop a flag or move
a reference. These tests build one small file of deliberately mixed groups
and compare the `compare --json` output with the group-by-group path.
"""
from __future__ import annotations

import functools
import json
import math
import random

import numpy as np
import pytest

from baselines.analysis.compare import comparing, pairing
from baselines.cli import main
from baselines.analysis.compare.screen import segment_medians
from baselines.analysis.statistics.bootstrap import _resample_counts, bootstrap_t_many

REL = 1e-12


def _line(workload, arm, seed, reward, budget, **extra) -> str:
    spend = extra.pop("spend")
    return json.dumps({"workload": workload, "arm": arm, "seed": seed, "budget": budget, "spend": spend,
                       "reward": reward, **extra})


def mixed_lines() -> list[str]:
    """Groups of every shape the screen must tell apart, in a shuffled order."""
    rnd = random.Random(11)
    out = []

    def arms(workload, budget, names, seeds, spend, reward=lambda arm, s: rnd.gauss(0.5, 0.1), **extra):
        for arm in names:
            for s in seeds(arm) if callable(seeds) else seeds:
                score = reward(arm, s)
                if workload in ("clean", "binary") and score is not None:
                    extra["dev_reward"] = min(1.0, score + 0.01 * s)
                out.append(_line(workload, arm, s, score, budget, spend=spend(arm, s), **extra))

    tokens = {"tokens": 1000}
    usual = lambda arm, s: {"tokens": 1000 + rnd.uniform(-20, 20), "calls": 50, "rollouts": 4}  # noqa: E731
    arms("clean", tokens, ["a", "b"], range(5), usual)
    arms("clean", {"tokens": 2000}, ["a", "b", "c"], range(3), lambda a, s: {"tokens": 2000, "calls": 9})
    arms("three-by-four", {"rollouts": 8}, ["x", "y", "z"], range(4),
         lambda a, s: {"rollouts": 8, "tokens": 500 * (1 + 0.5 * (a == "z"))})        # z confounded in tokens
    arms("drift", tokens, ["a", "b"], range(6),
         lambda a, s: {"tokens": 1000 * (1.3 if (a == "b" and s == 2) else 1.0)})   # one run over
    arms("near", tokens, ["a", "b"], range(4),                                      # just beyond 10%, and just within
         lambda a, s: {"tokens": {0: 1100.1, 1: 1099.9}.get(s, 1000) if a == "a" else 1000,
                       "calls": 100 if a == "a" else 122.3, "usd": 1.0 if a == "a" else 1.221})
    arms("early", tokens, ["a", "b"], range(5), lambda a, s: {"tokens": 700 if a == "a" else 1000},
         stop_reason="done")                                                          # under: early stops
    arms("ragged", tokens, ["a", "b"], lambda a: range(6) if a == "a" else [0, 1, 2, 7], usual)
    arms("binary", tokens, ["a", "b"], range(8), usual,
         reward=lambda a, s: float((s * 7 + (a == "a") * 3) % 5 < 3))                 # 0/1 rewards
    arms("declared", tokens, ["a", "b"], range(5), usual, reward_range=[0, 1],
         unit_nouns={"calls": "function evaluations"})
    arms("lonely", tokens, ["solo"], range(4), usual)                                 # one arm
    arms("partial", tokens, ["a", "b"], range(4),
         lambda a, s: {"tokens": 1000, "calls": None if (a == "b" and s == 1) else 40})
    arms("no-calls", tokens, ["a", "b"], range(4), lambda a, s: {"tokens": 1000})     # calls unreported
    arms("lower-bound", tokens, ["a", "b"], range(4), lambda a, s: {"tokens": 1000, "calls": 40},
         partial=["calls"])
    arms("fixed-partial", tokens, ["a"], range(4), usual)
    arms("fixed-partial", tokens, ["b"], range(4), usual, partial=["tokens"])           # b unverified
    arms("one-seed", tokens, ["a", "b"], lambda a: range(5) if a == "a" else [0], usual)
    arms("zero", {"tokens": 1000}, ["a", "b"], range(4), lambda a, s: {"tokens": 1000, "usd": 0.0 if a == "a"
                                                                        else 0.5})   # zero reference
    # a failed run: unscored, error kept
    out.append(json.dumps({"workload": "clean", "arm": "a", "seed": 9, "budget": tokens,
                           "spend": {"tokens": 300}, "reward": None,
                           "error": {"type": "Boom", "message": "worker fell over"}}))
    arms("all-failed", tokens, ["a", "b"], range(3), usual,
         reward=lambda a, s: None if a == "b" else rnd.random())
    rnd.shuffle(out)
    return out


def _compare_json(path, capsys, monkeypatch, *args, group_by_group: bool) -> dict:
    with monkeypatch.context() as patch:
        if group_by_group:
            patch.setattr(comparing, "_groups", functools.partial(comparing._groups, screened=False))
            patch.setattr(comparing, "pair_groups", functools.partial(pairing.pair_groups, batch=False))
        code = main(["compare", str(path), "--json", *args])
    assert code in (0, 1)
    return json.loads(capsys.readouterr().out)


def _same(a, b, where="$") -> None:
    """Equal JSON values, floats to a relative 1e-12 (the batched matrix products round differently)."""
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=REL, abs_tol=REL), f"{where}: {a} != {b}"
    elif isinstance(a, dict) and isinstance(b, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{where}: {len(a)} != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize("args", [(), ("--allow-early-stop",), ("--tolerance", "0"), ("--tolerance", "0.5"),
                                  ("--pairs", "all", "--bootstrap"), ("--fixed", "tokens"),
                                  ("--equivalence-margin", "0.2"), ("--metric", "dev_reward")])
def test_many_groups_equal_the_group_by_group_result(tmp_path, capsys, monkeypatch, args):
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(mixed_lines()) + "\n")
    checked = []
    with monkeypatch.context() as patch:
        def spy(group, *rest, _check=comparing.check_runs):
            checked.append(group.workload)
            _check(group, *rest)
        patch.setattr(comparing, "check_runs", spy)
        many = _compare_json(path, capsys, monkeypatch, *args, group_by_group=False)
    alone = _compare_json(path, capsys, monkeypatch, *args, group_by_group=True)
    _same(many, alone)
    if args:
        return
    # both paths were taken: clean groups skip the per-group run checks, the others go through them
    assert {"binary", "declared", "three-by-four"}.isdisjoint(checked)
    assert {"drift", "early", "all-failed"} <= set(checked)
    groups = {(g["workload"], json.dumps(g["budget"])): g for g in many["groups"]}
    # the file really holds the cases the screen must send to the per-group checks
    assert groups[("drift", '{"tokens": 1000}')]["unequal"][0]["seed"] == 2
    assert groups[("three-by-four", '{"rollouts": 8}')]["confounded"][0]["arm"] == "z"
    assert groups[("early", '{"tokens": 1000}')]["unequal"][0]["direction"] == "under"
    assert groups[("fixed-partial", '{"tokens": 1000}')]["unverified"][0]["arm"] == "b"
    near = groups[("near", '{"tokens": 1000}')]
    assert [(f["arm"], f["seed"], f["runs"]) for f in near["unequal"]] == [("a", 0, 1)]
    assert [(f["arm"], f["unit"]) for f in near["confounded"]] == [("a", "calls"), ("b", "calls")]
    assert {"arm": "b", "unit": "calls", "reason": "partial", "reported_runs": 3, "runs": 4} in \
        groups[("partial", '{"tokens": 1000}')]["unreported"]
    assert groups[("zero", '{"tokens": 1000}')]["confounded"][0]["unit"] == "usd"
    assert "no scored runs" in " ".join(groups[("all-failed", '{"tokens": 1000}')]["notes"])
    assert any(u["reason"] == "unreported" for u in groups[("no-calls", '{"tokens": 1000}')]["unreported"])
    assert groups[("lonely", '{"tokens": 1000}')]["not_a_comparison"]
    assert groups[("declared", '{"tokens": 1000}')]["unit_nouns"] == {"calls": "function evaluations"}
    assert groups[("declared", '{"tokens": 1000}')]["reward_range"] == [0, 1]


def test_each_group_alone_gives_its_part_of_the_many_group_result(tmp_path, capsys, monkeypatch):
    """Reading one group's lines only gives that group's JSON (each workload here has one budget)."""
    lines = [line for line in mixed_lines() if json.loads(line)["workload"] != "clean"]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    many = _compare_json(path, capsys, monkeypatch, group_by_group=False)
    for group in many["groups"]:
        own = tmp_path / f"{group['workload']}.jsonl"
        own.write_text("\n".join(line for line in lines if json.loads(line)["workload"] == group["workload"]) + "\n")
        [alone] = _compare_json(own, capsys, monkeypatch, group_by_group=False)["groups"]
        # every unit of the file is shown for every group: the units this group's own lines never
        # mention are unreported in the many-group result and absent from its own
        own_units = set(alone["arms"][0]["spend"])
        for arm in group["arms"]:
            for unit in set(arm["spend"]) - own_units:
                assert arm["spend"].pop(unit)["status"] == "unreported"
        group["unreported"] = [u for u in group["unreported"] if u["unit"] in own_units]
        _same(group, alone, group["workload"])


def test_median_of_arms_reference_matches_the_group_by_group_check(tmp_path, capsys, monkeypatch):
    """Budgets that do not name the fixed unit: each group is judged against the median of its arms' medians."""
    rnd = random.Random(5)
    lines = []
    for w, (k, n) in enumerate([(2, 4), (3, 5), (4, 3), (5, 6), (1, 4)]):
        for arm in range(k):
            for s in range(n):
                tokens = 900 + 100 * arm if w == 3 else rnd.choice([990, 1000, 1010, 1020])
                lines.append(_line(f"w{w}", f"arm{arm}", s, rnd.random(), {"rollouts": 5},
                                   spend={"rollouts": 5, "tokens": tokens}))
    path = tmp_path / "median.jsonl"
    path.write_text("\n".join(lines) + "\n")
    many = _compare_json(path, capsys, monkeypatch, "--fixed", "tokens", group_by_group=False)
    alone = _compare_json(path, capsys, monkeypatch, "--fixed", "tokens", group_by_group=True)
    _same(many, alone)
    assert {g["reference"]["source"] for g in many["groups"][:4]} == {"median of arms"}
    assert many["groups"][3]["unequal"]          # arms 900..1300 around a median of 1100: drift both ways
    assert many["groups"][4]["reference"]["value"] is None   # one arm: no median of arms


def test_segment_medians_are_numpy_medians():
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 9, 300)
    values = np.round(rng.normal(size=int(sizes.sum())), 1)        # ties on purpose
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    got = segment_medians(values, bounds)
    want = [np.median(values[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    assert got.tolist() == want


@pytest.mark.parametrize("n", [2, 3, 5, 7, 12])
def test_bootstrap_t_from_distinct_resamples_equals_sorting_every_draw(n):
    """Weighted order statistics over distinct resamples give the plain bootstrap-t ends, draw for draw."""
    rng = np.random.default_rng(n)
    d = np.vstack([rng.lognormal(size=(20, n)), np.round(rng.normal(size=(20, n)), 0), np.zeros((1, n))])
    lo, hi = bootstrap_t_many(d, 0.95, seed=4)
    counts = _resample_counts(n, 4, 2000)
    draws = counts.shape[0]
    k_lo, k_hi = math.floor(0.025 * (draws - 1)), math.ceil(0.975 * (draws - 1))
    # draw j's resample is row[picks[j]] (np.repeat(row, counts[j])); one matrix per n, every draw sorted below
    picks = np.array([np.repeat(np.arange(n), c.astype(int)) for c in counts])
    for row, want_lo, want_hi in zip(d, lo, hi):
        mean, sd = row.mean(), row.std(ddof=1)
        samples = row[picks]
        mb, sb = samples.mean(axis=1) - mean, samples.std(axis=1, ddof=1)
        flat = sb <= 1e-7 * np.abs(row - mean).max()
        with np.errstate(divide="ignore", invalid="ignore"):
            ts = np.where(flat, np.where(mb >= 0, math.inf, -math.inf), mb / (sb / math.sqrt(n)))
        ts = np.sort(ts)
        if sd == 0:
            assert want_lo == want_hi == mean
            continue
        se = sd / math.sqrt(n)
        assert math.isclose(want_lo, mean - ts[k_hi] * se, rel_tol=1e-9, abs_tol=1e-12)
        assert math.isclose(want_hi, mean - ts[k_lo] * se, rel_tol=1e-9, abs_tol=1e-12)


def test_gc_paused_restores_the_collector_as_it_found_it():
    import gc

    from baselines.core.scoped import gc_paused

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("inside")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()      # a caller that had switched it off keeps it off
    finally:
        gc.enable()


def random_lines(seed: int, groups: int = 120) -> list[str]:
    """Seeded random groups: arm and seed counts, drifts near and beyond 10%, gaps, failures, 0/1 and ranges."""
    rnd = random.Random(seed)
    out = []
    for g in range(groups):
        unit = rnd.choice(["tokens", "calls", "rollouts"])
        budget = {unit: rnd.choice([100, 1000]) + g % 2}
        k, n = rnd.choice([1, 2, 2, 3, 4]), rnd.choice([1, 2, 3, 5, 8])
        binary, declared = rnd.random() < 0.2, rnd.random() < 0.1
        for a in range(k):
            seeds = range(n) if rnd.random() < 0.85 else sorted(rnd.sample(range(n + 3), max(1, n - 1)))
            for s in seeds:
                spend = {}
                for u, base in (("tokens", 900), ("calls", 50), ("rollouts", 4), ("usd", 0.2)):
                    drift = rnd.choice([0.0] * 12 + [0.01, -0.05, 0.099, 0.1, 0.101, 0.3, -0.5])
                    value = budget.get(u, base) * (1 + drift * (a % 3 + 1) / 2)
                    spend[u] = None if rnd.random() < 0.01 or (u == "usd" and g % 9 == 0) else value
                record = {"workload": f"w{g // 2:03d}", "arm": f"arm{a}", "seed": s, "budget": budget,
                          "spend": spend, "reward": float(rnd.random() < 0.5) if binary else round(rnd.random(), 3)}
                if rnd.random() < 0.02:
                    record.update(reward=None, error={"type": "X", "message": "boom"})
                if rnd.random() < 0.02:
                    record["partial"] = [rnd.choice(["tokens", "calls"])]
                if rnd.random() < 0.1:
                    record["stop_reason"] = rnd.choice(["done", "budget:tokens"])
                if declared:
                    record["reward_range"] = [0, 1]
                out.append(json.dumps(record))
    rnd.shuffle(out)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("args", [(), ("--allow-early-stop", "--tolerance", "0.05")])
def test_random_groups_equal_the_group_by_group_result(tmp_path, capsys, monkeypatch, seed, args):
    path = tmp_path / "random.jsonl"
    path.write_text("\n".join(random_lines(seed)) + "\n")
    many = _compare_json(path, capsys, monkeypatch, *args, group_by_group=False)
    alone = _compare_json(path, capsys, monkeypatch, *args, group_by_group=True)
    _same(many, alone)
    flagged = sum(bool(g["unequal"] or g["confounded"] or g["unreported"]) for g in many["groups"])
    assert 0 < flagged < len(many["groups"])      # both clean and flagged groups are in the file
