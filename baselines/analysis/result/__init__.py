"""The analysis result every view renders: typed records computed once per results file or selection.

Modules (one line each):

- `model`: the records (`Analysis`, `GroupAnalysis`, `ArmRow`, `PairRow`, `ClaimResult`, `ConfoundRatio`, `OracleRow`).
- `build`: `analyse(comparison, records)`: the one place display numbers, words and notes are chosen.
- `confounds`: confound ratios to a named reference; the headline's leader-against-each-arm ratios.
- `precision`: the decimals of a table's column, one rule for every format.
- `ranges`: the possible range of a reward, so no printed mean or interval leaves it.
- `renderers`: views registered by name (reports/ registers; the analysis and the API never import it).
"""
