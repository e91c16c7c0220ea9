"""The gate's history across commits: one line per group a `check` decided, drift against a pinned
reference, and the steps in the candidate's reward at equal budget.

Why: the gate decides one pull request at a time against that run's baseline;
ten merges that each lose 0.01 all PASS a 0.05 margin and the branch ends 0.10
below the last release. Nothing remembered what earlier gates saw. Modules:
`entry` (the line and its reader), `drift` (the cumulative change since the
reference, alpha spent over the commits), `steps` (where the series changed,
with a simulated false-alarm rate), `recording` (what a `check` appends) and
`view` (the one analysis every rendering of a history shows).
"""
