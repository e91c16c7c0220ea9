"""Reports: markdown and LaTeX tables, cost-reward plots and CI summaries.

Everything here turns a `baselines.Comparison` into text or figures; nothing
here decides what is valid (that is the comparison's job).
"""
from .markdown import comparison_markdown

__all__ = ["comparison_markdown"]
