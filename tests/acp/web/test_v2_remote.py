"""ACP v1 and the v2 draft on one remote server (`serve_acp(v1, v2_factory=...)`): v2 turns
end to end over WebSocket and streamable HTTP, v1 clients unchanged, a v2 client falling
back to v1 against a v1-only server, the router's rules before `initialize`, and a v2
turn's many updates arriving in the order sent (docs/acp-remote.md, "ACP v2")."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import websockets
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_acp import (
    ClientCapabilities,
    ContentBlockText,
    FileSystemCapabilities,
    InitializeRequest,
    NewSessionRequest,
    PromptRequest,
    v2,
)
from idlc_acp.client import AgentConnection
from idlc_acp.v2_agent import AgentV2, StopReasonV2, TurnV2
from idlc_acp.v2_client import ClientV2, Negotiated, initialize_preferring_v2
from idlc_acp.web import Refused, bearer_token, connect_http, connect_websocket, serve_acp
from idlc_runtime import PeerOptions, RpcError, current_peer

from .support import (
    EchoAgent,
    RecordingClient,
    echo_agent,
    load_echo_agent,
    one_turn,
    run_async,
    run_client,
)

EchoAgentV2 = load_echo_agent().EchoAgentV2
TRANSPORTS = ["ws", "http"]
INFO = v2.Implementation(name="test-client", version="0")
TOKEN = "remote-v2-token"
#: Chunks of the ordering tests' turns.
CHUNKS = 200


def connector(transport: str) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    return connect_websocket if transport == "ws" else connect_http


def url_of(server: Any, transport: str) -> str:
    return str(server.ws_url if transport == "ws" else server.url)


class AllowingClientV2(ClientV2):
    """Allows every permission; records the updates no turn took."""

    def __init__(self) -> None:
        super().__init__()
        self.unclaimed: list[v2.UpdateSessionNotification] = []
        self.arrived = asyncio.Event()

    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        allow = next(o for o in input.options if o.kind == v2.PermissionOptionKind.ALLOW_ONCE)
        return v2.RequestPermissionResponse(
            outcome=v2.RequestPermissionOutcomeSelected(option_id=allow.option_id)
        )

    async def on_update(self, input: v2.UpdateSessionNotification) -> None:
        self.unclaimed.append(input)
        self.arrived.set()


async def initialize_v2(agent: AgentConnection, client: ClientV2) -> Negotiated:
    return await initialize_preferring_v2(
        agent.peer,
        v2_request=v2.InitializeRequest(protocol_version=2, info=INFO),
        v2_client=client,
        v1_request=InitializeRequest(
            protocol_version=1,
            client_capabilities=ClientCapabilities(fs=FileSystemCapabilities()),
        ),
        v1_client=RecordingClient(),
    )


def wire(update: Any) -> dict[str, Any]:
    value: dict[str, Any] = msgspec.to_builtins(update)
    return value


def texts_of(updates: list[dict[str, Any]]) -> list[str]:
    return [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]


# ---------------------------------------------------------------- the echo agent at v2


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_a_v2_turn_end_to_end(transport: str, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# v2 remote readme\n", encoding="utf-8")
    client = AllowingClientV2()
    async with serve_acp(EchoAgent, v2_factory=EchoAgentV2) as server:
        async with connector(transport)(url_of(server, transport), RecordingClient()) as agent:
            negotiated = await initialize_v2(agent, client)
            assert negotiated.version == 2
            assert isinstance(negotiated.response, v2.InitializeResponse)
            assert negotiated.response.info.name == "idlc-echo-agent"
            proxy = v2.AgentProxy(agent.peer)
            session = await proxy.new_session(v2.NewSessionRequest(cwd=str(tmp_path)))
            blocks: list[v2.ContentBlock] = [
                v2.ContentBlockText(text=t) for t in ("one", "two", "three")
            ]
            turn = client.turn(
                proxy, v2.PromptRequest(session_id=session.session_id, prompt=blocks)
            )
            updates = [wire(update) async for update in turn]
    # The ack is the user message's id; the user message is echoed under it.
    assert turn.message_id is not None
    assert updates[0] == {
        "sessionUpdate": "user_message",
        "messageId": turn.message_id,
        "content": [{"type": "text", "text": t} for t in ("one", "two", "three")],
    }
    assert updates[1] == {"sessionUpdate": "state_update", "state": "running"}
    assert texts_of(updates) == ["one", "two", "three"]
    # The chunks are one agent message, not the user's.
    assert len({u["messageId"] for u in updates if "chunk" in u["sessionUpdate"]}) == 1
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    assert [c.get("status") for c in calls] == ["pending", "in_progress", "completed"]
    assert calls[-1]["content"][0]["content"]["text"] == "# v2 remote readme"
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    assert turn.stop_reason == "end_turn"
    state = client.sessions[session.session_id]
    assert state.idle and state.stop_reason == "end_turn"
    assert client.unclaimed == []


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_session_cancel_ends_a_v2_turn_idle_cancelled(transport: str, tmp_path: Path) -> None:
    client = AllowingClientV2()
    async with serve_acp(EchoAgent, v2_factory=EchoAgentV2) as server:
        async with connector(transport)(url_of(server, transport), RecordingClient()) as agent:
            assert (await initialize_v2(agent, client)).version == 2
            proxy = v2.AgentProxy(agent.peer)
            session = await proxy.new_session(v2.NewSessionRequest(cwd=str(tmp_path)))
            blocks: list[v2.ContentBlock] = [
                v2.ContentBlockText(text=f"block {n}") for n in range(30)
            ]
            turn = client.turn(
                proxy, v2.PromptRequest(session_id=session.session_id, prompt=blocks)
            )
            updates: list[dict[str, Any]] = []
            async for update in turn:
                updates.append(wire(update))
                if updates[-1]["sessionUpdate"] == "agent_message_chunk" and len(updates) == 3:
                    await proxy.cancel(v2.CancelSessionNotification(session_id=session.session_id))
            # The connection goes on after the cancelled turn: another one ends normally.
            again = client.turn(
                proxy,
                v2.PromptRequest(
                    session_id=session.session_id, prompt=[v2.ContentBlockText(text="again")]
                ),
            )
            after = [wire(update) async for update in again]
    assert turn.stop_reason == "cancelled"
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "cancelled",
    }
    assert texts_of(updates) == [f"block {n}" for n in range(len(texts_of(updates)))]
    assert len(texts_of(updates)) < 30
    assert again.stop_reason == "end_turn" and texts_of(after) == ["again"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_a_v1_client_gets_the_dual_version_server_unchanged(
    transport: str, tmp_path: Path
) -> None:
    client = RecordingClient()
    async with serve_acp(EchoAgent, v2_factory=EchoAgentV2) as server:
        async with connector(transport)(url_of(server, transport), client) as agent:
            session_id, stop = await one_turn(agent, tmp_path, "v1 still")
    assert stop == "end_turn"
    assert [u.session_id for u in client.updates] == [session_id] * len(client.updates)
    updates = [wire(u.update) for u in client.updates]
    assert texts_of(updates) == ["v1 still"]
    # v1's fs/read_text_file is asked of the client, as a v1 agent does.
    assert client.reads == [str(tmp_path / "README.md")]


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_a_v2_client_falls_back_to_v1_against_a_v1_only_server(
    transport: str, tmp_path: Path
) -> None:
    v1_client = RecordingClient()
    async with serve_acp(EchoAgent) as server:
        async with connector(transport)(url_of(server, transport), v1_client) as agent:
            negotiated = await initialize_preferring_v2(
                agent.peer,
                v2_request=v2.InitializeRequest(protocol_version=2, info=INFO),
                v2_client=AllowingClientV2(),
                v1_request=InitializeRequest(protocol_version=1),
                v1_client=v1_client,
            )
            assert negotiated.version == 1
            (tmp_path / "README.md").write_text("# readme\n", encoding="utf-8")
            session = await agent.new_session(NewSessionRequest(cwd=str(tmp_path), mcp_servers=[]))
            answer = await agent.prompt(
                PromptRequest(session_id=session.session_id, prompt=[ContentBlockText(text="x")])
            )
    assert answer.stop_reason.value == "end_turn"
    assert texts_of([wire(u.update) for u in v1_client.updates]) == ["x"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_v2_alone_is_served_and_refuses_a_v1_client_with_the_routers_error(
    transport: str, tmp_path: Path
) -> None:
    client = AllowingClientV2()
    async with serve_acp(None, v2_factory=EchoAgentV2) as server:
        url = url_of(server, transport)
        async with connector(transport)(url, RecordingClient()) as agent:
            with pytest.raises(RpcError) as refused:
                await agent.initialize(InitializeRequest(protocol_version=1))
            assert refused.value.code == -32022
            assert refused.value.data == {"requested": 1, "supported": [2]}
            # The refusal is an answer: the client may initialize again, at v2.
            assert (await initialize_v2(agent, client)).version == 2
            proxy = v2.AgentProxy(agent.peer)
            session = await proxy.new_session(v2.NewSessionRequest(cwd=str(tmp_path)))
            turn = client.turn(
                proxy,
                v2.PromptRequest(
                    session_id=session.session_id, prompt=[v2.ContentBlockText(text="alone")]
                ),
            )
            updates = [wire(update) async for update in turn]
    assert texts_of(updates) == ["alone"] and turn.stop_reason == "end_turn"


# ---------------------------------------------------------------- before initialize


@run_async
async def test_before_initialize_a_websocket_gets_the_routers_answers_and_stays_open() -> None:
    async with serve_acp(EchoAgent, v2_factory=EchoAgentV2) as server:
        async with websockets.connect(server.ws_url) as ws:
            early = await ask(
                ws, {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}
            )
            assert early == {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32600,
                    "message": "Invalid request",
                    "data": "first ACP request must be initialize",
                },
            }
            # A notification before initialize is ignored: nothing answers it.
            await ws.send('{"jsonrpc": "2.0", "method": "session/cancel", "params": {}}')
            bad = await ask(
                ws,
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "initialize",
                    "params": {"protocolVersion": -1},
                },
            )
            assert bad["id"] == 2 and bad["error"]["code"] == -32602
            assert (await ask(ws, [1]))["error"]["code"] == -32600
            unreadable = await ask_raw(ws, "{not json")
            assert unreadable["error"]["code"] == -32700
            # Still open: a valid initialize is routed to v2 and answered.
            initialized = await ask(
                ws,
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "initialize",
                    "params": {"protocolVersion": 2, "info": {"name": "raw", "version": "0"}},
                },
            )
            assert initialized["id"] == 3 and initialized["result"]["protocolVersion"] == 2
            # From then on the v2 agent serves the connection.
            session = await ask(
                ws, {"jsonrpc": "2.0", "id": 4, "method": "session/new", "params": {"cwd": "/"}}
            )
            assert session["id"] == 4 and session["result"]["sessionId"].startswith("echo-")
            assert server.app.connections == 1


async def ask(ws: Any, message: Any) -> Any:
    """Send `message` in a text frame; the next frame, decoded."""
    return await ask_raw(ws, msgspec.json.encode(message).decode())


async def ask_raw(ws: Any, text: str) -> Any:
    await ws.send(text)
    return msgspec.json.decode(await asyncio.wait_for(ws.recv(), 10))


#: Messages before initialize, each with the id of its answer (None: no answer comes).
EARLY: list[tuple[str, Any]] = [
    ('{"jsonrpc": "2.0", "method": "session/cancel", "params": {}}', None),
    ('{"jsonrpc": "2.0", "id": "r", "result": {}}', None),
    ('{"jsonrpc": "2.0", "id": "n", "method": "session/new", "params": {"cwd": "/"}}', "n"),
    ('{"jsonrpc": "2.0", "id": "v", "method": "initialize", "params": {}}', "v"),
    (
        '{"jsonrpc": "2.0", "id": "u", "method": "initialize", "params": {"protocolVersion": 0}}',
        "u",
    ),
    ('{"jsonrpc": "1.0", "id": "j", "method": "initialize"}', "j"),
    ('[{"jsonrpc": "2.0", "id": "b", "method": "initialize"}]', None),
    ('{"id": "p", not json', "p"),
    ("42", None),
]


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(range(len(EARLY))), max_size=12))
def test_any_messages_before_initialize_leave_the_websocket_open(drawn: list[int]) -> None:
    async def run() -> None:
        async with serve_acp(EchoAgent, v2_factory=EchoAgentV2) as server:
            async with websockets.connect(server.ws_url) as ws:
                for index in drawn:
                    await ws.send(EARLY[index][0])
                await ws.send(
                    '{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": '
                    '{"protocolVersion": 2, "info": {"name": "x", "version": "0"}}}'
                )
                answers = []
                while True:
                    answer = msgspec.json.decode(await asyncio.wait_for(ws.recv(), 10))
                    if answer.get("id") == "init":
                        break
                    answers.append(answer)
        assert answer["result"]["protocolVersion"] == 2
        # Every request got its error, in order; notifications and responses nothing.
        # (A batch and a bare value are answered with id null.)
        expected = [EARLY[i][1] for i in drawn if EARLY[i][1] is not None or EARLY[i][0][0] in "[4"]
        assert [a.get("id") for a in answers] == expected
        assert all("error" in a for a in answers)

    asyncio.run(asyncio.wait_for(run(), 60))


@run_async
async def test_before_initialize_streamable_http_answers_and_a_refused_initialize_ends_its_connection() -> (
    None
):
    async with serve_acp(EchoAgent, v2_factory=EchoAgentV2) as server:
        async with httpx.AsyncClient(timeout=10) as http:

            async def post(message: Any) -> httpx.Response:
                return await http.post(server.url, json=message)

            early = await post({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}})
            assert early.status_code == 400 and early.json()["error"]["code"] == -32600
            # The router's answers to a bad initialize come back in the POST's body, even
            # those with id null (a v2 request id may not be a float).
            for message, code, request_id in [
                ({"protocolVersion": "2"}, -32602, 7),
                ({"protocolVersion": 0}, -32022, 8),
            ]:
                answer = await post(
                    {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": message}
                )
                assert answer.status_code == 200, answer.text
                assert answer.json()["id"] == request_id
                assert answer.json()["error"]["code"] == code
            floated = await post(
                {
                    "jsonrpc": "2.0",
                    "id": 1.5,
                    "method": "initialize",
                    "params": {"protocolVersion": 2, "info": {"name": "x", "version": "0"}},
                }
            )
            assert floated.status_code == 200 and floated.json()["id"] is None
            assert floated.json()["error"]["code"] == -32600
            # None of them left a connection open.
            for connection in list(server.app.http_connections.values()):
                await connection.wait_closed()
            assert not server.app.http_connections
            ok = await post(
                {
                    "jsonrpc": "2.0",
                    "id": "init",
                    "method": "initialize",
                    "params": {"protocolVersion": 2, "info": {"name": "x", "version": "0"}},
                }
            )
            assert ok.status_code == 200 and ok.json()["result"]["protocolVersion"] == 2
            assert "acp-connection-secret" in ok.headers


# ---------------------------------------------------------------- order


class CountingAgentV2(AgentV2):
    """Each turn streams "0" … "CHUNKS-1" as chunks of one message, without pausing.
    `_test/announce` answers at once, then a task of its own sends `count` chunks of
    another message: updates outside any turn, after the answer that caused them."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[None]] = set()

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        return v2.InitializeResponse(protocol_version=2, info=INFO)

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="s")

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        message_id = "counted"
        for index in range(CHUNKS):
            await turn.send_text(str(index), message_id=message_id)
        return "end_turn"

    async def ext_method(self, method: str, params: Any) -> Any:
        client = v2.ClientProxy(current_peer())

        async def announce() -> None:
            for index in range(params["count"]):
                chunk = v2.SessionUpdateAgentMessageChunk(
                    message_id="announced", content=v2.ContentBlockText(text=str(index))
                )
                await client.update(
                    v2.UpdateSessionNotification(session_id=params["sessionId"], update=chunk)
                )

        task = asyncio.get_running_loop().create_task(announce())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return {}


class AwaitingClientV2(AllowingClientV2):
    """Awaits a drawn number of loop turns (or sleeps) in each update before taking it."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.random = random.Random(seed)

    async def update(self, input: v2.UpdateSessionNotification) -> None:
        for _ in range(self.random.randrange(4)):
            await asyncio.sleep(self.random.random() / 1000 if self.random.random() < 0.3 else 0)
        await super().update(input)


@contextlib.asynccontextmanager
async def counting(transport: str, client: ClientV2) -> AsyncIterator[AgentConnection]:
    async with serve_acp(None, v2_factory=CountingAgentV2) as server:
        async with connector(transport)(url_of(server, transport), RecordingClient()) as agent:
            assert (await initialize_v2(agent, client)).version == 2
            yield agent


async def counted_turns(
    proxy: v2.AgentProxy, client: ClientV2, turns: int, *, new_session: bool = True
) -> None:
    if new_session:
        await proxy.new_session(v2.NewSessionRequest(cwd="/"))
    for _ in range(turns):
        request = v2.PromptRequest(session_id="s", prompt=[v2.ContentBlockText(text="go")])
        turn = client.turn(proxy, request)
        updates = [wire(update) async for update in turn]
        assert texts_of(updates) == [str(index) for index in range(CHUNKS)]
        assert updates[-1]["stopReason"] == "end_turn"
    # Applied in order, the chunks make one message: every turn's, one after the other.
    message = client.sessions["s"].messages["counted"]
    assert [block["text"] for block in message["content"]] == [
        str(index) for index in range(CHUNKS)
    ] * turns


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_a_v2_turns_many_chunks_arrive_in_the_order_sent(transport: str) -> None:
    client = AllowingClientV2()
    async with counting(transport, client) as agent:
        await counted_turns(v2.AgentProxy(agent.peer), client, 3)


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_updates_outside_a_turn_arrive_after_the_answer_in_order(transport: str) -> None:
    client = AllowingClientV2()
    async with counting(transport, client) as agent:
        proxy = v2.AgentProxy(agent.peer)
        await proxy.new_session(v2.NewSessionRequest(cwd="/"))
        assert (
            await agent.peer.request("_test/announce", {"sessionId": "s", "count": CHUNKS}, Any)
            == {}
        )
        while len(client.unclaimed) < CHUNKS:
            await client.arrived.wait()
            client.arrived.clear()
        # A turn after them goes on as usual.
        await counted_turns(proxy, client, 1, new_session=False)
    assert [u.session_id for u in client.unclaimed] == ["s"] * CHUNKS
    assert texts_of([wire(u.update) for u in client.unclaimed]) == [str(i) for i in range(CHUNKS)]


@pytest.mark.parametrize("transport", TRANSPORTS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_an_awaiting_update_handler_keeps_the_order(transport: str, seed: int) -> None:
    client = AwaitingClientV2(seed)

    async def run() -> None:
        async with counting(transport, client) as agent:
            await counted_turns(v2.AgentProxy(agent.peer), client, 1)

    asyncio.run(asyncio.wait_for(run(), 60))


# ---------------------------------------------------------------- limits


async def v2_turn(agent: AgentConnection, cwd: Path, text: str = "limited") -> str | None:
    """initialize at v2, session/new, one turn: its stop reason."""
    client = AllowingClientV2()
    assert (await initialize_v2(agent, client)).version == 2
    proxy = v2.AgentProxy(agent.peer)
    session = await proxy.new_session(v2.NewSessionRequest(cwd=str(cwd)))
    turn = client.turn(
        proxy,
        v2.PromptRequest(session_id=session.session_id, prompt=[v2.ContentBlockText(text=text)]),
    )
    async for _ in turn:
        pass
    return turn.stop_reason


@pytest.mark.parametrize("transport", TRANSPORTS)
@run_async
async def test_admission_and_the_connection_bound_apply_to_v2_connections(
    transport: str, tmp_path: Path
) -> None:
    async with serve_acp(
        EchoAgent, v2_factory=EchoAgentV2, authenticate=bearer_token(TOKEN), max_connections=1
    ) as server:
        url = url_of(server, transport)
        for headers, status in [({}, 401), ({"Authorization": "Bearer wrong"}, 403)]:
            with pytest.raises(Refused) as refused:
                async with connector(transport)(url, RecordingClient(), headers=headers) as agent:
                    await v2_turn(agent, tmp_path)
            assert refused.value.status == status
        good = {"Authorization": f"Bearer {TOKEN}"}
        async with connector(transport)(url, RecordingClient(), headers=good) as agent:
            assert await v2_turn(agent, tmp_path) == "end_turn"
            for other in TRANSPORTS:
                with pytest.raises(Refused) as full:
                    async with connector(other)(
                        url_of(server, other), RecordingClient(), headers=good
                    ) as second:
                        await v2_turn(second, tmp_path)
                assert full.value.status == 503


@run_async
async def test_an_idle_v2_http_connection_is_closed() -> None:
    async with (
        serve_acp(None, v2_factory=EchoAgentV2, idle_timeout=0.2) as server,
        httpx.AsyncClient(timeout=10) as http,
    ):
        response = await http.post(
            server.url,
            json={
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": 2, "info": {"name": "x", "version": "0"}},
            },
        )
        assert response.json()["result"]["protocolVersion"] == 2
        connection_id = response.headers["acp-connection-id"]
        await server.app.http_connections[connection_id].wait_closed()
        gone = await http.get(
            server.url, headers={"Accept": "text/event-stream", "Acp-Connection-Id": connection_id}
        )
        assert gone.status_code == 404


@run_async
async def test_an_oversized_message_is_answered_before_and_after_routing() -> None:
    limit = 4096
    async with serve_acp(
        EchoAgent, v2_factory=EchoAgentV2, options=PeerOptions(max_message_size=limit)
    ) as server:
        big = {"pad": "x" * (2 * limit)}
        async with websockets.connect(server.ws_url) as ws:
            before = await ask(ws, {"jsonrpc": "2.0", "id": 1, "method": "initialize", **big})
            assert before["id"] == 1 and before["error"]["code"] == -32600
            assert before["error"]["data"]["limit"] == limit
            initialized = await ask(
                ws,
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "initialize",
                    "params": {"protocolVersion": 2, "info": {"name": "x", "version": "0"}},
                },
            )
            assert initialized["result"]["protocolVersion"] == 2
            after = await ask(ws, {"jsonrpc": "2.0", "id": 3, "method": "session/new", **big})
            assert after["id"] == 3 and after["error"]["code"] == -32600
            assert after["error"]["data"]["limit"] == limit
        async with httpx.AsyncClient(timeout=10) as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", **big}
            refused = await http.post(server.url, json=body)
            assert refused.status_code == 413
            assert refused.json()["error"]["data"]["limit"] == limit


# ---------------------------------------------------------------- the examples


def test_the_example_agent_listening_serves_v2_and_the_example_client_drives_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "README.md").write_text("# remote v2\n", encoding="utf-8")
    with echo_agent() as (url, _):
        for connect in (url.replace("http://", "ws://"), url):
            code, events, said = run_client(
                connect, tmp_path, "--protocol-version", "2", "--prompt", "a", "--prompt", "b"
            )
            assert code == 0, said
            assert events[0]["event"] == "initialized" and events[0]["protocolVersion"] == 2
            updates = [event["update"] for event in events if event["event"] == "update"]
            assert texts_of(updates) == ["a", "b"]
            assert updates[-1]["stopReason"] == "end_turn"
            assert events[-1]["event"] == "result" and events[-1]["stopReason"] == "end_turn"
            # v1 clients of the same server are unchanged.
            code, events, said = run_client(connect, tmp_path, "--prompt", "v1")
            assert code == 0, said
            assert events[0]["protocolVersion"] == 1 and events[-1]["stopReason"] == "end_turn"


def test_the_example_agent_listening_with_v1_only_makes_the_client_fall_back(
    tmp_path: Path,
) -> None:
    (tmp_path / "README.md").write_text("# remote v1\n", encoding="utf-8")
    with echo_agent(flags=("--v1-only",)) as (url, _):
        for connect in (url.replace("http://", "ws://"), url):
            code, events, said = run_client(connect, tmp_path, "--protocol-version", "2")
            assert code == 0, said
            assert events[0]["event"] == "initialized" and events[0]["protocolVersion"] == 1
            assert events[-1] == {"event": "result", "stopReason": "end_turn"}


# ---------------------------------------------------------------- connections that end early


@run_async
async def test_a_websocket_that_leaves_before_initialize_frees_its_place() -> None:
    async with serve_acp(EchoAgent, v2_factory=EchoAgentV2, max_connections=1) as server:
        async with websockets.connect(server.ws_url) as ws:
            assert (await ask(ws, {"jsonrpc": "2.0", "id": 1, "method": "x"}))["id"] == 1
            assert server.app.connections == 1
        # Bounded by the test's timeout: the server notices the close on its own.
        while server.app.connections:
            await asyncio.sleep(0.01)
        async with connect_websocket(server.ws_url, RecordingClient()) as agent:
            assert (await initialize_v2(agent, AllowingClientV2())).version == 2


@run_async
async def test_shutting_down_closes_websockets_routed_or_not() -> None:
    async with contextlib.AsyncExitStack() as stack:
        server = await stack.enter_async_context(serve_acp(EchoAgent, v2_factory=EchoAgentV2))
        waiting = await stack.enter_async_context(websockets.connect(server.ws_url))
        routed = await stack.enter_async_context(websockets.connect(server.ws_url))
        answer = await ask(
            routed,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": 2, "info": {"name": "x", "version": "0"}},
            },
        )
        assert answer["result"]["protocolVersion"] == 2
        assert server.app.connections == 2
        await server.app.close_all()
        for ws in (waiting, routed):
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 10)
