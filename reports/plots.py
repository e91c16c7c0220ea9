"""Figures (filled in by the reports work): returns the files it wrote."""
from __future__ import annotations

from pathlib import Path


def write_comparison_plots(comparison, records, out_dir: Path) -> list[Path]:
    return []
