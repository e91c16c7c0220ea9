"""Replace one `## ` section of a markdown file with a benchmark's fresh table (the `--update` option).

Why one helper: three calibration scripts carried the same twelve lines; a fix to one (a later section
kept, the file written atomically) must reach all of them.
"""
from __future__ import annotations

from pathlib import Path


def replace_section(path: Path, heading: str, text: str) -> None:
    """Put `text` (which starts with `heading`) where the `heading` section was, or at the end; the sections
    after it stay as they are."""
    from baselines.core.fileio import atomic_write_text

    old = path.read_text(encoding="utf-8") if path.exists() else ""
    keep, _, rest = old.partition(heading)
    keep = keep.rstrip("\n")
    after = rest.find("\n## ")
    tail = "\n" + rest[after + 1:] if after >= 0 else ""
    atomic_write_text(path, (keep + "\n\n" if keep else "") + text + "\n" + tail)
