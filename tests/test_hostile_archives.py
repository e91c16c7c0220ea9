"""Hostile archives: an inspect `.eval` log (a zip) is checked with limits before inspect_ai reads it (issue 41).

Failed before: nothing checked the archive; inspect_ai opened a member
declaring 10 GB, one inflating past its header, members named `../x` or
`/etc/x`, and a directory claiming 60,000 entries as it found them. Each
case here is one line and exit 2, with nothing written and nothing
extracted; each runs in well under a second (the bombs are built by
editing headers, not by compressing gigabytes). Peak memory on a real
bomb is measured in the slow test at the end.
"""
from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from baselines.cli import main
from baselines.core import archives
from baselines.core.archives import check_archive
from baselines.core.errors import InputError

HEADER = b'{"version": 2, "status": "success"}'


def _zip(path: Path, members: dict[str, bytes], declare: dict[str, int] | None = None,
         method=zipfile.ZIP_DEFLATED) -> Path:
    """A zip of `members`; `declare` rewrites a member's declared size in the central directory (as a bomb does)."""
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
        for info in archive.filelist:
            if declare and info.filename in declare:
                info.file_size = declare[info.filename]
    return path


def _refused(path: Path, words: str, capsys) -> None:
    before = sorted(path.parent.iterdir())
    assert main(["import", "inspect", str(path), "-o", str(path.parent / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and str(path) in err, err
    assert sorted(path.parent.iterdir()) == before   # nothing written, nothing extracted beside it


def test_a_member_declaring_10_gb_is_refused(tmp_path, capsys):
    bomb = _zip(tmp_path / "bomb.eval", {"header.json": HEADER, "samples/1_epoch_1.json": b"x" * 1000},
                declare={"samples/1_epoch_1.json": 10 << 30})
    _refused(bomb, "declares 10,737,418,240 bytes, over the", capsys)


def test_a_member_inflating_past_its_declared_size_is_refused(tmp_path, capsys):
    """1 KB declared, 8 MB inside (deflate of zeros: about 8 KB on disk); zipfile stops at 1 KB, the CRC tells."""
    bomb = _zip(tmp_path / "bomb.eval", {"header.json": HEADER, "samples/1_epoch_1.json": bytes(8 << 20)},
                declare={"samples/1_epoch_1.json": 1024})
    assert bomb.stat().st_size < 64 << 10
    _refused(bomb, "does not inflate to the 1,024 bytes its header declares", capsys)


def test_a_declared_ratio_beyond_any_json_is_refused(tmp_path):
    bomb = _zip(tmp_path / "bomb.eval", {"samples/1_epoch_1.json": b"x" * 1000},
                declare={"samples/1_epoch_1.json": 50 << 20})
    with pytest.raises(InputError, match="over 1,000 to 1\\): a zip bomb"):
        check_archive(bomb, "inspect log")


@pytest.mark.parametrize("name", ["../evil.json", "samples/../../evil.json", "/etc/evil.json", "C:\\evil.json",
                                  "..\\evil.json"])
def test_a_member_named_outside_the_archive_is_refused(tmp_path, name, capsys):
    bad = _zip(tmp_path / "bad.eval", {"header.json": HEADER, name: b"{}"})
    _refused(bad, "a path outside the archive", capsys)
    assert not (tmp_path.parent / "evil.json").exists() and not Path("/etc/evil.json").exists()


def test_a_directory_claiming_60000_members_is_refused_before_it_is_parsed(tmp_path, capsys):
    path = _zip(tmp_path / "many.eval", {"header.json": HEADER})
    data = bytearray(path.read_bytes())
    at = data.rfind(b"PK\x05\x06")
    data[at + 8:at + 12] = struct.pack("<HH", 60_000, 60_000)   # entries on this disk, entries in all
    path.write_bytes(bytes(data))
    _refused(path, "lists 60,000 members, more than the 50,000 a log holds", capsys)


def test_thousands_of_real_members_over_the_limit_are_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(archives, "MAX_MEMBERS", 1000)
    path = _zip(tmp_path / "many.eval", {f"samples/{i}_epoch_1.json": b"{}" for i in range(1001)},
                method=zipfile.ZIP_STORED)
    _refused(path, "lists 1,001 members, more than the 1,000 a log holds", capsys)


def test_a_sound_archive_passes(tmp_path):
    path = _zip(tmp_path / "ok.eval", {"header.json": HEADER, "samples/1_epoch_1.json": b'{"id": 1}' * 100})
    check_archive(path, "inspect log")


@pytest.mark.slow
def test_peak_memory_on_a_bomb_stays_under_twice_the_largest_legitimate_member(tmp_path):
    """A 1 GB-of-zeros member declared as 1 KB beside a 32 MB legitimate member: the check's peak resident memory
    grows by less than 2x the legitimate member (measured in a fresh process: ru_maxrss before and after)."""
    legit = os.urandom(16 << 20).hex().encode()            # 32 MB of text that does not compress away
    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1_epoch_1.json", legit)
        with archive.open("samples/2_epoch_1.json", "w", force_zip64=True) as member:
            block = bytes(16 << 20)
            for _ in range(64):                             # 1 GiB of zeros, about 1 MB on disk
                member.write(block)
        for info in archive.filelist:
            if info.filename == "samples/2_epoch_1.json":
                info.file_size = 1024
    del legit
    script = textwrap.dedent(f"""
        import resource, sys, tracemalloc
        from baselines.core.archives import check_archive
        from baselines.core.errors import InputError
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        try:
            check_archive({str(path)!r}, "inspect log")
            print("accepted")
        except InputError as exc:
            print("refused", exc)
        traced = tracemalloc.get_traced_memory()[1]
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print((after - before) * 1024, traced)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1], timeout=600)
    verdict, sizes = done.stdout.splitlines()
    grew, traced = map(int, sizes.split())
    assert verdict.startswith("refused") and "does not inflate" in verdict, done.stdout + done.stderr
    assert grew < 2 * (32 << 20) and traced < 2 * (32 << 20), f"peak grew by {grew:,} bytes ({traced:,} traced)"
    print(f"checking a 1 GiB bomb beside a 32 MB member: resident peak grew {grew / 2**20:.1f} MB, "
          f"traced Python peak {traced / 2**20:.2f} MB")
