"""The error rule for alternatives (contract section 1), as the runner applies it."""
import math

from baselines.core.alternatives import score_alternatives


def _score(instance, alternative):
    if alternative == "boom":
        raise TimeoutError("test_eval timed out")
    return None if alternative == "none" else alternative


def test_a_failing_unselected_alternative_is_a_note_and_the_oracle_uses_the_others():
    oracle, notes = score_alternatives(_score, None, [0.7, "boom", 0.75])
    assert oracle == 0.75
    assert notes == ["alternative 1 (not selected): scoring failed: TimeoutError: test_eval timed out"]


def test_no_scorable_alternative_gives_no_oracle_and_a_note_each():
    oracle, notes = score_alternatives(_score, None, ["boom", "none", math.nan])
    assert oracle is None and len(notes) == 3 and "no finite score (None)" in notes[1]


def test_all_scored_no_notes():
    assert score_alternatives(_score, None, [0.1, 0.9, 0.5]) == (0.9, [])
