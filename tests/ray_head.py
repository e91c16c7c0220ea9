"""A throwaway `ray start --head` for slow tests, isolated from every other Ray on the machine.

Why not `ray stop`: it kills every Ray process of the machine, including
other test runs' (and a user's). This head lives under its own temporary
folder (RAY_TMPDIR), so its address file never redirects another run's
`ray.init()`, and it is stopped by the pids of the processes whose command
line names that folder, and their children (Ray's workers).
"""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass

import psutil


@dataclass(frozen=True)
class RayHead:
    address: str          # HOST:PORT of its GCS
    env: dict             # the environment that reaches it: RAY_TMPDIR, and the token when auth is on
    tmpdir: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def ray_head(base_env: dict, auth: bool, num_cpus: int = 2):
    """Start a head (token auth on or off) on a free port; yield a RayHead; stop it by pid."""
    tmpdir = tempfile.mkdtemp(prefix="cmray", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    port = free_port()
    env = {k: v for k, v in base_env.items() if not k.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    env["RAY_TMPDIR"] = tmpdir
    if auth:
        token = os.path.join(tmpdir, "auth_token")
        with open(token, "w") as handle:
            handle.write(secrets.token_hex(32))
        env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=token)
    else:
        env["RAY_AUTH_MODE"] = "disabled"
    try:
        started = subprocess.run(["ray", "start", "--head", f"--port={port}", f"--num-cpus={num_cpus}",
                                  "--include-dashboard=false", "--node-ip-address=127.0.0.1",
                                  "--disable-usage-stats"], env=env, capture_output=True, text=True, timeout=300)
        assert started.returncode == 0, started.stderr[-2000:]
        yield RayHead(f"127.0.0.1:{port}", env, tmpdir)
    finally:
        stop_by_folder(tmpdir)
        shutil.rmtree(tmpdir, ignore_errors=True)


def stop_by_folder(folder: str) -> None:
    """Kill the processes whose command line names `folder`, and all their children."""
    me = psutil.Process()
    spared = {me.pid, *(p.pid for p in me.parents())}  # a command line naming the folder may be this one's
    family: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if proc.pid not in spared and any(folder in part for part in proc.info["cmdline"] or ()):
                family[proc.pid] = proc
                for child in proc.children(recursive=True):
                    if child.pid not in spared:
                        family[child.pid] = child
    for proc in family.values():
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(list(family.values()), timeout=10)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=10)
