"""Write a large synthetic results file: arms x seeds runs, four spend units.

    python benchmarks/make_results.py OUT.jsonl --arms 100 --seeds 10000 [--runner-fields]

With --runner-fields each line also carries what `costmatch run` writes
beside the measures (params, stop_reason, error, reward_range, provenance),
so the reader is timed on the shape its own runs have.
"""
from __future__ import annotations

import argparse
import json

import numpy as np


def write(path: str, arms: int, seeds: int, seed: int = 0, runner_fields: bool = False) -> None:
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
                line = {
                    "schema": "costmatch.run/1", "workload": "bench", "arm": name, "seed": s,
                    "budget": {"tokens": 200000},
                    "spend": {"rollouts": int(rollouts[s]), "calls": int(calls[s]), "tokens": round(float(tokens[s])),
                              "seconds": round(float(secs[s]), 3)},
                    "reward": round(float(rewards[s]), 4)}
                if runner_fields:
                    line.update(params={}, stop_reason="budget:tokens", error=None, reward_range=[0.0, 1.0],
                                provenance={"costmatch": "0.1.0", "arm_module": f"{a:016x}",
                                            "workload_module": "fb74ee2cb079c182", "host": "vm",
                                            "worker": f"pid-{1000 + s % 7}"})
                handle.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--arms", type=int, default=100)
    p.add_argument("--seeds", type=int, default=10000)
    p.add_argument("--runner-fields", action="store_true")
    a = p.parse_args()
    write(a.out, a.arms, a.seeds, runner_fields=a.runner_fields)
