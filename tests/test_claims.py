"""Named claims behind every verdict (issue 37): compare, report and check say which claim they decide."""
from __future__ import annotations

import json

import pytest

from baselines import compare
from baselines.api import check
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.running.suite import parse_suite

from .builders import make_arms


def _bounded(gain: float, seeds: int = 10, arms=("a", "b")):
    """Rewards in [0, 1]: arm a gains `gain` over b on every seed (b's reward varies by seed)."""
    def reward(arm, s):
        base = 0.3 + 0.04 * s
        return base + (gain if arm == arms[0] else 0.0)
    recs = make_arms({arm: {"tokens": 1000} for arm in arms}, seeds=seeds, reward_fn=reward)
    for r in recs:
        r.extra["reward_range"] = [0, 1]
    return recs


def test_a_win_on_every_seed_is_decided_on_a_typical_seed_where_the_mean_claim_cannot_be():
    # the demo's case: 10 of 10 seeds won, bounded rewards; the betting interval for the mean spans 0
    recs = _bounded(0.3)
    [pair] = compare(recs, fixed="tokens").groups[0].pairs
    assert pair.claim == "typical" and pair.verdict == "a>b"
    assert pair.claim_ci[0] > 0 and pair.claim_estimate == pytest.approx(0.3)
    assert pair.claim_text.startswith("a beats b on a typical seed (10 of 10 seeds; median gain +0.3")
    [mean] = compare(recs, fixed="tokens", claim="mean").groups[0].pairs
    assert mean.claim == "mean" and mean.verdict not in ("a>b", "b>a") and mean.ci[0] < 0
    assert "on the mean is" in mean.claim_text


def test_both_claims_are_one_holm_family_and_each_keeps_its_interval():
    recs = _bounded(0.3)
    [pair] = compare(recs, fixed="tokens", claim="both").groups[0].pairs
    typical, mean = pair.claims
    assert (typical.claim, mean.claim) == ("typical", "mean")
    assert typical.p_adjusted == pytest.approx(2 * 2 / 1024)       # 1 pair x 2 claims
    assert pair.verdict == "a>b" and pair.claim == "typical"
    assert mean.ci == pair.ci and typical.ci == pair.claim_ci
    assert "x 2 claims" in pair.family
    assert "; the mean gain is undecided at 10 seeds" in pair.claim_text
    out = pair.to_json()
    assert out["claim"] == "typical" and [c["claim"] for c in out["claims"]] == ["typical", "mean"]
    assert out["claims"][0]["wins"] == 10 and out["claims"][0]["losses"] == 0
    assert out["ci"] == [pytest.approx(x) for x in pair.ci]           # the mean interval, not renamed


def test_many_pairs_need_holm_before_the_typical_claim_decides():
    # 4 arms, 6 pairs: 10 of 10 seeds (p = 2/1024) survives Holm (6 x 2/1024 < .05); 9 of 10 (p = .021) does not
    gains = {"a": 0.0, "b": 0.2, "c": 0.4, "d": 0.6}
    recs = make_arms({arm: {"tokens": 1000} for arm in gains}, seeds=10,
                     reward_fn=lambda arm, s: 0.1 + gains[arm] * 0.5 + 0.03 * (s % 3))
    pairs = compare(recs, fixed="tokens").groups[0].pairs
    assert all(p.verdict in ("a>b", "b>a") for p in pairs)
    assert all(p.p_adjusted <= 6 * 2 / 1024 + 1e-12 for p in pairs)


def test_ties_are_dropped_and_said():
    recs = _bounded(0.0)
    for r in recs:                      # a wins on 7 seeds, ties on 3
        if r.arm == "a" and r.seed < 7:
            r.reward += 0.1
    [pair] = compare(recs, fixed="tokens").groups[0].pairs
    [c] = pair.claims
    assert (c.wins, c.losses, c.ties) == (7, 0, 3)
    assert pair.verdict == "a>b"                       # 7 of 7 differing seeds: p = 2/128 = .016
    assert "7 of 7 seeds where they differ" in pair.claim_text


def test_markdown_pairs_table_names_the_claim_and_prints_its_interval(capsys, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({**r.to_json(), "reward_range": [0, 1]}) + "\n" for r in _bounded(0.3)))
    assert main(["compare", str(path)]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("| a ") and "typical seed" in line)
    assert "a>b" in row and "[+0.3" in row
    assert "- a beats b on a typical seed (10 of 10 seeds" in text
    assert main(["compare", str(path), "--claim", "both"]) == 0
    text = capsys.readouterr().out
    assert sum(line.startswith("| a ") and "| b " in line and "| 10 " in line for line in text.splitlines()) == 2   # a row per claim


def test_the_suite_claim_key_is_checked():
    import tomllib
    from baselines.cli.options import default_suite
    suite = tomllib.loads(default_suite().read_text(encoding="utf-8"))
    assert parse_suite(suite, "s.toml", check_imports=False).claim == "auto"
    suite["claim"] = "median"
    with pytest.raises(InputError, match="'claim' must be"):
        parse_suite(suite, "s.toml", check_imports=False)
    suite["claim"] = "both"
    assert parse_suite(suite, "s.toml", check_imports=False).claim == "both"


def test_gate_typical_claim_passes_identical_bounded_arms_the_mean_claim_cannot():
    recs = _bounded(0.0)
    assert check(recs, baseline="b", candidate="a", margin=0.1).verdict == "INCONCLUSIVE"   # 0.9^n > .05
    result = check(recs, baseline="b", candidate="a", margin=0.1, claim="typical")
    assert result.verdict == "PASS"
    [g] = result.groups if hasattr(result, "groups") else result[1]
    assert g.claim == "typical" and g.worst_loss == 0.0
    both = check(recs, baseline="b", candidate="a", margin=0.1, claim="both")
    assert both.verdict == "INCONCLUSIVE"      # both must PASS


def test_gate_prints_the_worst_seed_and_max_loss_fails_on_it():
    recs = _bounded(0.0)
    for r in recs:
        if r.arm == "a" and r.seed == 4:
            r.reward -= 0.25
    result = check(recs, baseline="b", candidate="a", margin=0.1, claim="typical")
    assert result.verdict == "PASS"
    strict = check(recs, baseline="b", candidate="a", margin=0.1, claim="typical", max_loss=0.2)
    assert strict.verdict == "FAIL"
    [g] = strict[1]
    assert g.worst_seed == 4 and g.worst_loss == pytest.approx(0.25)
    assert "lost more than --max-loss 0.2" in g.reason and g.to_json()["max_loss"] == 0.2


def test_win_and_loss_counts_are_said_in_words():
    """'9 wins, 1 losses' read as a typo in the demo's notes."""
    from baselines.analysis.compare.claims import win_loss_text
    assert win_loss_text(9, 1) == "9 wins, 1 loss"
    assert win_loss_text(1, 0, 2) == "1 win, 0 losses, 2 tied"
    assert win_loss_text(10, 2) == "10 wins, 2 losses"
