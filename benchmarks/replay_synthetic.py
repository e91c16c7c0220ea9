"""A seeded synthetic samples file in costmatch's replay format, of any size (tests and benchmarks).

Each problem has a difficulty: the gold answer's share of samples is drawn
from Beta(2, 1.2), wrong samples spread over a few distractors (one of them
strong, so some problems have a wrong majority), one sample in 40 has no
answer and one in 40 an empty one; tokens are lognormal around 12,000, longer
on harder problems (as in the recorded files).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson


def synthetic_problems(problems: int = 500, samples: int = 80, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for p in range(problems):
        share = rng.beta(2.0, 1.2)
        weights = np.array([share, (1 - share) * 0.6] + [(1 - share) * 0.4 / 6] * 6)
        picks = rng.choice(len(weights), samples, p=weights / weights.sum())
        length = rng.lognormal(np.log(12000 * (1.6 - share)), 0.35, samples).astype(int)
        rows = []
        for pick, tokens in zip(picks, length):
            roll = rng.random()
            answer = None if roll < 0.025 else "" if roll < 0.05 else str(100 * p + int(pick))
            rows.append({"answer": answer, "tokens": int(tokens)})
        out.append({"id": f"p{p}", "gold": str(100 * p), "samples": rows})
    return out


def write_synthetic(path: str | Path, problems: int = 500, samples: int = 80, seed: int = 0) -> Path:
    """Write the file (one problem per line) and return its path."""
    path = Path(path)
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in synthetic_problems(problems, samples, seed)))
    return path
