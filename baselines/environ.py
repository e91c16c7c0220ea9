"""An environment variable set for one block and restored after it (children started inside inherit it).

Why one helper: costmatch sets variables only for the processes it starts
(PYTHONSAFEPATH for workers, a warning filter for loky's resource trackers);
a variable left behind, or one removed that the user had set, changes every
process started later.
"""
from __future__ import annotations

import contextlib
import os
from typing import Iterator


@contextlib.contextmanager
def scoped_env(name: str, value: str) -> Iterator[None]:
    """`os.environ[name] = value` inside the block; the previous value (or its absence) restored after."""
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous
