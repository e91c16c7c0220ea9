"""Issue 37: every note names the procedure that decided (the ranking's reversal rule)."""
from __future__ import annotations

from baselines import compare
from baselines.analysis.result.build import analyse
from reports import plots
from tests.test_figures import _ranking_records


def test_the_ranking_decides_by_the_main_tables_claim_and_names_it():
    """The main table decides by the exact sign test on a typical seed (the default claim); the ranking's note
    said "paired t and exact sign-flip", a test the verdict beside it did not run."""
    recs = _ranking_records(seeds=10, effect=0.3, noise=0.05)
    comparison = compare(recs, fixed="rollouts")
    ga = analyse(comparison, recs).groups[0]
    assert {c.claim for p in ga.group.pairs for c in p.claims} == {"typical"}
    assert ("frugal", "lavish", "tokens", "rollouts") in ga.ranking.supported
    pair = next(iter(ga.ranking.verdicts["tokens"].values()))
    assert pair.claim == "typical"
    text = plots.ranking_markdown(ga.ranking)
    assert "on a typical seed, the exact sign test over seeds (ties dropped)" in text
    assert "paired t" not in text
    mean = analyse(compare(recs, fixed="rollouts", claim="mean"), recs).groups[0]
    assert "on the mean, the paired t and the exact sign-flip test" in plots.ranking_markdown(mean.ranking)


def test_the_pairs_legend_names_the_interval_the_pairs_used():
    """The replay's legend read "Student t; the hull ...; betting ..." over seed-clustered item pairs."""
    from types import SimpleNamespace as N
    from reports.markdown import pairs_footnote

    def row(method):
        return N(claims=[N(claim="mean", interval=N(method=method), p_label="seed-clustered t")],
                 interval=N(method=method), p_label="seed-clustered t")
    text = pairs_footnote([row("seed-clustered t on paired item differences")])
    assert "(seed-clustered t over question-paired differences:" in text and "Student t" not in text
    text = pairs_footnote([row("t + bootstrap-t hull (skew-robust)"), row("t")])
    assert "Student t; the hull of t and bootstrap-t" in text and "betting" not in text


def test_the_unbounded_gates_seeds_needed_are_its_own_bounds():
    """'about N paired seeds would likely decide' was the Student-t count; the gate decides by the t +
    bootstrap-t hull, so at the t count these differences, repeated, still did not decide."""
    import numpy as np
    from baselines.analysis.gating.gate_bounds import INCONCLUSIVE, _t_bounds, gate_decision, margin_verdict, \
        seeds_to_decide

    d = np.random.default_rng(1).normal(0.05, 0.2, 6)
    g = gate_decision(d, 0.05)
    assert g.verdict == INCONCLUSIVE
    t_count = seeds_to_decide(float(d.mean()), float(d.std(ddof=1)), 0.05, 0.05)
    assert g.seeds_needed > t_count and g.seeds_needed % 6 == 0

    def hull_verdict(k):
        _, lo, hi = _t_bounds(np.tile(d, k), 0.05, widen=True)
        return margin_verdict(lo, hi, 0.05)
    k = g.seeds_needed // 6
    assert hull_verdict(k) != INCONCLUSIVE and hull_verdict(k - 1) == INCONCLUSIVE
