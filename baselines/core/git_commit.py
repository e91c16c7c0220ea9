"""Which commit a check ran on: given, from the CI's environment, or from git; and a link to it.

Why not git alone: a CI job checks out a pull request as a merge commit that
exists nowhere else (its `HEAD` links to nothing), and a source tarball has
no git at all. So `--commit` wins, then GitHub Actions' GITHUB_SHA, then
`git rev-parse HEAD` in the current folder; with none of them the check
refuses to record a history line rather than record it under no commit.
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class CommitInfo:
    commit: str
    branch: str | None
    url: str | None      # a page of the commit (GitHub, GitLab), None when none is known


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def commit_info(commit: str | None = None, branch: str | None = None) -> CommitInfo | None:
    """The commit, branch and link of this check; None when no commit is given or found."""
    env = os.environ
    commit = commit or env.get("GITHUB_SHA") or _git("rev-parse", "HEAD")
    if not commit:
        return None
    if branch is None:
        branch = env.get("GITHUB_HEAD_REF") or env.get("GITHUB_REF_NAME") or _git("rev-parse", "--abbrev-ref", "HEAD")
        branch = None if branch == "HEAD" else branch
    return CommitInfo(commit, branch, commit_url(commit))


_REMOTE = re.compile(r"^(?:https?://(?:[^@/]+@)?|git@|ssh://git@)([^/:]+)[/:](.+?)(?:\.git)?/?$")


def commit_url(commit: str) -> str | None:
    """https://HOST/OWNER/REPO/commit/SHA from GitHub Actions' variables or the `origin` remote; None otherwise."""
    env = os.environ
    if env.get("GITHUB_SERVER_URL") and env.get("GITHUB_REPOSITORY"):
        return f"{env['GITHUB_SERVER_URL'].rstrip('/')}/{env['GITHUB_REPOSITORY']}/commit/{commit}"
    remote = _git("remote", "get-url", "origin")
    match = _REMOTE.match(remote or "")
    if not match or not re.fullmatch(r"[0-9a-fA-F]{7,64}", commit):
        return None
    host, repo = match.groups()
    return f"https://{host}/{repo}/{'-/' if 'gitlab' in host else ''}commit/{commit}"
