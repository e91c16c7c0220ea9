"""Records as columns, so a million-line comparison is array work.

Why not a list of dicts: per-record Python objects for 10^6 runs cost
gigabytes and minutes; one float column per unit costs 8 MB. NaN in a spend
column means *unreported*: it stays NaN through every aggregate (nanmedian
over reporting runs only) and is never filled with 0.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .records import RunRecord, _located_records, budget_key, duplicate_error
from .units import ordered_units


@dataclass
class RunTable:
    """Columns: workload, budget, arm, seed, reward, dev_reward, stop_reason,
    failed (error is set), and per unit `spend:<unit>` (float, NaN =
    unreported) with `partial:<unit>` (bool)."""

    frame: pd.DataFrame
    budgets: dict[str, dict[str, float]]
    units: list[str]
    traces: list | None = None

    def __len__(self) -> int:
        return len(self.frame)

    @classmethod
    def from_records(cls, records: Iterable[RunRecord], keep_last: bool = False,
                     where: Sequence[str] | None = None) -> "RunTable":
        builder = _Builder(keep_last)
        for i, record in enumerate(records):
            builder.add(record, where[i] if where else f"record {i + 1}")
        return builder.build()

    @classmethod
    def read(cls, paths: Iterable[str | os.PathLike], keep_last: bool = False) -> "RunTable":
        """Read and validate JSON Lines files straight into columns."""
        builder = _Builder(keep_last)
        for path in paths:
            for where, record in _located_records(path):
                builder.add(record, where)
        return builder.build()


class _Builder:
    def __init__(self, keep_last: bool):
        self.keep_last = keep_last
        self.cols: dict[str, list] = {k: [] for k in (
            "workload", "budget", "arm", "seed", "reward", "dev_reward", "stop_reason", "failed")}
        self.spend: dict[str, list] = {}
        self.partial: list[tuple[int, str]] = []
        self.budgets: dict[str, dict[str, float]] = {}
        self.budget_cache: dict[tuple, str] = {}
        self.traces: list = []
        self.any_trace = False
        self.seen: dict[tuple, tuple[int, str]] = {}
        self.n = 0

    def add(self, r: RunRecord, where: str) -> None:
        bkey_items = tuple(r.budget.items())
        bkey = self.budget_cache.get(bkey_items)
        if bkey is None:
            bkey = budget_key(r.budget)
            self.budget_cache[bkey_items] = bkey
            self.budgets.setdefault(bkey, dict(r.budget))
        ident = (r.workload, bkey, r.arm, r.seed)
        if ident in self.seen:
            if not self.keep_last:
                raise duplicate_error(where, ident, self.seen[ident][1])
            self._replace(self.seen[ident][0], r, bkey)
            return
        self.seen[ident] = (self.n, where)
        c = self.cols
        c["workload"].append(r.workload)
        c["budget"].append(bkey)
        c["arm"].append(r.arm)
        c["seed"].append(r.seed)
        c["reward"].append(math.nan if r.reward is None else r.reward)
        c["dev_reward"].append(math.nan if r.dev_reward is None else r.dev_reward)
        c["stop_reason"].append(r.stop_reason)
        c["failed"].append(r.error is not None)
        spend = r.spend
        for unit, column in self.spend.items():
            value = spend.get(unit)
            column.append(math.nan if value is None else value)
        for unit in spend:
            if unit not in self.spend:
                value = spend[unit]
                self.spend[unit] = [math.nan] * self.n + [math.nan if value is None else value]
        for unit in r.partial:
            self.partial.append((self.n, unit))
            if unit not in self.spend:
                self.spend[unit] = [math.nan] * (self.n + 1)
        self.traces.append(r.trace)
        self.any_trace = self.any_trace or r.trace is not None
        self.n += 1

    def _replace(self, row: int, r: RunRecord, bkey: str) -> None:
        c = self.cols
        c["reward"][row] = math.nan if r.reward is None else r.reward
        c["dev_reward"][row] = math.nan if r.dev_reward is None else r.dev_reward
        c["stop_reason"][row] = r.stop_reason
        c["failed"][row] = r.error is not None
        for unit in r.spend:
            if unit not in self.spend:
                self.spend[unit] = [math.nan] * self.n
        for unit, column in self.spend.items():
            value = r.spend.get(unit)
            column[row] = math.nan if value is None else value
        self.partial = [(i, u) for i, u in self.partial if i != row] + [(row, u) for u in r.partial]
        self.traces[row] = r.trace
        self.any_trace = self.any_trace or r.trace is not None

    def build(self) -> RunTable:
        c = self.cols
        data = {
            "workload": pd.Categorical(c["workload"]),
            "budget": pd.Categorical(c["budget"]),
            "arm": pd.Categorical(c["arm"]),
            "seed": np.asarray(c["seed"], dtype=np.int64),
            "reward": np.asarray(c["reward"], dtype=float),
            "dev_reward": np.asarray(c["dev_reward"], dtype=float),
            "stop_reason": c["stop_reason"],
            "failed": np.asarray(c["failed"], dtype=bool),
        }
        units = ordered_units(self.spend)
        for unit in units:
            data[f"spend:{unit}"] = np.asarray(self.spend[unit], dtype=float)
            flags = np.zeros(self.n, dtype=bool)
            data[f"partial:{unit}"] = flags
        for row, unit in self.partial:
            data[f"partial:{unit}"][row] = True
        frame = pd.DataFrame(data)
        return RunTable(frame, self.budgets, units, self.traces if self.any_trace else None)
