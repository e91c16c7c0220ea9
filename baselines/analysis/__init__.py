"""The analysis: from run records to a comparison, with no I/O beyond reading records.

Arranged by topic, one subpackage per job (each subpackage's docstring has a line per module):

- `tables`: results files as columns (`tables.table.RunTable`), its readers and column kernels.
- `statistics`: pure paired tests, intervals, bounds and the significance level.
- `compare`: the compare step (`compare.comparing.compare`) and what it returns (`Comparison`).
- `gating`: the CI gate (`gating.gate.run_gate`) and its group-sequential looks.
- `curves`: anytime metrics, rankings at equal spend and pooled budget curves.

It imports only the core. The public names (`compare`, `Comparison`, `RunTable`, ...) are
`baselines`'s own (`from baselines import compare`); this package exports none itself, so
importing it loads nothing.
"""
