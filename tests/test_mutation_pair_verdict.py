"""The verdict rules that mutation testing found unchecked (issue 44, `compare/pair_verdict.py`).

Pairs are built directly (a `PairResult` with chosen n, difference, interval and p-values), so each test
pins one rule at its boundary: Holm's values (enumerated by hand), p = alpha does not reject, the printed
interval must exclude 0 on the difference's side, TOST's (1 - 2 alpha) t interval must lie strictly inside
the margin (t quantiles from scipy, not from the module), a bounded pair's interval too, the minimum
detectable effect at Holm's first step has power 0.8 there (noncentral t from scipy), and the claims
family (pairs x claims) is one Holm family.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from baselines.analysis.compare import pair_verdict
from baselines.analysis.compare.pair_result import PairResult
from baselines.analysis.statistics.student_t import mde_factor
from baselines.analysis.statistics.typical_seed import typical_claim

NAN = math.nan
UNPAIRED = "unpaired: the arms do not share seeds"


def pr(n=20, diff=0.5, ci=(0.2, 0.8), p=0.001, p_t=0.001, sd=1.0, paired=True, mde=None, a="a", b="b", **kw):
    mde = sd * mde_factor(n, 0.05) if mde is None else mde
    return PairResult(a, b, n, diff, ci, p, "sign-flip exact", p_t, sd, paired, mde, **kw)


def one(pair, **kw):
    [out] = pair_verdict.decide([pair], **kw)
    return out


def tost_end(n, sd, alpha=0.05):
    """The one-sided t quantile times the standard error: TOST's half-width, from scipy."""
    return float(sps.t.ppf(1 - alpha, n - 1)) * sd / math.sqrt(n)


# -- holm -------------------------------------------------------------------------------------------------

def test_holm_caps_at_one_and_keeps_the_given_order():
    # by hand: sorted 0.3, 0.6, 0.7 -> 3*0.3 = 0.9, max(0.9, 2*0.6) = 1.2 -> 1, max(1.2, 0.7) -> 1
    assert pair_verdict.holm([0.6, 0.3, 0.7]).tolist() == [1.0, pytest.approx(0.9), 1.0]
    assert pair_verdict.holm([0.6, 0.7]).tolist() == [1.0, 1.0]


# -- decide: arguments, the Holm family of pairs x claims --------------------------------------------------

@pytest.mark.parametrize("margin", [0.0, -1.0, math.inf, math.nan])
def test_an_equivalence_margin_must_be_positive_and_finite(margin):
    with pytest.raises(ValueError, match="the equivalence margin must be a positive finite number"):
        one(pr(), margin=margin)


def test_a_single_pair_keeps_its_p_and_two_pairs_are_holm_adjusted():
    assert one(pr(p=0.01, p_t=0.004)).p_adjusted == 0.01   # the larger of the two: both tests must reject
    first, second = pair_verdict.decide([pr(p=0.01, p_t=0.01), pr(p=0.03, p_t=0.03, a="c")])
    assert (first.p_adjusted, second.p_adjusted) == (pytest.approx(0.02), pytest.approx(0.03))
    assert (first.verdict, second.verdict) == ("a>b", "a>b")


def test_a_pair_without_a_p_value_is_adjusted_as_p_one():
    first, second = pair_verdict.decide([pr(p=NAN, p_t=NAN, ci=(NAN, NAN)), pr(p=0.01, p_t=0.01, a="c")])
    assert first.p_adjusted == 1.0 and second.p_adjusted == pytest.approx(0.02)
    assert first.verdict == "no difference detected"


def typical_pair(d, p=0.5, ci=None, **kw):
    d = np.asarray(d, dtype=float)
    sd, mean = float(d.std(ddof=1)), float(d.mean())
    t = sps.ttest_1samp(d, 0.0)
    pair = pr(n=d.size, diff=mean, ci=(mean - 1, mean + 1) if ci is None else ci, p=p, p_t=float(t.pvalue),
              sd=sd, **kw)
    pair.typical = typical_claim(d, 0.95)
    return pair


def test_the_typical_claim_is_decided_on_its_own_p():
    # 12 of 12 seeds won: the exact sign test p = 2 / 2**12; the mean route (p 0.5 here) does not decide
    d = np.linspace(0.1, 1.2, 12)
    pair = one(typical_pair(d), claims=("typical",))
    assert [c.claim for c in pair.claims] == ["typical"]
    assert pair.verdict == "a>b" and pair.claim == "typical"
    assert pair.p_adjusted == pytest.approx(2 / 2 ** 12)


def test_both_claims_are_one_holm_family():
    # 10 wins, 2 losses: the exact sign test p = 2 * (C(12,10) + C(12,11) + C(12,12)) / 2**12, by enumeration
    d = np.array([0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, -0.1, -0.2])
    sign_p = 2 * sum(math.comb(12, k) for k in (10, 11, 12)) / 2 ** 12
    pair = one(typical_pair(d, p=0.001, ci=(0.3, 1.0)), claims=("typical", "mean"))
    assert [c.claim for c in pair.claims] == ["typical", "mean"]
    typical, mean = pair.claims
    assert typical.p == pytest.approx(sign_p)
    # Holm over {sign_p, 0.001}: the mean's p is the smaller, so it is doubled; the other keeps its own
    assert mean.p_adjusted == pytest.approx(0.002) and typical.p_adjusted == pytest.approx(sign_p)
    assert mean.verdict == "a>b"


def test_the_mean_claims_detectable_effect_is_for_the_family_of_tests():
    d = np.linspace(0.1, 1.2, 12)
    pair = one(typical_pair(d), claims=("typical", "mean"))
    typical, mean = pair.claims
    assert typical.verdict == "a>b" and mean.verdict == "no difference detected"
    assert mean.notes[0].startswith(f"differences smaller than {mean.detectable:.3g} would likely be missed at "
                                    "n=12 with 2 tests (Holm: p<0.025 first) (")


def test_an_unpaired_pair_asked_for_the_typical_claim_gets_the_mean_route():
    pair, other = pair_verdict.decide([pr(paired=False, p=0.001, p_t=0.001), pr(paired=False, p=NAN, p_t=NAN, a="c")],
                                      claims=("typical",))
    assert pair.verdict == "a>b" and [c.claim for c in pair.claims] == ["mean"]
    assert pair.p_adjusted == pytest.approx(0.002) and other.p_adjusted == 1.0


def test_an_equivalence_is_a_mean_claim_even_when_only_typical_is_asked():
    d = np.array([0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01, 0.0, 0.01, -0.01])
    pair = typical_pair(d)
    pair.ci = (-0.05, 0.05)
    out = one(pair, claims=("typical",), margin=0.5)
    assert [c.claim for c in out.claims] == ["typical", "mean"]
    assert out.verdict == "equivalent" and out.claim == "mean"
    assert isinstance(out.p_adjusted, float)


def test_no_claim_asked_falls_back_to_the_mean_route_over_the_pairs():
    pair = one(pr(p=0.5, p_t=0.5, ci=(-0.2, 0.8)), claims=())
    assert pair.verdict == "no difference detected"
    assert len(pair.notes) == 1 and pair.notes[0].startswith(f"differences smaller than {pair.mde:.3g} would "
                                                             "likely be missed at n=20 (")


# -- _decide_mean ---------------------------------------------------------------------------------------------

def test_fewer_than_three_seeds_is_underpowered_with_the_count_in_words():
    assert one(pr(n=1)).notes == ["only 1 paired seed; at least 3 are needed"]
    assert one(pr(n=2)).notes == ["only 2 paired seeds; at least 3 are needed"]
    assert one(pr(n=2, paired=False)).notes == ["only 2 paired seeds; at least 3 are needed",
                                                "unpaired: the arms do not share seeds"]
    three = one(pr(n=3, paired=False))
    assert three.verdict == "a>b"   # three unpaired seeds are enough for the rule (the tests decide)


def test_a_decided_pair_is_not_equivalent_and_p_at_alpha_does_not_reject():
    pair = one(pr(diff=1.0, ci=(0.4, 1.6)))
    assert pair.verdict == "a>b" and pair.equivalent is False
    at = one(pr(p=0.05, p_t=0.05))
    assert at.verdict == "no difference detected" and at.p_adjusted == 0.05


@pytest.mark.parametrize("n, alpha", [(4, 0.125), (3, 0.25), (5, 0.0625)])
def test_no_exact_outcome_below_alpha_is_underpowered_also_at_equality(n, alpha):
    # the smallest sign-flip p at n seeds is 2 / 2**n = alpha here: p < alpha is unreachable
    pair = one(pr(n=n, p=2 / 2 ** n, p_t=0.001), alpha=alpha)
    assert pair.verdict == "underpowered"
    assert pair.notes == [f"with {n} seeds no exact sign-flip test can reach p<{alpha:g}"]


# -- _interval_agrees -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("diff, ci, verdict", [
    (0.5, (0.0, 0.8), "no difference detected"),      # an end on 0 does not exclude it
    (0.5, (-0.1, 0.8), "no difference detected"),
    (-0.5, (-0.8, 0.0), "no difference detected"),
    (-0.5, (-0.8, 0.5), "no difference detected"),
    (-0.5, (-0.8, -0.1), "b>a"),
    (0.5, (0.1, 0.8), "a>b"),
    (0.5, (NAN, NAN), "a>b"),                          # no interval: the tests alone
    (0.5, (NAN, 0.8), "a>b"),
    (-0.5, (-0.8, NAN), "b>a"),
])
def test_the_verdict_needs_its_interval_to_exclude_zero(diff, ci, verdict):
    pair = one(pr(diff=diff, ci=ci))
    assert pair.verdict == verdict
    if verdict == "no difference detected":
        assert "interval printed beside the verdict includes 0" in pair.notes[0]


# -- _family_mde ---------------------------------------------------------------------------------------------

def power(n, effect_over_sd, level):
    df, ncp, crit = n - 1, effect_over_sd * math.sqrt(n), sps.t.ppf(1 - level / 2, n - 1)
    return sps.nct.sf(crit, df, ncp) + sps.nct.cdf(-crit, df, ncp)


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_the_welch_detectable_effect_has_power_08_at_holms_first_step(alpha):
    # unpaired pairs keep the t test's minimum detectable effect, rescaled to Holm's first step alpha / 2
    n, sd = 20, 1.0
    pairs = [pr(n=n, sd=sd, p=0.5, p_t=0.5, ci=(-0.2, 0.8), mde=sd * mde_factor(n, alpha), paired=False),
             pr(n=n, sd=sd, p=0.5, p_t=0.5, ci=(-0.2, 0.8), mde=sd * mde_factor(n, alpha), paired=False, a="c")]
    first, _ = pair_verdict.decide(pairs, alpha=alpha)
    assert power(n, first.mde / sd, alpha / 2) == pytest.approx(0.8, abs=1e-6)
    assert first.notes == [f"differences smaller than {first.mde:.3g} would likely be missed at n=20 with 2 "
                           f"pairs (Holm: p<{alpha / 2:.2g} first) (Welch t)", UNPAIRED]


def test_no_detectable_effect_note_without_a_positive_finite_one():
    for mde in (math.inf, 0.0):
        assert one(pr(p=0.5, p_t=0.5, ci=(-0.2, 0.8), mde=mde, paired=False)).notes == [UNPAIRED]
    assert one(pr(p=0.5, p_t=0.5, ci=(-0.2, 0.8), mde=0.5, paired=False)).notes == \
        ["differences smaller than 0.5 would likely be missed at n=20 (Welch t)", UNPAIRED]


def test_the_cannot_reach_note_only_for_paired_pairs_at_holms_step():
    # paired, n = 6: min p 2/64 = 0.03125 > 0.05 / 2
    six = [pr(n=6, p=0.5, p_t=0.5, ci=(-0.2, 0.8)), pr(n=6, p=0.5, p_t=0.5, ci=(-0.2, 0.8), a="c")]
    notes = pair_verdict.decide(six)[0].notes
    assert notes[-1] == ("the exact sign-flip test cannot reach p<0.025 at n=6: add seeds, or compare against "
                         "one arm (--baseline)")
    twenty = [pr(n=20, p=0.5, p_t=0.5, ci=(-0.2, 0.8)), pr(n=20, p=0.5, p_t=0.5, ci=(-0.2, 0.8), a="c")]
    assert not any("cannot reach" in n for n in pair_verdict.decide(twenty)[0].notes)
    unpaired = one(pr(n=4, paired=False, p=0.5, p_t=0.5, ci=(-0.2, 0.8)))   # min_exact_p(4) = 0.125 > 0.05
    assert not any("cannot reach" in n for n in unpaired.notes)
    # at equality (alpha 0.0625, 2 pairs, n = 6: 2/64 = 0.03125 = the first step's level) p < level is unreachable
    at = [pr(n=6, p=0.5, p_t=0.5, ci=(-0.2, 0.8)), pr(n=6, p=0.5, p_t=0.5, ci=(-0.2, 0.8), a="c")]
    first = pair_verdict.decide(at, alpha=0.0625)[0]
    assert first.notes == ["the exact sign-flip test cannot reach p<0.031 at n=6: add seeds, or compare against "
                           "one arm (--baseline)"]
    assert first.mde == math.inf      # no difference is detectable at that step
    bounded = [pr(n=6, p=0.5, p_t=0.5, ci=(-0.2, 0.8), reward_range=(0.0, 1.0)),
               pr(n=6, p=0.5, p_t=0.5, ci=(-0.2, 0.8), reward_range=(0.0, 1.0), a="c")]
    assert [n for n in pair_verdict.decide(bounded, alpha=0.0625)[0].notes if "typical-seed claim can be" in n] == []


# -- _tost -------------------------------------------------------------------------------------------------------

def eq(pair, margin):
    return one(pair, margin=margin).verdict == "equivalent"


def test_tost_uses_the_one_sided_t_quantile_on_n_minus_1_df():
    n, sd = 5, 1.0
    half = tost_end(n, sd)                                  # 0.9535 (df 4); df 3 gives 1.05, df 6 0.87
    base = dict(n=n, sd=sd, diff=0.0, p=0.5, p_t=0.5, ci=(NAN, NAN))
    assert eq(pr(**base), half + 0.01)
    assert not eq(pr(**base), half - 0.01)


def test_tost_needs_both_ends_strictly_inside():
    n, sd = 5, 1.0
    half = tost_end(n, sd)
    base = dict(n=n, sd=sd, p=0.5, p_t=0.5, ci=(NAN, NAN))
    assert not eq(pr(diff=0.8, **base), 1.0)                # upper end 1.75 outside
    assert not eq(pr(diff=-0.8, **base), 1.0)               # lower end -1.75 outside
    # an end exactly on the margin is not inside (the module's own arithmetic, so the tie is exact)
    from baselines.analysis.statistics.student_t import t_quantile
    q_se = t_quantile(1 - 0.05, n - 1) * (sd / math.sqrt(n))
    assert not eq(pr(diff=-0.1, **base), -(-0.1 - q_se))
    assert not eq(pr(diff=0.1, **base), 0.1 + q_se)
    assert eq(pr(diff=0.1, **base), 0.1 + half + 1e-9)


def test_tost_never_decides_from_no_interval_or_a_zero_width_one():
    base = dict(n=10, diff=0.0, p=1.0, p_t=1.0, ci=(0.0, 0.0))
    assert not eq(pr(sd=NAN, mde=NAN, **base), 1.0)
    assert not eq(pr(sd=0.0, mde=0.0, **base), 1.0)


def test_bounded_rewards_need_their_interval_inside_the_margin_too():
    base = dict(n=20, sd=0.1, diff=0.0, p=1.0, p_t=1.0, reward_range=(0.0, 1.0))
    assert eq(pr(ci=(-0.5, 0.5), **base), 1.0)
    for ci in [(-1.0, 0.5), (-0.5, 1.0), (-2.0, 0.5), (-0.5, 2.0), (NAN, 0.5), (-0.5, NAN)]:
        assert not eq(pr(ci=ci, **base), 1.0), ci
    # the t interval outside the margin is not rescued by a narrow bounded interval
    assert not eq(pr(n=20, sd=5.0, diff=0.0, p=1.0, p_t=1.0, reward_range=(0.0, 1.0), ci=(-0.1, 0.1)), 1.0)


# -- the decided pair's notes: which test decided, which interval, and unpaired ------------------------------

def test_a_decided_pair_names_its_test_and_its_interval():
    # the larger p decides: sign-flip 0.004 > t 0.001, and a "t" interval is not the sign-flip's own
    pair = one(pr(p=0.004, p_t=0.001, diff=-0.5, ci=(-0.8, -0.2)))
    assert pair.verdict == "b>a" and pair.method == "sign-flip exact"
    assert pair.notes == ["decided by sign-flip exact (Holm-adjusted p 0.004; both the t and the exact test "
                          "reject); the t interval excludes 0"]
    same = one(pr(p=0.001, p_t=0.004, interval_method="paired t"))
    assert same.method == "paired t"
    assert same.notes == ["decided by paired t (Holm-adjusted p 0.004; both the t and the exact test reject); "
                          "its interval excludes 0"]
    items = one(pr(p=0.001, p_t=0.004, interval_method="paired t", items=200))   # seed-clustered items: one test
    assert items.notes == ["decided by paired t (Holm-adjusted p 0.004); its interval excludes 0"]
    unpaired = one(pr(p=0.001, p_t=0.004, paired=False))
    assert unpaired.verdict == "a>b" and unpaired.notes[-1] == "unpaired: the arms do not share seeds"
    assert len(unpaired.notes) == 2


def test_rejecting_tests_with_an_interval_on_zero_say_why_the_pair_is_undecided():
    pair = one(pr(p=0.001, p_t=0.001, ci=(-0.1, 0.8)))
    assert pair.notes[0] == ("the tests reject (Holm-adjusted p 0.001) but the t interval printed beside the "
                             "verdict includes 0, so the pair is not decided: a verdict and its interval come "
                             "from one inference")


def test_an_equivalent_pair_says_so_on_the_pair():
    pair = one(pr(n=20, sd=0.1, diff=0.0, p=1.0, p_t=1.0, ci=(NAN, NAN)), margin=1.0)
    assert pair.verdict == "equivalent" and pair.equivalent is True
    assert one(pr(n=20, sd=0.1, diff=0.0, p=1.0, p_t=1.0, ci=(NAN, NAN), paired=False), margin=1.0).notes == \
        ["unpaired: the arms do not share seeds"]
