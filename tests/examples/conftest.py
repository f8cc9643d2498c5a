"""Fixtures for the example tests, which import the committed, uninstalled generated package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from quixos_harness import (
    TRANSPORTS,
    Connect,
    stdio_connection,
    tcp_connector,
    tcp_server,
    websocket_connector,
    websocket_server,
)


@pytest.fixture(scope="module")
def tcp_address() -> Iterator[tuple[str, int]]:
    """One TCP server per test module; each connection to it has a directory of its own."""
    with tcp_server() as address:
        yield address


@pytest.fixture(scope="module")
def websocket_url() -> Iterator[str]:
    """One WebSocket server per test module, like `tcp_address`."""
    with websocket_server() as url:
        yield url


@pytest.fixture(params=TRANSPORTS)
def connect(request: pytest.FixtureRequest) -> Connect:
    """Opens a connection to a fresh directory: a new child on stdio, or a new TCP or
    WebSocket connection."""
    if request.param == "stdio":
        return stdio_connection
    if request.param == "websocket":
        return websocket_connector(request.getfixturevalue("websocket_url"))
    host, port = request.getfixturevalue("tcp_address")
    return tcp_connector(host, port)
