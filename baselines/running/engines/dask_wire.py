"""Dask's TCP wire format, just enough to ask a scheduler its versions over a plain socket.

Why by hand and not ``distributed.comm.connect``: Dask's client reads the
peer's first eight bytes as a message length and allocates that much, so a
service that is not Dask gives a 56-line ``MemoryError: Unable to allocate
3.07 EiB`` traceback, and a silent one (an HTTP server) hangs ``Client``
for minutes. Here every length is checked before anything is read, and the
caller bounds every read with a socket timeout.

A message on the wire (``distributed/comm/tcp.py``): an 8-byte little-endian
length, then that many bytes: the number of frames (8 bytes), each frame's
length (8 bytes each), the frames. A message with no serialized objects
(the handshake, ``{"op": "versions"}`` and its reply) is one msgpack frame.
Both ends send a handshake first (``{"compression", "python",
"pickle-protocol"}``); a scheduler sends its own as soon as it accepts.
"""
from __future__ import annotations

import platform
import socket
import struct
import sys
from typing import Any

#: the largest handshake or versions reply believed (a real one is 58 bytes, resp. about 600)
MAX_MESSAGE = 1 << 20
HANDSHAKE_KEYS = (b"compression", b"python", b"pickle-protocol")


class NotDask(Exception):
    """The bytes received are not a Dask message."""


def frame(message: dict) -> bytes:
    """One message as Dask writes it: total length, frame count, frame length, one msgpack frame."""
    import msgpack  # an optional dependency (Dask's own): only when a Dask address is checked

    body = msgpack.dumps(message, use_bin_type=True)
    inner = struct.pack("<QQ", 1, len(body)) + body
    return struct.pack("<Q", len(inner)) + inner


def message_length(head: bytes) -> int:
    """The body length announced by a message's first 8 bytes; NotDask if it cannot be a small Dask message."""
    (length,) = struct.unpack("<Q", head[:8])
    if not 16 <= length <= MAX_MESSAGE:
        raise NotDask(f"a message of {length} bytes")
    return length


def frames_of(body: bytes) -> list[bytes]:
    """The frames of one message body (after its 8-byte length); NotDask when the prelude does not add up."""
    if len(body) < 8:
        raise NotDask("a message shorter than its prelude")
    (count,) = struct.unpack("<Q", body[:8])
    if not 1 <= count <= 64 or len(body) < 8 + 8 * count:
        raise NotDask(f"{count} frames")
    lengths = struct.unpack(f"<{count}Q", body[8:8 + 8 * count])
    if 8 + 8 * count + sum(lengths) != len(body):
        raise NotDask("frame lengths that do not add up")
    frames, at = [], 8 + 8 * count
    for n in lengths:
        frames.append(body[at:at + n])
        at += n
    return frames


def decode(body: bytes) -> Any:
    """The one msgpack frame of a plain message; NotDask if it is not one."""
    frames = frames_of(body)
    try:
        import msgpack  # an optional dependency (Dask's own): only when a Dask address is checked

        return msgpack.loads(frames[0], raw=False, use_list=False, strict_map_key=False)
    except ImportError:
        return None  # identified by the frame layout alone; versions unknown
    except Exception as exc:  # noqa: BLE001 - msgpack raises several unrelated types on bad bytes
        raise NotDask(f"an undecodable frame ({type(exc).__name__})") from None


def is_handshake(body: bytes) -> bool:
    """Whether a message body is a Dask handshake (its frame layout holds and it names the three keys)."""
    try:
        frames_of(body)
    except NotDask:
        return False
    return all(key in body for key in HANDSHAKE_KEYS)


def read_message(sock: socket.socket) -> Any:
    """Read one message (the socket's timeout bounds each read); NotDask if the bytes are not one."""
    body = read_exact(sock, message_length(read_exact(sock, 8)))
    return decode(body)


def read_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 65536))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def ask_versions(sock: socket.socket) -> dict:
    """After the scheduler's handshake was read: send ours and ``{"op": "versions"}``; return its reply.

    The reply is ``distributed.versions.get_versions()`` on the scheduler:
    ``{"host": {...}, "packages": {"python": "3.11.7.final.0", "dask": ..., "distributed": ...}}``.
    """
    ours = {"compression": None, "python": tuple(sys.version_info)[:3], "pickle-protocol": 5}
    sock.sendall(frame(ours) + frame({"op": "versions", "reply": True}))
    reply = read_message(sock)
    try:
        sock.sendall(frame({"op": "close", "reply": False}))
    except OSError:
        pass
    if not isinstance(reply, dict):
        raise NotDask("a versions reply that is not a mapping")
    return reply


def local_versions() -> dict[str, str]:
    """This client's Python, dask and distributed versions (as the scheduler's reply spells the keys)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in ("dask", "distributed"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def version_mismatch(remote: dict, local: dict[str, str]) -> str | None:
    """What differs between the scheduler's packages and ours in a way that breaks cells, or None.

    Python must agree in major.minor (functions and classes are pickled by
    value between them); dask and distributed in their release (year.month:
    the scheduler protocol changes between releases; a patch release does not
    change it). Dask itself only warns about any mismatch, and a run then
    fails later in ways that do not name the cause.
    """
    packages = remote.get("packages") if isinstance(remote.get("packages"), dict) else {}
    differ = []
    for name, parts in (("python", 2), ("dask", 2), ("distributed", 2)):
        theirs, ours = str(packages.get(name) or ""), local.get(name, "")
        if theirs and ours and _release(theirs, parts) != _release(ours, parts):
            differ.append(f"{name} {_shown(theirs)} there, {_shown(ours)} here")
    return "; ".join(differ) or None


def _release(text: str, parts: int) -> tuple[str, ...]:
    return tuple(text.split(".")[:parts])


def _shown(text: str) -> str:
    return text.replace(".final.0", "")
