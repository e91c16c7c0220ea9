"""Write a large synthetic results file: arms x seeds runs, four spend units.

    python benchmarks/make_results.py OUT.jsonl --arms 100 --seeds 10000
"""
from __future__ import annotations

import argparse
import json

import numpy as np


def write(path: str, arms: int, seeds: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 0.05, arms)
    with open(path, "w", encoding="utf-8") as handle:
        for a in range(arms):
            rewards = np.clip(0.5 + skill[a] + rng.normal(0, 0.1, seeds), 0, 1)
            tokens = rng.normal(200_000, 4_000, seeds)
            calls = rng.integers(80, 120, seeds)
            rollouts = rng.integers(38, 42, seeds)
            secs = rng.uniform(1, 3, seeds)
            name = f"arm-{a:03d}"
            for s in range(seeds):
                handle.write(json.dumps({
                    "schema": "costmatch.run/1", "workload": "bench", "arm": name, "seed": s,
                    "budget": {"tokens": 200000},
                    "spend": {"rollouts": int(rollouts[s]), "calls": int(calls[s]), "tokens": round(float(tokens[s])),
                              "seconds": round(float(secs[s]), 3)},
                    "reward": round(float(rewards[s]), 4)}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--arms", type=int, default=100)
    p.add_argument("--seeds", type=int, default=10000)
    a = p.parse_args()
    write(a.out, a.arms, a.seeds)
