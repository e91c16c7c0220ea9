"""Errors that reach the user as one line and exit code 2.

Why a dedicated type: the CLI turns exactly these into `costmatch: <message>`
and exit 2, and lets everything else surface as a real bug (a traceback), so a
typo in a results file is never confused with a defect in costmatch.
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad input from a user: a file, a field or an option, and how to fix it."""
