"""No frame closes a WebSocket connection (docs/wire.md §8): whatever a frame holds, text or
binary, JSON or not, it is answered or ignored and the next frame is read.

One server (uvicorn, in a thread of its own) serves every example, each on a connection of
its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from idlc_runtime import PeerOptions
from idlc_runtime.web import serve_websocket

from ..support import SampleService, within

MAX_MESSAGE_SIZE = 2048

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.none() | st.integers() | st.text(max_size=6) | st.floats() | st.booleans()
methods = st.sampled_from(
    ["sample:ping:get", "sample:add:call", "sample:echo:call", "$/cancel_request", "nope"]
) | st.text(max_size=12)
members: dict[str, Any] = {
    "jsonrpc": st.sampled_from(["2.0", "1.0"]) | json_values,
    "id": ids,
    "method": methods,
    "params": json_values,
    "result": json_values,
    "error": json_values,
}
messages = st.fixed_dictionaries({}, optional=members).map(json.dumps)
frames = st.one_of(
    messages,
    st.lists(messages, max_size=3).map(lambda batch: "[" + ",".join(batch) + "]"),
    messages.map(lambda text: text + "\n" + text),
    messages.map(lambda text: text.encode()),
    st.text(max_size=60),
    st.binary(max_size=60),
    st.integers(MAX_MESSAGE_SIZE - 2, MAX_MESSAGE_SIZE + 64).map(
        lambda n: '{"id": 1, "x": "' + "y" * n + '"}'
    ),
)


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """The address of a server running in a thread until the module's tests end."""
    url: concurrent.futures.Future[str] = concurrent.futures.Future()
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    async def serve() -> None:
        options = PeerOptions(max_message_size=MAX_MESSAGE_SIZE)
        async with serve_websocket(SampleService, options=options) as server:
            url.set_result(server.url)
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),))
    thread.start()
    try:
        yield url.result(30)
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        loop.close()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(sent=st.lists(frames, min_size=1, max_size=8))
def test_no_frame_closes_the_connection(server_url: str, sent: list[str | bytes]) -> None:
    async def run() -> None:
        async with connect(server_url) as connection:
            for index, frame in enumerate(sent):
                await connection.send(frame)
                probe = f"probe-{index}"
                ping = {"jsonrpc": "2.0", "id": probe, "method": "sample:ping:get"}
                await connection.send(json.dumps(ping))
                # Whatever the frame caused comes first; the probe's answer follows.
                while True:
                    answer = json.loads(await within(connection.recv()))
                    if isinstance(answer, dict) and answer.get("id") == probe:
                        assert answer["result"] == "pong"
                        break
            assert connection.close_code is None

    asyncio.run(asyncio.wait_for(run(), 30))
