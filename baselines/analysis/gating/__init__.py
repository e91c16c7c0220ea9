"""The CI gate: PASS / FAIL / INCONCLUSIVE per group, its bounds and its sequential looks.

Modules (one line each):

- `gate`: The CI gate over a comparison: PASS, FAIL or INCONCLUSIVE per group, with the reason a user reads.
- `gate_bounds`: The gate's bounds on one sequence of paired differences, and the one margin rule that reads them.
- `gate_data`: What the gate needs of one arm's runs in a group: scored rewards, crashed seeds and per-item outcomes.
- `looks`: The looks ledger: which groups `check` has already looked at, with how many seeds.
- `sequential`: Adding seeds without peeking: a group-sequential gate.
"""
