"""Fixtures for the example tests, which import the committed, uninstalled generated package."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

_GENERATED = str(Path(__file__).resolve().parents[2] / "generated")
if _GENERATED not in sys.path:
    sys.path.insert(0, _GENERATED)

import pytest  # noqa: E402
from quixos_harness import (  # noqa: E402
    TRANSPORTS,
    Connect,
    stdio_connection,
    tcp_connector,
    tcp_server,
)


@pytest.fixture(scope="module")
def tcp_address() -> Iterator[tuple[str, int]]:
    """One TCP server per test module; each connection to it has a directory of its own."""
    with tcp_server() as address:
        yield address


@pytest.fixture(params=TRANSPORTS)
def connect(request: pytest.FixtureRequest) -> Connect:
    """Opens a connection to a fresh directory: a new child on stdio, or a new TCP connection."""
    if request.param == "stdio":
        return stdio_connection
    host, port = request.getfixturevalue("tcp_address")
    return tcp_connector(host, port)
