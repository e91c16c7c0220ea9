"""The demo decides what its data allow (issue 37's demo criterion), checked by an independent count.

Why: the first table a new user sees was once all "n.d." while five pairs won
on 10 of 10 seeds. The rule this file pins: in every group, a pair whose
arms differ on most seeds in one direction is decided as soon as Holm over
the group's family allows it (exact sign test, ties dropped, recomputed here
from the records with scipy.stats, not with the package's own code), and no
decided pair prints an interval that contradicts its verdict. The cheap test
reads the shipped demo slice; the slow one runs the whole built-in suite.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from scipy.stats import binomtest

from baselines import compare, read_records

DATA = Path(__file__).resolve().parent / "data" / "agreement"


def holm(pvalues: list[float]) -> list[float]:
    """Holm-adjusted p-values, in the input's order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def sign_counts(records, group, a: str, b: str) -> tuple[int, int]:
    """(seeds a wins, seeds b wins) among the seeds both arms scored in this group."""
    rewards: dict[str, dict[int, float]] = defaultdict(dict)
    for r in records:
        if r.workload == group.workload and r.budget == group.budget and r.reward is not None:
            rewards[r.arm][r.seed] = r.reward
    shared = rewards[a].keys() & rewards[b].keys()
    wins = sum(rewards[a][s] > rewards[b][s] for s in shared)
    losses = sum(rewards[a][s] < rewards[b][s] for s in shared)
    return wins, losses


def check_decides_what_holm_allows(records, fixed: str, alpha: float = 0.05, comparison=None) -> int:
    """Assert the rule on every valid group compared at `fixed`; return how many pairs are decided."""
    decided = 0
    for group in (comparison or compare(records, fixed=fixed)).groups:
        if not group.valid or not group.pairs:
            continue
        typical = [p for p in group.pairs if p.claim == "typical"]
        if len(typical) != len(group.pairs):
            continue        # this check is about the typical-seed claim alone (the demo's default claim)
        counts = [sign_counts(records, group, p.a, p.b) for p in typical]
        raw = [binomtest(w, w + l, 0.5).pvalue if w + l else 1.0 for w, l in counts]
        for pair, (w, l), adjusted in zip(typical, counts, holm(raw)):
            where = f"{group.workload} {group.budget}: {pair.a} vs {pair.b} ({w} wins, {l} losses)"
            if adjusted < alpha:
                assert pair.verdict == ("a>b" if w > l else "b>a"), f"{where}: Holm allows it, printed {pair.verdict}"
            else:
                assert pair.verdict not in ("a>b", "b>a"), f"{where}: decided at Holm p {adjusted:.3g}"
            if pair.verdict in ("a>b", "b>a"):
                decided += 1
                lo, hi = pair.claim_ci
                assert (lo > 0) if pair.verdict == "a>b" else (hi < 0), f"{where}: interval {pair.claim_ci}"
    return decided


def test_the_demo_slice_decides_every_pair_holm_allows():
    records = read_records(DATA / "demo-search-sim.jsonl")
    check_decides_what_holm_allows(records, "rollouts")


def test_the_check_fails_on_a_pair_left_undecided_or_decided_without_holm():
    """The checker itself can fail: 10 of 10 seeds among 3 pairs must be decided; 5 of 10 must not."""
    from baselines import RunRecord
    records = [RunRecord("w", arm, s, {"tokens": 100}, 0.1 * s + gain, budget={"tokens": 100})
               for s in range(10) for arm, gain in (("a", 0.0), ("b", 0.05), ("c", 0.02))]
    records += [RunRecord("w", "d", s, {"tokens": 100}, 0.1 * s + (0.5 if s % 2 else -0.5), budget={"tokens": 100})
                for s in range(10)]
    assert check_decides_what_holm_allows(records, "tokens") == 3
    comparison = compare(records, fixed="tokens")
    pairs = comparison.groups[0].pairs
    left = next(p for p in pairs if p.verdict in ("a>b", "b>a"))
    left.verdict = "no difference detected"
    with pytest.raises(AssertionError, match="Holm allows it"):
        check_decides_what_holm_allows(records, "tokens", comparison=comparison)
    comparison = compare(records, fixed="tokens")
    wrong = next(p for p in comparison.groups[0].pairs if "d" in (p.a, p.b))
    wrong.verdict = "a>b"
    with pytest.raises(AssertionError, match="decided at Holm p"):
        check_decides_what_holm_allows(records, "tokens", comparison=comparison)


@pytest.mark.slow
def test_the_whole_demo_decides_every_pair_holm_allows(tmp_path, monkeypatch):
    from baselines.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--out", "out"]) == 0
    records = read_records(tmp_path / "out" / "results.jsonl")
    decided = sum(check_decides_what_holm_allows(records, unit) for unit in ("rollouts", "tokens", "calls"))
    assert decided >= 5           # the five pairs that win on 10 of 10 seeds at 80 rollouts
