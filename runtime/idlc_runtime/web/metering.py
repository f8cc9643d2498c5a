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
  budget's reason, and gives the application `websocket.disconnect` (1009) at once; from
  then on the socket drops what it reads (hypercorn assembles nothing more), and when
  hypercorn closes it, it sends the end of the stream and goes on reading and dropping
  until the client closes or `REFUSED_LINGER` seconds have passed: closing with unread
  input would reset the connection, and the reset can lose the close frame on its way.

Compressed frames (permessage-deflate, which hypercorn always accepts) count at their size
on the wire. A WebSocket whose connection is not found (another event loop than asyncio's,
whose sockets are not these) is served uncounted.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from idlc_runtime.web.frame_budget import MESSAGE_TOO_BIG, REFUSED_LINGER, FrameBudget
from idlc_runtime.web.listening import BoundedListener, CountedConnection

_Peer = tuple[Any, ...]


def _header_size(payload: int) -> int:
    """The size of a client's (masked) frame header for a payload this long."""
    return 6 if payload < 126 else 8 if payload < 65536 else 14


class FrameMeter:
    """The bytes one WebSocket's connection received that the application has not taken:
    a `FrameHolder` of the server's budget."""

    def __init__(self, budget: FrameBudget, on_refused: Callable[[], None]) -> None:
        self._budget = budget
        self._on_refused = on_refused
        self.held = 0
        #: The budget's reason once it refused this connection.
        self.reason: str | None = None
        self.refused = asyncio.Event()
        self._stopped = False

    def received(self, count: int) -> None:
        if self._stopped or self.reason is not None:
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
        self._on_refused()

    def stop(self) -> None:
        """The WebSocket has ended: nothing more counts."""
        self._stopped = True
        self._budget.release(self)


class MeteredConnection(CountedConnection):
    """An accepted connection that tells its meter (once it has one) what it receives."""

    def __init__(self, listener: MeteredListener, fd: int) -> None:
        super().__init__(listener, fd)
        self.meter: FrameMeter | None = None
        self._lingered = False
        self._metered_by: MeteredListener | None = listener
        try:
            self.peer: _Peer | None = tuple(self.getpeername()[:2])
        except OSError:
            self.peer = None
        if self.peer is not None:
            listener.connections[self.peer] = self

    def start_metering(self, budget: FrameBudget) -> FrameMeter:
        self.meter = FrameMeter(budget, self._refused)
        return self.meter

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        meter = self.meter
        if meter is not None and meter.reason is not None:
            self._drop_input()
            return b""
        data = super().recv(bufsize, flags)
        if meter is not None and data:
            meter.received(len(data))
        return data

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        meter = self.meter
        if meter is not None and meter.reason is not None:
            self._drop_input()
            return 0
        count = super().recv_into(buffer, nbytes, flags)
        if meter is not None and count:
            meter.received(count)
        return count

    def _drop_input(self) -> None:
        """Read and drop what the refused client sends, and return at its end. Raises
        `BlockingIOError` once nothing more waits, which the event loop takes as "nothing
        to read now": the server sees neither the dropped bytes nor a false end."""
        while super().recv(65536):
            pass

    def _refused(self) -> None:
        loop = asyncio.get_running_loop()
        self._linger: asyncio.TimerHandle | None = loop.call_later(REFUSED_LINGER, self._shut_down)

    def _shut_down(self) -> None:
        # The end the server reads next: it closes the connection.
        with contextlib.suppress(OSError):
            self.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        meter = self.meter
        if meter is not None and meter.reason is not None and not self._lingered:
            # Refused: hypercorn closes as soon as its application returns, and closing
            # with unread input resets the connection, which can lose the close frame on
            # its way. The end of the stream is sent instead, and what the client still
            # sends is read and dropped until it closes or REFUSED_LINGER passes.
            self._lingered = True
            with contextlib.suppress(OSError, RuntimeError):  # (RuntimeError: no loop)
                self.shutdown(socket.SHUT_WR)
                loop = asyncio.get_running_loop()
                loop.add_reader(self.fileno(), self._drain_until_end, loop)
                self._linger_end = loop.call_later(REFUSED_LINGER, self._end_linger, loop)
                return
        self._forget()
        super().close()

    def _drain_until_end(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            self._drop_input()
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pass
        self._end_linger(loop)

    def _end_linger(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.fileno() < 0:
            return
        loop.remove_reader(self.fileno())
        self._linger_end.cancel()
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
        linger = getattr(self, "_linger", None)
        if linger is not None:
            linger.cancel()


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
        meter = connection.start_metering(self.listener.budget)
        closing = False

        async def refuse() -> None:
            nonlocal closing
            await meter.refused.wait()
            closing = True
            close = {"type": "websocket.close", "code": MESSAGE_TOO_BIG}
            await send({**close, "reason": meter.reason})

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
