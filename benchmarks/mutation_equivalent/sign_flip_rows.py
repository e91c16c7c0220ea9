"""Checks the equivalence reasons of sign_flip.toml's third round: three mutants run from a mutated copy of the source.

    python benchmarks/mutation_equivalent/sign_flip_rows.py   (a few seconds)

For each mutant, the module is compiled again with that one line replaced and sign_flip_rows is run on the same
rows as the original (exact, McNemar, normal-limit, heavy Monte Carlo; rows fewer and more than columns): p and
methods must be identical, byte for byte, and the peak traced memory (tracemalloc) is printed beside the
original's. 2026-12-04: 3 mutants x 9 cases, all identical; the normal-limit scale's copy leaves the peak at
2.0 x d.nbytes (the tail ratio's two temporaries set it), as the original.
"""
import tracemalloc
import types
from pathlib import Path

import numpy as np

import baselines.analysis.statistics.sign_flip as sf

SOURCE = Path(sf.__file__).read_text()
MUTANTS = {
    "_all_signs astype(None)": ("return (1 - 2 * bits).astype(float)", "return (1 - 2 * bits).astype(None)"),
    "_three_valued(None, magnitudes)": ("binary = _three_valued(d, magnitudes)",
                                        "binary = _three_valued(None, magnitudes)"),
    "scale from d[normal] always": ("(d if normal.size == d.shape[0] else d[normal])",
                                    "(d if (normal.size == d.shape[0]) and False else d[normal])"),
}


def build(old: str, new: str) -> types.ModuleType:
    assert SOURCE.count(old) == 1, old
    module = types.ModuleType("sign_flip_mutant")
    module.__file__ = sf.__file__
    exec(compile(SOURCE.replace(old, new), sf.__file__, "exec"), module.__dict__)
    module.MONTE_CARLO_WORK = 2e6          # 2000 draws for the heavy long rows: quick
    return module


def peak_of(f, *args):
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = f(*args)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return out, peak


rng = np.random.default_rng(0)
long_heavy = rng.normal(0, 1, (2, 1001))
long_heavy[:, :3] = [80.0, -60.0, 90.0]
cases = {
    "exact n=9": rng.normal(0.3, 1, (5, 9)),
    "exact n=14 with a McNemar row": np.vstack([rng.normal(0.2, 1, (3, 14)), rng.choice([-1.0, 0, 1], (1, 14))]),
    "McNemar 20 x 50000": rng.choice([-1.0, 0.0, 1.0], (20, 50_000)),
    "Monte Carlo n=15": rng.normal(0.4, 1, (4, 15)),
    "normal limit 8 x 125000": rng.normal(0.01, 1, (8, 125_000)),
    "normal limit 3 x 1001 + McNemar row": np.vstack([rng.normal(0, 1, (3, 1001)), rng.choice([-1.0, 1], (1, 1001))]),
    "normal + heavy 1001": np.vstack([rng.normal(0.05, 1, (2, 1001)), long_heavy]),
    "1002 x 1001, one McNemar row": np.vstack([rng.normal(0.05, 1, (1001, 1001)), rng.choice([-2.0, 2], (1, 1001))]),
    "zeros and scale": np.vstack([np.zeros(12), rng.normal(0, 1e-6, 12)]),
}
base = types.ModuleType("sign_flip_original")
exec(compile(SOURCE, sf.__file__, "exec"), base.__dict__)
base.MONTE_CARLO_WORK = 2e6
for label, (old, new) in MUTANTS.items():
    mutant = build(old, new)
    same = 0
    for case, d in cases.items():
        (p0, m0), k0 = peak_of(base.sign_flip_rows, d, 3)
        (p1, m1), k1 = peak_of(mutant.sign_flip_rows, d, 3)
        assert m0 == m1 and p0.tobytes() == p1.tobytes(), (label, case)
        same += 1
        if label.startswith("scale") and case.startswith("normal limit 8"):
            print(f"  {case}: peak {k0 / d.nbytes:.3f} x d.nbytes original, {k1 / d.nbytes:.3f} x mutant")
    assert mutant._all_signs(6).dtype == base._all_signs(6).dtype == np.float64
    assert np.array_equal(mutant._all_signs(6), base._all_signs(6))
    print(f"{label}: {same} of {len(cases)} cases identical (p bytes and methods)")
