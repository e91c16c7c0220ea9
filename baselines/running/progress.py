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

from ..core.records import RunRecord

DASH = "\u2014"  # an unknown figure, as every table prints it


class Progress:
    def __init__(self, fixed_units: list[str], quiet: bool = False, stream=None):
        self.fixed_units = fixed_units
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = None
        self.errors = 0
        self.spend = {u: 0.0 for u in fixed_units}
        self.reported = {u: 0 for u in fixed_units}   # cells that reported the unit in full
        self.unknown = {u: 0 for u in fixed_units}    # cells that left it unreported, or reported it in part
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
            from tqdm import tqdm  # start-up: only on a terminal
            self.bar = tqdm(total=total, unit="cell", file=self.stream, dynamic_ncols=True)
        else:
            self.every = max(1, total // 50)

    def update(self, record: RunRecord) -> None:
        self.done += 1
        self.errors += record.error is not None
        if record.error is not None and record.arm not in self.failed_arms:
            self.failed_arms.add(record.arm)
            self._first_error(record)
        self._add_spend(record)
        if self.quiet:
            return
        spent = self.totals_text()
        if self.bar is not None:
            self.bar.set_postfix_str(f"suite total: errors={self.errors} {spent}", refresh=False)
            self.bar.update(1)
        elif self.done % self.every == 0 or self.done == self.total or record.error is not None:
            status = f"ERROR {record.error.get('type')}" if isinstance(record.error, dict) else (
                "ERROR" if record.error else f"reward={record.reward:.4g}" if record.reward is not None
                else "reward=none")
            own = ", ".join(_cell_spend(record, u) for u in self.fixed_units if u in record.spend)
            status = f"{status}, {own}" if own else status
            elapsed = time.monotonic() - self.started
            eta = elapsed / self.done * (self.total - self.done)
            print(f"[{self.done}/{self.total}] {record.workload} {record.arm} seed={record.seed}: {status} "
                  f"| suite total: errors={self.errors} {spent} | eta {eta:.0f}s", file=self.stream, flush=True)

    def _add_spend(self, record: RunRecord) -> None:
        """Add a cell's spend: an unreported unit is unknown, so it makes the total a lower bound, never +0."""
        partial = set(record.partial or ())
        for unit in self.fixed_units:
            if unit not in record.spend:
                continue  # the cell does not measure this unit at all (nothing to add, nothing unknown)
            value = record.spend[unit]
            if value is None:
                self.unknown[unit] += 1
                continue
            self.spend[unit] += value
            if unit in partial:
                self.unknown[unit] += 1
            else:
                self.reported[unit] += 1

    def totals_text(self) -> str:
        """`tokens=1,234` when every cell reported it, `tokens≥1,234` when some did not, `tokens=—` when none did."""
        return ", ".join(f"{u}={DASH}" if self.unknown[u] and not self.reported[u] and not self.spend[u]
                         else f"{u}{'≥' if self.unknown[u] else '='}{self.spend[u]:,.0f}"
                         for u in self.fixed_units)

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


def _cell_spend(record: RunRecord, unit: str) -> str:
    value = record.spend.get(unit)
    if value is None:
        return f"{unit}={DASH}"
    return f"{unit}{'≥' if unit in (record.partial or ()) else '='}{value:,.0f}"


def first_error_text(record: RunRecord, frames: int = 3) -> str:
    """The first error of an arm, worded by the stage that failed, and the last `frames` frames of its traceback.

    Why by stage: a workload whose `score()` raises made every arm "fail",
    and the user went looking for the bug in the arm. The record's `stage`
    says whose code raised: the arm's run, the workload's set-up or scoring,
    the worker, or the record itself.
    """
    error = record.error if isinstance(record.error, dict) else {"message": str(record.error)}
    message = str(error.get("message") or "").splitlines()
    what = f"{error.get('type', 'Error')}: {message[0] if message else ''}"
    arm, w, at = repr(record.arm), repr(record.workload), f"seed={record.seed} [{record.stop_reason}]"
    first = "(first error of this arm)"
    lead = {
        "score": f"scoring by workload {w} failed on the choice of arm {arm} {first} on {at}",
        "workload": f"workload {w} failed before arm {arm} ran {first} on {at}",
        "setup": f"setting up arm {arm} on workload {w} failed {first} on {at}",
        "worker": f"the worker running arm {arm} on workload {w} died {first} on {at}",
        "record": f"arm {arm} on workload {w} made a record costmatch cannot store {first} on {at}",
    }.get(error.get("stage"), f"arm {arm} failed {first} on {record.workload} {at}")
    head = f"costmatch: {lead}: {what}"
    tb = error.get("traceback") or ""
    lines = [line for line in tb.splitlines() if line.startswith("  ")]
    # a frame is a `  File ...` line and its source line; keep the innermost ones
    starts = [i for i, line in enumerate(lines) if line.startswith("  File ")]
    if starts:
        tail = lines[starts[-frames] if len(starts) >= frames else starts[0]:]
        head += "\n" + "\n".join("    " + line for line in tail)
    return head
