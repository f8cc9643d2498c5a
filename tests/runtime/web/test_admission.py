"""Only those who belong get in (docs/web.md, "Who gets in"): origins and authentication are
checked before the WebSocket is accepted, and a refusal is an HTTP status, not a socket."""

from __future__ import annotations

import asyncio
import http.client
from collections.abc import Mapping

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from idlc_runtime.web import (
    Refused,
    WebSocketServer,
    bearer_token,
    bearer_token_from_env,
    connect_websocket,
    serve_websocket,
)

from ..sample_api import SampleProxy
from ..support import SampleService, run_async, within

TOKEN = "s3cret-token"


async def status_of(url: str, headers: Mapping[str, str]) -> int:
    """The HTTP status a raw upgrade request with `headers` gets (101 when accepted)."""
    try:
        async with connect(url, additional_headers=dict(headers)):
            return 101
    except InvalidStatus as error:
        return error.response.status_code


@run_async
async def test_a_foreign_origin_is_refused_before_the_upgrade() -> None:
    async with serve_websocket(SampleService, allowed_origins={"https://app.example"}) as server:
        assert await status_of(server.url, {"Origin": "https://evil.example"}) == 403
        assert await status_of(server.url, {"Origin": "https://app.example"}) == 101
        # A program that is not a browser sends no Origin.
        assert await status_of(server.url, {}) == 101


@run_async
async def test_without_an_allow_list_every_browser_origin_is_refused() -> None:
    async with serve_websocket(SampleService) as server:
        assert await status_of(server.url, {"Origin": f"http://127.0.0.1:{server.port}"}) == 403
        assert await status_of(server.url, {"Origin": "null"}) == 403


@run_async
async def test_bearer_tokens() -> None:
    async with serve_websocket(SampleService, authenticate=bearer_token(TOKEN)) as server:
        assert await status_of(server.url, {}) == 401
        assert await status_of(server.url, {"Authorization": "Bearer wrong"}) == 403
        assert await status_of(server.url, {"Authorization": f"Basic {TOKEN}"}) == 403
        assert await status_of(server.url, {"Authorization": f"Bearer {TOKEN}"}) == 101
        # connect_websocket reports a refusal with its status and reason.
        with pytest.raises(Refused) as refused:
            async with connect_websocket(server.url):
                pass
        assert (refused.value.status, refused.value.reason) == (401, "a bearer token is required")
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with connect_websocket(server.url, headers=headers) as peer:
            assert await within(SampleProxy(peer).ping()) == "pong"


@run_async
async def test_origin_is_checked_before_authentication() -> None:
    async with serve_websocket(SampleService, authenticate=bearer_token(TOKEN)) as server:
        headers = {"Authorization": f"Bearer {TOKEN}", "Origin": "https://evil.example"}
        assert await status_of(server.url, headers) == 403


@run_async
async def test_an_async_hook_sees_the_headers() -> None:
    seen: list[str] = []

    async def only_alice(headers: Mapping[str, str]) -> None:
        await asyncio.sleep(0)
        seen.append(headers.get("x-user", ""))
        if headers.get("x-user") != "alice":
            raise Refused(403, "only alice")

    async with serve_websocket(SampleService, authenticate=only_alice) as server:
        assert await status_of(server.url, {"X-User": "bob"}) == 403
        assert await status_of(server.url, {"X-User": "alice"}) == 101
    assert seen == ["bob", "alice"]


@run_async
async def test_a_plain_http_request_is_not_served() -> None:
    async with serve_websocket(SampleService) as server:

        def get() -> int:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            try:
                connection.request("GET", "/")
                return connection.getresponse().status
            finally:
                connection.close()

        assert await asyncio.to_thread(get) == 404


def test_a_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDLC_TEST_TOKEN", TOKEN)
    check = bearer_token_from_env("IDLC_TEST_TOKEN")
    check({"authorization": f"Bearer {TOKEN}"})
    with pytest.raises(Refused):
        check({"authorization": "Bearer other"})
    monkeypatch.setenv("IDLC_TEST_TOKEN", "")
    with pytest.raises(ValueError, match="IDLC_TEST_TOKEN"):
        bearer_token_from_env("IDLC_TEST_TOKEN")
    with pytest.raises(ValueError):
        bearer_token("")
    # A token read from a file ends with a newline: it is not part of the token.
    monkeypatch.setenv("IDLC_TEST_TOKEN", TOKEN + "\n")
    bearer_token_from_env("IDLC_TEST_TOKEN")({"authorization": f"Bearer {TOKEN}"})
    monkeypatch.setenv("IDLC_TEST_TOKEN", " \n")
    with pytest.raises(ValueError, match="IDLC_TEST_TOKEN"):
        bearer_token_from_env("IDLC_TEST_TOKEN")


@run_async
async def test_servers_listen_on_the_loopback_unless_told_otherwise() -> None:
    async with serve_websocket(SampleService) as server:
        assert server.host == "127.0.0.1"


@run_async
async def test_connections_past_the_bound_are_refused_503_until_one_ends() -> None:
    async with serve_websocket(SampleService, max_connections=2) as server:
        async with connect_websocket(server.url) as first:
            async with connect_websocket(server.url):
                assert await status_of(server.url, {}) == 503
                assert await within(SampleProxy(first).ping()) == "pong"
            while len(server.peers) > 1:
                await asyncio.sleep(0.01)
            assert await status_of(server.url, {}) == 101
    with pytest.raises(ValueError):
        WebSocketServer(SampleService, max_connections=0)
