"""Notifications are handled in arrival order and an answer reaches its caller only after
the notifications that arrived before it, in both directions at once, on every transport
(in memory, pipes, TCP, Unix sockets, WebSocket; docs/wire.md §13) — and no drawn
interleaving deadlocks: notification handlers that call the other side and await the
answer get it, though it arrives behind later notifications. Through the public API only:
`Peer.request`, `Peer.notify` (the generated proxy), served objects."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_runtime import (
    Peer,
    connect_fds,
    connect_tcp,
    connect_unix,
    current_peer,
    memory_pair,
    serve_tcp,
    serve_unix,
)

from .sample_api import SampleProxy
from .support import SampleService

#: Bounds a hang (a deadlock would be one), not how long anything takes.
HANG = 60.0

#: One notification of a script: (loop turns its handler awaits, whether it calls the other
#: side and awaits the answer, whether it raises).
Step = tuple[int, bool, bool]


class Ordering(SampleService):
    """`echo(script)` sends the script's notifications to the caller, then answers; `event`
    records each notification after awaiting what its text says."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        #: What this side sent, in the order it wrote them.
        self.sent: list[str] = []
        #: What this side's `event` handlers finished, in the order they finished.
        self.handled: list[str] = []

    async def echo(self, input: list[str]) -> list[str]:
        caller = SampleProxy(current_peer())
        for text in input:
            self.sent.append(text)  # no await before the write: the wire's order
            await caller.event(text=text)
        return input

    async def event(self, *, text: str) -> None:
        _, turns, calls, raises = text.split(":")
        for _ in range(int(turns)):
            await asyncio.sleep(0)
        if calls == "1":
            assert await SampleProxy(current_peer()).ping() == "pong"
        self.handled.append(text)
        if raises == "1":
            raise RuntimeError("a failing handler does not stop the next")


def _texts(prefix: str, script: list[Step]) -> list[str]:
    return [
        f"{prefix}.{index}:{turns}:{int(calls)}:{int(raises)}"
        for index, (turns, calls, raises) in enumerate(script)
    ]


async def _exchange(
    caller: Peer, caller_side: Ordering, callee_side: Ordering, name: str, scripts: list[Any]
) -> None:
    """Ask the other side to send each script, several at once; check each answer."""

    async def one(index: int, script: list[Step]) -> None:
        texts = _texts(f"{name}{index}", script)
        assert await SampleProxy(caller).echo(texts) == texts
        # Everything the other side sent before this answer has been handled here, in the
        # order it was sent (its other scripts' notifications interleaved).
        handled = caller_side.handled
        assert set(texts) <= set(handled)
        assert handled == callee_side.sent[: len(handled)]

    await asyncio.gather(*(one(index, script) for index, script in enumerate(scripts)))


@contextlib.asynccontextmanager
async def _pair(transport: str, tmp: Path) -> AsyncIterator[tuple[Peer, Ordering, Peer, Ordering]]:
    a, b = Ordering("a"), Ordering("b")
    if transport == "memory":
        async with memory_pair(a, b) as (peer_a, peer_b):
            yield peer_a, a, peer_b, b
    elif transport == "pipes":
        a_read, b_write = os.pipe()
        b_read, a_write = os.pipe()
        async with connect_fds(a_read, a_write, a) as peer_a:
            async with connect_fds(b_read, b_write, b) as peer_b:
                yield peer_a, a, peer_b, b
    elif transport == "tcp":
        async with serve_tcp(lambda: b, "127.0.0.1", 0) as server:
            async with connect_tcp("127.0.0.1", server.port, root=a) as peer_a:
                while not server.peers:
                    await asyncio.sleep(0)
                (peer_b,) = server.peers
                yield peer_a, a, peer_b, b
    elif transport == "websocket":
        from idlc_runtime.web import connect_websocket, serve_websocket

        async with serve_websocket(lambda: b) as server:
            async with connect_websocket(server.url, root=a) as peer_a:
                while not server.peers:
                    await asyncio.sleep(0)
                (peer_b,) = server.peers
                yield peer_a, a, peer_b, b
    else:
        path = tmp / "order.sock"
        async with serve_unix(lambda: b, path) as server:
            async with connect_unix(path, root=a) as peer_a:
                while not server.peers:
                    await asyncio.sleep(0)
                (peer_b,) = server.peers
                yield peer_a, a, peer_b, b


async def _run(transport: str, tmp: Path, a_scripts: list[Any], b_scripts: list[Any]) -> None:
    async with _pair(transport, tmp) as (peer_a, a, peer_b, b):
        await asyncio.gather(
            _exchange(peer_a, a, b, "a", a_scripts), _exchange(peer_b, b, a, "b", b_scripts)
        )
        # Each side handled everything the other sent, exactly in the order it was sent.
        assert a.handled == b.sent
        assert b.handled == a.sent


#: Every transport a peer runs on here; streamable HTTP is ACP's (tests/acp/web).
TRANSPORTS = ["memory", "pipes", "tcp", "unix", "websocket"]

steps = st.tuples(st.integers(0, 3), st.booleans(), st.booleans())
scripts = st.lists(st.lists(steps, max_size=8), max_size=4)


@settings(max_examples=15, deadline=None)
@given(
    transport=st.sampled_from(TRANSPORTS),
    a_scripts=scripts,
    b_scripts=scripts,
)
def test_no_interleaving_reorders_or_deadlocks(
    tmp_path_factory: Any, transport: str, a_scripts: list[Any], b_scripts: list[Any]
) -> None:
    tmp = tmp_path_factory.mktemp("order")
    asyncio.run(asyncio.wait_for(_run(transport, tmp, a_scripts, b_scripts), HANG))


def test_every_transport_keeps_the_order_of_a_long_script(tmp_path: Path) -> None:
    script = [(index % 4, index % 7 == 0, index % 5 == 0) for index in range(60)]
    for transport in TRANSPORTS:
        asyncio.run(asyncio.wait_for(_run(transport, tmp_path, [script] * 3, [script]), HANG))


class Gated(SampleService):
    """`event("wait")` holds until `event("open")` has run."""

    def __init__(self) -> None:
        super().__init__()
        self.opened = asyncio.Event()
        self.log: list[str] = []

    async def event(self, *, text: str) -> None:
        if text == "wait":
            self.log.append("waiting")
            await self.opened.wait()
        else:
            self.opened.set()
        self.log.append(text)


def test_a_slow_notification_holds_the_later_ones_and_the_answer_after_them() -> None:
    async def body() -> None:
        service = Gated()
        async with memory_pair(None, service) as (client, server):
            proxy = SampleProxy(client)
            await proxy.event(text="wait")
            await proxy.event(text="later")
            # The server's `ping` answer waits behind nothing on the client; on the server,
            # "later" waits behind "wait", which nothing opens: so it is still held.
            assert await proxy.ping() == "pong"
            assert service.log == ["waiting"]
            service.opened.set()
            while len(service.log) < 3:
                await asyncio.sleep(0)
            assert service.log == ["waiting", "wait", "later"]

    asyncio.run(asyncio.wait_for(body(), HANG))


def test_a_notification_opted_out_runs_concurrently() -> None:
    from idlc_runtime import PeerOptions

    async def body() -> None:
        service = Gated()
        options = PeerOptions(concurrent_notifications=frozenset({"sample:event:notify"}))
        async with memory_pair(None, service, options=options) as (client, _server):
            proxy = SampleProxy(client)
            await proxy.event(text="wait")
            await proxy.event(text="open")  # runs while "wait" waits, and lets it go on
            while len(service.log) < 3:
                await asyncio.sleep(0)
            assert service.log == ["waiting", "open", "wait"]

    asyncio.run(asyncio.wait_for(body(), HANG))
