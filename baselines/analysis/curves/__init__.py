"""Curves over budget: anytime metrics, rankings at equal spend and pooled test-time-scaling curves.

Modules (one line each):

- `anytime`: Anytime metrics from traces: who wins at budget X, for every X up to the budget.
- `ranking`: Ranking of a group's arms at equal spend in each unit, read off the same runs' traces, and its reversals.
- `tts_curves`: Budget curves from one pool of recorded samples: accuracy against expected tokens, n = 1 .. pool size.
"""
