"""A server's root factory may take the connection's `Peer` (docs/serving.md, "The
connection's peer"); zero-argument factories keep working."""

from __future__ import annotations

from pathlib import Path

import pytest

from idlc_runtime import Peer, connect_tcp, connect_unix, current_peer, serve_tcp, serve_unix

from .sample_api import ItemProxy, SampleProxy
from .support import NamedItem, SampleService, run_async, within


@run_async
async def test_a_factory_taking_the_peer_shares_keyed_objects_across_connections() -> None:
    shared = NamedItem("shared")
    given: list[Peer] = []

    def make_root(peer: Peer) -> SampleService:
        given.append(peer)
        peer.register("board", shared)
        return SampleService()

    async with serve_tcp(make_root, "127.0.0.1", 0) as server:
        async with (
            connect_tcp("127.0.0.1", server.port) as first,
            connect_tcp("127.0.0.1", server.port) as second,
        ):
            await within(ItemProxy(first, "board").rename(name="renamed by the first"))
            assert await within(ItemProxy(second, "board").name()) == "renamed by the first"
            # Each connection still has a root of its own.
            assert await within(SampleProxy(first).add(amount=2)) == 2
            assert await within(SampleProxy(second).add(amount=5)) == 5
            assert set(given) == set(server.peers) and len(given) == 2


class PeerAware(SampleService):
    """A root built with its connection's peer, which it checks against `current_peer()`."""

    def __init__(self, peer: Peer) -> None:
        super().__init__()
        self.peer = peer

    async def ping(self) -> str:
        return "same peer" if current_peer() is self.peer else "another peer"


@run_async
async def test_a_class_whose_constructor_takes_the_peer_gets_it(tmp_path: Path) -> None:
    async with serve_unix(PeerAware, tmp_path / "rpc.sock"):
        async with connect_unix(tmp_path / "rpc.sock") as client:
            assert await within(SampleProxy(client).ping()) == "same peer"


@run_async
async def test_factories_without_a_required_parameter_are_called_without_one() -> None:
    calls: list[object] = []

    def make_root(label: object = "default") -> SampleService:
        calls.append(label)
        return SampleService()

    async with serve_tcp(make_root, "127.0.0.1", 0) as server:
        async with connect_tcp("127.0.0.1", server.port) as client:
            assert await within(SampleProxy(client).ping()) == "pong"
    async with serve_tcp(SampleService, "127.0.0.1", 0) as server:
        async with connect_tcp("127.0.0.1", server.port) as client:
            assert await within(SampleProxy(client).ping()) == "pong"
    assert calls == ["default"]


@run_async
async def test_a_factory_wanting_more_than_the_peer_is_refused_before_listening() -> None:
    def make_root(peer: Peer, extra: object) -> SampleService:
        raise AssertionError("never called")

    with pytest.raises(
        TypeError,
        match=r"root factory takes no argument or the connection's peer, not \(peer, extra\)",
    ):
        async with serve_tcp(make_root, "127.0.0.1", 0):  # type: ignore[arg-type]
            raise AssertionError("it must not listen")


@run_async
async def test_a_failing_factory_given_the_peer_closes_only_that_connection() -> None:
    attempts: list[Peer] = []

    def make_root(peer: Peer) -> SampleService:
        attempts.append(peer)
        if len(attempts) == 1:
            raise RuntimeError("no root for the first")
        return SampleService()

    async with serve_tcp(make_root, "127.0.0.1", 0) as server:
        async with connect_tcp("127.0.0.1", server.port) as refused:
            await within(refused.wait_closed())
        async with connect_tcp("127.0.0.1", server.port) as client:
            assert await within(SampleProxy(client).ping()) == "pong"
