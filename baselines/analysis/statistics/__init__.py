"""Pure statistics: paired tests, intervals, bounds and the significance level.

Modules (one line each):

- `alpha`: The significance level: one check, one range, for every place that takes an alpha; and how a level prints.
- `arm_intervals`: Each arm's reward interval when rewards are bounded: exact or distribution-free, never a clipped t.
- `betting`: Distribution-free bounds for the mean of bounded values: confidence sequences by betting.
- `bootstrap`: Bootstrap intervals: the seeded bootstrap-t behind the skew-robust hull, and the secondary percentile one.
- `clustered`: Paired item-level differences with seed-clustered inference (Miller, "Adding Error Bars to Evals", 2024).
- `exact_paired`: An exact unconditional non-inferiority test for paired 0/1 outcomes, and its dual bounds.
- `pair_interval`: The interval printed for a paired difference, and how it was computed.
- `question_claim`: Which claim an item-paired verdict makes: about the question population or about these questions.
- `reward_range`: Which rewards are bounded: a declared `reward_range`, or pass/fail rewards (all 0 or 1).
- `sign_flip`: Sign-flip and permutation tests: exact for any distribution under "the arms are exchangeable".
- `stats`: Paired statistics that stay honest at 3-10 seeds: the tests of a pair of arms, one pair or all at once.
- `student_t`: Student t: quantiles, intervals, p-values, and the effect or seeds a t test needs.
"""
