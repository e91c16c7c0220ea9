"""Check a cluster ``--address`` before anything is created: the right engine answers, lets us in, runs our versions.

Why (issue 31): a wrong address used to fail inside the engine, after the
output folder and its lock were made, and often not in a few seconds: Dask's
``Client`` hung >= 90 s at an HTTP server and printed a 56-line
``MemoryError`` where another service answered; ``ray.init`` at a port that is
not Ray retried for more than ten minutes, ignoring SIGTERM; a Ray cluster
with token auth was reported after ~21 s as "start a cluster". Here every
step has its own time limit, and each refusal is one line (InputError, exit 2)
that says what answered instead:

1. the address must parse (Dask: ``[tcp://]HOST:PORT``; Ray: ``HOST:PORT``,
   ``ray://HOST[:PORT]`` or ``auto``);
2. a TCP connect (``CONNECT_SECONDS``): unknown host, nothing listening, no answer;
3. the first bytes: a Dask scheduler sends its handshake as soon as it
   accepts, a gRPC server (a Ray GCS) its HTTP/2 SETTINGS frame; a silent
   peer is sent the HTTP/2 preface, which an HTTP/1 server answers with
   ``HTTP/1.1 4xx`` (see :func:`classify`);
4. the engine's own check: Dask's versions over the same socket
   (:mod:`.dask_wire`), Ray's GCS from a child process (:mod:`.ray_check`):
   auth refused, version mismatch.

``tls://``, ``ws://`` and ``wss://`` Dask addresses get steps 1-2 only (the
handshake is inside TLS or WebSocket); ``ray://`` (Ray Client) steps 1-3.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass

from ...core.errors import InputError
from . import dask_wire, ray_check

CONNECT_SECONDS = 3.0     # name lookup, then the TCP connect
GREETING_SECONDS = {"dask": 3.0, "ray": 1.0}  # how long a peer may take to speak first
REPLY_SECONDS = 2.0       # a silent peer's answer to the HTTP/2 preface; each Dask read

#: the HTTP/2 client preface and an empty SETTINGS frame
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"

_WHAT = {"dask": "a Dask scheduler", "ray": "a Ray cluster"}
_GIVE = {"dask": "give the scheduler's address (`dask scheduler` prints it: tcp://HOST:8786)",
         "ray": "give the head's address (`ray start --head` prints it: HOST:6379 by default)"}
_START = {"dask": "start a scheduler (`dask scheduler`) or fix the address",
          "ray": "start a cluster (`ray start --head`) or fix the address"}


@dataclass(frozen=True)
class Endpoint:
    scheme: str
    host: str
    port: int


@dataclass(frozen=True)
class Heard:
    """What a peer said when connected to: ``kind`` is dask, grpc, http, other, closed or silent."""

    kind: str
    detail: str = ""


def check_address(backend: str, address: str | None, source: str = "--address") -> None:
    """Refuse (InputError, one line) an address where `backend`'s engine does not answer, admit us, or match.

    ``source``: where the address came from, as the line names it
    (``--address`` or an environment variable such as DASK_SCHEDULER_ADDRESS).
    """
    if address is None:
        return
    try:
        if backend == "dask":
            _check_dask(address)
        elif backend == "ray":
            _check_ray(address)
    except InputError as exc:
        if source == "--address":
            raise
        raise InputError(f"{source}={address}:{str(exc).removeprefix(f'--address {address}:')}") from None


def _check_dask(address: str) -> None:
    endpoint = dask_endpoint(address)
    if endpoint is None:
        return  # in-process and UCX addresses: nothing to connect to from here
    with _connect(endpoint, address, "dask") as sock:
        if endpoint.scheme != "tcp":
            return  # the handshake is inside TLS or a WebSocket: reachable is all that can be told
        _expect(listen(sock, GREETING_SECONDS["dask"]), "dask", address)
        _check_dask_versions(sock, address)


def _check_ray(address: str) -> None:
    endpoint = ray_endpoint(address)
    if endpoint is not None:
        with _connect(endpoint, address, "ray") as sock:
            heard = listen(sock, GREETING_SECONDS["ray"])
        _expect(heard, "ray", address)
        if endpoint.scheme == "ray":
            return  # Ray Client: its server is not the GCS, and ray.init asks it itself
    _check_ray_gcs("auto" if endpoint is None else f"{_host_text(endpoint.host)}:{endpoint.port}", address)


def dask_endpoint(address: str) -> Endpoint | None:
    """``tcp://HOST:PORT`` (or ``HOST:PORT``, ``tls://``, ``ws://``, ``wss://``); None for in-process schemes."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    scheme = scheme.lower()
    if scheme in ("inproc", "ucx"):
        return None
    if scheme not in ("tcp", "tls", "ws", "wss"):
        raise InputError(f"--address {address}: {scheme}:// is not a Dask scheduler address; give "
                         "tcp://HOST:PORT (`dask scheduler` prints it; 8786 by default)")
    host, port = _host_port(rest, address, "dask", default=None)
    return Endpoint(scheme, host, port)


def ray_endpoint(address: str) -> Endpoint | None:
    """``HOST:PORT`` (the GCS) or ``ray://HOST[:10001]``; None for ``auto`` (Ray finds the cluster itself)."""
    if address == "auto":
        return None
    scheme, sep, rest = address.partition("://")
    if not sep:
        return Endpoint("gcs", *_host_port(address, address, "ray", default=None))
    if scheme.lower() != "ray":
        hint = " (that is the dashboard or jobs address, not the cluster's)" if scheme.lower() in ("http", "https") \
            else ""
        raise InputError(f"--address {address}: {scheme}:// is not a Ray cluster address{hint}; give the head's "
                         "GCS address HOST:PORT (`ray start --head` prints it; 6379 by default) or ray://HOST:10001")
    return Endpoint("ray", *_host_port(rest, address, "ray", default=10001))


def _host_port(text: str, address: str, backend: str, default: int | None) -> tuple[str, int]:
    """HOST:PORT, [IPv6]:PORT, a trailing slash allowed; InputError naming what is wrong."""
    text = text.rstrip("/")
    bracketed = text.startswith("[")
    if bracketed:
        host, _, tail = text[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else ("" if not tail else None)
    else:
        host, colon, port_text = text.rpartition(":")
        if not colon:
            host, port_text = text, ""
    example = "tcp://HOST:8786" if backend == "dask" else "HOST:6379"
    if not host or port_text is None or any(c.isspace() or c in "/@?#[]" for c in host) \
            or (":" in host) != bracketed:
        raise InputError(f"--address {address}: not a HOST:PORT address (write IPv6 hosts as [ADDR]:PORT); "
                         f"give {example}")
    if not port_text:
        if default is None:
            raise InputError(f"--address {address}: no port; give {example}")
        return host, default
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise InputError(f"--address {address}: port {port_text!r} is not a number from 1 to 65535; give {example}")
    return host, int(port_text)


def _host_text(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _connect(endpoint: Endpoint, address: str, backend: str) -> socket.socket:
    """A TCP connection within CONNECT_SECONDS (the name lookup included), or one line saying why not."""
    where = f"{_host_text(endpoint.host)}:{endpoint.port}"
    infos = _resolve(endpoint.host, endpoint.port, address, backend)
    deadline = time.monotonic() + CONNECT_SECONDS
    last: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        sock = socket.socket(family, kind, proto)
        sock.settimeout(left)
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    if isinstance(last, ConnectionRefusedError):
        why = "nothing listens"
    elif last is None or isinstance(last, TimeoutError):
        why = f"no answer within {CONNECT_SECONDS:g} s (a wrong host, or a firewall?)"
    else:
        why = last.strerror or str(last)
    raise InputError(f"--address {address}: cannot reach {_WHAT[backend]} there ({why} at {where}); "
                     f"{_START[backend]}")


def _resolve(host: str, port: int, address: str, backend: str) -> list:
    """``getaddrinfo`` in a daemon thread, so a slow name lookup counts against CONNECT_SECONDS too."""
    box: list = []

    def lookup() -> None:
        try:
            box.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:
            box.append(exc)

    thread = threading.Thread(target=lookup, daemon=True, name="costmatch-address-lookup")
    thread.start()
    thread.join(CONNECT_SECONDS)
    if not box:
        raise InputError(f"--address {address}: looking up host {host!r} took over {CONNECT_SECONDS:g} s; "
                         "fix the address or give an IP address")
    if isinstance(box[0], OSError):
        raise InputError(f"--address {address}: unknown host {host!r} ({box[0].strerror or box[0]}); "
                         f"{_GIVE[backend]}")
    return box[0]


def listen(sock: socket.socket, greeting_seconds: float) -> Heard:
    """What the peer says first; a silent peer is sent the HTTP/2 preface and its answer classified.

    A Dask handshake is read whole, so the socket is ready for the next message.
    """
    greeting, closed = _read_greeting(sock, greeting_seconds)
    reply = None
    if not greeting and not closed:
        try:
            sock.sendall(H2_PREFACE)
            reply, _ = _read_some(sock, REPLY_SECONDS)
        except OSError:
            reply = b""
    return classify(greeting, reply, closed)


def _read_greeting(sock: socket.socket, seconds: float) -> tuple[bytes, bool]:
    """The first bytes within `seconds`; when they start a plausible Dask message, the whole message."""
    data, closed = _read_some(sock, seconds)
    if len(data) >= 8 and not closed:
        try:
            need = 8 + dask_wire.message_length(data)
        except dask_wire.NotDask:
            return data, closed
        sock.settimeout(REPLY_SECONDS)
        try:
            while len(data) < need:
                chunk = sock.recv(need - len(data))
                if not chunk:
                    return data, True
                data += chunk
        except OSError:
            pass
    return data, closed


def _read_some(sock: socket.socket, seconds: float) -> tuple[bytes, bool]:
    """Whatever arrives first within `seconds` (one recv); and whether the peer closed instead."""
    sock.settimeout(seconds)
    try:
        data = sock.recv(4096)
    except TimeoutError:
        return b"", False
    except OSError:
        return b"", True
    return data, not data


def classify(greeting: bytes, reply: bytes | None, closed: bool = False) -> Heard:
    """Who answered, from the bytes it sent unasked (`greeting`) and after the HTTP/2 preface (`reply`). Pure."""
    if greeting:
        if len(greeting) >= 16 and dask_wire.is_handshake(greeting[8:8 + _announced(greeting)]):
            return Heard("dask")
        if _is_h2_settings(greeting):
            return Heard("grpc")
        return Heard("other", _preview(greeting))
    if closed:
        return Heard("closed")
    if reply:
        if _is_h2_settings(reply):
            return Heard("grpc")
        if reply.startswith(b"HTTP/") or b"<html" in reply[:200].lower() or b"<!doctype html" in reply[:200].lower():
            return Heard("http", _preview(reply.splitlines()[0]))
        return Heard("other", _preview(reply))
    return Heard("silent")


def _announced(greeting: bytes) -> int:
    try:
        return dask_wire.message_length(greeting)
    except dask_wire.NotDask:
        return 0


def _is_h2_settings(data: bytes) -> bool:
    """An HTTP/2 SETTINGS frame header: 3-byte length (a multiple of 6), type 4, stream 0."""
    if len(data) < 9:
        return False
    length = int.from_bytes(data[:3], "big")
    return data[3] == 4 and data[4] in (0, 1) and data[5:9] == b"\x00\x00\x00\x00" and length % 6 == 0 \
        and length <= 6 * 64


def _preview(data: bytes) -> str:
    """The first bytes, printable and short, for the one-line message."""
    text = data[:40].decode("latin-1").strip()
    shown = "".join(c if c.isprintable() and c.isascii() else "." for c in text)
    return shown + ("..." if len(data) > 40 else "")


def _expect(heard: Heard, backend: str, address: str) -> None:
    """Refuse anything but `backend`'s own engine, saying what answered instead."""
    wanted = "dask" if backend == "dask" else "grpc"
    if heard.kind == wanted:
        return
    said = {
        "dask": "a Dask scheduler answers there (use --backend dask for it)",
        "grpc": "a gRPC (HTTP/2) service answers there, as a Ray cluster's GCS does (use --backend ray for it)",
        "http": f"an HTTP server answers there (it sent {heard.detail!r})",
        "other": f"another service answers there (it sent {heard.detail!r})",
        "closed": "the service there closed the connection at once",
        "silent": f"the service there sent nothing within {GREETING_SECONDS[backend] + REPLY_SECONDS:g} s",
    }[heard.kind]
    raise InputError(f"--address {address}: not {_WHAT[backend]}: {said}; {_GIVE[backend]}")


def _check_dask_versions(sock: socket.socket, address: str) -> None:
    try:
        sock.settimeout(REPLY_SECONDS)
        remote = dask_wire.ask_versions(sock)
    except (OSError, dask_wire.NotDask) as exc:
        raise InputError(f"--address {address}: the Dask scheduler there did not answer a versions request "
                         f"within {REPLY_SECONDS:g} s ({exc}); check that it is healthy") from None
    differ = dask_wire.version_mismatch(remote, dask_wire.local_versions())
    if differ:
        raise InputError(f"--address {address}: the Dask scheduler runs other versions ({differ}); install the same "
                         "Python (major.minor), dask and distributed (year.month) on the client, scheduler and "
                         "workers")


def _check_ray_gcs(gcs: str, address: str) -> None:
    answer = ray_check.ask_gcs(gcs)
    if answer.auth is not None:
        raise InputError(f"--address {address}: {auth_refused(answer.auth)}")
    if answer.error is not None:
        raise InputError(f"--address {address}: cannot reach a Ray cluster there ({answer.error}); {_START['ray']}")
    if answer.cluster is not None and answer.mine is not None:
        differ = ray_check.version_mismatch(answer.cluster, answer.mine)
        if differ:
            raise InputError(f"--address {address}: the Ray cluster runs other versions ({differ}); Ray needs the "
                             "same Ray and Python on every node and the client")


def auth_refused(reason: str) -> str:
    """The one line for a GCS that refused us: what was sent (by RAY_AUTH_MODE) and how to send the right token."""
    where = "in ~/.ray/auth_token, a file named by RAY_AUTH_TOKEN_PATH, or RAY_AUTH_TOKEN"
    if os.environ.get("RAY_AUTH_MODE", "").lower() == "token":
        return (f"the Ray cluster refused this client's token ({reason}); put the cluster's token {where} "
                "(`ray get-auth-token` on the head prints it)")
    return (f"the Ray cluster uses token authentication and refused this client ({reason}); run with "
            f"RAY_AUTH_MODE=token and the cluster's token {where} (`ray get-auth-token` on the head prints it)")
