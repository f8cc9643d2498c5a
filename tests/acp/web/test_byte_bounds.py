"""What a remote connection holds is bounded in bytes (issue 21 item 2): a stream's
mailbox in bytes, not messages; a POST body in the server's input budget while it is read;
on the client, an SSE line before it is complete, and streams only for sessions it asked
for. Hostile peers here are small in-process ASGI apps on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import httpx
import pytest
import uvicorn
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from idlc_acp import InitializeRequest, NewSessionRequest
from idlc_acp.web import connect_http
from idlc_acp.web.mailbox import Mailbox
from idlc_runtime import ConnectionClosed, PeerOptions
from idlc_runtime.web.listening import listen
from idlc_runtime.web.server import _EmbeddedUvicorn

from .support import RecordingClient, run_async
from .test_binding import acp_under
from .test_endpoint import INITIALIZE, post


@given(sizes=st.lists(st.integers(1, 3000), min_size=1, max_size=40), bound=st.integers(1, 8000))
@settings(max_examples=100, deadline=None)
def test_a_mailbox_holds_no_more_bytes_than_its_bound_or_one_message(
    sizes: list[int], bound: int
) -> None:
    async def scenario() -> None:
        box = Mailbox(max_bytes=bound)
        peak = 0

        async def produce() -> None:
            nonlocal peak
            for size in sizes:
                await box.put("x" * size)
                peak = max(peak, box.held)
            box.close()

        producer = asyncio.ensure_future(produce())
        taken = []
        while (text := await box.get()) is not None:
            taken.append(len(text))
        await producer
        assert taken == sizes  # nothing lost, in order
        assert peak <= max(bound, max(sizes))
        assert box.held == 0

    asyncio.run(asyncio.wait_for(scenario(), 10))


@run_async
async def test_concurrent_large_posts_stay_within_the_servers_input_budget() -> None:
    """Eight 1 MiB bodies sent together to a server whose input budget is 2 MiB: the bytes
    held while reading them stay under the budget plus one message plus one read each."""
    message = 1024 * 1024
    options = PeerOptions(max_message_size=2 * message)
    async with (
        acp_under("hypercorn", options=options) as (url, _, app),
        httpx.AsyncClient(timeout=30) as http,
    ):
        app.input_budget.limit = 2 * message
        opened = await post(http, url, INITIALIZE)
        scope = {
            "Acp-Connection-Id": opened.headers["acp-connection-id"],
            "Acp-Connection-Secret": opened.headers["acp-connection-secret"],
        }
        note = {"jsonrpc": "2.0", "method": "x/ignored", "params": {"pad": "p" * message}}
        answers = await asyncio.gather(*(post(http, url, note, **scope) for _ in range(8)))
        assert [answer.status_code for answer in answers] == [202] * 8
        assert app.input_budget.peak <= 2 * message + 2 * message + 8 * 256 * 1024
        assert app.input_budget.held == 0


@contextlib.asynccontextmanager
async def hostile(app: Starlette) -> AsyncIterator[str]:
    listening = listen("127.0.0.1", 0)
    server = _EmbeddedUvicorn(uvicorn.Config(app, log_level="warning", lifespan="off"))
    serving = asyncio.get_running_loop().create_task(server.serve(sockets=[listening]))
    try:
        await server.ready.wait()
        yield f"http://127.0.0.1:{listening.getsockname()[1]}/acp"
    finally:
        server.should_exit = True
        await asyncio.wait([serving])
        listening.close()


def answer_initialize(request_id: object) -> Response:
    body = {"jsonrpc": "2.0", "id": request_id, "result": {"protocolVersion": 1}}
    return JSONResponse(body, headers={"Acp-Connection-Id": "c"})


@run_async
async def test_a_line_without_end_fails_the_stream_once_it_is_over_the_limit() -> None:
    sent = 0

    async def endless(request: Request) -> AsyncIterator[bytes]:
        nonlocal sent
        yield b": open\n\ndata: "
        chunk = b"x" * 65536
        # The test's own bound (never reached when the client holds), and the client's end.
        while sent < 256 * 1024 * 1024 and not await request.is_disconnected():
            sent += len(chunk)
            yield chunk

    async def endpoint(request: Request) -> Response:
        if request.method == "POST":
            message = json.loads(await request.body())
            if message.get("method") == "initialize":
                return answer_initialize(message["id"])
            return Response(status_code=202)
        if request.method == "DELETE":
            return Response(status_code=202)
        return StreamingResponse(endless(request), media_type="text/event-stream")

    app = Starlette(routes=[Route("/acp", endpoint, methods=["GET", "POST", "DELETE"])])
    options = PeerOptions(max_message_size=1024 * 1024)
    async with hostile(app) as url:
        with pytest.raises(ConnectionClosed):
            async with connect_http(url, RecordingClient(), options=options) as agent:
                await agent.initialize(InitializeRequest(protocol_version=1))
                await agent.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
    # What was sent before the client gave up: its limit, plus what the sockets buffered.
    assert sent < 64 * 1024 * 1024, sent


@run_async
async def test_unsolicited_answers_naming_sessions_open_no_streams() -> None:
    session_streams: list[str] = []
    asked: asyncio.Future[object] = asyncio.get_running_loop().create_future()

    async def flood() -> AsyncIterator[bytes]:
        yield b": open\n\n"
        request_id = await asked
        for number in range(300):
            answer = {"jsonrpc": "2.0", "id": 10_000 + number}
            answer["result"] = {"sessionId": f"planted-{number}"}
            yield f"data: {json.dumps(answer)}\n\n".encode()
        mine = {"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": "mine"}}
        yield f"data: {json.dumps(mine)}\n\n".encode()
        await asyncio.Event().wait()

    async def endpoint(request: Request) -> Response:
        if request.method == "POST":
            message = json.loads(await request.body())
            if message.get("method") == "initialize":
                return answer_initialize(message["id"])
            if message.get("method") == "session/new" and not asked.done():
                asked.set_result(message["id"])
            return Response(status_code=202)
        if request.method == "DELETE":
            return Response(status_code=202)
        session = request.headers.get("acp-session-id")
        if session is not None:
            session_streams.append(session)
            return StreamingResponse(iter([b": open\n\n"]), media_type="text/event-stream")
        return StreamingResponse(flood(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/acp", endpoint, methods=["GET", "POST", "DELETE"])])
    async with hostile(app) as url:
        async with connect_http(url, RecordingClient()) as agent:
            await agent.initialize(InitializeRequest(protocol_version=1))
            session = await agent.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
            assert session.session_id == "mine"
            # The stream of the session it asked for opens; the 300 planted ones, sent
            # before, would have been asked for first.
            for _ in range(1000):
                if session_streams:
                    break
                await asyncio.sleep(0.01)
            assert session_streams[:1] == ["mine"]
    assert session_streams == ["mine"]
