"""A remote connection belongs to the client that opened it, and the server answers only to
its own names (docs/acp-remote.md, "Who gets in"; issue 21 item 4).

- a second client that knows a connection's id (a shared token behind a proxy, a leaked
  log) cannot post to it, read its streams or delete it: every request must carry the
  connection's secret, which only the answer to `initialize` gave;
- a `Host` that is not one of the served names (DNS rebinding) is refused, on streamable
  HTTP and on WebSocket upgrades, under hypercorn and uvicorn;
- a request with two `Origin` (or `Host`) headers is refused before either is believed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import httpx
import pytest
import uvicorn

from idlc_acp.web import create_asgi_app, serve_acp
from idlc_acp.web.app import AcpServer
from idlc_runtime.web.listening import listen
from idlc_runtime.web.server import _EmbeddedUvicorn

from .support import EchoAgent, run_async
from .test_endpoint import INITIALIZE, error_of, post

NEW = {"jsonrpc": "2.0", "id": 1, "method": "session/new"}
NEW["params"] = {"cwd": "/", "mcpServers": []}


@contextlib.asynccontextmanager
async def acp_under(
    server_name: str, **settings: object
) -> AsyncIterator[tuple[str, int, AcpServer]]:
    """The ACP endpoint under hypercorn (`serve_acp`) or uvicorn: (its URL, port, app)."""
    if server_name == "hypercorn":
        async with serve_acp(EchoAgent, **settings) as served:  # type: ignore[arg-type]
            yield served.url, served.port, served.app
        return
    app = create_asgi_app(EchoAgent, **settings)  # type: ignore[arg-type]
    listening = listen("127.0.0.1", 0)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws="websockets-sansio")
    server = _EmbeddedUvicorn(config)
    serving = asyncio.get_running_loop().create_task(server.serve(sockets=[listening]))
    try:
        await server.ready.wait()
        port = listening.getsockname()[1]
        yield f"http://127.0.0.1:{port}/acp", port, app
    finally:
        await app.close_all()
        server.should_exit = True
        await asyncio.wait([serving])
        listening.close()


SERVERS = ["hypercorn", "uvicorn"]


async def raw_status(port: int, head: list[str]) -> int:
    """Send one request as given (repeated headers and all; a POST's body follows its head)
    and read its status."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        body = json.dumps(INITIALIZE) if head[0].startswith("POST") else ""
        writer.write(("\r\n".join(head) + "\r\n\r\n" + body).encode("latin-1"))
        await writer.drain()
        status_line = await reader.readline()
        return int(status_line.split()[1])
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def upgrade(path: str, *headers: str) -> list[str]:
    return [
        f"GET {path} HTTP/1.1",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        *headers,
    ]


def post_head(path: str, *headers: str) -> list[str]:
    body = json.dumps(INITIALIZE)
    return [
        f"POST {path} HTTP/1.1",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *headers,
    ]


@pytest.mark.parametrize("server_name", SERVERS)
@run_async
async def test_another_client_with_the_connection_id_is_refused(server_name: str) -> None:
    async with (
        acp_under(server_name) as (url, _, _),
        httpx.AsyncClient() as owner,
        httpx.AsyncClient() as intruder,
    ):
        opened = await post(owner, url, INITIALIZE)
        assert opened.status_code == 200
        connection_id = opened.headers["acp-connection-id"]
        secret = opened.headers["acp-connection-secret"]
        cookie = opened.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/acp" in cookie
        scope = {"Acp-Connection-Id": connection_id}
        wrong = {
            **scope,
            "Acp-Connection-Secret": secret[:-1] + ("A" if secret[-1] != "A" else "B"),
        }
        for headers in (scope, wrong):
            sent = await post(intruder, url, NEW, **headers)
            assert sent.status_code == 403, sent.text
            assert error_of(sent)["code"] == -32600
            assert "belongs to another client" in error_of(sent)["message"]
            stream = await intruder.get(url, headers={"Accept": "text/event-stream", **headers})
            assert stream.status_code == 403
            deleted = await intruder.delete(url, headers=headers)
            assert deleted.status_code == 403
        # The owner's connection is untouched: its cookie carries the secret.
        assert (await post(owner, url, NEW, **scope)).status_code == 202
        # The header is the other way to carry it, for clients without cookies.
        carried = await post(intruder, url, NEW, **scope, **{"Acp-Connection-Secret": secret})
        assert carried.status_code == 202
        assert (await owner.delete(url, headers=scope)).status_code == 202
        # DELETE tells the owner's jar to forget the secret.
        assert not [c for c in owner.cookies.jar if c.name.startswith("acp-secret-")]


@pytest.mark.parametrize("server_name", SERVERS)
@run_async
async def test_a_host_not_served_is_refused(server_name: str) -> None:
    async with acp_under(server_name) as (url, port, _):
        for host in ("evil.example", f"evil.example:{port}", f"localhost.evil.example:{port}"):
            assert await raw_status(port, post_head("/acp", f"Host: {host}")) == 421
            assert await raw_status(port, upgrade("/acp", f"Host: {host}")) in (421, 403)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", "[::1]"):
            assert await raw_status(port, post_head("/acp", f"Host: {host}")) == 200, host
    async with acp_under(server_name, allowed_hosts=["agent.example"]) as (url, port, _):
        assert await raw_status(port, post_head("/acp", "Host: agent.example:8443")) == 200
        assert await raw_status(port, post_head("/acp", f"Host: 127.0.0.1:{port}")) == 421
    async with acp_under(server_name, allowed_hosts=["*"]) as (url, port, _):
        assert await raw_status(port, post_head("/acp", "Host: anything.example")) == 200


@pytest.mark.parametrize("server_name", SERVERS)
@run_async
async def test_repeated_origin_or_host_headers_are_refused(server_name: str) -> None:
    async with acp_under(server_name, allowed_origins=["https://ok.example"]) as (url, port, _):
        host = f"Host: 127.0.0.1:{port}"
        one = "Origin: https://ok.example"
        assert await raw_status(port, post_head("/acp", host, one)) == 200
        twice = [one, "Origin: https://evil.example"]
        assert await raw_status(port, post_head("/acp", host, *twice)) == 400
        assert await raw_status(port, post_head("/acp", host, *reversed(twice))) == 400
        assert await raw_status(port, upgrade("/acp", host, *twice)) in (400, 403)
        assert await raw_status(port, post_head("/acp", host, host)) == 400
