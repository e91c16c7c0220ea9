"""The history names a group's budget as every other view does: "20,000 tokens", not the key "tokens=20000".

Why: `costmatch history` printed "hidden-point at tokens=20000" (terminal,
history.md, history.html) while the report and `check` say "at 20,000 tokens"
for the same group; a reader matching the two sees two budgets.
"""
from __future__ import annotations

import json

from baselines.cli import main


def _entry(commit: str) -> dict:
    return {"schema": "costmatch.history/1", "commit": commit, "branch": None, "time": "2026-12-02T05:03:29Z",
            "commit_url": None, "workload": "hidden-point", "budget": {"completion_tokens": 20000}, "fixed": None,
            "baseline": "random-guess", "candidate": "local-search", "verdict": "INCONCLUSIVE",
            "estimate": 0.0241, "interval": [-0.2757, 0.3093], "se": 0.019, "alpha": 0.05, "margin": 0.02,
            "method": "betting bound", "seeds": 10, "lower_is_better": False, "claim": "mean",
            "baseline_mean": 0.907, "candidate_mean": 0.931, "results": [], "recheck": 0, "drift": None}


def test_history_names_the_budget_in_words(tmp_path, capsys):
    history = tmp_path / "hist.jsonl"
    history.write_text("".join(json.dumps(_entry(c)) + "\n" for c in ("aaa111", "bbb222")))
    assert main(["history", str(history), "--out", str(tmp_path / "page")]) == 0
    printed = capsys.readouterr().out
    for text in (printed, (tmp_path / "page" / "history.md").read_text(),
                 (tmp_path / "page" / "history.html").read_text()):
        assert "20,000 completion tokens" in text
        assert "completion_tokens=20000" not in text
