"""The listening socket of a web server run inside a program (`serve_websocket`, and the ACP
SDK's `serve_acp`): bound before the server starts, so that a port in use raises `OSError`
at once, and read back for the address it ended up on (port 0 picks one).

`BoundedListener` is a listening socket that counts the TCP connections it accepted and
that are still open, and closes each one past `max_open` as it is accepted, before the
server has read a byte of it (docs/web.md, docs/acp-remote.md: `max_open_connections`).
It works with any server that accepts through the socket object it is given (asyncio's
`loop.create_server(sock=…)`, which hypercorn and uvicorn use on the default event loop):
silent and slow connections count, so they cannot take every descriptor of the process.
"""

from __future__ import annotations

import os
import socket
from typing import Any, Final

#: Connections the kernel completes and queues for the server to accept (the kernel caps it
#: at `net.core.somaxconn`). A burst past a full queue is not refused but delayed: the kernel
#: drops the handshake and TCP tries again a second later, so a connection past
#: `max_open_connections` would be closed only then. It is well above that bound, as
#: uvicorn's own default; hypercorn's (100) is not.
DEFAULT_LISTEN_BACKLOG: Final = 2048


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on `host` (IPv4, or IPv6 when it holds a `:`) and `port`, with
    the accept queue the servers are given (asyncio sets it again when serving starts)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=DEFAULT_LISTEN_BACKLOG)


def bound_address(listening: socket.socket) -> tuple[str, int, str]:
    """The host and port `listening` is bound to, and the two as a URL's authority
    (`[::1]:8000` for IPv6)."""
    address = listening.getsockname()
    host, port = str(address[0]), int(address[1])
    return host, port, f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class BoundedListener(socket.socket):
    """A copy of the listening socket `listening` (its own descriptor: whoever serves from
    it may close it) that keeps at most `max_open` accepted connections open.

    `accept()` returns connections whose `close()` gives their place back; one accepted
    while `max_open` are open is closed at once and the next one is tried, so the server
    never sees it (`BlockingIOError` once none waits, as for any non-blocking socket).
    """

    def __init__(self, listening: socket.socket, max_open: int) -> None:
        if max_open <= 0:
            raise ValueError(f"max_open_connections must be positive, not {max_open}")
        super().__init__(
            listening.family, listening.type, listening.proto, os.dup(listening.fileno())
        )
        self.max_open = max_open
        #: Connections accepted and not yet closed.
        self.open = 0
        #: Connections closed as they arrived because `max_open` were open.
        self.turned_away = 0

    def accept(self) -> tuple[socket.socket, Any]:
        while True:
            fd, address = self._accept()  # type: ignore[attr-defined]
            if self.open < self.max_open:
                break
            # Closed before anything is read: its descriptor is free again at once.
            os.close(fd)
            self.turned_away += 1
        connection = self._connection(fd)
        self.open += 1
        if socket.getdefaulttimeout() is None and self.gettimeout():
            connection.setblocking(True)  # as socket.accept does
        return connection, address

    def _connection(self, fd: int) -> CountedConnection:
        """The socket of an accepted connection (a subclass may count more of it)."""
        return CountedConnection(self, fd)

    def _closed_one(self) -> None:
        self.open -= 1


class CountedConnection(socket.socket):
    """An accepted connection that gives its place in its listener back when closed."""

    def __init__(self, listener: BoundedListener, fd: int) -> None:
        super().__init__(listener.family, listener.type, listener.proto, fd)
        self._listener: BoundedListener | None = listener

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener._closed_one()
        super().close()

    def detach(self) -> int:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener._closed_one()
        return super().detach()
