"""Workloads arms are run on. See `workloads.base.Workload` for the interface.

Built in: `search_sim.SearchSim` (simulated LLM-guided evolutionary search)
and `bbob.BBOB` (real benchmark functions through cocoex).
"""
from .base import Workload

__all__ = ["Workload"]
