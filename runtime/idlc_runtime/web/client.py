"""Calling a WebSocket server: `connect_websocket(url)` gives a started `Peer`, on `websockets`.

Messages travel one per text frame (`idlc_runtime.transports.channel`), with the semantics of every
other transport (docs/wire.md). An upgrade the server refuses raises `Refused` with its
HTTP status (docs/web.md, "Who gets in").
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping

from websockets.asyncio.client import connect
from websockets.exceptions import (
    ConnectionClosedError,
    ConnectionClosedOK,
    InvalidHandshake,
    InvalidStatus,
    InvalidURI,
)

from idlc_runtime.rpc.peer import Peer, PeerOptions
from idlc_runtime.transports.channel import ChannelSource, ChannelWriter, Frame, frame_limit
from idlc_runtime.web.admission import Refused


@contextlib.asynccontextmanager
async def connect_websocket(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    root: object | None = None,
    options: PeerOptions | None = None,
    open_timeout: float | None = 10.0,
    on_response: Callable[[list[tuple[str, str]]], None] | None = None,
) -> AsyncIterator[Peer]:
    """A peer connected to the WebSocket server at `url` (`ws://` or `wss://`).

    `headers` are sent with the upgrade request (`Authorization`, for one); `root` serves
    the server's calls back; `on_response` sees the headers of the server's upgrade
    response (its cookies, for one). Leaving the block closes the connection.

    Raises `Refused` when the server turns the upgrade away (401, 403), `ValueError` for
    a URL that is not `ws://` or `wss://`, and `OSError` when nothing (or nothing that
    speaks WebSocket) answers.
    """
    try:
        connection = await connect(
            url,
            additional_headers=dict(headers or {}),
            max_size=frame_limit(options),
            # Frames the peer has not taken yet: past these, the socket is not read.
            max_queue=4,
            open_timeout=open_timeout,
        )
    except InvalidStatus as error:
        response = error.response
        reason = response.body.decode("utf-8", "replace").strip() if response.body else ""
        raise Refused(response.status_code, reason or response.reason_phrase) from None
    except InvalidURI as error:
        raise ValueError(f"not a WebSocket URL: {url!r} ({error})") from None
    except InvalidHandshake as error:
        # Something answered that does not speak WebSocket: as good as no server there.
        raise ConnectionError(f"no WebSocket server at {url}: {error}") from error

    if on_response is not None and connection.response is not None:
        on_response(list(connection.response.headers.raw_items()))

    async def receive() -> Frame | None:
        try:
            return await connection.recv()
        except ConnectionClosedOK:
            return None
        except ConnectionClosedError as error:
            raise ConnectionResetError(f"the WebSocket closed: {error}") from error

    writer = ChannelWriter(connection.send, connection.close)
    source = ChannelSource(receive, (options or PeerOptions()).max_message_size, writer=writer)
    try:
        async with Peer(source, writer, root, options=options) as peer:
            yield peer
    finally:
        await connection.close()
