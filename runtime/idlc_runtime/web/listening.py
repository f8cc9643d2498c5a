"""The listening socket of a web server run inside a program (`serve_websocket`, and the ACP
SDK's `serve_acp`): bound before the server starts, so that a port in use raises `OSError`
at once, and read back for the address it ended up on (port 0 picks one)."""

from __future__ import annotations

import socket


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on `host` (IPv4, or IPv6 when it holds a `:`) and `port`."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family)


def bound_address(listening: socket.socket) -> tuple[str, int, str]:
    """The host and port `listening` is bound to, and the two as a URL's authority
    (`[::1]:8000` for IPv6)."""
    address = listening.getsockname()
    host, port = str(address[0]), int(address[1])
    return host, port, f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
