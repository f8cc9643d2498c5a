"""Serving a root factory over WebSocket: an ASGI application, and uvicorn to run it here.

`WebSocketServer` is the ASGI application (Starlette): each accepted WebSocket is one `Peer`
whose messages travel one per text frame (`idlc_runtime.transports.channel`), with the semantics of
every other transport (docs/wire.md). Before a connection is accepted, its `Origin` and the
authentication hook are checked, and a refusal is an HTTP response (docs/web.md).

`serve_websocket` runs that application under uvicorn inside the running event loop, on
127.0.0.1 unless told otherwise, as `serve_tcp` runs a TCP listener.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable, Collection, Generator, Mapping
from typing import Any, Final, cast

import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketState

from idlc_runtime.rpc.peer import Peer, PeerOptions
from idlc_runtime.transports.budget import InputBudget
from idlc_runtime.transports.channel import ChannelSource, ChannelWriter, Frame, frame_limit
from idlc_runtime.transports.endpoints import DEFAULT_MAX_BUFFERED_INPUT, RootFactory, _takes_peer
from idlc_runtime.web.admission import Authenticate, Refused, admit, served_hosts, server_host
from idlc_runtime.web.frame_budget import DEFAULT_FRAME_BUDGET, FrameBudget
from idlc_runtime.web.limits import (
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_OPEN_CONNECTIONS,
    UVICORN_DEFAULTS,
    budgeted_websocket_protocol,
    deadline_protocol,
)
from idlc_runtime.web.listening import bound_address, listen

log = logging.getLogger("idlc_runtime")

#: The close code for a connection whose root factory failed (RFC 6455: internal error).
INTERNAL_ERROR: Final = 1011


class WebSocketServer:
    """An ASGI application serving `root_factory` over WebSocket at `path`.

    Each accepted connection gets the root `root_factory` makes (given the connection's
    `Peer` if it takes one: docs/serving.md, "The connection's peer"); objects the factory
    keeps outside itself are shared by every connection. `allowed_origins` lists the browser
    origins admitted (requests without `Origin` come from programs and pass);
    `authenticate` sees each request's headers before it is accepted; `allowed_hosts` are
    the `Host` names served (default: the loopback names on a loopback address, docs/web.md,
    "Who gets in"). `max_connections`
    bounds the connections open at once (past it, upgrades are refused 503: uvicorn's
    `--limit-concurrency` does not count WebSockets); `max_buffered_input` bounds the bytes
    of frames held back over all connections (docs/wire.md §11).

    `endpoint` is the WebSocket endpoint alone, to route in an application of your own.
    """

    def __init__(
        self,
        root_factory: RootFactory,
        *,
        path: str = "/",
        options: PeerOptions | None = None,
        allowed_origins: Collection[str] = (),
        authenticate: Authenticate | None = None,
        max_connections: int | None = None,
        max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
        allowed_hosts: Collection[str] | None = None,
    ) -> None:
        if max_connections is not None and max_connections <= 0:
            raise ValueError(f"max_connections must be positive, not {max_connections}")
        self._max_connections = max_connections
        #: Connections admitted and not yet ended (counted before they are accepted, so
        #: that upgrades arriving together cannot all slip under the bound).
        self._admitted = 0
        self._takes_peer = _takes_peer(root_factory)
        self._root_factory = root_factory
        self._options = options
        self._max_message_size = (options or PeerOptions()).max_message_size
        self._allowed_origins = frozenset(allowed_origins)
        self._authenticate = authenticate
        self._allowed_hosts = None if allowed_hosts is None else tuple(allowed_hosts)
        self._peers: set[Peer] = set()
        #: The bound its connections share; `held` and `peak` tell how much it holds and
        #: held at most.
        self.input_budget = InputBudget(max_buffered_input)
        self._app = Starlette(routes=[WebSocketRoute(path, self.endpoint)], lifespan=self._lifespan)

    @property
    def peers(self) -> frozenset[Peer]:
        """The connections open now."""
        return frozenset(self._peers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        yield
        await self.close_all()

    async def close_all(self) -> None:
        """Close every open connection (the ASGI server's shutdown does it too)."""
        await asyncio.gather(*(peer.close() for peer in list(self._peers)))

    async def endpoint(self, websocket: WebSocket) -> None:
        """Serve one WebSocket: admit it or refuse it, then run its peer until it ends."""
        try:
            hosts = served_hosts(self._allowed_hosts, server_host(websocket.scope))
            await admit(websocket.headers, self._allowed_origins, self._authenticate, hosts)
            if self._max_connections is not None and self._admitted >= self._max_connections:
                raise Refused(503, "too many connections", {"Retry-After": "1"})
        except Refused as refusal:
            log.info("WebSocket refused (%d): %s", refusal.status, refusal.reason)
            await refuse_websocket(websocket, refusal)
            return
        self._admitted += 1
        try:
            await self._serve(websocket)
        finally:
            self._admitted -= 1

    async def _serve(self, websocket: WebSocket) -> None:
        """Accept an admitted WebSocket and run its peer until the connection ends."""
        await websocket.accept()
        source, writer = websocket_channel(websocket, self._max_message_size, self.input_budget)
        peer = Peer(source, writer, options=self._options)
        try:
            if self._takes_peer:
                root = cast(Callable[[Peer], object], self._root_factory)(peer)
            else:
                root = cast(Callable[[], object], self._root_factory)()
            # Inside the guard: a root that implements no interface fails here.
            peer.serve_root(root)
        except Exception:
            # No root, no connection: close it rather than leave the client waiting.
            log.exception("the root factory failed; connection closed")
            with contextlib.suppress(Exception):
                await websocket.close(INTERNAL_ERROR)
            await peer.close()
            await writer.wait_closed()
            return
        self._peers.add(peer)
        try:
            async with peer:
                await peer.wait_closed()
        finally:
            self._peers.discard(peer)


def websocket_channel(
    websocket: WebSocket, max_message_size: int, budget: InputBudget | None
) -> tuple[ChannelSource, ChannelWriter]:
    """The channel adapters of an accepted Starlette WebSocket (`idlc_runtime.transports.channel`): one
    message per frame; a binary frame is read as text would be, an empty one as nothing."""

    async def receive() -> Frame | None:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return None
        text: str | None = message.get("text")
        if text is not None:
            return text
        data: bytes | None = message.get("bytes")
        return data if data is not None else b""

    async def close() -> None:
        if websocket.application_state == WebSocketState.CONNECTED:
            await websocket.close()

    writer = ChannelWriter(websocket.send_text, close)
    return ChannelSource(receive, max_message_size, writer=writer, budget=budget), writer


async def refuse_websocket(websocket: WebSocket, refusal: Refused) -> None:
    """Answer the upgrade request with the refusal's status, before any WebSocket exists."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        response = PlainTextResponse(
            refusal.reason + "\n", status_code=refusal.status, headers=refusal.headers
        )
        await websocket.send_denial_response(response)
        # uvicorn's sans-I/O implementation counts the handshake as done only once the
        # closed transport is reported lost, a callback it has just scheduled; returning
        # before that logs a spurious "returned without completing handshake" error for
        # every refusal (uvicorn pull request 3138). One pass of the loop lets it run.
        await asyncio.sleep(0)
    else:
        # Without the denial-response extension, closing before accepting is the one way
        # to refuse: the server answers 403.
        await websocket.close(code=1008)


class _EmbeddedUvicorn(uvicorn.Server):
    """uvicorn inside a running program: the program keeps its own signal handling, and
    learns when the server accepts connections."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        # uvicorn would take SIGINT and SIGTERM and raise them again once stopped; the
        # program that embeds it decides what they do (`serve_websocket` is a block).
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class WebSocketListener:
    """A running `serve_websocket`: where it listens, and the application it serves."""

    def __init__(
        self, app: WebSocketServer, listening: socket.socket, path: str, frames: FrameBudget
    ) -> None:
        self.app = app
        #: The bytes of incomplete frames its connections hold (`held`, `peak`, `refused`).
        self.frame_budget = frames
        #: The host and the TCP port actually bound (useful with port 0).
        self.host, self.port, authority = bound_address(listening)
        #: The address clients connect to.
        self.url = f"ws://{authority}{path}"

    @property
    def peers(self) -> frozenset[Peer]:
        return self.app.peers

    @property
    def input_budget(self) -> InputBudget:
        return self.app.input_budget


@contextlib.asynccontextmanager
async def serve_websocket(
    root_factory: RootFactory,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    path: str = "/",
    options: PeerOptions | None = None,
    allowed_origins: Collection[str] = (),
    authenticate: Authenticate | None = None,
    max_connections: int | None = None,
    max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
    allowed_hosts: Collection[str] | None = None,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_open_connections: int = DEFAULT_MAX_OPEN_CONNECTIONS,
    frame_budget: int = DEFAULT_FRAME_BUDGET,
    uvicorn_options: Mapping[str, Any] | None = None,
) -> AsyncIterator[WebSocketListener]:
    """Serve `root_factory` over WebSocket at `ws://host:port/path` while the block runs.

    Runs a `WebSocketServer` under uvicorn in this event loop; leaving the block closes every
    connection and the listener. The socket is bound before the block starts, so a port in
    use raises `OSError` here. A connection whose request head is not complete within
    `header_timeout` seconds is closed, and one past `max_open_connections` open at once is
    closed as it arrives. The frames being received over all connections hold at most
    `frame_budget` bytes: past it, the connection holding the most is closed with 1009.
    `uvicorn_options` go to `uvicorn.Config` (timeouts, pings, TLS: docs/web.md, "Limits
    and timeouts").
    """
    frames = FrameBudget(frame_budget)
    app = WebSocketServer(
        root_factory,
        path=path,
        options=options,
        allowed_origins=allowed_origins,
        authenticate=authenticate,
        max_connections=max_connections,
        max_buffered_input=max_buffered_input,
        allowed_hosts=allowed_hosts,
    )
    listening = listen(host, port)
    settings: dict[str, Any] = {
        "log_level": "warning",
        # The sans-I/O implementation stops reading a connection until the application has
        # taken its last message: a peer at its handler bound holds its client back.
        "ws": budgeted_websocket_protocol(frames),
        "ws_max_size": frame_limit(options),
        "lifespan": "on",
        **UVICORN_DEFAULTS,
        "http": deadline_protocol(header_timeout, max_open_connections),
        **(uvicorn_options or {}),
    }
    server = _EmbeddedUvicorn(uvicorn.Config(app, **settings))
    serving = asyncio.get_running_loop().create_task(server.serve(sockets=[listening]))
    ready = asyncio.ensure_future(server.ready.wait())
    try:
        await asyncio.wait([serving, ready], return_when=asyncio.FIRST_COMPLETED)
        if not server.ready.is_set():
            serving.result()  # raises what stopped it
            raise RuntimeError("uvicorn stopped before it accepted connections")
        yield WebSocketListener(app, listening, path, frames)
    finally:
        ready.cancel()
        await app.close_all()
        server.should_exit = True
        await asyncio.wait([serving])
        listening.close()
