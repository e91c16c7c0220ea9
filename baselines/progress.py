"""Progress of a run: a tqdm bar on a terminal, plain log lines otherwise.

The bar shows cells done/total, ETA, errors so far and the total measured
spend in each fixed unit, so a runaway arm is visible before the run ends.
The first error of each arm is printed once, with its message and the last
frames of its traceback: an arm that fails in every cell is then seen in the
first minute, not after the run in a JSON field.
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
        self.failed_arms: set[str] = set()

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
        if record.error is not None and record.arm not in self.failed_arms:
            self.failed_arms.add(record.arm)
            self._first_error(record)
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

    def _first_error(self, record: RunRecord) -> None:
        """Printed even with --quiet: a failing arm must be loud."""
        text = first_error_text(record)
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def first_error_text(record: RunRecord, frames: int = 3) -> str:
    """`arm X failed first on W seed S: Type: message` and the last `frames` frames of its traceback."""
    error = record.error if isinstance(record.error, dict) else {"message": str(record.error)}
    head = (f"costmatch: arm {record.arm!r} failed (first error of this arm) on {record.workload} "
            f"seed={record.seed} [{record.stop_reason}]: {error.get('type', 'Error')}: "
            f"{str(error.get('message', '')).splitlines()[0] if error.get('message') else ''}")
    tb = error.get("traceback") or ""
    lines = [line for line in tb.splitlines() if line.startswith("  ")]
    # a frame is a `  File ...` line and its source line; keep the innermost ones
    starts = [i for i, line in enumerate(lines) if line.startswith("  File ")]
    if starts:
        tail = lines[starts[-frames] if len(starts) >= frames else starts[0]:]
        head += "\n" + "\n".join("    " + line for line in tail)
    return head
