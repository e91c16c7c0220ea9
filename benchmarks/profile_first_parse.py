"""Where a first `compare --json` goes: imports, read, each comparison step and the JSON, in one process.

    PYTHONPATH=$PWD python3 benchmarks/profile_first_parse.py FILE [--memory]

CPU seconds (`time.process_time`) per step; with `--memory` also each
step's tracemalloc peak above its start and the traced memory held at its
end (tracemalloc slows every step, so
the CPU figures of a `--memory` run are not the plain ones). The read is
`RunTable.read(..., cache=False)`: a first parse, no sidecar. The steps are
the module-level functions `_compare` calls, wrapped in place, so the
figures add up to the comparison as it runs.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc


def _rss_mib() -> float:
    """The process's resident memory now (Linux /proc; NaN elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize() / 2 ** 20
    except OSError:
        return float("nan")


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--memory", action="store_true", help="also trace each step's peak (slower)")
    args = p.parse_args(argv)
    t0 = time.process_time()
    from baselines.analysis.compare import comparing, pairing  # noqa: F401  (the imports are a step)
    from baselines.analysis.tables.table import RunTable
    from baselines.analysis.compare.compare_options import CompareOptions
    from baselines.cli.compare import _dumps
    rows: list[tuple] = [("imports", time.process_time() - t0, None, None, _rss_mib(), _maxrss_mib())]
    if args.memory:
        tracemalloc.start()

    def timed(name, fn):
        def wrapper(*a, **k):
            if args.memory:
                start, _ = tracemalloc.get_traced_memory()
                tracemalloc.reset_peak()
            t = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent = time.process_time() - t
                peak = held = None
                if args.memory:
                    now, top = tracemalloc.get_traced_memory()
                    peak, held = (top - start) / 2 ** 20, now / 2 ** 20
                rows.append((name, spent, peak, held, _rss_mib(), _maxrss_mib()))
        return wrapper

    for name in ("_GroupSplit", "select_groups", "_all_summaries", "_groups", "mark_degraded", "range_notes",
                 "bounded_arm_intervals", "_margin_in_range", "pair_groups", "_mark_not_comparisons",
                 "code_warnings"):
        setattr(comparing, name, timed(name, getattr(comparing, name)))
    table = timed("read (no sidecar)", RunTable.read)([args.file], keep_last=False, cache=False)
    t = time.process_time()
    comparison = comparing.compare(table, options=CompareOptions())
    total = time.process_time() - t
    text = timed("to_json + dumps", lambda: _dumps(comparison.to_json()))()
    steps = sum(r[1] for r in rows if r[0] not in ("imports", "read (no sidecar)", "to_json + dumps"))
    rows.append(("comparison, other", total - steps, None, None, _rss_mib(), _maxrss_mib()))
    print(f"{'step':28s} {'CPU s':>7s} {'peak MiB':>9s} {'held MiB':>9s} {'RSS MiB':>8s} {'max RSS':>8s}")
    for name, spent, peak, held, rss, top in rows:
        print(f"{name:28s} {spent:7.3f} {'' if peak is None else f'{peak:9.1f}':>9s} "
              f"{'' if held is None else f'{held:9.1f}':>9s} {rss:8.0f} {top:8.0f}")
    print(f"{'whole process':28s} {time.process_time():7.3f}")
    print(f"JSON {len(text):,} chars; RSS = resident at the step's end, max RSS = high-water so far")
    return 0


if __name__ == "__main__":
    sys.exit(main())
