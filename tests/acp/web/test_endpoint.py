"""The `/acp` endpoint over raw HTTP (docs/acp-remote.md): the RFD's routing, and a clear
HTTP status with a JSON-RPC error body for every request it cannot serve."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc_acp.web import serve_acp
from idlc_runtime import PeerOptions

from .support import EchoAgent, run_async

JSON = {"Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}


def post(http: httpx.AsyncClient, url: str, message: Any, **headers: str) -> Any:
    return http.post(url, content=json.dumps(message), headers={**JSON, **headers})


async def open_connection(http: httpx.AsyncClient, url: str) -> str:
    response = await post(http, url, INITIALIZE)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["protocolVersion"] == 1
    connection_id: str = response.headers["acp-connection-id"]
    return connection_id


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC error a refusal carries in its body."""
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = response.json()
    assert body["jsonrpc"] == "2.0"
    error: dict[str, Any] = body["error"]
    return error


async def events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON messages of an SSE stream."""
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line[len("data: ") :])


@run_async
async def test_initialize_answers_200_with_the_connection_id_and_everything_else_202() -> None:
    async with serve_acp(EchoAgent) as server, httpx.AsyncClient() as http:
        connection_id = await open_connection(http, server.url)
        assert connection_id in server.app.http_connections
        headers = {"Accept": "text/event-stream", "Acp-Connection-Id": connection_id}
        async with http.stream("GET", server.url, headers=headers) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            new = {"jsonrpc": "2.0", "id": 1, "method": "session/new"}
            new["params"] = {"cwd": "/", "mcpServers": []}
            sent = await post(http, server.url, new, **{"Acp-Connection-Id": connection_id})
            assert sent.status_code == 202 and sent.content == b""
            # session/new's answer comes on the connection's stream.
            async for message in events(stream):
                assert message["id"] == 1
                session_id = message["result"]["sessionId"]
                break
        deleted = await http.delete(server.url, headers={"Acp-Connection-Id": connection_id})
        assert deleted.status_code == 202
        assert connection_id not in server.app.http_connections
        again = await post(http, server.url, new, **{"Acp-Connection-Id": connection_id})
        assert again.status_code == 404
        assert error_of(again)["code"] == -32600
        assert session_id.startswith("echo-")


@run_async
async def test_session_messages_travel_on_the_session_stream() -> None:
    async with serve_acp(EchoAgent) as server, httpx.AsyncClient() as http:
        connection_id = await open_connection(http, server.url)
        scope = {"Acp-Connection-Id": connection_id}
        sse = {"Accept": "text/event-stream", **scope}
        async with http.stream("GET", server.url, headers=sse) as main:
            new = {"jsonrpc": "2.0", "id": 1, "method": "session/new"}
            new["params"] = {"cwd": "/nonexistent", "mcpServers": []}
            await post(http, server.url, new, **scope)
            async for message in events(main):
                session_id = message["result"]["sessionId"]
                break
            session_sse = {**sse, "Acp-Session-Id": session_id}
            async with http.stream("GET", server.url, headers=session_sse) as stream:
                # One stream per scope: a second reader of the same session is refused.
                twice = await http.get(server.url, headers=session_sse)
                assert twice.status_code == 409
                prompt = {"jsonrpc": "2.0", "id": 2, "method": "session/prompt"}
                prompt["params"] = {
                    "sessionId": session_id,
                    "prompt": [{"type": "text", "text": "hi"}],
                }
                sent = await post(
                    http, server.url, prompt, **scope, **{"Acp-Session-Id": session_id}
                )
                assert sent.status_code == 202
                seen = []
                async for message in events(stream):
                    seen.append(message)
                    if message.get("method") == "session/request_permission":
                        answer = {
                            "jsonrpc": "2.0",
                            "id": message["id"],
                            "result": {"outcome": {"outcome": "cancelled"}},
                        }
                        answered = await post(http, server.url, answer, **scope)
                        assert answered.status_code == 202
                    if message.get("id") == 2 and "result" in message:
                        break
        kinds = [
            m["params"]["update"]["sessionUpdate"]
            for m in seen
            if m.get("method") == "session/update"
        ]
        assert kinds[:2] == ["agent_message_chunk", "tool_call"]
        assert seen[-1]["result"] == {"stopReason": "cancelled"}


@run_async
async def test_requests_it_cannot_serve_get_a_status_and_a_json_rpc_error() -> None:
    options = PeerOptions(max_message_size=4096)
    async with serve_acp(EchoAgent, options=options) as server, httpx.AsyncClient() as http:
        url = server.url
        prompt = {"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {}}
        # A POST before initialize: no connection to send it to.
        before = await post(http, url, prompt)
        assert before.status_code == 400
        assert error_of(before)["code"] == -32600 and before.json()["id"] == 7
        assert "initialize" in error_of(before)["message"]
        # A body that is not JSON, a batch, a body that is not JSON-RPC, the wrong type.
        malformed = await http.post(url, content=b'{"jsonrpc": "2.0", "id": 1,', headers=JSON)
        assert malformed.status_code == 400 and error_of(malformed)["code"] == -32700
        batch = await post(http, url, [INITIALIZE])
        assert batch.status_code == 501
        assert (await post(http, url, {"id": 1})).status_code == 400
        text = await http.post(
            url, content=json.dumps(INITIALIZE), headers={"Content-Type": "text/plain"}
        )
        assert text.status_code == 415
        too_long = await post(http, url, {**INITIALIZE, "pad": "x" * 5000})
        assert too_long.status_code == 413 and "4096" in error_of(too_long)["message"]
        assert error_of(too_long)["data"]["limit"] == 4096
        assert error_of(too_long)["data"]["size"] > 4096
        # Unknown and missing connection ids, a GET that does not accept SSE.
        unknown = {"Acp-Connection-Id": "no-such-connection"}
        assert (await post(http, url, prompt, **unknown)).status_code == 404
        assert (
            await http.get(url, headers={**unknown, "Accept": "text/event-stream"})
        ).status_code == 404
        assert (await http.delete(url, headers=unknown)).status_code == 404
        assert (await http.get(url, headers={"Accept": "text/event-stream"})).status_code == 400
        assert (await http.delete(url)).status_code == 400
        connection_id = await open_connection(http, url)
        plain = await http.get(url, headers={"Acp-Connection-Id": connection_id})
        assert plain.status_code == 406
        # A session header that contradicts the message's sessionId.
        contradicting = {
            **prompt,
            "params": {"sessionId": "a", "prompt": []},
        }
        mismatch = await post(
            http, url, contradicting, **{"Acp-Connection-Id": connection_id, "Acp-Session-Id": "b"}
        )
        assert mismatch.status_code == 400
        assert (await http.put(url, content=b"{}", headers=JSON)).status_code == 405
        # The connection still works after all that.
        fine = await post(
            http, url, {**INITIALIZE, "id": 9}, **{"Acp-Connection-Id": connection_id}
        )
        assert fine.status_code == 202


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    bodies=st.lists(
        st.one_of(
            st.binary(max_size=300),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda inner: st.lists(inner, max_size=4)
                | st.dictionaries(
                    st.sampled_from(["jsonrpc", "id", "method", "params", "result", "sessionId"]),
                    inner,
                    max_size=5,
                ),
                max_leaves=12,
            ).map(lambda value: json.dumps(value).encode()),
        ),
        min_size=1,
        max_size=6,
    ),
    connected=st.booleans(),
)
def test_any_body_gets_an_answer_never_a_server_error(bodies: list[bytes], connected: bool) -> None:
    """Whatever a POST carries, the answer is 2xx or 4xx/501 with a JSON-RPC error, and the
    server goes on serving a real client afterwards."""

    @run_async
    async def check() -> None:
        async with serve_acp(EchoAgent) as server, httpx.AsyncClient() as http:
            headers = dict(JSON)
            if connected:
                headers["Acp-Connection-Id"] = await open_connection(http, server.url)
            for body in bodies:
                response = await http.post(server.url, content=body, headers=headers)
                assert response.status_code in (200, 202, 400, 404, 413, 501), response.text
                if response.status_code >= 400:
                    assert "code" in error_of(response)
            assert await open_connection(http, server.url)

    check()


@run_async
async def test_a_refused_initialize_answers_its_error_and_ends_the_connection() -> None:
    async with serve_acp(EchoAgent) as server, httpx.AsyncClient() as http:
        bad = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "initialize",
            "params": {"protocolVersion": "x"},
        }
        response = await post(http, server.url, bad)
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32602
        connection_id = response.headers["acp-connection-id"]
        again = await post(http, server.url, INITIALIZE, **{"Acp-Connection-Id": connection_id})
        assert again.status_code == 404
        assert not server.app.http_connections


@run_async
async def test_the_websocket_upgrade_answers_with_a_connection_id() -> None:
    from websockets.asyncio.client import connect

    async with serve_acp(EchoAgent) as server:
        async with connect(server.ws_url) as websocket:
            assert websocket.response is not None
            connection_id = websocket.response.headers["Acp-Connection-Id"]
            await websocket.send(json.dumps(INITIALIZE))
            answer = json.loads(await websocket.recv())
        assert len(connection_id) == 36
        assert answer["id"] == 0 and answer["result"]["protocolVersion"] == 1
