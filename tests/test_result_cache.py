"""The result cache (issue 38, the warm path): a hit prints what a cold run prints, and any changed key part misses.

Every test compares against a run with the cache off (`--no-cache`), in
process; only the import test starts a process, since it is about what
the process loads. Files are aged (an old mtime) so they are not racy.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baselines.cli import main, result_cache
from baselines.core import file_stamp

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def small_files_cached(monkeypatch):
    monkeypatch.setattr(result_cache, "MIN_BYTES", 0)
    monkeypatch.delenv(result_cache.ENV, raising=False)


def line(arm="A", seed=0, reward=0.5) -> str:
    return json.dumps({"workload": "w", "arm": arm, "seed": seed, "budget": {"tokens": 100},
                       "spend": {"tokens": 100, "calls": 3}, "reward": reward}, separators=(",", ":"))


def runs(n=12, start=0, shift=0.0) -> str:
    return "".join(line("AB"[i % 2], i // 2, round(0.1 * (i % 7) + shift, 3)) + "\n" for i in range(start, start + n))


def age(path: Path, seconds: int = 100) -> None:
    t = os.stat(path).st_mtime_ns - seconds * 10**9
    os.utime(path, ns=(t, t))


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    age(path)
    return path


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def computed(monkeypatch) -> list[int]:
    """Counts the comparisons computed (a hit computes none)."""
    from baselines.cli import compare as verb
    calls: list[int] = []
    real = verb._run

    def counting(**kw):
        calls.append(1)
        return real(**kw)
    monkeypatch.setattr(verb, "_run", counting)
    return calls


@pytest.fixture
def results(tmp_path) -> Path:
    return write(tmp_path / "r.jsonl", runs())


@pytest.mark.parametrize("json_out", [True, False])
def test_a_hit_prints_the_cold_output_and_code(results, capsys, monkeypatch, json_out):
    more = ["--json"] if json_out else []
    cold = cli(capsys, "compare", str(results), "--fixed", "tokens", *more, "--no-cache")
    calls = computed(monkeypatch)
    first = cli(capsys, "compare", str(results), "--fixed", "tokens", *more)
    assert result_cache.store_path(results).is_file()
    hit = cli(capsys, "compare", str(results), "--fixed", "tokens", *more)
    assert first == hit == cold and len(calls) == 1


def test_stderr_is_replayed_in_order(results, capsys, monkeypatch):
    from baselines.cli import compare as verb

    def noisy(**kw):
        sys.stderr.write("one\n")
        sys.stdout.write("two\n")
        sys.stderr.write("three\n")
        return 3
    monkeypatch.setattr(verb, "_run", noisy)
    cold = cli(capsys, "compare", str(results))
    monkeypatch.setattr(verb, "_run", lambda **kw: pytest.fail("computed on a hit"))
    assert cli(capsys, "compare", str(results)) == cold == (3, "two\n", "one\nthree\n")


def test_option_order_and_written_defaults_still_hit(results, capsys, monkeypatch):
    calls = computed(monkeypatch)
    a = cli(capsys, "compare", str(results), "--json", "--fixed", "tokens")
    b = cli(capsys, "compare", "--fixed", "tokens", str(results), "--tolerance", "0.1", "--json")
    assert a == b and len(calls) == 1


def test_different_options_miss(results, capsys, monkeypatch):
    calls = computed(monkeypatch)
    a = cli(capsys, "compare", str(results), "--fixed", "tokens", "--json")
    b = cli(capsys, "compare", str(results), "--fixed", "tokens", "--json", "--alpha", "0.01")
    assert len(calls) == 2 and a != b


def edit(path: Path, how: str) -> None:
    data = path.read_bytes()
    info = os.stat(path)
    if how == "append":
        path.write_bytes(data + runs(4, start=12).encode())
    elif how == "truncate":
        path.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])
    elif how in ("middle", "last block"):
        key = b'"reward":'
        at = (data.index(key, len(data) // 2) if how == "middle" else data.rindex(key)) + len(key)
        digit = b"9" if data[at:at + 1] != b"9" else b"8"
        path.write_bytes(data[:at] + digit + data[at + 1:])
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))   # size and mtime as before; ctime moves
    elif how == "replace":
        other = path.with_name("other.jsonl")
        text = data.replace(b'"arm":"A"', b'"arm":"C"')   # another file of the same size
        assert len(text) == len(data) and text != data
        other.write_bytes(text)
        os.utime(other, ns=(info.st_atime_ns, info.st_mtime_ns))
        os.replace(other, path)
    if how in ("append", "truncate"):
        age(path)


@pytest.mark.parametrize("how", ["append", "truncate", "middle", "last block", "replace"])
def test_a_changed_file_misses_and_equals_a_cold_run(results, capsys, monkeypatch, how):
    argv = ["compare", str(results), "--fixed", "tokens", "--json"]
    before = cli(capsys, *argv)
    edit(results, how)
    calls = computed(monkeypatch)
    after = cli(capsys, *argv)
    assert len(calls) == 1 and after == cli(capsys, *argv, "--no-cache") and after != before


def test_the_edge_hash_catches_what_equal_stamps_hide(results, capsys, monkeypatch):
    """With ctime not in the stamp (as if the edit could keep every stamp), the last-block hash still misses."""
    argv = ["compare", str(results), "--fixed", "tokens", "--json"]
    frozen = file_stamp.FileStamp.of(results)
    monkeypatch.setattr(result_cache.FileStamp, "of", classmethod(lambda cls, p: frozen))
    cli(capsys, *argv)
    edit(results, "last block")
    calls = computed(monkeypatch)
    cli(capsys, *argv)
    assert len(calls) == 1


def test_changed_code_misses(results, capsys, monkeypatch):
    argv = ["compare", str(results), "--fixed", "tokens", "--json"]
    cli(capsys, *argv)
    monkeypatch.setattr(result_cache, "code_fingerprint", lambda: "other code")
    calls = computed(monkeypatch)
    cli(capsys, *argv)
    assert len(calls) == 1


def test_code_fingerprint_follows_a_source_file(tmp_path, monkeypatch):
    package = tmp_path / "fakepkg"
    package.mkdir()
    (package / "__init__.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(result_cache, "PACKAGES", ("fakepkg",))
    monkeypatch.setattr(result_cache, "LIBRARIES", ())
    before = result_cache.code_fingerprint()
    info = os.stat(package / "__init__.py")
    (package / "__init__.py").write_text("x = 2\n")
    os.utime(package / "__init__.py", ns=(info.st_atime_ns, info.st_mtime_ns))
    assert result_cache.code_fingerprint() != before


@pytest.mark.parametrize("damage", ["garbage", "flipped", "empty"])
def test_a_corrupt_store_is_never_trusted(results, capsys, monkeypatch, damage):
    argv = ["compare", str(results), "--fixed", "tokens", "--json"]
    cold = cli(capsys, *argv)
    store = result_cache.store_path(results)
    text = store.read_text()
    if damage == "garbage":
        store.write_text(text[: len(text) // 2])
    elif damage == "flipped":   # valid JSON, one character of the stored output changed
        data = json.loads(text)
        out = data["entries"][0]["out"]
        out[0][1] = out[0][1].replace("tokens", "tokenz", 1)
        store.write_text(json.dumps(data))
    else:
        store.write_text("")
    calls = computed(monkeypatch)
    assert cli(capsys, *argv) == cold and len(calls) == 1


def test_a_read_only_folder_changes_nothing_but_speed(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    results = write(folder / "r.jsonl", runs())
    argv = ["compare", str(results), "--fixed", "tokens", "--json"]
    cold = cli(capsys, *argv, "--no-cache")
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):   # root writes anyway: the write fails as it would in a read-only folder
            def refuse(*a, **k):
                raise PermissionError("read-only folder")
            monkeypatch.setattr(os, "replace", refuse)
        assert cli(capsys, *argv) == cold == cli(capsys, *argv)
        assert not result_cache.store_path(results).exists()
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("off", ["--no-cache", "--no-result-cache", "env"])
def test_turned_off(results, capsys, monkeypatch, off):
    argv = ["compare", str(results), "--fixed", "tokens", "--json"]
    cli(capsys, *argv)
    if off == "env":
        monkeypatch.setenv(result_cache.ENV, "off")
        more = []
    else:
        more = [off]
    calls = computed(monkeypatch)
    cli(capsys, *argv, *more)
    cli(capsys, *argv, *more)
    assert len(calls) == 2


def test_a_racy_file_is_not_kept(tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    results.write_text(runs())   # just written: mtime = ctime = now
    cli(capsys, "compare", str(results), "--json")
    assert not result_cache.store_path(results).exists()


def test_the_stamp_rule_is_the_sidecars(results):
    from baselines.analysis.tables import table_cache
    ours, theirs = file_stamp.FileStamp.of(results), table_cache.Stamp.of(results)
    assert ours.__dict__ == theirs.__dict__
    assert file_stamp.RACY_NS == table_cache.RACY_NS and file_stamp.EDGE == table_cache.EDGE
    assert result_cache.ENV == table_cache.ENV and result_cache.MIN_BYTES <= 1 << 20
    size = os.stat(results).st_size
    with open(results, "rb") as handle:
        assert file_stamp.edges(results, size) == table_cache._edges(handle, size)


@pytest.mark.process
@pytest.mark.smoke
def test_a_hit_imports_no_pandas_scipy_numpy(tmp_path):
    """The whole point: the second run loads none of the heavy libraries (a file over 1 MiB, the real threshold)."""
    results = tmp_path / "r.jsonl"
    results.write_text("".join(line("AB"[i % 2], i // 2, round(0.1 * (i % 7), 2)) + "\n" for i in range(14000)))
    age(results)
    probe = ("import sys, runpy\n"
             "sys.argv = ['costmatch', 'compare', sys.argv[1], '--fixed', 'tokens', '--json']\n"
             "from baselines.cli import main\n"
             "code = main()\n"
             "heavy = sorted(m for m in ('pandas', 'scipy', 'numpy', 'matplotlib', 'pyarrow') if m in sys.modules)\n"
             "print('HEAVY', heavy, code, file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    env.pop(result_cache.ENV, None)
    first = subprocess.run([sys.executable, "-c", probe, str(results)], capture_output=True, text=True, env=env)
    second = subprocess.run([sys.executable, "-c", probe, str(results)], capture_output=True, text=True, env=env)
    assert "HEAVY ['numpy', 'pandas'" in first.stderr
    assert "HEAVY [] 0" in second.stderr, second.stderr
    assert first.stdout == second.stdout and first.stdout.startswith("{")
