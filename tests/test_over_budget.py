"""Over budget is said (issue 39): runs that spent beyond their budget in the fixed unit are named beside the
"verified equal spend" line, with how far and how many, in markdown, HTML, LaTeX and JSON."""
from __future__ import annotations

import json

from baselines import compare
from baselines.cli import main
from baselines.core.records import RunRecord, write_records


def records(over: dict[tuple[str, int], float]) -> list[RunRecord]:
    return [RunRecord("w", arm, seed, {"calls": over.get((arm, seed), 10)}, 0.5 + 0.01 * seed, {"calls": 10}, {})
            for arm in ("x", "y") for seed in range(5)]


def test_a_run_over_its_budget_is_named_in_every_format():
    comparison = compare(records({("x", 3): 11}))
    assert comparison.valid                                   # within the tolerance: still a valid comparison
    headline = ("Every group verified equal spend in model calls. Over budget: 1 of 10 runs in 1 group(s) spent "
                "beyond their budget in the fixed unit by at most 10.0% (worst: x on w, seed 3).")
    caption = ("Over budget: 1 of 10 runs spent beyond the allowance of 10 model calls, by at most 10.0% "
               "(x: 11 on seed 3; runs over per arm: x 1).")
    markdown = comparison.to_markdown()
    assert headline in markdown and caption in markdown
    assert caption.replace("%", "\\%") in comparison.to_latex()
    assert headline in comparison.to_html() and caption in comparison.to_html()
    found = comparison.to_json()["groups"][0]["over_budget"]
    assert found == {"unit": "calls", "allowance": 10.0, "runs": 1, "of_runs": 10,
                     "worst": {"arm": "x", "seed": 3, "spend": 11.0, "over": 0.1}, "arms": {"x": 1}}


def test_no_run_over_its_budget_says_nothing_and_json_holds_null():
    comparison = compare(records({}))
    assert "Over budget" not in comparison.to_markdown() and "Over budget" not in comparison.to_latex()
    assert comparison.to_json()["groups"][0]["over_budget"] is None


def test_compare_on_a_file_says_it_in_markdown_and_json(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    write_records(path, records({("x", 3): 11, ("y", 1): 10.5}))
    assert main(["compare", str(path), "--no-pairs"]) == 0
    out = capsys.readouterr().out
    assert "Over budget: 2 of 10 runs in 1 group(s)" in out and "runs over per arm: x 1, y 1" in out
    assert main(["compare", str(path), "--json"]) == 0
    group = json.loads(capsys.readouterr().out)["groups"][0]
    assert group["over_budget"]["runs"] == 2 and group["over_budget"]["arms"] == {"x": 1, "y": 1}


def test_a_token_budget_crossed_by_its_last_call_is_said_in_the_caption_not_the_headline():
    """A token budget is charged as reported: the last call overshoots by design, on most runs. The headline
    (bold, above every table) said so on nearly every token-budget run, burying a real overshoot in calls."""
    recs = [RunRecord("w", arm, seed, {"tokens": 1000 + (12 if seed % 2 else 0), "calls": 10}, 0.5 + 0.01 * seed,
                      {"tokens": 1000}, {}) for arm in ("x", "y") for seed in range(6)]
    comparison = compare(recs)
    markdown = comparison.to_markdown()
    headline = markdown.split("\n\n")[1] if markdown.startswith("#") else markdown.split("\n\n")[0]
    assert "Every group verified equal spend in tokens." in markdown
    assert "Over budget" not in headline, headline
    assert ("Over budget: 6 of 12 runs spent beyond the allowance of 1,000 tokens, by at most 1.2% "
            "(x: 1,012 on seed 1; runs over per arm: x 3, y 3). Tokens are charged as reported, so the call that "
            "crosses the budget ends the run beyond it: expected, and measured.") in markdown
    assert comparison.to_json()["groups"][0]["over_budget"]["runs"] == 6     # the JSON keeps every number
    calls = compare(records({("x", 3): 11})).to_markdown()
    assert "Over budget: 1 of 10 runs in 1 group(s)" in calls and "charged as reported" not in calls
