"""A results file is JSON Lines, JSON Lines whose last line was cut, or not a results file (issue 41).

The resume set a 15-byte gzip header aside as a "torn line", decoded with
replacement characters (`1f ef bf bd ...`), and went on with exit 0. Now a
file of another format is refused in one line with nothing moved, and a cut
last line is set aside as the very bytes that were cut.
"""
from __future__ import annotations

import gzip
import io
import os
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from baselines import read_records
from baselines.analysis.tables.table import RunTable
from baselines.cli import main
from baselines.core.errors import InputError
from baselines.core.file_kind import is_cut_line
from baselines.running.results_file import read_existing

from .builders import rec
from .test_execution import run_in_process
from .test_runner import write_suite

LINES = [(rec("A", s, 0.5).to_line() + "\n").encode() for s in range(3)]


def _gzip_header() -> bytes:
    return gzip.compress(b"")[:15]


def _zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("results.jsonl", LINES[0])
    return buffer.getvalue()


FOREIGN = {
    "gzip header, no newline": _gzip_header(),
    "gzip of a results file": gzip.compress(b"".join(LINES)),
    "zip archive": _zip_bytes(),
    "parquet magic": b"PAR1\x15\x04\x15\x10",
}


@pytest.mark.parametrize("name", list(FOREIGN))
def test_a_file_of_another_format_is_refused_by_the_resume_with_nothing_moved(tmp_path, capsys, name):
    """Failed before: the gzip header was set aside (as replacement characters) and the run exited 0."""
    suite = write_suite(tmp_path, seeds=1)
    out = tmp_path / "out"
    out.mkdir()
    data = FOREIGN[name]
    (out / "results.jsonl").write_bytes(data)
    assert run_in_process(suite, out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a results file" in err, err
    assert (out / "results.jsonl").read_bytes() == data and not list(out.glob("results.torn-*"))


@pytest.mark.parametrize("name", list(FOREIGN))
def test_every_reader_names_the_other_format(tmp_path, capsys, name):
    """Failed before: compare said "not UTF-8 text (byte 0x8b at column 2)", naming no format and no fix."""
    path = tmp_path / "results.jsonl"
    path.write_bytes(FOREIGN[name])
    for read in (read_records, RunTable.read):
        with pytest.raises(InputError, match="not a results file"):
            read(path)
    assert main(["compare", str(path)]) == 2
    assert "not a results file" in capsys.readouterr().err


def test_valid_lines_then_binary_bytes_are_refused_untouched(tmp_path):
    """Failed before: eight binary bytes after two whole lines were taken for a torn line and moved aside."""
    path = tmp_path / "results.jsonl"
    data = LINES[0] + LINES[1] + b"\x00\x01\xfe\xff\x8b\x08\x00\x00"
    path.write_bytes(data)
    with pytest.raises(InputError, match="binary bytes, not a run cut short"):
        read_existing(path)
    assert path.read_bytes() == data and not list(tmp_path.glob("*.torn-*"))


def test_a_complete_bad_last_line_keeps_its_own_message(tmp_path):
    """A whole JSON object is no cut line: its record error stands, and nothing is moved."""
    path = tmp_path / "results.jsonl"
    data = LINES[0] + b'{"arm": "A"}'
    path.write_bytes(data)
    with pytest.raises(InputError, match="workload"):
        read_existing(path)
    assert path.read_bytes() == data


def test_a_cut_line_with_a_split_character_is_set_aside_byte_for_byte(tmp_path):
    """Failed before: the side file held U+FFFD for the half of a two-byte character, and a newline added."""
    line = (rec("\u00e9t\u00e9", 0).to_line()).encode()
    cut = line[: line.index(b"\xc3") + 1]  # the line ends inside the first byte of "é"
    path = tmp_path / "results.jsonl"
    path.write_bytes(LINES[0] + cut)
    records, change = read_existing(path)
    assert len(records) == 1
    change()
    [side] = tmp_path.glob("results.torn-*.jsonl")
    assert side.read_bytes() == cut and path.read_bytes() == LINES[0]


@pytest.mark.parametrize("tail, cut", [
    (b'{"schema":"costmatch.run/1","wor', True),
    (b"{", True),
    (b' {"a": "\xe2\x82', True),
    (b"\x1f\x8b\x08\x00", False),
    (b"arm,seed,reward", False),
    (b'{"a": "\x00"', False),
    (b'{"a": "\xff"', False),
    (b"{}", False),
])
def test_what_counts_as_a_cut_line(tail, cut):
    assert is_cut_line(tail) is cut


# -- the property: refused and unchanged, or resumed with the bytes set aside as they were -------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=st.integers(0, 3), junk=st.one_of(st.binary(max_size=40),
                                                 st.sampled_from(list(FOREIGN.values())),
                                                 st.sampled_from(LINES).map(lambda b: b[: len(b) // 2]),
                                                 st.text(max_size=30).map(str.encode)),
       newline=st.booleans())
@example(before=0, junk=b" ", newline=False)   # blank bytes with no newline: kept, nothing set aside
@example(before=2, junk=b"\x1f\x8b\x08\x00", newline=False)   # the gzip header after valid lines
def test_arbitrary_bytes_are_refused_untouched_or_set_aside_byte_identical(before, junk, newline):
    data = b"".join(LINES[:before]) + junk + (b"\n" if newline else b"")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.jsonl"
        path.write_bytes(data)
        try:
            records, change = read_existing(path)
        except InputError as exc:
            assert "\n" not in str(exc)
            assert path.read_bytes() == data and os.listdir(folder) == ["results.jsonl"]
            return
        change()
        sides = sorted(Path(folder).glob("results.torn-*.jsonl"))
        kept = path.read_bytes()
        assert data.startswith(kept)
        if sides:   # cut back to the last whole line; the rest, byte for byte, beside it
            assert kept[-1:] in (b"", b"\n") and len(sides) == 1 and sides[0].read_bytes() == data[len(kept):]
        else:   # nothing to set aside (a valid last record, or blank bytes): the file as it was
            assert kept == data
        assert len(records) == len([line for line in kept.split(b"\n") if line.strip()])
