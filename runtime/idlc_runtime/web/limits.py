"""Time and connection limits of the uvicorn server `serve_websocket` runs (docs/web.md,
"Limits and timeouts").

uvicorn closes an idle connection only between requests (`timeout_keep_alive`): a client
that connects and sends nothing, or sends its request head a byte at a time (slow loris),
is kept for ever, and each holds a file descriptor. `DeadlineH11Protocol` closes a
connection whose request head is not complete `header_timeout` seconds after it connected,
and closes at once a connection past `max_open` (counted when it is accepted, before any
admission check, so silent connections count too). A WebSocket, once upgraded, is the
WebSocket protocol's, with its own pings; `budgeted_websocket_protocol` is uvicorn's
`websockets-sansio` protocol counting the frames it receives in the server's `FrameBudget`
(`idlc_runtime.web.frame_budget`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from idlc_runtime.web.frame_budget import MESSAGE_TOO_BIG, REFUSED_LINGER, FrameBudget
from idlc_runtime.web.listening import DEFAULT_LISTEN_BACKLOG

#: Seconds from connecting to a complete request head.
DEFAULT_HEADER_TIMEOUT: Final = 10.0
#: TCP connections open at once (of every kind: silent, slow, upgraded).
DEFAULT_MAX_OPEN_CONNECTIONS: Final = 512
#: uvicorn settings `serve_websocket` starts with (each can be given in `uvicorn_options`).
UVICORN_DEFAULTS: Final[dict[str, Any]] = {
    "backlog": DEFAULT_LISTEN_BACKLOG,
    "timeout_keep_alive": 5,
    # A request head (line and headers) larger than this is refused (h11's limit).
    "h11_max_incomplete_event_size": 16 * 1024,
    "ws_ping_interval": 20.0,
    "ws_ping_timeout": 20.0,
    # No permessage-deflate: the frame budget counts bytes as they arrive, and a compressed
    # frame takes up to a thousand times its size once inflated.
    "ws_per_message_deflate": False,
}


def deadline_protocol(header_timeout: float, max_open: int) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a request-head deadline and a bound on open connections."""
    if header_timeout <= 0:
        raise ValueError(f"header_timeout must be positive, not {header_timeout}")
    if max_open <= 0:
        raise ValueError(f"max_open_connections must be positive, not {max_open}")

    class DeadlineH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_open:
                # Closed before anything is read: its descriptor is free again at once.
                transport.abort()
                return
            self._idlc_deadline = self.loop.call_later(header_timeout, self._idlc_expire)

        def connection_lost(self, exc: Exception | None) -> None:
            deadline = getattr(self, "_idlc_deadline", None)
            if deadline is not None:
                deadline.cancel()
            super().connection_lost(exc)

        def _idlc_expire(self) -> None:
            # Upgraded to a WebSocket: the transport is another protocol's now.
            if self.transport.get_protocol() is not self:
                return
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

    return DeadlineH11Protocol


def budgeted_websocket_protocol(budget: FrameBudget) -> type[asyncio.Protocol]:
    """uvicorn's sans-I/O WebSocket protocol, holding its incomplete messages in `budget`.

    What arrived since the last complete message is what the protocol's parser holds for
    the message it is building: counted before the parser is given it, and back to zero
    once the message is complete (the application has it then; the read after it is
    paused until the application takes it). A connection the budget refuses is sent 1009
    and the end of the stream; what it still sends is read and dropped, so that the close
    frame is not lost to a reset, until it closes or `REFUSED_LINGER` seconds have passed.
    """

    class BudgetedWebSocketProtocol(WebSocketsSansIOProtocol):
        _idlc_assembling = 0
        _idlc_refused = False

        def data_received(self, data: bytes) -> None:
            if self._idlc_refused:
                return  # dropped: nothing more of it is parsed or held
            self._idlc_assembling += len(data)
            budget.update(self, self._idlc_assembling)
            if not self._idlc_refused:
                super().data_received(data)

        def send_receive_event_to_app(self) -> None:
            super().send_receive_event_to_app()
            self._idlc_assembling = 0
            budget.update(self, 0)

        def connection_lost(self, exc: Exception | None) -> None:
            budget.release(self)
            super().connection_lost(exc)

        def refuse_over_budget(self, reason: str) -> None:
            self._idlc_refused = True
            self._idlc_assembling = 0
            if self.close_sent or self.transport.is_closing():
                return
            if not self.handshake_complete:
                self.transport.close()
                return
            self.conn.fail(MESSAGE_TOO_BIG, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self.queue.put_nowait(
                {"type": "websocket.disconnect", "code": MESSAGE_TOO_BIG, "reason": reason}
            )
            # Reading goes on (and drops what it reads) until the client closes. uvicorn's
            # close timer, set, also keeps it from closing the transport (with unread input:
            # a reset, which can lose the close frame) when the application returns.
            if self.read_paused:
                self.read_paused = False
                self.transport.resume_reading()
            self.close_timer = self.loop.call_later(REFUSED_LINGER, self.transport.abort)

    return BudgetedWebSocketProtocol
