"""Running: a suite file becomes cells, cells run on an engine, and records are written.

The suite (`suite`), the runner that turns (workload, arm, seed) cells into
run records (`runner`), the engines that run cells in this process, in worker
processes or on a cluster (`engines/`, a subpackage), the progress line (`progress`) and the `init`
scaffold (`scaffold`). It imports only the core: running a suite needs
no statistics (the CLI joins a run to its gate).
"""
