"""The ASGI application is not tied to uvicorn: hypercorn serves it too (docs/web.md,
"Running it under an ASGI server"), refusals included."""

from __future__ import annotations

import asyncio
import socket

import pytest
from hypercorn.asyncio import serve
from hypercorn.config import Config

from idlc_runtime.web import Refused, WebSocketServer, bearer_token, connect_websocket

from ..sample_api import SampleProxy
from ..support import SampleService, run_async, within


@run_async
async def test_hypercorn_serves_the_application() -> None:
    app = WebSocketServer(SampleService, authenticate=bearer_token("t0ken"))
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    config = Config()
    # hypercorn takes the socket over, and closes it.
    config.bind = [f"fd://{listening.detach()}"]
    config.loglevel = "WARNING"
    stop = asyncio.Event()
    serving = asyncio.ensure_future(serve(app, config, shutdown_trigger=stop.wait))
    try:
        url = f"ws://127.0.0.1:{port}/"
        async with connect_websocket(url, headers={"Authorization": "Bearer t0ken"}) as peer:
            assert await within(SampleProxy(peer).add(amount=3)) == 3
        with pytest.raises(Refused) as refused:
            async with connect_websocket(url):
                pass
        assert refused.value.status == 401
    finally:
        stop.set()
        await within(serving)
