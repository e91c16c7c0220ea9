"""Checks the equivalence reasons of typical_seed.toml for the searches that were lru_cache'd: order_rank,
critical_wins and critical_wins_upto with each listed mutation give the same counts as the module itself.

    python benchmarks/mutation_equivalent/typical_seed_windows.py   (about 1.5 minutes; from the repository root)

For every variant (the mutated line of one function, exactly as in the mutation report) a copy of the module is
built with that one line replaced, and its answers are compared with the module's: order_rank for n = 0 .. 400
and some up to 10,000 at tails from 0.5 down to 1e-300, and for n up to 60 (and 97, 200) at every binomial tail
value P(K <= j) and at the edge of the 1e-12 allowance below it; critical_wins likewise at levels from 1 down
to 1e-300 (and 0) and at every two-sided p value 2 P(K <= j) and its edge; critical_wins_upto for n = 1 .. 3000
at the same levels and for n up to 63 at the edge levels. Warnings are errors throughout (the errstate variant),
and the array must stay read-only. Levels are probabilities, 0 <= level <= 1: above 1 some variants differ
(a count of at most n / 2 would pass), and no caller passes such a level. Prints each variant's number of
differing cases; the script fails if any differs. 2026-12-04: 53 variants, 0 differences; the guess
is at most 0.50 (lo) and 1.54 (lo + 1) above n / 2 where at_lo could hold, never the 2.5 it needs.
"""
import math
import sys
import types
import warnings
from pathlib import Path

import numpy as np
from scipy import special

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from baselines.analysis.statistics import typical_seed as ts   # noqa: E402

SOURCE = Path(ts.__file__).read_text()

# (function, mutmut's number in the 2026-12-04 report, the line, the mutated line)
VARIANTS = [
    ('order_rank', '12', 'fails = lambda j: _special.bdtr(j.astype(float), n, 0.5) > tail * (1 + 1e-12)   # j in 0 .. n - 1', 'fails = lambda j: _special.bdtr(j.astype(None), n, 0.5) > tail * (1 + 1e-12)   # j in 0 .. n - 1'),
    ('order_rank', '20', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 2', 'guess = n / 2 - _z(tail) * math.sqrt(n) / 2'),
    ('order_rank', '21', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 2', 'guess = n * 2 + _z(tail) * math.sqrt(n) / 2'),
    ('order_rank', '22', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 2', 'guess = n / 3 + _z(tail) * math.sqrt(n) / 2'),
    ('order_rank', '23', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 2', 'guess = n / 2 + _z(tail) * math.sqrt(n) * 2'),
    ('order_rank', '24', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 2', 'guess = n / 2 + _z(tail) / math.sqrt(n) / 2'),
    ('order_rank', '27', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 2', 'guess = n / 2 + _z(tail) * math.sqrt(n) / 3'),
    ('order_rank', '40', 'first = _first_true(fails, 0, n - 1, guess, n)', 'first = _first_true(fails, 0, n + 1, guess, n)'),
    ('critical_wins', '13', 'cond = lambda k: 2 * _special.bdtr((n - k).astype(float), n, 0.5) <= level * (1 + 1e-12)', 'cond = lambda k: 2 * _special.bdtr((n - k).astype(None), n, 0.5) <= level * (1 + 1e-12)'),
    ('critical_wins', '22', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 2 + _z(level / 2) * math.sqrt(n) / 2'),
    ('critical_wins', '23', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n * 2 - _z(level / 2) * math.sqrt(n) / 2'),
    ('critical_wins', '24', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 3 - _z(level / 2) * math.sqrt(n) / 2'),
    ('critical_wins', '25', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) * 2'),
    ('critical_wins', '26', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 2 - _z(level / 2) / math.sqrt(n) / 2'),
    ('critical_wins', '28', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 2 - _z(level * 2) * math.sqrt(n) / 2'),
    ('critical_wins', '29', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 2 - _z(level / 3) * math.sqrt(n) / 2'),
    ('critical_wins', '31', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 2', 'guess = n / 2 - _z(level / 2) * math.sqrt(n) / 3'),
    ('critical_wins', '42', 'return _first_true(cond, n // 2 + 1, n, guess, n)', 'return _first_true(cond, n // 2 - 1, n, guess, n)'),
    ('critical_wins', '44', 'return _first_true(cond, n // 2 + 1, n, guess, n)', 'return _first_true(cond, n // 3 + 1, n, guess, n)'),
    ('critical_wins_upto', '12', 'lo, hi = n // 2 + 1, n', 'lo, hi = n // 2 - 1, n'),
    ('critical_wins_upto', '14', 'lo, hi = n // 2 + 1, n', 'lo, hi = n // 3 + 1, n'),
    ('critical_wins_upto', '18', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 2 + _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)'),
    ('critical_wins_upto', '19', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n * 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)'),
    ('critical_wins_upto', '20', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 3 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)'),
    ('critical_wins_upto', '21', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) * 2).astype(np.int64)'),
    ('critical_wins_upto', '22', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 2 - _z(level / 2) / np.sqrt(n) / 2).astype(np.int64)'),
    ('critical_wins_upto', '24', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 2 - _z(level * 2) * np.sqrt(n) / 2).astype(np.int64)'),
    ('critical_wins_upto', '25', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 2 - _z(level / 3) * np.sqrt(n) / 2).astype(np.int64)'),
    ('critical_wins_upto', '27', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 2).astype(np.int64)', 'guess = (n / 2 - _z(level / 2) * np.sqrt(n) / 3).astype(np.int64)'),
    ('critical_wins_upto', '31', 'offsets = np.arange(-2, 3)', 'offsets = np.arange(3)'),
    ('critical_wins_upto', '34', 'offsets = np.arange(-2, 3)', 'offsets = np.arange(-3, 3)'),
    ('critical_wins_upto', '35', 'offsets = np.arange(-2, 3)', 'offsets = np.arange(-2, 4)'),
    ('critical_wins_upto', '38', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"', 'ks = np.clip(guess[:, None] + offsets[None, :], None, hi[:, None])   # lo - 1: "before lo"'),
    ('critical_wins_upto', '39', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], None)   # lo - 1: "before lo"'),
    ('critical_wins_upto', '43', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"', 'ks = np.clip(guess[:, None] - offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"'),
    ('critical_wins_upto', '44', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo + 1)[:, None], hi[:, None])   # lo - 1: "before lo"'),
    ('critical_wins_upto', '45', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 1)[:, None], hi[:, None])   # lo - 1: "before lo"', 'ks = np.clip(guess[:, None] + offsets[None, :], (lo - 2)[:, None], hi[:, None])   # lo - 1: "before lo"'),
    ('critical_wins_upto', '51', 'with np.errstate(invalid="ignore"):', 'with np.errstate(invalid=None):'),
    ('critical_wins_upto', '63', 'cond = 2 * _special.bdtr((nn - ks).astype(float), nn, 0.5) <= level * (1 + 1e-12)', 'cond = 2 * _special.bdtr((nn - ks).astype(None), nn, 0.5) <= level * (1 + 1e-12)'),
    ('critical_wins_upto', '64', 'cond = 2 * _special.bdtr((nn - ks).astype(float), nn, 0.5) <= level * (1 + 1e-12)', 'cond = 2 * _special.bdtr((nn + ks).astype(float), nn, 0.5) <= level * (1 + 1e-12)'),
    ('critical_wins_upto', '65', 'cond = 2 * _special.bdtr((nn - ks).astype(float), nn, 0.5) <= level * (1 + 1e-12)', 'cond = 2 * _special.bdtr((nn - ks).astype(float), nn, 1.5) <= level * (1 + 1e-12)'),
    ('critical_wins_upto', '79', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 1)', 'switch = cond[:, 1:] & ~cond[:, :+1] & (ks[:, 1:] == ks[:, :-1] + 1)'),
    ('critical_wins_upto', '82', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 1)', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] != ks[:, :-1] + 1)'),
    ('critical_wins_upto', '83', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 1)', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] - 1)'),
    ('critical_wins_upto', '84', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 1)', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :+1] + 1)'),
    ('critical_wins_upto', '86', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 1)', 'switch = cond[:, 1:] & ~cond[:, :-1] & (ks[:, 1:] == ks[:, :-1] + 2)'),
    ('critical_wins_upto', '101', 'first = np.where(found, ks[:, 1:][np.arange(cap), switch.argmax(axis=1)], 0)', 'first = np.where(found, ks[:, 1:][np.arange(cap), switch.argmax(axis=1)], 1)'),
    ('critical_wins_upto', '104', 'at_lo = cond[:, 0] & (ks[:, 0] == lo)        # the window starts at lo and lo already qualifies', 'at_lo = cond[:, 1] & (ks[:, 0] == lo)        # the window starts at lo and lo already qualifies'),
    ('critical_wins_upto', '105', 'at_lo = cond[:, 0] & (ks[:, 0] == lo)        # the window starts at lo and lo already qualifies', 'at_lo = cond[:, 0] & (ks[:, 1] == lo)        # the window starts at lo and lo already qualifies'),
    ('critical_wins_upto', '108', 'first = np.where(at_lo, lo, first)', 'first = np.where(None, lo, first)'),
    ('critical_wins_upto', '109', 'first = np.where(at_lo, lo, first)', 'first = np.where(at_lo, None, first)'),
    ('critical_wins_upto', '118', 'for i in np.flatnonzero(~(found | at_lo)).tolist():', 'for i in np.flatnonzero(~(found & at_lo)).tolist():'),
    ('critical_wins_upto', '128', 'out.flags.writeable = False', 'out.flags.writeable = None'),
]


def variant(func: str, old: str, new: str) -> types.ModuleType:
    start = SOURCE.index(f"def {func}(")
    end = SOURCE.find("\ndef ", start + 1)
    body = SOURCE[start:end]
    assert body.count(old) == 1, (func, old)
    mod = types.ModuleType(f"typical_seed_variant_{func}")
    sys.modules[mod.__name__] = mod
    exec(compile(SOURCE[:start] + body.replace(old, new) + SOURCE[end:], mod.__name__, "exec"), mod.__dict__)
    return mod


LEVELS = sorted({1.0, 0.999, 0.9, 0.75, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.1, 0.05, 0.025, 0.02, 0.01, 0.005,
                 0.001, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12, 1e-15, 1e-20, 1e-30, 1e-50, 1e-100, 1e-200, 1e-300,
                 0.0, 0.05 / 3, 0.05 / 99, 0.05 / 4950, 0.1 / 7, 0.01 / 45})
TAILS = sorted({l / 2 for l in LEVELS} | {l for l in LEVELS if l <= 0.5})
NS = list(range(0, 401)) + [511, 777, 1000, 1999, 2000, 2001, 4096, 10000]


def edges(n: int, double: bool) -> list[float]:
    """The values where <= and < part for n: each P(K <= j) (or twice it, capped at 1), and the float just
    above value / (1 + 1e-12), which the 1e-12 allowance still admits."""
    out = set()
    for j in range(0, n):
        v = float(special.bdtr(j, n, 0.5))
        v = min(1.0, 2 * v) if double else v
        out |= {v, float(np.nextafter(v / (1 + 1e-12), 1.0))}
    return sorted(out)


EDGE_NS = list(range(1, 61)) + [97, 200]


def answers(mod, func: str):
    if func == "order_rank":
        out = [mod.order_rank(n, t) for t in TAILS for n in NS]
        return out + [mod.order_rank(n, t) for n in EDGE_NS for t in edges(n, False)]
    if func == "critical_wins":
        out = [mod.critical_wins(n, l) for l in LEVELS for n in NS]
        return out + [mod.critical_wins(n, l) for n in EDGE_NS for l in edges(n, True)]
    out = []
    for cap, level in [(3000, l) for l in LEVELS] + [(n + 3, l) for n in EDGE_NS[::3] for l in edges(n, True)]:
        got = mod.critical_wins_upto(cap, level)
        assert not got.flags.writeable and got.dtype.kind == "i"
        out.append(got.tolist())
    return out


def guess_above_half(n_max: int = 20000) -> tuple[float, float]:
    """How far above n / 2 critical_wins_upto's guess is at the smallest level (<= 1) where lo, and lo + 1,
    qualify: at_lo needs the window to start at lo, i.e. a guess >= lo + 2 >= n / 2 + 2.5."""
    most = [-math.inf, -math.inf]
    for n in range(1, n_max + 1):
        for step in (0, 1):
            k = n // 2 + 1 + step
            level = 2 * float(special.bdtr(n - k, n, 0.5)) if k <= n else 2.0
            if level <= 1:
                most[step] = max(most[step], -ts._z(level / 2) * math.sqrt(n) / 2)
    return most[0], most[1]


def main() -> int:
    warnings.simplefilter("error")
    at_lo, at_lo1 = guess_above_half()
    print(f"guess above n / 2 where lo qualifies: at most {at_lo:.4f}; where lo + 1 does: {at_lo1:.4f} (n <= 20,000)")
    bad = int(max(at_lo, at_lo1) >= 2.5)
    base = {}
    for func, number, old, new in VARIANTS:
        if func not in base:
            base[func] = answers(variant(func, old, old), func)
        got = answers(variant(func, old, new), func)
        differ = sum(a != b for a, b in zip(got, base[func]))
        bad += differ
        print(f"{func} mutmut_{number}: {differ} of {len(got)} differ   {new}")
    print(f"{len(VARIANTS)} variants, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
