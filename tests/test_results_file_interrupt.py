"""Ctrl-C or SIGTERM landing in the middle of appending a line: the count the run reports matches the file.

Why: the runner says "interrupted; N finished cell(s) are kept" from the records the sink kept. An
interrupt raised just after the write returned (the line already on disk) skipped the bookkeeping, so
the message said one cell fewer than the file held; one raised mid-line left a torn line behind.
"""
from __future__ import annotations

import json

import pytest

from baselines.running.results_file import LineSink, open_results
from tests.builders import rec


class InterruptedWrite:
    """An unbuffered results file on which Ctrl-C lands in a write, after `keep` bytes of it reached the file."""

    def __init__(self, raw, keep: int | None = None):
        self.raw, self.keep = raw, keep

    def write(self, data):
        self.raw.write(bytes(data) if self.keep is None else bytes(data)[: self.keep])
        raise KeyboardInterrupt

    def flush(self):
        self.raw.flush()

    def fileno(self):
        return self.raw.fileno()


def line(seed: int) -> bytes:
    return json.dumps(rec(seed=seed).to_json()).encode()


@pytest.mark.parametrize("keep, lines_after", [(None, 2), (10, 1)], ids=["after-the-write", "mid-line"])
def test_an_interrupt_in_a_write_keeps_the_count_equal_to_the_whole_lines_on_disk(tmp_path, keep, lines_after):
    path = tmp_path / "results.jsonl"
    kept = []
    with open_results(path) as raw:
        sink = LineSink(raw, kept)
        sink.take(line(0))
        sink.handle = InterruptedWrite(raw, keep)
        with pytest.raises(KeyboardInterrupt):
            sink.take(line(1))
    on_disk = path.read_bytes()
    assert on_disk.endswith(b"\n") and on_disk.count(b"\n") == lines_after  # whole lines only, no torn one
    assert [r.seed for r in kept] == list(range(lines_after))  # what the run reports = what the file holds
    assert sink.size == len(on_disk)
