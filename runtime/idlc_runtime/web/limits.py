"""Time and connection limits of the uvicorn server `serve_websocket` runs (docs/web.md,
"Limits and timeouts").

uvicorn closes an idle connection only between requests (`timeout_keep_alive`): a client
that connects and sends nothing, or sends its request head a byte at a time (slow loris),
is kept for ever, and each holds a file descriptor. `DeadlineH11Protocol` closes a
connection whose request head is not complete `header_timeout` seconds after it connected,
and closes at once a connection past `max_open` (counted when it is accepted, before any
admission check, so silent connections count too). A WebSocket, once upgraded, is the
WebSocket protocol's, with its own pings.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds from connecting to a complete request head.
DEFAULT_HEADER_TIMEOUT: Final = 10.0
#: TCP connections open at once (of every kind: silent, slow, upgraded).
DEFAULT_MAX_OPEN_CONNECTIONS: Final = 512
#: uvicorn settings `serve_websocket` starts with (each can be given in `uvicorn_options`).
UVICORN_DEFAULTS: Final[dict[str, Any]] = {
    "timeout_keep_alive": 5,
    # A request head (line and headers) larger than this is refused (h11's limit).
    "h11_max_incomplete_event_size": 16 * 1024,
    "ws_ping_interval": 20.0,
    "ws_ping_timeout": 20.0,
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
