"""Starting the hostile tests' server (`server.py`) as a subprocess under an address-space
limit, and reading its memory high-water mark."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import resource
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The server's address-space limit: a regression fails (MemoryError) instead of taking
#: the machine's memory.
ADDRESS_SPACE = 2 * 1024**3


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@contextlib.contextmanager
def server_process(kind: str, *arguments: str) -> Iterator[tuple[int, int]]:
    """`python server.py KIND ARGUMENTS…` running: (its port, its process id)."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "web_hostile" / "server.py"), kind, *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_limit,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "the server did not start"
        yield int(line), process.pid
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def server(kind: str) -> Iterator[int]:
    with server_process(kind) as (port, _):
        yield port


def peak_rss(pid: int) -> int:
    """The most resident memory process `pid` has had so far, in bytes (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


async def open_websocket(port: int, path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened by hand (no client library: the tests send frames as a hostile
    client would, and see exactly what the server sends back)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert b" 101 " in head.split(b"\r\n")[0], head
    return reader, writer


def text_frame(payload: bytes) -> bytes:
    """A client's text frame (masked, with the all-zero key: the payload as it is)."""
    size = len(payload)
    if size < 126:
        length = bytes([0x80 | size])
    elif size < 65536:
        length = bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        length = bytes([0x80 | 127]) + struct.pack("!Q", size)
    return b"\x81" + length + b"\0\0\0\0" + payload


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame the server sends: (opcode, payload)."""
    first, second = await reader.readexactly(2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", await reader.readexactly(2))
    elif size == 127:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    return first & 0x0F, await reader.readexactly(size)
