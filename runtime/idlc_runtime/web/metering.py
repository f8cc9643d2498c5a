"""Holding a WebSocket's incomplete messages in a `FrameBudget` under a server with no
protocol to hook (hypercorn, which `serve_acp` runs): counted at the socket, refused at the
ASGI boundary.

hypercorn assembles each message (wsproto, then a buffer up to `websocket_max_message_size`)
and queues complete ones for the application, all before the application is called, and it
lets nothing replace that code. What it cannot hide is the socket it reads from:
`MeteredListener` is a `BoundedListener` whose connections count the bytes they receive.
`FrameMetering` is the ASGI middleware that ties a WebSocket to its connection (by the
client's address, which hypercorn takes from the socket) and so to a meter in the budget:

- every byte the connection receives once its WebSocket has begun counts, until the
  application takes the message it was part of (its size, and a frame header, are then
  taken off: frame headers of fragments and control frames count until the connection
  ends, a few bytes each);
- a meter the budget refuses sends the client `websocket.close` with 1009 and the
  budget's reason, and gives the application `websocket.disconnect` (1009) at once; once
  that close is sent, the socket reads as ended, so hypercorn closes the connection rather
  than assemble more of the frame. If the close cannot be sent (the client reads nothing),
  the socket ends anyway after `REFUSED_GRACE` more bytes.

Compressed frames (permessage-deflate, which hypercorn always accepts) count at their size
on the wire. A WebSocket whose connection is not found (another event loop than asyncio's,
whose sockets are not these) is served uncounted.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from idlc_runtime.web.frame_budget import MESSAGE_TOO_BIG, FrameBudget
from idlc_runtime.web.listening import BoundedListener, CountedConnection

#: Bytes a refused connection may still deliver before its socket reads as ended, if the
#: close could not be sent by then.
REFUSED_GRACE: Final = 256 * 1024

_Peer = tuple[Any, ...]


def _header_size(payload: int) -> int:
    """The size of a client's (masked) frame header for a payload this long."""
    return 6 if payload < 126 else 8 if payload < 65536 else 14


class FrameMeter:
    """The bytes one WebSocket's connection received that the application has not taken:
    a `FrameHolder` of the server's budget."""

    def __init__(self, budget: FrameBudget) -> None:
        self._budget = budget
        self.held = 0
        #: The budget's reason once it refused this connection.
        self.reason: str | None = None
        self.refused = asyncio.Event()
        #: Set once the socket must read as ended.
        self.cut = False
        self._stopped = False
        self._grace = REFUSED_GRACE

    def received(self, count: int) -> None:
        if self._stopped:
            return
        if self.reason is not None:
            self._grace -= count
            if self._grace <= 0:
                self.cut = True
            return
        self.held += count
        self._budget.update(self, self.held)

    def delivered(self, message: Message) -> None:
        """The application took `message` (a `websocket.receive`)."""
        if self.reason is not None or self._stopped:
            return
        data = message.get("bytes")
        if data is None:
            text = message.get("text") or ""
            size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        else:
            size = len(data)
        self.held = max(self.held - size - _header_size(size), 0)
        self._budget.update(self, self.held)

    def refuse_over_budget(self, reason: str) -> None:
        self.reason = reason
        self.held = 0
        self.refused.set()

    def stop(self) -> None:
        """The WebSocket has ended: nothing more counts."""
        self._stopped = True
        self._budget.release(self)


class MeteredConnection(CountedConnection):
    """An accepted connection that tells its meter (once it has one) what it receives."""

    def __init__(self, listener: MeteredListener, fd: int) -> None:
        super().__init__(listener, fd)
        self.meter: FrameMeter | None = None
        self._metered_by: MeteredListener | None = listener
        try:
            self.peer: _Peer | None = tuple(self.getpeername()[:2])
        except OSError:
            self.peer = None
        if self.peer is not None:
            listener.connections[self.peer] = self

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        meter = self.meter
        if meter is not None and meter.cut:
            return b""
        data = super().recv(bufsize, flags)
        if meter is not None and data:
            meter.received(len(data))
        return data

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        meter = self.meter
        if meter is not None and meter.cut:
            return 0
        count = super().recv_into(buffer, nbytes, flags)
        if meter is not None and count:
            meter.received(count)
        return count

    def close(self) -> None:
        self._forget()
        super().close()

    def detach(self) -> int:
        self._forget()
        return super().detach()

    def _forget(self) -> None:
        listener, self._metered_by = self._metered_by, None
        if listener is not None and self.peer is not None:
            if listener.connections.get(self.peer) is self:
                del listener.connections[self.peer]
        if self.meter is not None:
            self.meter.stop()


class MeteredListener(BoundedListener):
    """A `BoundedListener` whose connections count what they receive into `budget`."""

    def __init__(self, listening: Any, max_open: int, budget: FrameBudget) -> None:
        super().__init__(listening, max_open)
        self.budget = budget
        #: Open connections by the client's address (host, port).
        self.connections: dict[_Peer, MeteredConnection] = {}

    def _connection(self, fd: int) -> CountedConnection:
        return MeteredConnection(self, fd)


class FrameMetering:
    """ASGI middleware holding each WebSocket of `listener`'s connections in its budget."""

    def __init__(self, app: ASGIApp, listener: MeteredListener) -> None:
        self.app = app
        self.listener = listener

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client") if scope["type"] == "websocket" else None
        connection = self.listener.connections.get(tuple(client)) if client else None
        if connection is None or connection.meter is not None:
            await self.app(scope, receive, send)
            return
        meter = connection.meter = FrameMeter(self.listener.budget)
        closing = False

        async def refuse() -> None:
            nonlocal closing
            await meter.refused.wait()
            closing = True
            try:
                close = {"type": "websocket.close", "code": MESSAGE_TOO_BIG}
                await send({**close, "reason": meter.reason})
            finally:
                meter.cut = True  # hypercorn reads the end next, and closes

        async def metered_receive() -> Message:
            if not closing:
                receiving = asyncio.ensure_future(receive())
                refused = asyncio.ensure_future(meter.refused.wait())
                try:
                    await asyncio.wait([receiving, refused], return_when=asyncio.FIRST_COMPLETED)
                except asyncio.CancelledError:
                    receiving.cancel()
                    raise
                finally:
                    refused.cancel()
                if receiving.done():
                    message = receiving.result()
                    if message["type"] == "websocket.receive":
                        meter.delivered(message)
                    return message
                receiving.cancel()
            return {"type": "websocket.disconnect", "code": MESSAGE_TOO_BIG, "reason": meter.reason}

        async def metered_send(message: Message) -> None:
            if not closing:  # past the refusal, the connection is closing
                await send(message)

        refusing = asyncio.ensure_future(refuse())
        try:
            await self.app(scope, metered_receive, metered_send)
        finally:
            if not meter.refused.is_set():
                refusing.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await refusing
            meter.stop()
