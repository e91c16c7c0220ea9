"""Running: a suite file becomes cells, cells run on an engine, and records are written.

The suite (`suite`, user classes by path in `user_imports`), the runner that
turns (workload, arm, seed) cells into run records (`runner`: one cell in a
worker `execute`, its line `cell_lines`, the results file `results_file`, what
a resume keeps `resume`, checks before the folder is touched `preflight`), the engines that run cells in this process, in worker
processes or on a cluster (`engines/`, a subpackage), the progress line (`progress`) and the `init`
scaffold (`scaffold`). It imports only the core: running a suite needs
no statistics (the CLI joins a run to its gate).
"""
