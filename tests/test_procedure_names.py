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
