"""`costmatch compare` at every shape: seeds, arms, groups and start-up (issue 19 targets).

    python benchmarks/bench_shapes.py [--repeat 3] [--only seeds,arms,groups,startup] [--profile 25]

Every figure is a whole `python -m baselines.cli ...` process (wall time, CPU
time of the child, peak RSS), the two sides of each ratio run interleaved
(A B A B ...), and the table prints the median with the min-max spread. The
machine is shared and noisy: quote ratios from one run of this script.
`--profile N` then runs each case once more under cProfile (not timed) and
prints its N most expensive functions by cumulative time.

Targets:
- seeds: 100 arms x 100 seeds and 100 x 1,000 within 2x (per line) of the
  same line count at 10 seeds;
- arms: 10,000 arms x 10 seeds under 10 s and 1 GB, default options;
- groups: 10,000 groups (2 arms x 5 seeds each) within 3x of one group of
  the same number of lines;
- start-up: `costmatch --help` under 0.4 s and a 15-line compare under 1 s.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def write_shape(path: Path, groups: int, arms: int, seeds: int, seed: int = 0) -> Path:
    """groups x arms x seeds runs at one token budget per group, normal rewards, four units."""
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8") as handle:
        for g in range(groups):
            workload = f"w{g:05d}" if groups > 1 else "bench"
            skill = rng.normal(0, 0.05, arms)
            for a in range(arms):
                rewards = np.round(np.clip(0.5 + skill[a] + rng.normal(0, 0.1, seeds), 0, 1), 4)
                tokens = np.round(rng.normal(200_000, 4_000, seeds))
                calls = rng.integers(80, 120, seeds)
                lines = [json.dumps({"workload": workload, "arm": f"arm-{a:05d}", "seed": s,
                                     "budget": {"tokens": 200000},
                                     "spend": {"rollouts": 40, "calls": int(calls[s]), "tokens": float(tokens[s])},
                                     "reward": float(rewards[s])}, separators=(",", ":"))
                         for s in range(seeds)]
                handle.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path


def timed(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, child CPU s, peak RSS MB) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "baselines.cli", *argv], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"costmatch {' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024  # ru_maxrss of children: the largest child so far


def interleaved(cases: dict[str, list[str]], repeat: int) -> dict[str, list[tuple[float, float, float]]]:
    out: dict[str, list] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, argv in cases.items():
            out[name].append(timed(argv))
    return out


def profile(name: str, argv: list[str], top: int) -> None:
    """One more run of the case under cProfile (untimed); its `top` functions by cumulative time."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "profile.out")
        subprocess.run([sys.executable, "-m", "cProfile", "-o", out, "-m", "baselines.cli", *argv], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        text = io.StringIO()
        pstats.Stats(out, stream=text).sort_stats("cumtime").print_stats(top)
    print(f"\n<details><summary>profile: {name}</summary>\n\n```\n{text.getvalue().strip()}\n```\n</details>")


def med(values) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def report(title: str, results: dict, lines: dict[str, int], cases: dict | None = None, top: int = 0) -> None:
    print(f"\n### {title}\n")
    print("| case | lines | wall s (median [min-max]) | CPU s | CPU us/line | peak RSS MB* |")
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        per_line = statistics.median(cpus) / max(lines[name], 1) * 1e6
        print(f"| {name} | {lines[name]:,} | {med(walls)} | {med(cpus)} | {per_line:.1f} | "
              f"{max(r[2] for r in runs):.0f} |")
    for name in (results if cases and top else ()):
        profile(name, cases[name], top)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", default="startup,seeds,arms,groups")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "costmatch-shapes"))
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="after timing, profile each case once and print its N costliest functions")
    a = p.parse_args()
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    only = set(a.only.split(","))
    print("*peak RSS is the largest child process so far in this script (getrusage), an upper bound per case")

    def shape(g: int, arms: int, seeds: int) -> tuple[list[str], int]:
        path = write_shape(work / f"shape-{g}x{arms}x{seeds}.jsonl", g, arms, seeds)
        return ["compare", str(path), "--json", "--no-cache"], g * arms * seeds  # the parse, not its sidecar

    if "startup" in only:
        tiny, n = shape(1, 3, 5)
        cases = {"--help": (["--help"], 0), "compare, 15 lines": (tiny, n)}
        res = interleaved({k: v[0] for k, v in cases.items()}, a.repeat)
        report("start-up (targets: --help < 0.4 s, tiny compare < 1 s)", res, {k: v[1] for k, v in cases.items()},
               {k: v[0] for k, v in cases.items()}, a.profile)
    if "seeds" in only:
        cases = {"1,000 arms x 10 seeds": shape(1, 1000, 10), "100 arms x 100 seeds": shape(1, 100, 100),
                 "10,000 arms x 10 seeds": shape(1, 10000, 10), "100 arms x 1,000 seeds": shape(1, 100, 1000)}
        res = interleaved({k: v[0] for k, v in cases.items()}, a.repeat)
        report("seeds (target: many seeds within 2x per line of the same lines at 10 seeds)", res,
               {k: v[1] for k, v in cases.items()},
               {k: v[0] for k, v in cases.items()}, a.profile)
    if "arms" in only:
        cases = {"10,000 arms x 10 seeds (default pairs)": shape(1, 10000, 10)}
        res = interleaved({k: v[0] for k, v in cases.items()}, a.repeat)
        report("arms (target: under 10 s and 1 GB)", res, {k: v[1] for k, v in cases.items()},
               {k: v[0] for k, v in cases.items()}, a.profile)
    if "groups" in only:
        cases = {"one group, 2 arms x 50,000 seeds": shape(1, 2, 50000),
                 "10,000 groups x 2 arms x 5 seeds": shape(10000, 2, 5)}
        res = interleaved({k: v[0] for k, v in cases.items()}, a.repeat)
        report("groups (target: 10,000 groups within 3x of one group of the same lines)", res,
               {k: v[1] for k, v in cases.items()},
               {k: v[0] for k, v in cases.items()}, a.profile)


if __name__ == "__main__":
    main()
