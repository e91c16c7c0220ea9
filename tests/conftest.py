"""Shared helpers: record builders and the path to the real result files."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from baselines import RunRecord

# No wall-clock deadline in any property test: a loaded 2-core machine must not turn a
# slow example into a failure. CI also derandomizes, so a red run can be rerun exactly.
settings.register_profile("costmatch", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("costmatch"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "costmatch")

SHARED_DATA = Path(os.environ.get("COSTMATCH_SHARED_DATA",
                                  Path(__file__).resolve().parents[2] / "shared" / "data"))
AGENTDESCENT = SHARED_DATA / "agentdescent"


def rec(arm="a", seed=0, reward=0.5, workload="w", budget=None, **spend) -> RunRecord:
    return RunRecord(workload, arm, seed, dict(spend), reward,
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


@pytest.fixture
def agentdescent_dir() -> Path:
    if not AGENTDESCENT.is_dir():
        pytest.fail(f"the shared real result files are missing at {AGENTDESCENT}")
    return AGENTDESCENT
