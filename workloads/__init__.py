"""Workloads arms are run on. See `workloads.base.Workload` for the interface.

Built in: `search_sim.SearchSim` (simulated LLM-guided evolutionary search),
`bbob.BBOB` (real benchmark functions through cocoex), `qa.QA` (a live model
endpoint) and `replay.Replay` (recorded samples of real reasoning models).
"""
from .base import Workload

__all__ = ["Workload"]
