"""Reading results files into columns: the table of runs, its readers and column kernels.

Modules (one line each):

- `columns`: Array kernels over columns sorted by (group, arm, seed): medians, counts and codes.
- `degradation`: What governed runs dropped, read back: the reader's columns and each group's `Degraded` arms.
- `group_runs`: The runs of each group, by arm, found in one pass over the records.
- `run_columns`: Per-run values kept as table columns, built alike by both readers.
- `table`: Records as columns, so a million-line comparison is array work.
- `table_arrow`: One block of a results file checked in bulk by pyarrow, or handed back to the line reader.
- `table_arrow_columns`: Arrow columns as the numpy columns of a `RunTable`, by array work.
- `table_lines`: A results file as blocks of whole lines, and what a block's bytes allow.
- `table_store`: The reader's columns, filled in place block by block.
"""
