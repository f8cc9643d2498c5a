"""A server for the hostile-connection tests, in its own process: `python server.py KIND`
serves on 127.0.0.1 (KIND: `websocket`, the runtime's `serve_websocket` under uvicorn, or
`acp`, `serve_acp` under hypercorn), with the limits short (150 open connections), prints its port, and runs until
its stdin closes. With `budget` after KIND, it has the default timeouts and the byte limits
of FRAME_BUDGET and MAX_BUFFERED_INPUT instead. The test sets its address-space limit."""

from __future__ import annotations

import asyncio
import sys

#: The limits of `python server.py KIND budget`, for the memory tests.
FRAME_BUDGET = 64 * 1024 * 1024
MAX_BUFFERED_INPUT = 64 * 1024 * 1024


async def main(kind: str, budget: bool) -> None:
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    if kind == "websocket":
        from idlc_runtime.web import serve_websocket
        from tests.runtime.support import SampleService

        server = (
            serve_websocket(
                SampleService, frame_budget=FRAME_BUDGET, max_buffered_input=MAX_BUFFERED_INPUT
            )
            if budget
            else serve_websocket(
                SampleService,
                header_timeout=1.0,
                max_open_connections=150,
                uvicorn_options={"timeout_keep_alive": 1},
            )
        )
    else:
        from idlc_acp.web import serve_acp
        from tests.acp.web.support import EchoAgent

        server = (
            serve_acp(EchoAgent, frame_budget=FRAME_BUDGET, max_buffered_input=MAX_BUFFERED_INPUT)
            if budget
            else serve_acp(
                EchoAgent,
                body_timeout=1.0,
                max_open_connections=150,
                hypercorn_options={"keep_alive_timeout": 1},
            )
        )
    async with server as listening:
        print(listening.port, flush=True)
        await stdin_closed


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:] == ["budget"]))
