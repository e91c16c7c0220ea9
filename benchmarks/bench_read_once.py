"""Read once (issue 38): `costmatch compare --json` on 1,000,000 runs, cold, warm and after an append, vs polars.

    python benchmarks/bench_read_once.py [--arms 100 --seeds 10000] [--repeats 3] [--workdir DIR]

The file (100 arms x 10,000 seeds, spend in four units, ~186 MB) is written
once into --workdir (default: the system's temporary folder; never commit
it). Each repeat copies it afresh, sets its mtime in the past (a results
file whose run has finished: see `table_cache.Stamp.racy`), and times
whole processes, interleaved in this order:

0. the floor: ``python3 -c pass`` (the interpreter and this machine's
   site-packages ``.pth`` files, paid by every row), then compare's imports
   alone (``import baselines.cli.compare, baselines.cli.results``: numpy,
   pandas, pyarrow, scipy.special and costmatch, before any line is read);
1. polars ``read_ndjson`` of the file: every column compare reads
   (workload, arm, seed, budget, spend with its four units, reward, schema);
2. ``compare --json --no-cache``: the parse alone, no sidecar read or written;
3. cold: ``compare --json`` with no sidecar (parses, then writes the sidecar);
4. warm, sidecar only: ``compare --json --no-result-cache`` on the unchanged
   file (reads the sidecar, compares again);
5. warm, result cache: ``compare --json`` again (prints the kept output
   before pandas and scipy load: `baselines.cli.result_cache`);
6. after appending 1,000 lines (10 new seeds of every arm): ``compare --json``
   (reads the sidecar, parses the new lines only and merges their rows into
   the held ones in group order; 1,000 lines are far below the 1/16 of the
   held part that makes a read rewrite the sidecar, so the sidecar stays);
7. the next compare (``--no-result-cache``) once the appended file is old
   enough to be kept (aged, one compare run to write the tail sidecar of the
   1,000 rows first): the sidecar and the tail sidecar, no parse, no digest pass.

costmatch runs from a copy of this tree's packages in DIR/code, compiled once
beforehand, as ``pip install .`` compiles them at install; ``--source`` runs
the tree itself, compiled in every process (an editable install under
PYTHONDONTWRITEBYTECODE=1, which these machines set).

CPU is user + system time of the process, peak memory its maximum resident
set size, both as `/usr/bin/time -v` reports them (os.wait4 where that
program is absent). Targets: cold <= 1.5x polars' CPU, warm <= 0.3x,
after the append <= 0.35x, peak <= 1.5x the file. The last repeat also
checks that each compare printed what a cold parse of the same file prints.
polars is a benchmark-only dependency: ``python3 -m pip install polars``.

``--in-process`` also times `RunTable.read` alone in one process (CPU,
best of three): a whole parse, a read through the sidecar, and a read after
1,000 appended lines, so the reader's share of each whole-process figure shows.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

POLARS = """
import sys
import polars as pl
frame = pl.read_ndjson(sys.argv[1])
assert frame.height > 0
"""
#: what `compare` imports before it reads a line, with the console script's one BLAS thread (cli.quiet_blas)
IMPORTS = """
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import baselines.cli.compare, baselines.cli.results
"""
TIME = Path("/usr/bin/time").exists()


#: the copy of the packages the timed processes import (`installed_copy`); ROOT when run from source
CODE = ROOT


def installed_copy(folder: Path) -> None:
    """Copy the tree's packages into `folder` and compile them there, as `pip install .` does at install.

    Why: with PYTHONDONTWRITEBYTECODE=1 (set on these machines) a tree with
    no __pycache__ is compiled from source in every process: 0.06-0.1 s CPU
    of each compare that an installed costmatch never pays, while polars
    runs from its installed bytecode. A copy keeps the tree clean (a
    PYTHONPYCACHEPREFIX would also hide the standard library's bytecode).
    """
    global CODE
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in ("baselines", "arms", "workloads", "reports"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    CODE = folder


def measure(argv: list[str]) -> tuple[float, float, bytes]:
    """(CPU seconds, peak RSS in MiB, stdout) of one whole process."""
    env = dict(os.environ, PYTHONPATH=str(CODE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("COSTMATCH_CACHE", None)
    if TIME:
        proc = subprocess.run(["/usr/bin/time", "-v", *argv], cwd=CODE, env=env, capture_output=True)
        if proc.returncode != 0:
            raise SystemExit(f"{argv[:4]} failed:\n{proc.stderr.decode()[-2000:]}")
        err = proc.stderr.decode()
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", err).group(1))
        system = float(re.search(r"System time \(seconds\): ([\d.]+)", err).group(1))
        peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
        return user + system, peak, proc.stdout
    proc = subprocess.Popen(argv, cwd=CODE, env=env, stdout=subprocess.PIPE)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:4]} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def compare(path: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "baselines.cli", "compare", str(path), "--fixed", "tokens", "--json", *more]


def append_lines(path: Path, arms: int, seeds: int, extra_seeds: int) -> int:
    """Append `extra_seeds` new seeds of every arm (new run identities), in the generator's line shape."""
    with open(path, "a", encoding="utf-8") as handle:
        for a in range(arms):
            for s in range(seeds, seeds + extra_seeds):
                handle.write(json.dumps({
                    "schema": "costmatch.run/1", "workload": "bench", "arm": f"arm-{a:03d}", "seed": s,
                    "budget": {"tokens": 200000},
                    "spend": {"rollouts": 40, "calls": 100, "tokens": 200000 + s % 97, "seconds": 2.0},
                    "reward": 0.5}, separators=(",", ":")) + "\n")
    return arms * extra_seeds


def age(path: Path) -> None:
    """An mtime an hour back: the file of a finished run (a file changed within 2 s gets no sidecar)."""
    t = os.stat(path).st_mtime_ns - 3600 * 10**9
    os.utime(path, ns=(t, t))


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} (min {min(values):.2f}, max {max(values):.2f})"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--arms", type=int, default=100)
    p.add_argument("--seeds", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "costmatch-bench"))
    p.add_argument("--in-process", action="store_true", help="also time RunTable.read alone, in one process")
    p.add_argument("--source", action="store_true",
                   help="no compiled bytecode: every process compiles costmatch from source (an editable install "
                        "under PYTHONDONTWRITEBYTECODE=1)")
    a = p.parse_args()
    try:
        import polars  # noqa: F401
    except ImportError:
        raise SystemExit("this benchmark compares against polars: python3 -m pip install polars")
    from baselines.analysis.tables.table_cache import sidecar_path, tail_path
    from baselines.cli.result_cache import store_path

    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    if not a.source:
        installed_copy(work / "code")
    base = work / f"results-{a.arms}x{a.seeds}.jsonl"
    if not base.exists():
        from make_results import write
        write(str(base), a.arms, a.seeds)
    data = work / f"read-once-{a.arms}x{a.seeds}.jsonl"
    size_mb = base.stat().st_size / 2**20
    print(f"input: {base} ({size_mb:.0f} MiB, {a.arms * a.seeds:,} lines); {a.repeats} interleaved repeats; "
          f"costmatch {'compiled from source in every process' if a.source else 'from bytecode compiled once'}; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    steps = ("python3 -c pass", "compare's imports", "polars read_ndjson", "compare --no-cache", "cold compare", "warm, sidecar only", "warm, result cache",
             "after +1,000 lines", "next, tail sidecar")
    cpu: dict[str, list[float]] = {s: [] for s in steps}
    peak: dict[str, list[float]] = {s: [] for s in steps}
    outputs: dict[str, bytes] = {}
    for _ in range(a.repeats):
        shutil.copyfile(base, data)
        age(data)
        sidecar_path(data).unlink(missing_ok=True)
        tail_path(data).unlink(missing_ok=True)
        store_path(data).unlink(missing_ok=True)
        runs = [("python3 -c pass", [sys.executable, "-c", "pass"]),
                ("compare's imports", [sys.executable, "-c", IMPORTS]),
                ("polars read_ndjson", [sys.executable, "-c", POLARS, str(data)]),
                ("compare --no-cache", compare(data, "--no-cache")),
                ("cold compare", compare(data)), ("warm, sidecar only", compare(data, "--no-result-cache")),
                ("warm, result cache", compare(data))]
        for step, argv in runs:
            c, m, out = measure(argv)
            cpu[step].append(c)
            peak[step].append(m)
            outputs[step] = out
        if not store_path(data).exists():
            raise SystemExit("the cold compare kept no result: the result-cache row would be meaningless")
        if not sidecar_path(data).exists():
            raise SystemExit("the cold compare wrote no sidecar: the measurement would be meaningless")
        added = append_lines(data, a.arms, a.seeds, 1000 // a.arms)
        c, m, out = measure(compare(data))
        cpu["after +1,000 lines"].append(c)
        peak["after +1,000 lines"].append(m)
        outputs["after +1,000 lines"] = out
        age(data)
        measure(compare(data, "--no-result-cache"))   # writes the tail sidecar (the file is no longer racy)
        c, m, out = measure(compare(data, "--no-result-cache"))
        cpu["next, tail sidecar"].append(c)
        peak["next, tail sidecar"].append(m)
        outputs["next, tail sidecar"] = out
    same = (outputs["cold compare"] == outputs["compare --no-cache"] == outputs["warm, sidecar only"]
            == outputs["warm, result cache"])
    appended_cold = measure(compare(data, "--no-cache"))[2]
    print(f"outputs: cold = warm = --no-cache: {same}; after the append = the next = a cold parse of the appended "
          f"file: {outputs['after +1,000 lines'] == outputs['next, tail sidecar'] == appended_cold} "
          f"({added:,} lines appended)")
    polars_cpu = statistics.median(cpu["polars read_ndjson"])
    print(f"{'step':<22} {'CPU s, median (min, max)':<28} {'x polars':>9} {'peak MiB':>9} {'x file':>7}")
    for step in steps:
        c, m = statistics.median(cpu[step]), statistics.median(peak[step])
        print(f"{step:<22} {summary(cpu[step]):<28} {c / polars_cpu:>8.2f}x {m:>9.0f} {m / size_mb:>6.2f}x")
    print("targets: cold <= 1.5x polars, warm <= 0.3x, after +1,000 lines <= 0.35x, peak <= 1.5x the file")
    print(f"load average after: {os.getloadavg()[0]:.1f} (a shared machine: rerun to see the spread)")
    if a.in_process:
        in_process(base, data, a.arms, a.seeds)
    data.unlink(missing_ok=True)
    sidecar_path(data).unlink(missing_ok=True)
    tail_path(data).unlink(missing_ok=True)
    store_path(data).unlink(missing_ok=True)


READ = """
import sys, time
from baselines.analysis.tables.table import RunTable
def timed(cache):
    start = time.process_time()
    RunTable.read(sys.argv[1], cache=cache)
    return time.process_time() - start
if sys.argv[2] == "tail":  # once: the appended file is changed too recently to get a sidecar, so it stays a tail read
    print(timed(True))
else:
    whole = min(timed(False) for _ in range(3))
    timed(True)  # writes the sidecar
    print(whole, min(timed(True) for _ in range(3)))
"""


def in_process(base: Path, data: Path, arms: int, seeds: int) -> None:
    """RunTable.read alone: a whole parse vs through the sidecar, unchanged and after an append."""
    from baselines.analysis.tables.table_cache import sidecar_path

    shutil.copyfile(base, data)
    age(data)
    sidecar_path(data).unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("COSTMATCH_CACHE", None)
    run = lambda mode: [float(x) for x in subprocess.run([sys.executable, "-c", READ, str(data), mode], env=env,
                                                         cwd=ROOT, capture_output=True, check=True).stdout.split()]
    whole, held = run("both")
    append_lines(data, arms, seeds, 1000 // arms)
    (tail,) = run("tail")
    print(f"RunTable.read in process (CPU; best of 3 but the last): whole parse {whole:.3f} s; through the sidecar "
          f"{held:.3f} s ({held / whole:.2f}x); after +1,000 lines {tail:.3f} s ({tail / whole:.2f}x)")


if __name__ == "__main__":
    main()
