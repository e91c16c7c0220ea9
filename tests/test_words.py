"""The words a newcomer meets (issue 39): every abbreviation defined on the page, captions that are sentences."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from baselines import compare
from baselines.core.records import RunRecord
from reports.flags import _interval_words


def test_a_caption_with_two_interval_kinds_is_one_sentence():
    group = SimpleNamespace(arms=[SimpleNamespace(arm="a", interval="t"),
                                  SimpleNamespace(arm="b", interval="t (skewed rewards: may under-cover)")])
    words = _interval_words(group)
    assert " / " not in words
    assert words == ("interval (Student-t for a; Student-t (rewards skewed: it may cover less than 95%) for b)")
    assert _interval_words(SimpleNamespace(arms=[SimpleNamespace(arm="a", interval="t")])) == "Student-t interval"


def test_every_abbreviation_of_a_markdown_report_is_defined_on_it():
    rng = np.random.default_rng(1)
    records = [RunRecord("w", "x", s, {"calls": 10}, float(s % 2), {"calls": 10}, {}) for s in range(6)]
    records += [RunRecord("w", "y", s, {"calls": 10}, float(rng.lognormal()), {"calls": 10}, {}) for s in range(6)]
    text = compare(records, baseline="x").to_markdown()
    assert "n.d." in text and "n.d. = no difference detected" in text
    assert "95% CI" in text and "CI = confidence interval" in text
