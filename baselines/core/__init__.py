"""The core: what an arm, a workload or a model client needs at run time, and nothing more.

Units and budgets, the meter that measures spend, the run record and its
reader and writer, atomic files, the arm and workload protocols, model
clients and their prices, provenance, and the one error type users see.
It imports no other layer, and none of it loads pandas, scipy or
matplotlib, so an arm's worker starts fast.

The modules, by topic (one folder; moving them would rename public import paths):

- spend: `units` (what each unit counts), `budget` (the allowance per unit),
  `meter` (spend measured as an arm runs), `governor` (stages dropped as the
  budget runs low), `prices` (dated per-model prices for dollars), `clients`
  (metered model clients).
- arms and workloads: `protocols` (what an arm and a workload are), `scored`
  (what `score()` may return), `votes` (answer-aggregation rules),
  `alternatives` (the error rule for runs with alternatives).
- records and files: `records` (run records and their JSON Lines files),
  `json_line` (the strict parse of one line), `file_kind` (what a results
  file's bytes are), `locked_lines` (appends shared by processes), `fileio`
  (atomic writes), `input_files` (every read, refused before it blocks),
  `archives` (zip archives checked with limits), `file_stamp` (a file's
  stamp and edge hash: unchanged or not, standard library only).
- identity and provenance: `class_code` (an arm's or workload's code),
  `code_identity` (costmatch's own code and environment), `provenance` (which
  code produced a record), `git_commit` (which commit a check ran on).
- arguments and errors: `api_arguments` and `arguments` (the Python API
  checked as the CLI checks its options), `suggest` ("did you mean"),
  `errors` (one-line errors, exit code 2), `scoped` (process-wide state
  changed for one block).
"""
