"""Progress of a run: a tqdm bar on a terminal, plain log lines otherwise.

The bar shows cells done/total, ETA, errors so far and the total measured
spend in each fixed unit, so a runaway arm is visible before the run ends.
"""
from __future__ import annotations

import sys
import time

from .records import RunRecord


class Progress:
    def __init__(self, fixed_units: list[str], quiet: bool = False, stream=None):
        self.fixed_units = fixed_units
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = None
        self.errors = 0
        self.spend = {u: 0.0 for u in fixed_units}
        self.done = 0
        self.total = 0
        self.started = time.monotonic()
        self.every = 1

    def start(self, total: int, skipped: int) -> None:
        self.total = total
        if self.quiet:
            return
        if skipped:
            print(f"costmatch: resuming: {skipped} finished cell(s) kept, {total} to run", file=self.stream)
        if self.tty:
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="cell", file=self.stream, dynamic_ncols=True)
        else:
            self.every = max(1, total // 50)

    def update(self, record: RunRecord) -> None:
        self.done += 1
        self.errors += record.error is not None
        for unit in self.fixed_units:
            value = record.spend.get(unit)
            if value is not None:
                self.spend[unit] += value
        if self.quiet:
            return
        spent = ", ".join(f"{u}={v:,.0f}" for u, v in self.spend.items())
        if self.bar is not None:
            self.bar.set_postfix_str(f"errors={self.errors} {spent}", refresh=False)
            self.bar.update(1)
        elif self.done % self.every == 0 or self.done == self.total or record.error is not None:
            status = f"ERROR {record.error.get('type')}" if isinstance(record.error, dict) else (
                "ERROR" if record.error else f"reward={record.reward}")
            elapsed = time.monotonic() - self.started
            eta = elapsed / self.done * (self.total - self.done)
            print(f"[{self.done}/{self.total}] {record.workload} {record.arm} seed={record.seed}: {status} "
                  f"| errors={self.errors} {spent} | eta {eta:.0f}s", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
