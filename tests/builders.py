"""Record builders for tests: a run, or several arms' runs with chosen spend (None = unreported)."""
from __future__ import annotations

import os
import random
from pathlib import Path

from baselines import RunRecord

#: The real result files from published runs: a copy ships in tests/data (COSTMATCH_SHARED_DATA overrides).
SHARED_DATA = Path(os.environ.get("COSTMATCH_SHARED_DATA", Path(__file__).resolve().parent / "data"))
AGENTDESCENT = SHARED_DATA / "agentdescent"


def rec(arm="a", seed=0, reward=0.5, workload="w", budget=None, **spend) -> RunRecord:
    return RunRecord(workload=workload, arm=arm, seed=seed, spend=dict(spend), reward=reward,
                     budget={"tokens": 1000} if budget is None else budget)


def make_arms(spec: dict[str, dict], seeds=5, workload="w", budget=None, reward_fn=None, jitter=0.0,
              rng_seed=0) -> list[RunRecord]:
    """Records for several arms; spec maps arm -> unit -> spend (None = unreported)."""
    rng = random.Random(rng_seed)
    out = []
    for arm, units in spec.items():
        for s in range(seeds):
            spend = {u: (None if v is None else v * (1 + rng.uniform(-jitter, jitter))) for u, v in units.items()}
            reward = reward_fn(arm, s) if reward_fn else rng.random()
            out.append(rec(arm, s, reward, workload, budget, **spend))
    return out
