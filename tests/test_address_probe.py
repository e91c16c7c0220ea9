"""The `--address` check (issue 31): each wrong shape is one line, exit 2, no folder, told apart by what answered.

Cheap: tiny socket servers in this process play a Dask scheduler, a gRPC
server, an HTTP server, another service and a silent one. Real servers and
clusters are in tests/test_address_real.py (slow).
"""
from __future__ import annotations

import contextlib
import socket
import struct
import threading
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from baselines.cli import main
from baselines.core.errors import InputError
from baselines.running.engines import dask_wire, probe, ray_check
from baselines.running.engines.probe import Heard, check_address, classify

from .test_runner import write_suite

#: the handshake a distributed 2026.8.0 scheduler on Python 3.11.7 sends first (read from a real one)
DASK_HANDSHAKE = bytes.fromhex("3a0000000000000001000000000000002a0000000000000083ab636f6d7072657373696f6ec0a670"
                               "7974686f6e93030b07af7069636b6c652d70726f746f636f6c05")
#: the SETTINGS frame a Ray 2.60 GCS (gRPC) sends first
GRPC_SETTINGS = bytes.fromhex("00001804000000000000040040000000050040000000060000400000fe0300000001")
HTTP_400 = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
SSH_BANNER = b"SSH-2.0-OpenSSH_9.6\r\n"


@pytest.fixture(autouse=True)
def short_waits(monkeypatch):
    """Silent peers are waited for 0.2 s here, not the real 3 s."""
    monkeypatch.setattr(probe, "GREETING_SECONDS", {"dask": 0.2, "ray": 0.2})
    monkeypatch.setattr(probe, "REPLY_SECONDS", 0.5)


@contextlib.contextmanager
def server(greeting: bytes = b"", on_data=None, close_at_once=False):
    """A one-thread TCP server on 127.0.0.1: sends `greeting`, then answers what it reads with `on_data(bytes)`."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.02)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                if close_at_once:
                    continue
                conn.sendall(greeting)
                conn.settimeout(1)
                try:
                    data = conn.recv(65536)
                    while data and on_data is not None:
                        answer = on_data(data)
                        if answer:
                            conn.sendall(answer)
                        data = conn.recv(65536)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def fake_scheduler(versions: dict):
    """A Dask scheduler as far as the check can tell: its handshake, then a versions reply."""
    pytest.importorskip("msgpack")
    seen = bytearray()

    def on_data(data):
        answered = b"versions" in seen
        seen.extend(data)
        return dask_wire.frame(versions) if b"versions" in seen and not answered else b""
    return server(DASK_HANDSHAKE, on_data)


def refusal(backend: str, address: str) -> str:
    with pytest.raises(InputError) as info:
        check_address(backend, address)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"--address {address}: ")
    return text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- what answered: a pure function of the bytes ----------------------------------------------
@pytest.mark.parametrize("greeting, reply, closed, kind", [
    (DASK_HANDSHAKE, None, False, "dask"),
    (GRPC_SETTINGS, None, False, "grpc"),
    (b"", GRPC_SETTINGS, False, "grpc"),
    (b"", HTTP_400, False, "http"),
    (b"", b"<!DOCTYPE HTML>\n<html lang='en'>", False, "http"),
    (SSH_BANNER, None, False, "other"),
    (DASK_HANDSHAKE[:20], None, False, "other"),  # a torn handshake is not one
    (b"", None, True, "closed"),
    (b"", b"", False, "silent"),
])
def test_classify_tells_the_peers_apart(greeting, reply, closed, kind):
    assert classify(greeting, reply, closed).kind == kind


def test_another_services_bytes_are_shown_printable_and_short():
    heard = classify(b"\x00\x01SSH-2.0-" + b"x" * 100, None)
    assert heard == Heard("other", heard.detail) and heard.detail.startswith("..SSH-2.0-") and len(heard.detail) < 50


def test_a_huge_announced_length_is_not_dask_and_nothing_is_allocated():
    """Dask's client allocated 3.07 EiB for an SSH banner's first 8 bytes."""
    assert struct.unpack("<Q", SSH_BANNER[:8])[0] > 2**61
    with pytest.raises(dask_wire.NotDask):
        dask_wire.message_length(SSH_BANNER)


# -- malformed addresses: refused before any connection ------------------------------------
@pytest.mark.parametrize("backend, address, words", [
    ("dask", "http://127.0.0.1:8787", "http:// is not a Dask scheduler address"),
    ("dask", "tcp://127.0.0.1", "no port"),
    ("dask", "tcp://127.0.0.1:99999", "not a number from 1 to 65535"),
    ("dask", "tcp://127.0.0.1:80a", "not a number"),
    ("dask", "::1:8786", "write IPv6 hosts as [ADDR]:PORT"),
    ("dask", "tcp://:8786", "not a HOST:PORT address"),
    ("dask", "tcp://a b:8786", "not a HOST:PORT address"),
    ("ray", "tcp://127.0.0.1:6379", "tcp:// is not a Ray cluster address"),
    ("ray", "http://127.0.0.1:8265", "the dashboard or jobs address"),
    ("ray", "127.0.0.1", "no port"),
    ("ray", "[::1]x", "not a HOST:PORT address"),
])
def test_a_malformed_address_is_one_line_naming_the_fix(backend, address, words):
    assert words in refusal(backend, address)


def test_endpoints_parse_with_defaults_and_ipv6():
    assert probe.dask_endpoint("127.0.0.1:8786") == probe.Endpoint("tcp", "127.0.0.1", 8786)
    assert probe.dask_endpoint("tls://[::1]:8786/") == probe.Endpoint("tls", "::1", 8786)
    assert probe.dask_endpoint("inproc://x") is None
    assert probe.ray_endpoint("ray://head") == probe.Endpoint("ray", "head", 10001)
    assert probe.ray_endpoint("auto") is None


# -- each shape against a live socket -------------------------------------------------------
@pytest.mark.parametrize("backend", ["dask", "ray"])
def test_nothing_listening_is_cannot_reach(backend):
    port = free_port()
    text = refusal(backend, f"127.0.0.1:{port}")
    assert "nothing listens" in text and ("dask scheduler" in text or "ray start --head" in text)


@pytest.mark.parametrize("backend", ["dask", "ray"])
@pytest.mark.parametrize("peer, words", [
    (dict(on_data=lambda data: HTTP_400), "an HTTP server answers there (it sent 'HTTP/1.1 400 Bad Request')"),
    (dict(greeting=SSH_BANNER), "another service answers there (it sent 'SSH-2.0-OpenSSH_9.6')"),
    (dict(), "sent nothing within"),
    (dict(close_at_once=True), "closed the connection at once"),
])
def test_a_service_that_is_not_the_engine_is_named(backend, peer, words):
    with server(**peer) as port:
        text = refusal(backend, f"127.0.0.1:{port}")
    assert words in text and ("not a Dask scheduler" if backend == "dask" else "not a Ray cluster") in text


def test_a_ray_gcs_given_to_dask_and_a_dask_scheduler_given_to_ray_name_the_other_backend():
    with server(GRPC_SETTINGS) as port:
        assert "use --backend ray" in refusal("dask", f"tcp://127.0.0.1:{port}")
    with server(DASK_HANDSHAKE) as port:
        assert "a Dask scheduler answers there (use --backend dask" in refusal("ray", f"127.0.0.1:{port}")


def test_a_dask_scheduler_with_our_versions_passes_and_another_release_is_refused():
    mine = dask_wire.local_versions()
    if "distributed" not in mine:
        pytest.skip("distributed is not installed")
    same = {"packages": {"python": mine["python"] + ".final.0", "dask": mine["dask"],
                         "distributed": mine["distributed"]}}
    with fake_scheduler(same) as port:
        check_address("dask", f"tcp://127.0.0.1:{port}")
    older = {"packages": {"python": "3.9.1.final.0", "dask": "2024.1.0", "distributed": "2024.1.0"}}
    with fake_scheduler(older) as port:
        text = refusal("dask", f"127.0.0.1:{port}")
    assert f"python 3.9.1 there, {mine['python']} here" in text and "distributed 2024.1.0 there" in text


def test_a_dask_scheduler_that_never_answers_the_versions_request_is_refused():
    with server(DASK_HANDSHAKE) as port:
        assert "did not answer a versions request" in refusal("dask", f"tcp://127.0.0.1:{port}")


@pytest.mark.parametrize("mode, words", [("", "run with RAY_AUTH_MODE=token and the cluster's token"),
                                         ("token", "refused this client's token")])
def test_a_ray_cluster_refusing_our_token_says_how_to_pass_it(monkeypatch, mode, words):
    monkeypatch.setenv("RAY_AUTH_MODE", mode)
    asked = []
    monkeypatch.setattr(ray_check, "ask_gcs", lambda gcs: asked.append(gcs) or ray_check.GcsAnswer(
        auth="AuthenticationError: RPC error: InvalidAuthToken: Authentication token is missing or incorrect"))
    with server(GRPC_SETTINGS) as port:
        text = refusal("ray", f"localhost:{port}")
    assert asked == [f"localhost:{port}"]
    assert words in text and "InvalidAuthToken" in text and "RAY_AUTH_TOKEN_PATH" in text


def test_ray_versions_follow_rays_own_rule():
    mine = {"ray_version": "2.60.0", "python_version": "3.11.7"}
    assert ray_check.version_mismatch(dict(mine), mine) is None
    assert ray_check.version_mismatch({**mine, "ray_version": "2.59.0"}, mine) == "Ray 2.59.0 there, 2.60.0 here"
    patch = {**mine, "python_version": "3.11.9"}
    assert ray_check.version_mismatch(patch, mine) == "Python 3.11.9 there, 3.11.7 here"
    assert ray_check.version_mismatch(patch, mine, level="minor") is None


def test_a_ray_version_mismatch_is_one_line(monkeypatch):
    monkeypatch.setattr(ray_check, "ask_gcs", lambda gcs: ray_check.GcsAnswer(
        cluster={"ray_version": "2.59.0", "python_version": "3.11.7"},
        mine={"ray_version": "2.60.0", "python_version": "3.11.7"}))
    with server(GRPC_SETTINGS) as port:
        assert "runs other versions (Ray 2.59.0 there, 2.60.0 here)" in refusal("ray", f"127.0.0.1:{port}")


# -- through the CLI: exit 2, one line, nothing created -------------------------------------
@pytest.mark.parametrize("backend", ["dask", "ray"])
def test_a_refused_address_creates_no_folder_and_no_lock(tmp_path, capsys, backend):
    pytest.importorskip("distributed" if backend == "dask" else "ray")
    suite = write_suite(tmp_path, seeds=1)
    with server(on_data=lambda data: HTTP_400) as port:
        code = main(["run", str(suite), "--out", str(tmp_path / "new" / "out"), "--quiet", "--no-plots",
                     "--backend", backend, "--address", f"127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "an HTTP server answers there" in err
    assert not (tmp_path / "new").exists()


# -- the engine versions: pyproject, docs and the installed ones agree ------------------------
def test_engine_version_bounds_are_documented_and_hold_for_the_installed_engines():
    requirements = pytest.importorskip("packaging.requirements")  # an optional dependency (Dask's, pip's)
    root = Path(__file__).resolve().parents[1]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    docs = (root / "docs" / "cluster.md").read_text()
    for extra, package in (("ray", "ray"), ("dask", "dask")):
        (spec,) = extras[extra]
        assert f"`{spec}`" in docs, spec
        assert spec in extras["test"]
        requirement = requirements.Requirement(spec)
        try:
            installed = version(package)
        except PackageNotFoundError:
            continue
        assert requirement.specifier.contains(installed, prereleases=True), (spec, installed)


def test_an_address_from_the_environment_is_named_as_such(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    port = free_port()
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", f"tcp://127.0.0.1:{port}")
    code = main(["run", str(write_suite(tmp_path, seeds=1)), "--out", str(tmp_path / "out"), "--quiet",
                 "--backend", "dask"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"costmatch: DASK_SCHEDULER_ADDRESS=tcp://127.0.0.1:{port}: cannot reach")
    assert not (tmp_path / "out").exists()
