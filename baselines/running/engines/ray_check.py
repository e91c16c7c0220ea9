"""Ask a Ray cluster's GCS, from a child process with a hard time limit, whether it lets us in and which versions it runs.

Why a child: ``ray.init(address=...)`` at a port that is not Ray retried for
more than ten minutes and ignored SIGTERM, and at a Ray cluster with token
authentication it failed only after ~21 s with a message about starting a
cluster (the cause, ``InvalidAuthToken``, was in Ray's log noise). Ray's own
GCS client answers both within a second, but it is C++ that Python cannot
interrupt: in a child it can be killed. The child inherits this process's
environment, so it sends the token ``ray.init`` would send
(``RAY_AUTH_MODE``, ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``,
``~/.ray/auth_token``).

The child prints one JSON line: ``{"cluster": metadata, "mine": {...}}``,
``{"auth": message}``, ``{"error": message}`` or ``{"skip": reason}`` (a Ray
without the private API used here: the check is skipped, ``ray.init`` still
runs bounded by the caller's other checks).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

#: seconds the child may take (importing Ray is about 1.3 s of it on an idle machine)
CHILD_SECONDS = 10.0

_CHILD = r"""
import json, platform, sys
def say(**kw):
    print(json.dumps(kw), flush=True)
try:
    import ray
    from ray._raylet import GcsClient
except Exception as exc:
    say(skip=f"{type(exc).__name__}: {exc}"); sys.exit()
address = sys.argv[1]
try:
    if address == "auto":
        from ray._private import services
        address = services.canonicalize_bootstrap_address_or_die("auto")
        try:  # what ray.init does for "auto": use a token found on this machine
            from ray._private.authentication.authentication_token_setup import (
                maybe_enable_token_auth_if_token_available as enable)
            enable(warn_if_disabled=False)
        except ImportError:
            pass
    client = GcsClient(address=address)
    meta = client.internal_kv_get(b"CLUSTER_METADATA", b"cluster", timeout=5)
except (TypeError, AttributeError) as exc:  # another Ray's private API: cannot ask this way
    say(skip=f"{type(exc).__name__}: {exc}"); sys.exit()
except Exception as exc:
    text = f"{type(exc).__name__}: {exc}"
    auth = "Authentication" in type(exc).__name__ or "InvalidAuthToken" in text or "Unauthenticated" in text
    line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    say(**{"auth" if auth else "error": (line.split(". ")[0] if auth else line)[:300]})
    sys.exit()
say(cluster=json.loads(meta) if meta else {}, address=address,
    mine={"ray_version": ray.__version__, "python_version": platform.python_version()})
"""


@dataclass(frozen=True)
class GcsAnswer:
    """What the child found: exactly one of the fields is set."""

    cluster: dict | None = None   # the cluster's metadata ({"ray_version", "python_version", ...})
    mine: dict | None = None      # the same two versions of this interpreter's Ray
    auth: str | None = None       # the GCS refused our token (or its absence)
    error: str | None = None      # anything else: the GCS could not be asked
    skip: str | None = None       # this Ray cannot be asked this way


def ask_gcs(address: str, timeout: float = CHILD_SECONDS) -> GcsAnswer:
    """Run the child against `address` (``host:port`` or ``auto``); a child over `timeout` is killed."""
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, address], capture_output=True, text=True,
                              timeout=timeout, env=dict(os.environ), start_new_session=True)
    except subprocess.TimeoutExpired:
        return GcsAnswer(error=f"no answer from a Ray GCS within {timeout:g} s")
    for line in reversed(done.stdout.splitlines()):
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            return GcsAnswer(**{k: found[k] for k in ("cluster", "mine", "auth", "error", "skip") if k in found})
    tail = [t for t in done.stderr.splitlines() if t.strip()]
    return GcsAnswer(error=(tail[-1][:300] if tail else f"the check exited with {done.returncode}"))


def version_mismatch(cluster: dict, mine: dict, level: str | None = None) -> str | None:
    """Ray's own rule (``ray._private.utils.check_version_info``) in one line, or None when versions agree.

    Ray must match exactly; Python to the patch, or to major.minor with
    ``RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL=minor``. ``ray.init`` refuses
    the same mismatches, in a many-line message.
    """
    level = level or os.environ.get("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL", "patch")
    theirs_ray, ours_ray = str(cluster.get("ray_version", "")), str(mine.get("ray_version", ""))
    theirs_py, ours_py = str(cluster.get("python_version", "")), str(mine.get("python_version", ""))
    parts = 2 if level == "minor" else 3
    differ = []
    if theirs_ray and ours_ray and theirs_ray != ours_ray:
        differ.append(f"Ray {theirs_ray} there, {ours_ray} here")
    if theirs_py and ours_py and theirs_py.split(".")[:parts] != ours_py.split(".")[:parts]:
        differ.append(f"Python {theirs_py} there, {ours_py} here")
    return "; ".join(differ) or None
