"""`python -m baselines.cli` is the `costmatch` command."""
from . import entry

entry()
