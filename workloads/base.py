"""What a workload is: instances per seed, and held-out scoring.

The protocol lives in the core, `baselines/core/protocols.py` (Workload and the
checks a suite runs); this module re-exports it so that
``from workloads.base import Workload`` keeps working.

Common random numbers: ``instance(seed)`` must return the same tasks, splits
and noise stream for every arm at that seed, so per-seed differences between
arms measure the arms and not the draw. ``score`` uses data the arm never saw.
"""
from __future__ import annotations

from baselines.core.protocols import Workload

__all__ = ["Workload"]
