"""Leaving a connection block closes it promptly, even when the block never awaited
(docs/wire.md §10): the peer's reading task had not begun, and closing used to wait on it
for ever."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest

from idlc_runtime import (
    Peer,
    connect_tcp,
    connect_unix,
    memory_pair,
    serve_tcp,
    serve_unix,
    spawn,
)

from .support import SampleService, run_async
from .test_transports import SERVER_SCRIPT, _child_env

#: Generous: a regression fails here instead of hanging the suite.
CLOSE_BOUND = 10.0


@asynccontextmanager
async def _memory() -> AsyncIterator[Peer]:
    async with memory_pair(None, SampleService()) as (client, _):
        yield client


@asynccontextmanager
async def _spawned() -> AsyncIterator[Peer]:
    async with spawn([sys.executable, SERVER_SCRIPT], env=_child_env()) as peer:
        yield peer


@asynccontextmanager
async def _tcp() -> AsyncIterator[Peer]:
    async with serve_tcp(SampleService, "127.0.0.1", 0) as server:
        async with connect_tcp("127.0.0.1", server.port) as peer:
            yield peer


@asynccontextmanager
async def _unix(tmp_path: Path) -> AsyncIterator[Peer]:
    path = tmp_path / "s.sock"
    async with serve_unix(SampleService, path) as server:
        async with connect_unix(path) as peer:
            yield peer
        assert server.sockets


Connect = Callable[[Path], AbstractAsyncContextManager[Peer]]
CONNECTIONS: list[tuple[str, Connect]] = [
    ("memory", lambda _: _memory()),
    ("spawn", lambda _: _spawned()),
    ("tcp", lambda _: _tcp()),
    ("unix", _unix),
]


@pytest.mark.parametrize(("name", "connect"), CONNECTIONS, ids=[c[0] for c in CONNECTIONS])
@run_async
async def test_an_empty_block_closes_promptly(name: str, connect: Connect, tmp_path: Path) -> None:
    async with asyncio.timeout(CLOSE_BOUND):
        async with connect(tmp_path) as peer:
            pass
    assert peer.closed


@pytest.mark.parametrize(("name", "connect"), CONNECTIONS, ids=[c[0] for c in CONNECTIONS])
@run_async
async def test_a_block_that_only_notifies_closes_promptly(
    name: str, connect: Connect, tmp_path: Path
) -> None:
    async with asyncio.timeout(CLOSE_BOUND):
        async with connect(tmp_path) as peer:
            await peer.notify("sample:event:notify", {"text": "hi"})
    assert peer.closed


@pytest.mark.parametrize(("name", "connect"), CONNECTIONS, ids=[c[0] for c in CONNECTIONS])
@run_async
async def test_an_exception_before_any_await_surfaces(
    name: str, connect: Connect, tmp_path: Path
) -> None:
    with pytest.raises(LookupError, match="from the block"):
        async with asyncio.timeout(CLOSE_BOUND):
            async with connect(tmp_path):
                raise LookupError("from the block")


@run_async
async def test_a_started_peer_closed_at_once_closes_promptly() -> None:
    async with memory_pair(None, SampleService()) as (client, _):
        async with asyncio.timeout(CLOSE_BOUND):
            await client.close()
        assert client.closed
