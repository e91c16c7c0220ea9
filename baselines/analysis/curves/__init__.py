"""Curves over budget: anytime metrics, rankings at equal spend and pooled test-time-scaling curves.

Modules (one line each):

- `anytime`: Anytime metrics from traces: who wins at budget X, for every X up to the budget.
- `pool_table`: The per-model table of a benchmark's recorded samples: Bo1, Bo-inf and majority@n, under one named vote rule.
- `ranking`: Ranking of a group's arms at equal spend in each unit, read off the same runs' traces, and its reversals.
- `tts_curves`: Budget curves from one pool of recorded samples: accuracy against expected tokens, n = 1 .. pool size.
"""
