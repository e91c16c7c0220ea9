"""Names are capped at 200 characters by both readers (issue 31): a huge name is one fast line, not 23 GB."""
from __future__ import annotations

import json
import resource

import pytest

from baselines.cli import main
from baselines.core.records import NAME_MAX
from tests.test_reader_rules import both_fail, write


def rec(arm="a", seed=0, workload="w") -> dict:
    return {"workload": workload, "arm": arm, "seed": seed, "budget": {"tokens": 10}, "spend": {"tokens": 10},
            "reward": 0.5}


@pytest.mark.parametrize("field", ["arm", "workload"])
def test_a_name_over_the_cap_is_refused_by_both_readers(tmp_path, field):
    lines = [rec(a, s) for a in "ab" for s in range(3)]
    lines[4][field] = "x" * (NAME_MAX + 1)
    path = write(tmp_path, "".join(json.dumps(x) + "\n" for x in lines))
    both_fail(path, rf"r\.jsonl:5: field '{field}' is 201 characters long; names are at most 200 characters")


def test_a_name_at_the_cap_is_read(tmp_path):
    lines = [rec(a * NAME_MAX, s) for a in "ab" for s in range(3)]
    path = write(tmp_path, "".join(json.dumps(x) + "\n" for x in lines))
    assert main(["compare", str(path), "--json"]) == 0


def test_a_ten_megabyte_name_is_one_line_in_bounded_memory(tmp_path, capsys):
    lines = [rec(a, s) for a in "ab" for s in range(3)]
    lines[0]["arm"] = "é" * 5_000_000  # 10 MB of UTF-8
    path = write(tmp_path, "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for verb in (["compare", str(path)], ["report", str(path), "--format", "latex", "--plots", str(tmp_path / "p")]):
        assert main(verb) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "5,000,000 characters long" in err and len(err) < 400
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 500, f"peak memory grew by {grown_mb:.0f} MB"
