"""Running remote ACP in this process: `serve_acp` runs `create_asgi_app` under hypercorn.

hypercorn speaks HTTP/1.1, HTTP/2 (h2c by prior knowledge on plain http, ALPN with TLS)
and WebSocket on one port, which is what docs/acp-remote.md asks of a streamable-HTTP
server. The socket is bound here, on 127.0.0.1 unless told otherwise, before the block
starts, so a port in use raises `OSError` at once and port 0 tells which port it got.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Collection
from typing import Any, Final

from hypercorn.asyncio import serve
from hypercorn.config import Config, Sockets

from idlc_acp.web.agents import AgentFactory
from idlc_acp.web.app import DEFAULT_BODY_TIMEOUT, AcpServer, create_asgi_app
from idlc_runtime import PeerOptions
from idlc_runtime.transports.channel import frame_limit
from idlc_runtime.transports.endpoints import DEFAULT_MAX_BUFFERED_INPUT
from idlc_runtime.web.admission import Authenticate
from idlc_runtime.web.frame_budget import DEFAULT_FRAME_BUDGET, FrameBudget
from idlc_runtime.web.limits import DEFAULT_MAX_OPEN_CONNECTIONS
from idlc_runtime.web.listening import (
    DEFAULT_LISTEN_BACKLOG,
    BoundedListener,
    bound_address,
    listen,
)
from idlc_runtime.web.metering import FrameMetering, MeteredListener

#: hypercorn settings `serve_acp` starts with (docs/acp-remote.md, "Limits and timeouts";
#: each can be given in `hypercorn_options`). hypercorn's `keep_alive_timeout` runs from
#: the connection's start until a request head is complete, so a silent or slow-loris
#: connection is closed after it; a trickled body is `body_timeout`'s. No `read_timeout`:
#: a client reading an SSE stream sends nothing, and it would be closed.
HYPERCORN_DEFAULTS: Final[dict[str, Any]] = {
    "backlog": DEFAULT_LISTEN_BACKLOG,
    "keep_alive_timeout": 5,
    "h11_max_incomplete_size": 16 * 1024,
    "h2_max_concurrent_streams": 100,
    "graceful_timeout": 3,
}


class _ListenerConfig(Config):
    """hypercorn's configuration, serving from one listening socket made here (a
    `BoundedListener`) instead of the sockets hypercorn would open from `bind`."""

    def __init__(self, listener: BoundedListener) -> None:
        super().__init__()
        self._listener = listener

    def create_sockets(self) -> Sockets:
        if self.ssl_enabled:
            return Sockets([self._listener], [], [])
        return Sockets([], [self._listener], [])


class AcpListener:
    """A running `serve_acp`: where it listens, and the application it serves."""

    def __init__(
        self, app: AcpServer, listening: socket.socket, path: str, frames: FrameBudget
    ) -> None:
        self.app = app
        #: The bytes of incomplete WebSocket frames its connections hold.
        self.frame_budget = frames
        #: The host and the TCP port actually bound (useful with port 0).
        self.host, self.port, authority = bound_address(listening)
        #: The streamable-HTTP address; `ws_url` is the same endpoint for WebSocket.
        self.url = f"http://{authority}{path}"
        self.ws_url = f"ws://{authority}{path}"


@contextlib.asynccontextmanager
async def serve_acp(
    agent_factory: AgentFactory | None,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    v2_factory: AgentFactory | None = None,
    path: str = "/acp",
    options: PeerOptions | None = None,
    allowed_origins: Collection[str] = (),
    authenticate: Authenticate | None = None,
    max_connections: int | None = None,
    idle_timeout: float | None = 300.0,
    allowed_hosts: Collection[str] | None = None,
    sse_ping_interval: float | None = 15.0,
    body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
    max_open_connections: int = DEFAULT_MAX_OPEN_CONNECTIONS,
    frame_budget: int = DEFAULT_FRAME_BUDGET,
    max_buffered_input: int = DEFAULT_MAX_BUFFERED_INPUT,
    hypercorn_options: dict[str, Any] | None = None,
) -> AsyncIterator[AcpListener]:
    """Serve `agent_factory()` per connection at `http://host:port/path` (and `ws://…`)
    while the block runs; leaving it closes every connection and the listener.

    With `v2_factory` (making an `idlc_acp.AgentV2`), each connection serves ACP v1 and
    the v2 draft, chosen by its first valid `initialize` (`create_asgi_app`);
    `agent_factory` may then be None for v2 alone.

    A TCP connection accepted while `max_open_connections` are open is closed at once,
    before hypercorn reads it (silent and slow ones count: hypercorn has no such bound).
    The WebSocket frames being received over all connections hold at most `frame_budget`
    bytes: past it, the connection holding the most is closed with 1009
    (`idlc_runtime.web.metering`).

    `hypercorn_options` set attributes of `hypercorn.config.Config` (TLS files, timeouts:
    docs/acp-remote.md, "Limits and timeouts").
    """
    app = create_asgi_app(
        agent_factory,
        v2_factory=v2_factory,
        path=path,
        options=options,
        allowed_origins=allowed_origins,
        authenticate=authenticate,
        max_connections=max_connections,
        idle_timeout=idle_timeout,
        allowed_hosts=allowed_hosts,
        sse_ping_interval=sse_ping_interval,
        body_timeout=body_timeout,
    )
    if max_open_connections <= 0:
        raise ValueError(f"max_open_connections must be positive, not {max_open_connections}")
    frames = FrameBudget(frame_budget)
    listening = listen(host, port)
    # hypercorn owns (and closes) the socket it is given: it gets a copy of ours.
    listener = MeteredListener(listening, max_open_connections, frames)
    config = _ListenerConfig(listener)
    config.accesslog = None
    config.errorlog = logging.getLogger("hypercorn.error")
    # A POST body or a WebSocket frame may be as long as a message may be.
    # (a little longer: a frame just over the limit is answered, as docs/wire.md §8 says).
    config.websocket_max_message_size = frame_limit(options)
    for name, value in HYPERCORN_DEFAULTS.items():
        setattr(config, name, value)
    for name, value in (hypercorn_options or {}).items():
        setattr(config, name, value)
    stop = asyncio.Event()
    serving = asyncio.get_running_loop().create_task(
        serve(FrameMetering(app, listener), config, shutdown_trigger=stop.wait)  # type: ignore[arg-type]
    )
    started = asyncio.ensure_future(app.started.wait())
    try:
        await asyncio.wait([serving, started], return_when=asyncio.FIRST_COMPLETED)
        if not app.started.is_set():
            serving.result()  # raises what stopped it
            raise RuntimeError("hypercorn stopped before it accepted connections")
        yield AcpListener(app, listening, path, frames)
    finally:
        started.cancel()
        await app.close_all()
        stop.set()
        await asyncio.wait([serving])
        listening.close()
