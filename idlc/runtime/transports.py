"""Ways to get a started `Peer`: stdio, a child process, TCP, Unix sockets, fds, in memory.

Each client-side helper is an async context manager that yields a started peer and closes it
on exit; servers take a factory for the root object of each connection. Every transport uses
the same newline-delimited framing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import IO, Any

from idlc.runtime.framing import CHUNK_SIZE
from idlc.runtime.peer import ByteWriter, Peer, PeerOptions

#: Makes the root object for each accepted connection (one shared object is `lambda: obj`).
RootFactory = Callable[[], object]

_ClientHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


# ---------------------------------------------------------------- in memory


class _MemoryWriter:
    """Feeds what is written straight into the other peer's reader. No flow control."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._closed = False

    def write(self, data: bytes) -> None:
        if not self._closed:
            self._reader.feed_data(data)

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._reader.feed_eof()

    async def wait_closed(self) -> None:
        return None


@contextlib.asynccontextmanager
async def memory_pair(
    a_root: object | None = None,
    b_root: object | None = None,
    *,
    options: PeerOptions | None = None,
) -> AsyncIterator[tuple[Peer, Peer]]:
    """Two connected peers in this process, for tests: what one writes, the other reads."""
    a_reader = asyncio.StreamReader(limit=CHUNK_SIZE)
    b_reader = asyncio.StreamReader(limit=CHUNK_SIZE)
    a = Peer(a_reader, _MemoryWriter(b_reader), a_root, options=options)
    b = Peer(b_reader, _MemoryWriter(a_reader), b_root, options=options)
    async with a, b:
        yield a, b


# ---------------------------------------------------------------- file descriptors


class _FileWriter:
    """Blocking writes, for a descriptor the event loop cannot watch (a regular file)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        if self._fd < 0:
            return
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    async def wait_closed(self) -> None:
        return None


def _pollable(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


async def _open_reader(fd: int) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CHUNK_SIZE)
    if _pollable(fd):
        try:
            pipe = os.fdopen(fd, "rb", buffering=0)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            return reader
        except PermissionError:
            pass  # e.g. /dev/null: a character device epoll refuses; read it like a file
    # A regular file never blocks, so reading it in the loop's thread is fine.
    data = await loop.run_in_executor(None, _read_all, fd)
    reader.feed_data(data)
    reader.feed_eof()
    return reader


def _read_all(fd: int) -> bytes:
    with os.fdopen(fd, "rb") as file:
        return file.read()


async def _open_writer(fd: int) -> ByteWriter:
    if not _pollable(fd):
        return _FileWriter(fd)
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), pipe
    )
    return asyncio.StreamWriter(transport, protocol, None, loop)


@contextlib.asynccontextmanager
async def connect_fds(
    read_fd: int,
    write_fd: int,
    root: object | None = None,
    *,
    options: PeerOptions | None = None,
) -> AsyncIterator[Peer]:
    """A peer reading `read_fd` and writing `write_fd` (pipes, sockets, ttys or files).

    The peer owns both descriptors and closes them.
    """
    reader = await _open_reader(read_fd)
    writer = await _open_writer(write_fd)
    async with Peer(reader, writer, root, options=options) as peer:
        yield peer


# ---------------------------------------------------------------- stdio


async def serve_stdio(root: object, *, options: PeerOptions | None = None) -> None:
    """Serve `root` on this process's stdin and stdout until stdin ends.

    While serving, file descriptor 1 and `sys.stdout` point to stderr, so a stray `print`
    (or a C library writing to stdout) cannot corrupt the protocol; only the peer writes to
    the real stdout. Both are restored when serving ends.
    """
    sys.stdout.flush()
    saved_stdout_fd = os.dup(1)
    protocol_out = os.dup(1)
    protocol_in = os.dup(0)
    saved_stdout = sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        async with connect_fds(protocol_in, protocol_out, root, options=options) as peer:
            await peer.wait_closed()
    finally:
        sys.stdout = saved_stdout
        os.dup2(saved_stdout_fd, 1)
        os.close(saved_stdout_fd)


# ---------------------------------------------------------------- child process


@contextlib.asynccontextmanager
async def spawn(
    argv: Sequence[str],
    *,
    root: object | None = None,
    options: PeerOptions | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stderr: int | IO[Any] | None = None,
    exit_timeout: float = 5.0,
) -> AsyncIterator[Peer]:
    """Start `argv` and talk to it over its stdin and stdout; its stderr is inherited.

    On exit the peer closes, which closes the child's stdin; the child is then given
    `exit_timeout` seconds to exit before it is killed.
    """
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        cwd=cwd,
        env=env,
        limit=CHUNK_SIZE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        async with Peer(process.stdout, process.stdin, root, options=options) as peer:
            yield peer
    finally:
        try:
            await asyncio.wait_for(process.wait(), exit_timeout)
        except TimeoutError:
            process.kill()
            await process.wait()


# ---------------------------------------------------------------- sockets


class RpcServer:
    """A listening socket whose every connection is a `Peer` serving a fresh root."""

    def __init__(self, server: asyncio.Server, peers: set[Peer]) -> None:
        self._server = server
        self._peers = peers

    @property
    def sockets(self) -> tuple[Any, ...]:
        return tuple(self._server.sockets)

    @property
    def port(self) -> int:
        """The TCP port actually bound (useful with port 0)."""
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def peers(self) -> frozenset[Peer]:
        """The connections currently open."""
        return frozenset(self._peers)

    async def serve_forever(self) -> None:
        await self._server.serve_forever()


@contextlib.asynccontextmanager
async def _serve(
    start: Callable[[_ClientHandler], Awaitable[asyncio.Server]],
    root_factory: RootFactory,
    options: PeerOptions | None,
) -> AsyncIterator[RpcServer]:
    peers: set[Peer] = set()
    closing = False

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if closing:
            writer.close()
            return
        peer = Peer(reader, writer, root_factory(), options=options)
        peers.add(peer)
        try:
            async with peer:
                await peer.wait_closed()
        finally:
            peers.discard(peer)

    server = await start(on_client)
    try:
        yield RpcServer(server, peers)
    finally:
        closing = True
        server.close()
        await asyncio.gather(*(peer.close() for peer in list(peers)))
        await server.wait_closed()


def serve_tcp(
    root_factory: RootFactory,
    host: str | None,
    port: int,
    *,
    options: PeerOptions | None = None,
) -> contextlib.AbstractAsyncContextManager[RpcServer]:
    """Listen on `host:port`; leaving the block closes the listener and every connection."""

    async def start(handler: _ClientHandler) -> asyncio.Server:
        return await asyncio.start_server(handler, host, port, limit=CHUNK_SIZE)

    return _serve(start, root_factory, options)


def serve_unix(
    root_factory: RootFactory,
    path: str | os.PathLike[str],
    *,
    options: PeerOptions | None = None,
) -> contextlib.AbstractAsyncContextManager[RpcServer]:
    """Listen on the Unix socket `path`; leaving the block closes it and every connection."""

    async def start(handler: _ClientHandler) -> asyncio.Server:
        return await asyncio.start_unix_server(handler, path, limit=CHUNK_SIZE)

    return _serve(start, root_factory, options)


@contextlib.asynccontextmanager
async def connect_tcp(
    host: str,
    port: int,
    *,
    root: object | None = None,
    options: PeerOptions | None = None,
) -> AsyncIterator[Peer]:
    """A peer connected to a TCP server; `root` serves the server's calls back."""
    reader, writer = await asyncio.open_connection(host, port, limit=CHUNK_SIZE)
    async with Peer(reader, writer, root, options=options) as peer:
        yield peer


@contextlib.asynccontextmanager
async def connect_unix(
    path: str | os.PathLike[str],
    *,
    root: object | None = None,
    options: PeerOptions | None = None,
) -> AsyncIterator[Peer]:
    """A peer connected to a Unix-socket server; `root` serves the server's calls back."""
    reader, writer = await asyncio.open_unix_connection(path, limit=CHUNK_SIZE)
    async with Peer(reader, writer, root, options=options) as peer:
        yield peer
