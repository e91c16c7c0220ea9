"""Wrong addresses against real servers and clusters (slow): exit 2, one line, no folder, no hang (issue 31).

Each shape once hung or failed late: Dask's Client hung >= 90 s at an HTTP
server and printed a 56-line MemoryError at an SSH-like banner; ray.init
hung > 10 minutes at a port that was not Ray; a Ray cluster with token auth
failed after ~21 s as "start a cluster"; a `ray start --head` on the machine
made local Ray exit 2 about num_cpus. Every run here has a 90 s guard
(a hang fails the test instead of stalling it); the measured times are in
docs/cluster.md.
"""
from __future__ import annotations

import contextlib
import socket
import sys
import time

import pytest

from baselines import read_records

from .ray_head import free_port, ray_head
from .test_cluster import ENV, dask_cluster, start, stop
from .test_runner import costmatch, write_suite

pytestmark = [pytest.mark.slow, pytest.mark.process]

GUARD = 90  # seconds: a run still going then is the old hang
BANNER = ("import socket\ns = socket.create_server(('127.0.0.1', {port}))\nwhile True:\n"
          "    c, _ = s.accept()\n    c.sendall(b'SSH-2.0-OpenSSH_9.6\\r\\n')\n")


@contextlib.contextmanager
def listening(kind: str):
    """A real server on a free port: an HTTP server, an SSH-like banner, or nothing at all."""
    port = free_port()
    if kind == "nothing":
        yield f"127.0.0.1:{port}"
        return
    cmd = ([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)] if kind == "http"
           else [sys.executable, "-c", BANNER.format(port=port)])
    proc = start(*cmd)
    try:
        _wait_for_port(port)
        yield f"127.0.0.1:{port}"
    finally:
        stop(proc)


def _wait_for_port(port: int) -> None:
    for _ in range(200):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def refused(tmp_path, backend: str, address: str, env=ENV, words: str = "") -> str:
    out = tmp_path / "new" / "out"
    res = costmatch("run", write_suite(tmp_path, seeds=1), "--out", out, "--quiet", "--no-plots",
                    "--backend", backend, "--address", address, env=env, timeout=GUARD)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr[-2000:]
    assert words in res.stderr, res.stderr
    assert not (tmp_path / "new").exists()
    return res.stderr


@pytest.fixture(scope="module")
def ray_with_auth():
    pytest.importorskip("ray")
    with ray_head(ENV, auth=True) as head:
        yield head


@pytest.mark.parametrize("backend", ["dask", "ray"])
@pytest.mark.parametrize("kind, words", [("nothing", "nothing listens"), ("http", "an HTTP server answers there"),
                                         ("banner", "another service answers there (it sent 'SSH-2.0-")])
def test_a_port_that_is_not_the_engine_is_exit_2_at_once(tmp_path, backend, kind, words):
    pytest.importorskip("distributed" if backend == "dask" else "ray")
    with listening(kind) as address:
        refused(tmp_path, backend, address, words=words)


@pytest.mark.parametrize("backend, address, words", [
    ("dask", "http://127.0.0.1:8787", "http:// is not a Dask scheduler address"),
    ("dask", "tcp://127.0.0.1", "no port"),
    ("ray", "tcp://127.0.0.1:6379", "tcp:// is not a Ray cluster address"),
    ("ray", "127.0.0.1:70000", "not a number from 1 to 65535"),
])
def test_a_malformed_address_is_exit_2(tmp_path, backend, address, words):
    pytest.importorskip("distributed" if backend == "dask" else "ray")
    refused(tmp_path, backend, address, words=words)


def test_a_dask_scheduler_given_to_ray_is_named(tmp_path):
    pytest.importorskip("ray")
    with dask_cluster(0) as (address, _, _):
        _wait_for_port(int(address.rsplit(":", 1)[1]))
        refused(tmp_path, "ray", address.removeprefix("tcp://"), words="a Dask scheduler answers there")


def test_a_ray_cluster_given_to_dask_is_named(tmp_path, ray_with_auth):
    pytest.importorskip("distributed")
    refused(tmp_path, "dask", f"tcp://{ray_with_auth.address}", words="use --backend ray")


def test_ray_token_auth_refused_says_how_to_pass_the_token_and_the_token_runs(tmp_path, ray_with_auth):
    head = ray_with_auth
    without = {k: v for k, v in ENV.items() if not k.startswith("RAY_")}
    refused(tmp_path, "ray", head.address, env=without, words="RAY_AUTH_MODE=token and the cluster's token")
    wrong = {**without, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64}
    refused(tmp_path, "ray", head.address, env=wrong, words="refused this client's token")
    token = {**without, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": head.env["RAY_AUTH_TOKEN_PATH"]}
    res = costmatch("run", write_suite(tmp_path, seeds=2), "--out", tmp_path / "ok", "--quiet", "--no-plots",
                    "--backend", "ray", "--address", head.address, env=token, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert len(read_records(tmp_path / "ok" / "results.jsonl")) == 6


def test_local_ray_starts_its_own_instance_beside_a_running_head(tmp_path, ray_with_auth):
    """The head wrote its address where a bare ray.init() looks (RAY_TMPDIR), and RAY_ADDRESS names it too."""
    head = ray_with_auth
    env = {k: v for k, v in ENV.items() if not k.startswith("RAY_")}
    env.update(RAY_TMPDIR=head.tmpdir, RAY_ADDRESS=head.address)
    res = costmatch("run", write_suite(tmp_path, seeds=2), "--out", tmp_path / "local", "--quiet", "--no-plots",
                    "--backend", "ray", "--jobs", "2", env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "RAY_ADDRESS=" in res.stderr and "is not used" in res.stderr
    records = read_records(tmp_path / "local" / "results.jsonl")
    assert len(records) == 6 and all(r.error is None for r in records)
    # and without RAY_ADDRESS (only the head's address file), no note and the same result
    del env["RAY_ADDRESS"]
    res = costmatch("run", write_suite(tmp_path, seeds=2), "--out", tmp_path / "local2", "--quiet", "--no-plots",
                    "--backend", "ray", "--jobs", "2", env=env, timeout=600)
    assert res.returncode == 0 and res.stderr == "", res.stderr[-2000:]
