"""Ways to get a started `Peer`: stdio, a child process, TCP, Unix sockets, fds, in memory.

Each client-side helper is an async context manager that yields a started peer and closes it
on exit; servers take a factory for the root object of each connection. Every transport uses
the same newline-delimited framing, read through a `LineProtocol` (lines are handled as the
transport delivers them).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import stat
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import IO, Any, cast

from idlc_runtime.rpc.peer import ByteWriter, Peer, PeerOptions
from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.framing import LineProtocol, TransportWriter

#: Makes the root object for each accepted connection (one shared object is `lambda: obj`).
#: A factory with a required positional parameter is given the connection's `Peer`, not yet
#: started: it may register keyed objects on it (shared ones too) or keep it to call the
#: client back (docs/serving.md, "The connection's peer").
RootFactory = Callable[[], object] | Callable[[Peer], object]

#: The bytes of incomplete messages a server buffers over all its connections at once
#: (docs/wire.md §11): a few default-sized messages, not one per connection.
DEFAULT_MAX_BUFFERED_INPUT = 128 * 1024 * 1024

#: Starts a listener whose every connection gets a protocol from the given factory.
_Listen = Callable[[Callable[[], LineProtocol]], Awaitable[asyncio.Server]]

log = logging.getLogger("idlc_runtime")


# ---------------------------------------------------------------- in memory


class _MemoryPipe(asyncio.ReadTransport):
    """One direction of a memory pair: what is written reaches the other peer's protocol.

    Delivery happens in a callback of its own, never inside `write`, so a peer is never
    re-entered while it handles a message. The writer never waits; pausing the reading side
    keeps data here until it resumes.
    """

    def __init__(self, protocol: LineProtocol) -> None:
        super().__init__()
        self._loop = asyncio.get_running_loop()
        self._protocol = protocol
        self._buffer = bytearray()
        self._eof = False
        self._closing = False
        self._paused = False
        self._scheduled = False
        protocol.connection_made(self)

    # the writing side (a ByteWriter)

    def write(self, data: bytes) -> None:
        if not self._eof and not self._closing:
            self._buffer += data
            self._schedule()

    async def drain(self) -> None:
        return None

    def close_writing(self) -> None:
        if not self._eof:
            self._eof = True
            self._schedule()

    # the reading side (the protocol's transport)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        if not self._closing:
            self._closing = True
            self._buffer.clear()
            self._loop.call_soon(self._protocol.connection_lost, None)

    def is_reading(self) -> bool:
        return not self._paused and not self._closing

    def pause_reading(self) -> None:
        self._paused = True

    def resume_reading(self) -> None:
        if self._paused:
            self._paused = False
            self._schedule()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._deliver)

    def _deliver(self) -> None:
        self._scheduled = False
        if self._paused or self._closing:
            return
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            self._protocol.data_received(data)
        if self._eof and not self._buffer and not self._paused and not self._closing:
            self._closing = True
            self._protocol.eof_received()
            self._protocol.connection_lost(None)


class _MemoryWriter:
    """The writing end of a `_MemoryPipe`."""

    def __init__(self, pipe: _MemoryPipe) -> None:
        self._pipe = pipe

    def write(self, data: bytes) -> None:
        self._pipe.write(data)

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self._pipe.close_writing()

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
    max_line = (options or PeerOptions()).max_message_size
    a_protocol = LineProtocol(max_line)
    b_protocol = LineProtocol(max_line)
    to_a = _MemoryPipe(a_protocol)
    to_b = _MemoryPipe(b_protocol)
    a = Peer(a_protocol, _MemoryWriter(to_b), a_root, options=options)
    b = Peer(b_protocol, _MemoryWriter(to_a), b_root, options=options)
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


async def _open_reader(fd: int, max_line: int) -> LineProtocol:
    loop = asyncio.get_running_loop()
    protocol = LineProtocol(max_line)
    if _pollable(fd):
        try:
            pipe = os.fdopen(fd, "rb", buffering=0)
            await loop.connect_read_pipe(lambda: protocol, pipe)
            return protocol
        except PermissionError:
            pass  # e.g. /dev/null: a character device epoll refuses; read it like a file
    # A regular file never blocks; it is read whole, off the loop's thread.
    data = await loop.run_in_executor(None, _read_all, fd)
    if data:
        protocol.data_received(data)
    protocol.eof_received()
    return protocol


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
    reader = await _open_reader(read_fd, (options or PeerOptions()).max_message_size)
    writer = await _open_writer(write_fd)
    async with Peer(reader, writer, root, options=options) as peer:
        yield peer


# ---------------------------------------------------------------- stdio


@contextlib.asynccontextmanager
async def stdio_transport(
    max_message_size: int | None = None,
) -> AsyncIterator[tuple[LineProtocol, ByteWriter]]:
    """This process's stdin and stdout as a line source and a writer, for code that looks
    at the first lines itself before it makes the `Peer` that serves the rest (idlc_acp's
    protocol router picks the agent by the client's `initialize`).

    Inside the block, file descriptor 1 and `sys.stdout` point to stderr, as in
    `serve_stdio`. The source and the writer belong to whoever receives them: a `Peer` made
    on them closes both; without one, close them (`source.close()`, `writer.close()`).
    """
    limit = max_message_size if max_message_size is not None else PeerOptions().max_message_size
    sys.stdout.flush()
    saved_stdout_fd = os.dup(1)
    protocol_out = os.dup(1)
    protocol_in = os.dup(0)
    saved_stdout = sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        reader = await _open_reader(protocol_in, limit)
        writer = await _open_writer(protocol_out)
        yield reader, writer
    finally:
        sys.stdout = saved_stdout
        os.dup2(saved_stdout_fd, 1)
        os.close(saved_stdout_fd)


async def serve_stdio(root: object, *, options: PeerOptions | None = None) -> None:
    """Serve `root` on this process's stdin and stdout until stdin ends.

    While serving, file descriptor 1 and `sys.stdout` point to stderr, so a stray `print`
    (or a C library writing to stdout) cannot corrupt the protocol; only the peer writes to
    the real stdout. Both are restored when serving ends.
    """
    limit = (options or PeerOptions()).max_message_size
    async with stdio_transport(limit) as (reader, writer):
        async with Peer(reader, writer, root, options=options) as peer:
            await peer.wait_closed()


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
    # Pipes of our own rather than the subprocess transport's: the child's output is then
    # read through a `LineProtocol`, like every other transport (`connect_fds`).
    child_stdin, to_child = os.pipe()
    from_child, child_stdout = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=child_stdin,
            stdout=child_stdout,
            stderr=stderr,
            cwd=cwd,
            env=env,
        )
    except BaseException:
        for fd in (to_child, from_child):
            os.close(fd)
        raise
    finally:
        # The child has its own copies; ours would keep its stdin from ever ending.
        os.close(child_stdin)
        os.close(child_stdout)
    try:
        async with connect_fds(from_child, to_child, root, options=options) as peer:
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

    def __init__(self, server: asyncio.Server, peers: set[Peer], budget: InputBudget) -> None:
        self._server = server
        self._peers = peers
        #: The bound its connections share on buffered input; `held` and `peak` tell how
        #: much it holds and held at most.
        self.input_budget = budget

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


class _Accepted(LineProtocol):
    """The protocol of an accepted connection: tells the server once it is connected."""

    def __init__(
        self,
        max_line: int,
        on_connect: Callable[[LineProtocol], None],
        budget: InputBudget,
    ) -> None:
        super().__init__(max_line, budget)
        self._on_connect = on_connect

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._on_connect(self)


def _takes_peer(root_factory: RootFactory) -> bool:
    """Whether `root_factory` is to be given the connection's peer: it has a required
    positional parameter. More than one is a mistake, reported before anything listens."""
    try:
        parameters = inspect.signature(root_factory).parameters.values()
    except (TypeError, ValueError):
        return False  # no signature to read (some builtins): called without arguments
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    if len(required) > 1:
        names = ", ".join(p.name for p in required)
        raise TypeError(f"a root factory takes no argument or the connection's peer, not ({names})")
    return bool(required)


@contextlib.asynccontextmanager
async def _serve(
    listen: _Listen,
    root_factory: RootFactory,
    options: PeerOptions | None,
    max_buffered_input: int,
) -> AsyncIterator[RpcServer]:
    takes_peer = _takes_peer(root_factory)
    make_root = cast(Callable[[Peer], object], root_factory)
    loop = asyncio.get_running_loop()
    max_line = (options or PeerOptions()).max_message_size
    budget = InputBudget(max_buffered_input)
    peers: set[Peer] = set()
    serving: set[asyncio.Task[None]] = set()
    closing = False

    def on_connect(protocol: LineProtocol) -> None:
        if closing:
            protocol.close()
            return
        peer = Peer(protocol, TransportWriter(protocol), options=options)
        try:
            root = make_root(peer) if takes_peer else cast(Callable[[], object], make_root)()
            # Inside the guard: a root that implements no interface fails here.
            peer.serve_root(root)
        except Exception:
            # No root, no connection: close it rather than leave the client waiting (and
            # its lines piling up with no peer to take them).
            log.exception("the root factory failed; connection closed")
            protocol.close()
            return
        peers.add(peer)
        task = loop.create_task(run(peer))
        serving.add(task)
        task.add_done_callback(serving.discard)

    async def run(peer: Peer) -> None:
        try:
            async with peer:
                await peer.wait_closed()
        finally:
            peers.discard(peer)

    server = await listen(lambda: _Accepted(max_line, on_connect, budget))
    try:
        yield RpcServer(server, peers, budget)
    finally:
        closing = True
        server.close()
        await asyncio.gather(*(peer.close() for peer in list(peers)))
        if serving:
            await asyncio.wait(list(serving))
        await server.wait_closed()


def serve_tcp(
    root_factory: RootFactory,
    host: str | None,
    port: int,
    *,
    options: PeerOptions | None = None,
    max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
) -> contextlib.AbstractAsyncContextManager[RpcServer]:
    """Listen on `host:port`; leaving the block closes the listener and every connection.

    `max_buffered_input` bounds the bytes of incomplete messages held over all connections
    at once; past it, connections wait (docs/wire.md §11).
    """

    async def listen(factory: Callable[[], LineProtocol]) -> asyncio.Server:
        return await asyncio.get_running_loop().create_server(factory, host, port)

    return _serve(listen, root_factory, options, max_buffered_input)


def serve_unix(
    root_factory: RootFactory,
    path: str | os.PathLike[str],
    *,
    options: PeerOptions | None = None,
    max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
) -> contextlib.AbstractAsyncContextManager[RpcServer]:
    """Listen on the Unix socket `path`; leaving the block closes it and every connection.

    `max_buffered_input` bounds the bytes of incomplete messages held over all connections
    at once; past it, connections wait (docs/wire.md §11).
    """

    async def listen(factory: Callable[[], LineProtocol]) -> asyncio.Server:
        return await asyncio.get_running_loop().create_unix_server(factory, path)

    return _serve(listen, root_factory, options, max_buffered_input)


@contextlib.asynccontextmanager
async def connect_tcp(
    host: str,
    port: int,
    *,
    root: object | None = None,
    options: PeerOptions | None = None,
) -> AsyncIterator[Peer]:
    """A peer connected to a TCP server; `root` serves the server's calls back."""
    protocol = LineProtocol((options or PeerOptions()).max_message_size)
    await asyncio.get_running_loop().create_connection(lambda: protocol, host, port)
    async with Peer(protocol, TransportWriter(protocol), root, options=options) as peer:
        yield peer


@contextlib.asynccontextmanager
async def connect_unix(
    path: str | os.PathLike[str],
    *,
    root: object | None = None,
    options: PeerOptions | None = None,
) -> AsyncIterator[Peer]:
    """A peer connected to a Unix-socket server; `root` serves the server's calls back."""
    protocol = LineProtocol((options or PeerOptions()).max_message_size)
    await asyncio.get_running_loop().create_unix_connection(lambda: protocol, os.fspath(path))
    async with Peer(protocol, TransportWriter(protocol), root, options=options) as peer:
        yield peer
