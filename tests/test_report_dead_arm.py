"""An arm with no scored runs in the report's words: not counted as an arm the leader failed to beat.

Why: with a dead arm (every run raised) the summary said "better than 2 of 3
others" of an arm that beat every arm it could be compared with, and its
row printed "n/a n/a" for one undefined number.
"""
from __future__ import annotations

from baselines import RunRecord, compare
from reports.headline import group_headline
from reports.run_report import render_report
from reports.summary import group_line


def records(dead: bool = True) -> list[RunRecord]:
    out = []
    for s in range(10):
        for arm, gain in (("a", 0.3), ("b", 0.1), ("c", 0.0)):
            out.append(RunRecord("w", arm, s, {"tokens": 100}, 0.1 * (s % 3) + gain, budget={"tokens": 100}))
        if dead:
            out.append(RunRecord("w", "dead", s, {"tokens": 100}, None, budget={"tokens": 100}, error="boom"))
    return out


def test_a_dead_arm_is_said_apart_from_the_arms_compared():
    recs = records()
    comparison = compare(recs, fixed="tokens")
    line = group_line(comparison.groups[0])
    assert "better than 2 of 2 others on a typical seed, paired; 1 arm with no scored runs not compared" in line
    assert "of 3 others" not in line and "leader" not in line     # the dead arm might have won: no "leader"
    head = group_headline(comparison.analysis(records=recs).groups[0]).text
    assert "better than 2 of 2 others" in head and "1 arm with no scored runs not compared" in head


def test_without_a_dead_arm_the_leader_is_named():
    recs = records(dead=False)
    line = group_line(compare(recs, fixed="tokens").groups[0])
    assert "leader a" in line and "not compared" not in line


def test_the_dead_arms_reward_cell_is_one_na():
    recs = records()
    md = render_report(compare(recs, fixed="tokens").analysis(records=recs), fmt="md")[0]
    [row] = [line for line in md.splitlines() if line.startswith("| dead ")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[-1] == "n/a"
