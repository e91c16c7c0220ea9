"""The compare step: which groups, spend checks, pairs, verdicts and what a comparison returns.

Modules (one line each):

- `compare_options`: The options of a comparison, in one place.
- `comparing`: compare(records): a comparison that cannot claim more than it shows.
- `comparison`: What a comparison found: per-arm summaries, flags, pairs and groups (the types only).
- `frontier`: The cost-reward frontier a group's statistics support, among its fully reported arms.
- `group_selection`: Which groups of a results file a comparison covers, and in which unit each is fixed.
- `pair_result`: One pair of arms on one metric: the record every table, report and JSON output prints.
- `pair_verdict`: The verdict of a group's pairs in words, after Holm.
- `pairing`: Paired statistics over a group's arms x seeds score matrix: a separate step after the spend checks.
- `screen`: Which groups' per-group checks would find nothing, decided for every group at once on the sorted columns.
- `spend_checks`: Spend checks of one group: is every arm matched in the fixed unit, and in every other unit?
"""
