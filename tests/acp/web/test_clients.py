"""`connect_websocket` and `connect_http` against `serve_acp` (docs/acp-remote.md): whole
turns, cancellation, who gets in, the connection bound, idle connections, cookies, HTTP/2."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from idlc_acp import CancelNotification, ContentBlockText, PromptRequest
from idlc_acp.web import (
    AcpServer,
    Refused,
    bearer_token,
    connect_http,
    connect_websocket,
    create_asgi_app,
    serve_acp,
)

from .support import EchoAgent, RecordingClient, one_turn, run_async

TOKEN = "remote-acp-token"
TRANSPORTS = ["ws", "http"]


def connector(transport: str) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    return connect_websocket if transport == "ws" else connect_http


def url_of(server: Any, transport: str) -> str:
    return str(server.ws_url if transport == "ws" else server.url)


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_a_whole_turn_with_permission_and_a_file_read(transport: str, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# remote readme\nmore\n", encoding="utf-8")
    client = RecordingClient()
    async with serve_acp(EchoAgent) as server:
        async with connector(transport)(url_of(server, transport), client) as agent:
            session_id, stop = await one_turn(agent, tmp_path, "over the web")
            assert server.app.connections == 1
        assert stop == "end_turn"
        assert client.reads == [str(tmp_path / "README.md")]
        assert len(client.permissions) == 1
        updates = [msgspec.to_builtins(u.update) for u in client.updates]
        texts = [
            u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
        ]
        assert texts == ["over the web"]
        assert {u.session_id for u in client.updates} == {session_id}
        assert updates[-1]["content"][0]["content"]["text"] == "# remote readme"
        # Leaving the block closed the connection on the server too (DELETE, or the close).
        for connection in list(server.app.http_connections.values()):
            await connection.wait_closed()
        assert not server.app.http_connections


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_session_cancel_ends_the_turn_cancelled(transport: str, tmp_path: Path) -> None:
    client = RecordingClient()
    async with serve_acp(EchoAgent) as server:
        async with connector(transport)(url_of(server, transport), client) as agent:
            session_id, _ = await one_turn(agent, tmp_path)
            client.first_update.clear()
            blocks = [ContentBlockText(text=f"block {n}") for n in range(30)]
            turn = asyncio.ensure_future(
                agent.prompt(PromptRequest(session_id=session_id, prompt=blocks))
            )
            await client.first_update.wait()
            await agent.cancel(CancelNotification(session_id=session_id))
            answer = await turn
            assert answer.stop_reason.value == "cancelled"
            # The connection goes on.
            again = await agent.prompt(
                PromptRequest(session_id=session_id, prompt=[ContentBlockText(text="again")])
            )
            assert again.stop_reason.value == "end_turn"


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_a_foreign_origin_and_wrong_tokens_are_refused(
    transport: str, tmp_path: Path
) -> None:
    async with serve_acp(
        EchoAgent, allowed_origins={"https://app.example"}, authenticate=bearer_token(TOKEN)
    ) as server:
        url = url_of(server, transport)
        cases = [
            ({}, 401),
            ({"Authorization": "Bearer wrong"}, 403),
            ({"Authorization": f"Bearer {TOKEN}", "Origin": "https://evil.example"}, 403),
        ]
        for headers, status in cases:
            with pytest.raises(Refused) as refused:
                async with connector(transport)(url, RecordingClient(), headers=headers) as agent:
                    await one_turn(agent, tmp_path)
            assert refused.value.status == status
        good = {"Authorization": f"Bearer {TOKEN}", "Origin": "https://app.example"}
        async with connector(transport)(url, RecordingClient(), headers=good) as agent:
            assert (await one_turn(agent, tmp_path))[1] == "end_turn"


@run_async
async def test_the_connection_bound_counts_both_transports(tmp_path: Path) -> None:
    async with serve_acp(EchoAgent, max_connections=1) as server:
        async with connect_websocket(server.ws_url, RecordingClient()) as agent:
            await one_turn(agent, tmp_path)
            for transport in TRANSPORTS:
                with pytest.raises(Refused) as refused:
                    async with connector(transport)(
                        url_of(server, transport), RecordingClient()
                    ) as other:
                        await one_turn(other, tmp_path)
                assert refused.value.status == 503
        # Once the first has gone, there is room again.
        async with connect_http(server.url, RecordingClient()) as agent:
            assert (await one_turn(agent, tmp_path))[1] == "end_turn"


@run_async
async def test_an_idle_http_connection_is_closed() -> None:
    async with serve_acp(EchoAgent, idle_timeout=0.2) as server, httpx.AsyncClient() as http:
        body = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}'
        response = await http.post(
            server.url, content=body, headers={"Content-Type": "application/json"}
        )
        connection_id = response.headers["acp-connection-id"]
        await server.app.http_connections[connection_id].wait_closed()
        gone = await http.get(
            server.url, headers={"Accept": "text/event-stream", "Acp-Connection-Id": connection_id}
        )
        assert gone.status_code == 404


class Affinity:
    """A load balancer's stand-in in front of the app: sets a cookie on the first answer
    and records the cookies and HTTP versions of every request that reaches the app."""

    def __init__(self, app: AcpServer) -> None:
        self.app = app
        self.seen: list[tuple[str, str | None, str]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        cookie = headers.get(b"cookie")
        self.seen.append(
            (scope["type"], cookie.decode() if cookie else None, scope.get("http_version", ""))
        )

        async def send_with_cookie(message: Any) -> None:
            if message["type"] in ("http.response.start", "websocket.accept") and cookie is None:
                extra = [(b"set-cookie", b"backend=worker-7; Path=/")]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


@contextlib.asynccontextmanager
async def behind_affinity() -> AsyncIterator[tuple[Any, Affinity]]:
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    app = create_asgi_app(EchoAgent)
    front = Affinity(app)
    config = Config()
    config.bind = ["127.0.0.1:0"]
    stop = asyncio.Event()
    # hypercorn reports the bound port only in its log; bind our own socket instead.
    import os
    import socket

    listening = socket.create_server(("127.0.0.1", 0))
    config.bind = [f"fd://{os.dup(listening.fileno())}"]
    config.accesslog = None
    serving = asyncio.ensure_future(serve(front, config, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    await app.started.wait()
    try:
        yield listening.getsockname()[1], front
    finally:
        await app.close_all()
        stop.set()
        await serving
        listening.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_cookies_the_server_sets_are_sent_back(transport: str, tmp_path: Path) -> None:
    jar = CookieJar()
    async with behind_affinity() as (port, front):
        scheme = "ws" if transport == "ws" else "http"
        url = f"{scheme}://127.0.0.1:{port}/acp"
        async with connector(transport)(url, RecordingClient(), cookies=jar) as agent:
            await one_turn(agent, tmp_path)
        # A reconnect with the same jar reaches "the same worker".
        async with connector(transport)(url, RecordingClient(), cookies=jar) as agent:
            await one_turn(agent, tmp_path)
    assert front.seen[0][1] is None
    assert len(front.seen) >= 2
    # Besides the balancer's cookie, streamable HTTP carries its connection's secret.
    sent = [sorted((cookie or "").split("; ")) for _, cookie, _ in front.seen[1:]]
    assert all("backend=worker-7" in cookies for cookies in sent), front.seen
    others = {cookie.partition("=")[0] for cookies in sent for cookie in cookies}
    assert {name for name in others if not name.startswith("acp-secret-")} == {"backend"}


@run_async
async def test_streamable_http_over_http2(tmp_path: Path) -> None:
    async with behind_affinity() as (port, front):
        url = f"http://127.0.0.1:{port}/acp"
        async with connect_http(url, RecordingClient(), http2=True) as agent:
            assert (await one_turn(agent, tmp_path))[1] == "end_turn"
        async with connect_http(url, RecordingClient()) as agent:
            assert (await one_turn(agent, tmp_path))[1] == "end_turn"
    versions = [version for _, _, version in front.seen]
    assert "2" in versions and "1.1" in versions
    first_http1 = versions.index("1.1")
    assert set(versions[:first_http1]) == {"2"}
