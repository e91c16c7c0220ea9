"""gate.py mutants in the item route's skew rule (`_item_verdict`, `_item_skew_refusal`, `_item_arm_means`).

Rules (docs/gate.md "Items paired by question"; commit 728c8de): on unbounded rewards an item-paired PASS or
FAIL must pass the per-seed route's skew rule on the seeds' mean item differences: at least UNBOUNDED_MIN_N
(6) seeds; no skewness leaning against the verdict beyond `skew_allowance(n)` standard errors (left against
a PASS, right against a FAIL); and it must still hold at the stricter alpha `arm_strict_alpha` asks for from
the arms' own seed means, the item bounds recomputed at that alpha. A refused verdict is INCONCLUSIVE with a
note in the item route's own words. Declared (bounded) rewards skip the rule; lower-is-better mirrors it.

Written against the 51 survivors of the mutation run at 7ea0a8b (/work/tools/mutation_gate_report_7ea0a8b.md).
Data: every seed's base items are its level plus BOFF, the candidate's are the base items plus the seed's
shift plus COFF (both offsets sum to 0), so a seed's mean item difference is exactly its shift and the arms'
seed means are the level and level + shift.
"""
from __future__ import annotations

import numpy as np

from baselines.analysis.gating.gate import run_gate
from baselines.analysis.gating.gate_bounds import FAIL, INCONCLUSIVE, PASS, skew_allowance, skew_z
from baselines.core.records import RunRecord

BOFF = np.array([0.1, -0.1, 0.05, -0.05, 0.0])
COFF = np.array([0.02, -0.02, 0.01, -0.01, 0.0])
LEVELS = [0.5, 0.45, 0.55, 0.5, 0.48, 0.52, 0.5, 0.47, 0.53, 0.49, 0.51, 0.5]
SYM6 = [0.1, 0.11, 0.09, 0.105, 0.095, 0.1]                     # symmetric: skewness ~1e-15
LEFT8 = [0.1, 0.11, 0.09, 0.105, 0.095, 0.1, 0.1, 0.04]          # one seed's large loss
BASE11 = [0.1, 0.11, 0.09, 0.105, 0.095, 0.1, 0.102, 0.098, 0.1, 0.104, 0.096]
TAIL = ("declare reward_range for distribution-free bounds, add seeds, or pass --bounds t to use the per-seed "
        "t bounds")
ARM_TAIL = "declare reward_range for distribution-free bounds, add seeds, or pass --bounds t to accept t bounds"
# arms: a right-skewed baseline (seed 9 far above), the candidate the same plus symmetric shifts
ARM_LEVELS = [0.5, 0.45, 0.55, 0.5, 0.48, 0.52, 0.5, 0.47, 0.53, 1.5]
ARM_SHIFTS = [0.0, 0.01, -0.01, 0.005, -0.005, 0.0, 0.0, 0.002, -0.002, 0.0]
# arms whose shown tail leads: a mildly right-skewed baseline, a large gain on the same seed
SHOWN_LEVELS = [0.5, 0.45, 0.55, 0.5, 0.48, 0.52, 0.5, 0.47, 0.53, 0.62]
SHOWN_SHIFTS = [-0.01, 0.0, -0.02, -0.005, -0.015, -0.01, -0.01, -0.008, -0.012, 0.09]


def runs(levels, shifts, lower_is_better=False, reward_range=None):
    levels, shifts = np.asarray(levels, float)[:len(shifts)], np.asarray(shifts, float)
    base = levels[:, None] + BOFF
    cand = base + shifts[:, None] + COFF
    if lower_is_better:
        base, cand = -base, -cand
    out = []
    for arm, rows in (("base", base), ("cand", cand)):
        for s, row in enumerate(rows.tolist()):
            out.append(RunRecord("w", arm, s, {"tokens": 1}, float(np.mean(row)), budget={"tokens": 1},
                                 extra={"reward_range": list(reward_range)} if reward_range else {},
                                 items=[{"id": f"q{i}", "reward": v} for i, v in enumerate(row)]))
    return out


def gate(shifts, margin=0.02, levels=LEVELS, lower_is_better=False, reward_range=None, **kw):
    [res], _ = run_gate(runs(levels, shifts, lower_is_better, reward_range), "tokens", "base", "cand", margin,
                        lower_is_better=lower_is_better, **kw)
    assert res.items == 5 * len(shifts)      # the item route decided
    return res


def refusals(res):
    return [n for n in res.notes if "so no " in n or "must also hold" in n]


def skew_note(verdict, side, z, allow, n):
    return (f"the item bounds say {verdict} but the seeds' mean item differences are {side}: {z:.1f} standard "
            f"errors, beyond the {allow:.2f} allowed at n = {n}; the tail can be bigger than these seeds show, so "
            f"no {verdict}: {TAIL}")


LEFT = "left-skewed (an occasional large loss)"
RIGHT = "right-skewed (an occasional large gain)"


def test_the_six_seed_minimum_refuses_at_five_and_lets_six_decide():
    """Rule: below UNBOUNDED_MIN_N = 6 seeds an unbounded item PASS / FAIL is refused (INCONCLUSIVE, no seed
    count); at exactly 6 symmetric seeds it stands, PASS and FAIL alike."""
    five = gate(SYM6[:5])
    assert five.verdict == INCONCLUSIVE and five.seeds_needed is None
    assert refusals(five) == [
        "paired by item on unbounded rewards, a PASS needs at least 6 seeds (the per-seed skew rule: the item "
        f"bounds rest on 5 seed(s), and a rare large loss is absent from most of so few), so no PASS: {TAIL}"]
    six = gate(SYM6)
    assert abs(skew_z(np.array(SYM6))) < 1e-9
    assert six.verdict == PASS and refusals(six) == []
    fail_six = gate([-x for x in SYM6])
    assert fail_six.verdict == FAIL and refusals(fail_six) == []
    five_fail = gate([-x for x in SYM6[:5]])
    assert five_fail.verdict == INCONCLUSIVE and refusals(five_fail)[0].startswith(
        "paired by item on unbounded rewards, a FAIL needs at least 6 seeds")


def test_a_left_skewed_pass_is_refused_in_the_item_routes_words():
    """Rule: a PASS whose seeds' mean item differences lean left beyond the allowance is refused: the verdict
    is INCONCLUSIVE (not None, not PASS), the note names the left skew (an occasional large loss), its size,
    the allowance at n; the reason carries it, and no seed count is offered."""
    z = skew_z(np.array(LEFT8))
    res = gate(LEFT8)
    assert res.verdict == INCONCLUSIVE and res.seeds_needed is None
    assert refusals(res) == [skew_note(PASS, LEFT, abs(z), skew_allowance(8), 8)]
    assert "so no PASS" in res.reason
    assert res.to_json()["verdict"] == INCONCLUSIVE


def test_a_right_skewed_fail_is_refused_and_named_right_skewed_even_when_the_lean_is_small():
    """Rule: a FAIL whose seeds' mean item differences lean right beyond the allowance is refused, and the
    note calls it right-skewed (an occasional large gain): at n = 6 (allowance 0) a lean of 0.2 and of 2.9
    standard errors alike."""
    for shifts in ([-0.1, -0.11, -0.09, -0.1, -0.1, -0.085], [-0.1, -0.1, -0.1, -0.1, -0.1, -0.04]):
        z = skew_z(np.array(shifts))
        assert 0 < z
        res = gate(shifts)
        assert res.verdict == INCONCLUSIVE and res.seeds_needed is None
        assert refusals(res) == [skew_note(FAIL, RIGHT, z, 0.0, 6)]


def test_skew_in_the_verdicts_favour_never_refuses():
    """Rule: only a lean against the verdict refuses: a right-skewed PASS (an occasional large gain) and a
    left-skewed FAIL (an occasional large loss) stand."""
    right_pass = [0.1, 0.11, 0.09, 0.1, 0.1, 0.16]
    assert skew_z(np.array(right_pass)) > 2
    res = gate(right_pass)
    assert res.verdict == PASS and refusals(res) == []
    left_fail = [-0.1, -0.09, -0.11, -0.1, -0.1, -0.16]
    res = gate(left_fail)
    assert res.verdict == FAIL and refusals(res) == []


def test_the_allowance_boundary_at_twelve_seeds():
    """Rule: at n = 12 the allowance is (12 - 6) / 6 = 1.00 standard errors: a left lean of 0.93 lets the PASS
    stand, one of 1.06 refuses it."""
    assert skew_allowance(12) == 1.0
    inside, beyond = BASE11 + [0.0845], BASE11 + [0.0838]
    assert -1.0 < skew_z(np.array(inside)) < -0.9 and -1.1 < skew_z(np.array(beyond)) < -1.0
    ok = gate(inside)
    assert ok.verdict == PASS and refusals(ok) == []
    res = gate(beyond)
    assert res.verdict == INCONCLUSIVE
    assert refusals(res) == [skew_note(PASS, LEFT, abs(skew_z(np.array(beyond))), 1.0, 12)]


def test_lower_is_better_mirrors_the_rule():
    """Rule: with lower_is_better the differences are oriented first (candidate lower is a gain), so negated
    rewards decide and refuse exactly as the originals: the left-skewed PASS, the right-skewed FAIL, the arms."""
    for shifts, kw in ((LEFT8, {}), ([-0.1, -0.1, -0.1, -0.1, -0.1, -0.04], {}),
                       (ARM_SHIFTS, {"levels": ARM_LEVELS}), (SHOWN_SHIFTS, {"levels": SHOWN_LEVELS, "margin": 0.03})):
        up, down = gate(shifts, **kw), gate(shifts, lower_is_better=True, **kw)
        assert up.verdict == down.verdict == INCONCLUSIVE
        assert refusals(up) == refusals(down) != []


def test_bounded_rewards_skip_the_rule():
    """Rule: the skew rule is for unbounded rewards only: with reward_range declared, the left-skewed PASS,
    the 5-seed PASS and the arm-skewed PASS get no skew refusal."""
    for shifts, levels in ((LEFT8, LEVELS), (SYM6[:5], LEVELS), (ARM_SHIFTS, ARM_LEVELS)):
        res = gate(shifts, levels=levels, reward_range=(-2, 3))
        assert refusals(res) == [] and res.verdict == PASS


def arm_note(verdict, side, why, z, strict):
    return (f"paired by item, the item bounds say {verdict} but the arms' own rewards lean against it ({side}, "
            f"{z:.1f} standard errors): {why}, so a {verdict} must also hold at alpha {strict:.3g} and does not; "
            f"{ARM_TAIL}")


MISSED = "rare large rewards these seeds may have missed"
SHOWN = "rare large rewards these seeds show, which overstate that arm's mean"


def test_the_arm_check_refuses_a_pass_that_fails_at_its_stricter_alpha():
    """Rule (`arm_strict_alpha` on `_item_arm_means`): both arms' seed means right-skewed (seed 9's baseline
    far above the rest, the candidate with it) lean 4.5 standard errors against a PASS, so the PASS must also
    hold at alpha / 8 = 0.00625 with the item bounds recomputed there; at the margin 0.02 it does at 0.05 and
    not at 0.00625: refused, in the item route's words ("paired by item, the item bounds say"), the tail
    "these seeds may have missed" (the baseline's)."""
    res = gate(ARM_SHIFTS, levels=ARM_LEVELS)
    assert res.verdict == INCONCLUSIVE and res.seeds_needed is None
    assert refusals(res) == [arm_note(PASS, "a right-skewed baseline or a left-skewed candidate", MISSED, 4.5,
                                      0.00625)]
    # the same arms with the whole shift: the PASS holds at alpha / 8 too, so it stands
    far = gate([x + 0.1 for x in ARM_SHIFTS], levels=ARM_LEVELS)
    assert far.verdict == PASS and refusals(far) == []


def test_the_arm_check_names_a_tail_the_seeds_show():
    """Rule: when the candidate's own right tail (shown by these seeds: `arm_tail_z`, 3.6 standard errors)
    asks for the stricter alpha than the baseline's lean, the note says the seeds show it and that it
    overstates that arm's mean; the candidate's seed means are the baseline's plus the mean item differences."""
    res = gate(SHOWN_SHIFTS, levels=SHOWN_LEVELS, margin=0.03)
    assert res.verdict == INCONCLUSIVE
    assert refusals(res) == [arm_note(PASS, "a right-skewed candidate or a left-skewed baseline, the other arm "
                                      "skewed the same way", SHOWN, 3.6, 0.00625)]


def test_the_arm_check_refuses_a_fail_that_fails_at_its_stricter_alpha():
    """Rule: the mirror for FAIL: right-skewed arms lean against a FAIL (a right-skewed candidate, the baseline
    right-skewed too), so the FAIL must hold at alpha / 8, recomputed from the item bounds' upper bound; it
    does not, refused with the FAIL's words."""
    res = gate([x - 0.04 for x in ARM_SHIFTS], levels=ARM_LEVELS)
    assert res.verdict == INCONCLUSIVE and res.seeds_needed is None
    assert refusals(res) == [arm_note(FAIL, "a right-skewed candidate or a left-skewed baseline", MISSED, 4.5,
                                      0.00625)]
    far = gate([x - 0.2 for x in ARM_SHIFTS], levels=ARM_LEVELS)
    assert far.verdict == FAIL and refusals(far) == []


# 16 seeds (allowance capped at 1.645): seed means whose skewness is exactly -(1.645 + SKEW_TOL) standard errors
# in floating point (found by bisection on the last seed's value, then a float-by-float scan)
AT_LIMIT = [0.09563564752856779, 0.08830198092227136, 0.11739367877130134, 0.09504089271557849,
            0.10328969629460202, 0.09741427454526076, 0.11583472878802123, 0.1132036098708184,
            0.10633352622824915, 0.0779649011935335, 0.10052028974259887, 0.10683686190776535,
            0.11003961575842171, 0.093820929552924, 0.11822011363328325, 0.06581903170447749]


def flat_runs(shifts):
    """Baseline items 0 and the candidate's the seed's shift on all 5 questions: the differences are exact."""
    out = []
    for arm in ("base", "cand"):
        for s, v in enumerate(shifts):
            row = [0.0] * 5 if arm == "base" else [float(v)] * 5
            out.append(RunRecord("w", arm, s, {"tokens": 1}, float(np.mean(row)), budget={"tokens": 1},
                                 items=[{"id": f"q{i}", "reward": r} for i, r in enumerate(row)]))
    return out


def test_a_lean_exactly_at_the_allowance_plus_tolerance_lets_the_verdict_stand():
    """Rule: only a lean *beyond* the allowance refuses (z < -allow - SKEW_TOL against a PASS, z > allow +
    SKEW_TOL against a FAIL, strict): seed means leaning exactly that far, to the last bit, PASS (and their
    mirror FAILs)."""
    from baselines.analysis.gating.gate_bounds import SKEW_TOL
    from baselines.analysis.statistics.clustered import pair_items
    for sign, verdict in ((1.0, PASS), (-1.0, FAIL)):
        shifts = [sign * v for v in AT_LIMIT]
        recs = flat_runs(shifts)
        items = {arm: {r.seed: r.items for r in recs if r.arm == arm} for arm in ("base", "cand")}
        pairing = pair_items(items["cand"], items["base"], list(range(16)), 1.0, None)
        z = skew_z(np.array([float(c.mean()) for c in pairing.clusters]))
        assert z == -sign * (skew_allowance(16) + SKEW_TOL)
        [res], _ = run_gate(recs, "tokens", "base", "cand", 0.02)
        assert res.items == 80 and res.verdict == verdict and refusals(res) == []
