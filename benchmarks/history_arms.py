"""The pooled route with the arms `check` passes (docs/calibration.md, "With the arms"): seeded, by pooled_decision.

    python benchmarks/history_arms.py HISTORIES a [noarms|one]   # issue 40's history with normal arms
    python benchmarks/history_arms.py HISTORIES b            # lognormal rewards (scaled-down candidate) at the margin

(a) Rewards per seed: a difficulty level shared by every commit plus noise N(0, 0.02 / sqrt 2); the reference is
one such run, commit k the same minus 0.01 k: differences against the reference N(-0.01 k, 0.02) as in issue 40,
but sharing the reference's noise (correlation 0.5 between looks), and the gate sees both arms, so the
one-sample gate's arm check (issue 37 item 4) applies; `noarms` gates the differences alone on the same draws,
`one` the one-sample gate at every commit (no pooling), with the arms.
(b) issue 37's worst cell, a scaled-down lognormal candidate (r 0.5, rho 0.5, n 10, margin r e^0.5), for 10 looks
of one group: PASS at the margin per look.
"""
import math, sys
import numpy as np
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from baselines.analysis.gating.pooled_shape import Shape, look_skew, pooled_decision
from baselines.analysis.gating.gate_bounds import gate_decision, PASS, FAIL
H = int(sys.argv[1]); which = sys.argv[2]
NOARMS = sys.argv[3:] == ["noarms"]
ONE = sys.argv[3:] == ["one"]
rng = np.random.default_rng(5)
n = 10
if which == "a":
    # base rewards per seed: a difficulty level (shared by every commit) + noise; candidate = base + d
    hits8 = 0; passes = 0
    for h in range(H):
        level = rng.uniform(0.3, 0.6, n)
        ref = level + rng.normal(0, 0.02 / math.sqrt(2), n)
        prev = ref
        sb, sd = Shape(), Shape(); fired = None
        for k in range(1, 31):
            cand = level - 0.01 * k + rng.normal(0, 0.02 / math.sqrt(2), n)
            dref = cand - ref; dbase = cand - prev
            g = pooled_decision(dbase, 0.05, 0.05, sb, arms=None if NOARMS else (prev, cand)); passes += g.verdict == PASS
            dd = pooled_decision(dref, 0.05, 0.05 / 30, sd, arms=None if NOARMS else (ref, cand))
            if dd.verdict == FAIL and fired is None: fired = k
            if not ONE:
                sb, sd = sb.add(look_skew(dbase)), sd.add(look_skew(dref))
            prev = cand
        hits8 += fired is not None and fired <= 8
    print(f"(a) {'differences only' if NOARMS else 'normal arms'}{', one-sample gate' if ONE else ''}, shared reference, losing 0.01/commit: per-commit PASS {passes/(30*H):.3f}, drift by 8 {hits8/H:.3f} ({H} histories)")
else:
    r, rho = 0.5, 0.5; margin = r * math.exp(0.5)
    looks = 10; p = np.zeros(looks); p1 = 0
    for h in range(H):
        s = Shape()
        for k in range(looks):
            z, w = rng.normal(0, 1, n), rng.normal(0, 1, n)
            b, c = np.exp(z), (1 - r) * np.exp(rho * z + math.sqrt(1 - rho ** 2) * w)
            g = pooled_decision(c - b, margin, 0.05, s, arms=(b, c)); p[k] += g.verdict == PASS
            s = s.add(look_skew(c - b))
    print(f"(b) scaled-down lognormal candidate r 0.5 rho 0.5 at the margin, n 10: PASS per look {np.round(p / H, 3).tolist()} ({H} histories)")
