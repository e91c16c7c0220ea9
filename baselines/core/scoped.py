"""Process-wide state changed for one block and restored after it: an environment variable, the collector.

Why one module: both are global switches that outlive the code that flips
them if it forgets to flip them back.

- `scoped_env`: costmatch sets variables only for the processes it starts
  (PYTHONSAFEPATH for workers, a warning filter for loky's resource
  trackers); a variable left behind, or one removed that the user had set,
  changes every process started later. Children started inside the block
  inherit it.
- `gc_paused`: reading a million lines, comparing ten thousand groups,
  attaching traces after a run and importing the report's libraries each
  allocate hundreds of thousands of containers that are not garbage, and
  every full collection meanwhile re-scans all of them (more than doubling a
  million-line read; 0.7 s of a 1.1 s compare of 10,000 groups). Reference
  counting still frees everything acyclic; a cycle made inside the block
  waits for the next collection after it.
"""
from __future__ import annotations

import contextlib
import gc
import os
from typing import Iterator


@contextlib.contextmanager
def scoped_env(name: str, value: str | None) -> Iterator[None]:
    """`os.environ[name] = value` (None: unset) inside the block; the previous value (or its absence) restored after."""
    previous = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's previous state is restored after it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
