"""Backpressure over WebSocket (docs/wire.md §11, docs/web.md "Limits and timeouts"): a
server at its handler bound stops taking frames, so a client that keeps sending is held back
by the socket instead of piling up in the server; once the handlers finish, every message is
answered exactly once, in order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from websockets.asyncio.client import connect

from idlc_runtime import PeerOptions
from idlc_runtime.web import serve_websocket

from ..support import SampleService, run_async, within

BOUND = 2
FRAMES = 400
PADDING = "p" * (64 * 1024)


async def eventually(condition: Callable[[], bool]) -> None:
    """Wait until `condition()` holds (bounded by `within`)."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await within(poll())


@run_async
async def test_a_slow_handler_holds_the_client_back_without_buffering_in_the_server() -> None:
    root = SampleService()
    options = PeerOptions(max_concurrent_handlers=BOUND)
    async with serve_websocket(lambda: root, options=options) as server:
        # Uncompressed, so that the padding fills the sockets' buffers.
        async with connect(server.url, max_size=None, compression=None) as connection:
            for key in ("a", "b"):
                hold = {"jsonrpc": "2.0", "id": key, "method": "sample:hold-write:call"}
                await connection.send(json.dumps({**hold, "params": {"gateKey": key}}))
            await within(root.started["b"].wait())

            async def flood() -> None:
                for index in range(FRAMES):
                    # `noteText` pads each call to 64 KiB: 25 MiB in all, more than the sockets'
                    # buffers hold.
                    params = {"amount": 1, "noteText": PADDING}
                    call = {"jsonrpc": "2.0", "id": index, "method": "sample:add:call"}
                    await connection.send(json.dumps({**call, "params": params}))

            sending = asyncio.ensure_future(flood())
            # The server took one frame past its bound and holds it back ...
            await eventually(lambda: server.input_budget.held > 0)
            # ... and then the socket: the client's writes wait in its own buffer.
            transport = connection.transport
            await eventually(lambda: transport.get_write_buffer_size() > 0)
            assert not sending.done()
            assert root.total == 0
            assert server.input_budget.peak < 2 * len(PADDING)
            for key in ("a", "b"):
                root.gates[key].set()
            await within(sending, 30)
            answers = [json.loads(await within(connection.recv())) for _ in range(FRAMES + 2)]
            assert sorted(a["id"] for a in answers if isinstance(a["id"], str)) == ["a", "b"]
            totals = [a["result"] for a in answers if isinstance(a["id"], int)]
            assert [a["id"] for a in answers if isinstance(a["id"], int)] == list(range(FRAMES))
            assert totals == list(range(1, FRAMES + 1))
            assert server.input_budget.held == 0
