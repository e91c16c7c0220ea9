"""Edited copies of a results file that a reviewer reads a report on: an arm without token counts,
traces with dev scores only, and hostile arm names (used by the browser and report tests)."""
from __future__ import annotations

import json
from pathlib import Path

TOKEN_UNITS = ("tokens", "prompt_tokens", "completion_tokens")
HOSTILE = {"ucb1": "<script>alert(1)</script>", "thompson": "$x^2$ & \\frac{", "greedy": "_hidden",
           "cost-efficient-puct": "an-arm-name-far-too-long-to-fit-cost-efficient-puct-v2", "random": "r\u00e9sum\u00e9 \u540d"}


def _no_tokens(line: dict, arm: str = "ucb1") -> dict:
    if line.get("arm") == arm:
        for u in TOKEN_UNITS:
            if u in line.get("spend", {}):
                line["spend"][u] = None
        for p in line.get("trace") or ():
            for u in TOKEN_UNITS:
                p.get("spend", {}).pop(u, None)
    return line


def _dev_only(line: dict) -> dict:
    for p in line.get("trace") or ():
        p.pop("reward", None)
    return line


def _hostile(line: dict) -> dict:
    line["arm"] = HOSTILE.get(line.get("arm"), line.get("arm"))
    return line


EDITS = {"no-tokens": _no_tokens, "dev-only": _dev_only, "hostile": _hostile}


def edited(results: Path, out: Path, kind: str) -> Path:
    """A copy of `results` with the edit `kind` (no-tokens, dev-only, hostile) applied to every line."""
    lines = [json.loads(t) for t in Path(results).read_text(encoding="utf-8").splitlines() if t.strip()]
    out.write_text("".join(json.dumps(EDITS[kind](line), ensure_ascii=False) + "\n" for line in lines),
                   encoding="utf-8")
    return out
