"""Any generated interface over WebSocket, served by uvicorn on 127.0.0.1 (docs/web.md).

Real servers (`serve_websocket` runs uvicorn in the test's loop, port 0) and real clients:
`connect_websocket`, or a raw `websockets` connection for what travels in the frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from idlc_runtime import ConnectionClosed, Peer, PeerOptions, RpcError
from idlc_runtime.web import connect_websocket, serve_websocket

from ..sample_api import ItemProxy, SampleProxy
from ..support import NamedItem, SampleService, run_async, within


class RawFrames:
    """Speaks frames to a served peer, to test what travels on the wire."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self._next_id = 10_000

    async def send(self, frame: str | bytes) -> None:
        await self.connection.send(frame)

    async def receive(self) -> Any:
        return json.loads(await within(self.connection.recv()))

    async def assert_still_serving(self) -> None:
        """The next frame must answer a fresh ping: nothing else was pending."""
        self._next_id += 1
        await self.send(
            json.dumps({"jsonrpc": "2.0", "id": self._next_id, "method": "sample:ping:get"})
        )
        assert await self.receive() == {"jsonrpc": "2.0", "id": self._next_id, "result": "pong"}


@contextlib.asynccontextmanager
async def raw_frames(url: str) -> AsyncIterator[RawFrames]:
    async with connect(url) as connection:
        yield RawFrames(connection)


@run_async
async def test_calls_and_keyed_objects_shared_across_connections() -> None:
    shared = NamedItem("shared")
    given: list[Peer] = []

    def make_root(peer: Peer) -> SampleService:
        given.append(peer)
        peer.register("board", shared)
        return SampleService()

    async with serve_websocket(make_root) as server:
        assert server.url == f"ws://127.0.0.1:{server.port}/"
        async with connect_websocket(server.url) as first, connect_websocket(server.url) as second:
            await within(ItemProxy(first, "board").rename(name="renamed by the first"))
            assert await within(ItemProxy(second, "board").name()) == "renamed by the first"
            # Each connection has a root of its own.
            assert await within(SampleProxy(first).add(amount=2)) == 2
            assert await within(SampleProxy(second).add(amount=5)) == 5
            assert await within(SampleProxy(first).echo(["a", "b"])) == ["b", "a"]
            assert set(given) == set(server.peers) and len(given) == 2


@run_async
async def test_notifications_both_ways() -> None:
    root = SampleService()
    client_root = SampleService()
    async with serve_websocket(lambda: root) as server:
        async with connect_websocket(server.url, root=client_root) as peer:
            await within(SampleProxy(peer).event(text="to the server"))
            assert await root.wait_for_events(1) == ["to the server"]
            # `chatter` notifies its caller `count` times before it answers.
            assert await within(SampleProxy(peer).chatter(count=3)) == 3
            assert await client_root.wait_for_events(3) == ["0", "1", "2"]


class CallsBack(SampleService):
    """Calls its client's `holdWrite` from inside a handler, and reports how that ended."""

    def __init__(self, peer: Peer) -> None:
        super().__init__()
        self.peer = peer
        self.outcome: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def ping(self) -> str:
        call = asyncio.ensure_future(SampleProxy(self.peer).hold_write(gate_key="client"))
        self.started["server asks"].set()
        try:
            return await call
        except asyncio.CancelledError:
            self.outcome.set_result("cancelled")
            raise


@run_async
async def test_cancellation_both_ways() -> None:
    roots: list[CallsBack] = []

    def make_root(peer: Peer) -> CallsBack:
        roots.append(CallsBack(peer))
        return roots[-1]

    client_root = SampleService()
    async with serve_websocket(make_root) as server:
        async with connect_websocket(server.url, root=client_root) as peer:
            # The client gives up: the server's handler is cancelled.
            call = asyncio.ensure_future(SampleProxy(peer).hold_write(gate_key="server"))
            [root] = roots
            await within(root.started["server"].wait())
            call.cancel()
            await within(root.cancelled_event("server"))
            # The server gives up on its call to the client: the client's handler is
            # cancelled (the server's handler is cancelled by the client cancelling ping).
            ping = asyncio.ensure_future(SampleProxy(peer).ping())
            await within(client_root.started["client"].wait())
            ping.cancel()
            assert await within(root.outcome) == "cancelled"
            await within(client_root.cancelled_event("client"))
            assert await within(SampleProxy(peer).add(amount=1)) == 1


@run_async
async def test_malformed_binary_multiline_and_batch_frames_are_answered_without_closing() -> None:
    async with serve_websocket(SampleService) as server, raw_frames(server.url) as raw:
        await raw.send("{not json")
        answer = await raw.receive()
        assert answer["id"] is None and answer["error"]["code"] == -32700
        await raw.send('{"jsonrpc": "2.0", "id": 3}')
        answer = await raw.receive()
        assert answer["id"] == 3 and answer["error"]["code"] == -32600
        # A binary frame is read as the UTF-8 text of a message.
        await raw.send(b'{"jsonrpc": "2.0", "id": 4, "method": "sample:ping:get"}')
        assert await raw.receive() == {"jsonrpc": "2.0", "id": 4, "result": "pong"}
        await raw.send(b"\xff\xfe")
        assert (await raw.receive())["error"]["code"] == -32700
        # A frame is one message: pretty-printed JSON is one, two messages are unreadable.
        await raw.send(
            json.dumps({"jsonrpc": "2.0", "id": 5, "method": "sample:ping:get"}, indent=2)
        )
        assert await raw.receive() == {"jsonrpc": "2.0", "id": 5, "result": "pong"}
        two = '{"jsonrpc": "2.0", "id": 6, "method": "sample:ping:get"}\n' * 2
        await raw.send(two)
        answer = await raw.receive()
        assert answer["id"] == 6 and answer["error"]["code"] == -32700
        # A batch is one frame, answered by one frame (docs/wire.md §7).
        await raw.send(
            json.dumps([{"jsonrpc": "2.0", "id": i, "method": "sample:ping:get"} for i in (7, 8)])
        )
        batch = await raw.receive()
        assert sorted(reply["id"] for reply in batch) == [7, 8]
        # Empty and blank frames are ignored (docs/wire.md §2).
        await raw.send("")
        await raw.send("  \n")
        await raw.assert_still_serving()


@run_async
async def test_batches_refused_as_configured() -> None:
    options = PeerOptions(accept_batches=False)
    async with serve_websocket(SampleService, options=options) as server:
        async with raw_frames(server.url) as raw:
            await raw.send(json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "sample:ping:get"}]))
            answer = await raw.receive()
            assert answer["id"] is None and answer["error"]["code"] == -32600
            await raw.assert_still_serving()


@run_async
async def test_oversized_frames_are_answered_and_far_oversized_ones_close_with_1009() -> None:
    options = PeerOptions(max_message_size=4096)
    async with serve_websocket(SampleService, options=options) as server:
        async with connect_websocket(server.url, options=options) as peer:
            try:
                await within(SampleProxy(peer).echo(["x" * 5000]))
            except RpcError as error:
                assert error.code == -32600 and error.data["limit"] == 4096
            else:
                raise AssertionError("an oversized call was served")
            assert await within(SampleProxy(peer).add(amount=1)) == 1
        async with raw_frames(server.url) as raw:
            await raw.send("x" * (4096 + 2 * 1024 * 1024))
            with contextlib.suppress(Exception):
                await within(raw.connection.recv())
            assert raw.connection.close_code == 1009


@run_async
async def test_a_client_that_disconnects_mid_call() -> None:
    root = SampleService()
    options = PeerOptions(finish_on_eof=0.1)
    async with serve_websocket(lambda: root, options=options) as server:
        async with raw_frames(server.url) as raw:
            await raw.send(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "sample:hold-write:call",
                        "params": {"gateKey": "g"},
                    }
                )
            )
            await within(root.started["g"].wait())
            [served] = server.peers
        # The handler still running when its client went is cancelled (after
        # `finish_on_eof`), its connection closes, and the server goes on.
        await within(root.cancelled_event("g"))
        await within(served.wait_closed())
        # The server forgets it in its own task, which may resume after this one (3.12+).
        await within(_until(lambda: not server.peers))
        async with connect_websocket(server.url) as peer:
            assert await within(SampleProxy(peer).ping()) == "pong"


@run_async
async def test_a_server_that_goes_away_mid_call_fails_the_call() -> None:
    root = SampleService()
    async with serve_websocket(lambda: root) as server:
        async with connect_websocket(server.url) as peer:
            call = asyncio.ensure_future(SampleProxy(peer).hold_write(gate_key="g"))
            await within(root.started["g"].wait())
            [served] = server.peers
            await served.close()
            try:
                await within(call)
            except ConnectionClosed:
                pass
            else:
                raise AssertionError("the call was answered")


@run_async
async def test_a_failing_root_factory_closes_that_connection_with_1011_and_serves_others() -> None:
    made: list[int] = []

    def make_root() -> SampleService:
        made.append(len(made))
        if len(made) == 1:
            raise RuntimeError("no root for the first")
        return SampleService()

    async with serve_websocket(make_root) as server:
        async with raw_frames(server.url) as raw:
            with contextlib.suppress(Exception):
                await within(raw.connection.recv())
            assert raw.connection.close_code == 1011
        async with connect_websocket(server.url) as peer:
            assert await within(SampleProxy(peer).ping()) == "pong"


@run_async
async def test_a_root_of_no_interface_closes_that_connection_with_1011() -> None:
    async with serve_websocket(object) as server:
        async with raw_frames(server.url) as raw:
            with contextlib.suppress(Exception):
                await within(raw.connection.recv())
            assert raw.connection.close_code == 1011


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0)
