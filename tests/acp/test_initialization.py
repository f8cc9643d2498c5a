"""`initialize` first, and the version both sides settle on (docs/acp.md, "Versions")."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_acp import (
    Agent,
    AgentConnection,
    Client,
    InitializeRequest,
    InitializeResponse,
    InvalidRequest,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    StopReason,
    UnsupportedProtocolVersion,
    negotiate_protocol_version,
)
from idlc_runtime import ConnectionClosed

from .pair import connected
from .test_robustness import Raw


class FixedVersionAgent(Agent):
    def __init__(self, version: int) -> None:
        self.version = version
        self.sessions = 0

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=self.version)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        self.sessions += 1
        return NewSessionResponse(session_id="s")

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        return PromptResponse(stop_reason=StopReason.END_TURN)


class QuietClient(Client):
    async def update(self, input: SessionNotification) -> None:
        return None

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        raise AssertionError("not asked")


@given(
    requested=st.integers(min_value=0, max_value=65535),
    supported=st.frozensets(st.integers(min_value=0, max_value=65535), min_size=1, max_size=5),
)
@settings(max_examples=200, deadline=None)
def test_the_agent_answers_the_requested_version_if_it_can_else_its_latest(
    requested: int, supported: frozenset[int]
) -> None:
    answered = negotiate_protocol_version(requested, supported)
    assert answered == (requested if requested in supported else max(supported))


def test_an_agent_without_versions_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        negotiate_protocol_version(1, ())


def test_the_client_refuses_an_agent_version_it_does_not_support_and_closes() -> None:
    agent = FixedVersionAgent(2)

    async def main() -> None:
        async with connected(agent, QuietClient()) as connection:
            with pytest.raises(UnsupportedProtocolVersion) as refused:
                await connection.initialize(InitializeRequest(protocol_version=1))
            assert refused.value.answered == 2 and refused.value.supported == {1}
            assert "version 2" in str(refused.value) and "supports 1" in str(refused.value)
            with pytest.raises(ConnectionClosed):
                await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))

    asyncio.run(asyncio.wait_for(main(), 30))
    assert agent.sessions == 0


def test_a_client_may_accept_more_versions() -> None:
    async def main() -> None:
        async with connected(FixedVersionAgent(2), QuietClient()) as connection:
            wider = AgentConnection(
                connection.peer, connection._controls, supported_versions=frozenset({1, 2})
            )
            answer = await wider.initialize(InitializeRequest(protocol_version=2))
            assert answer.protocol_version == 2

    asyncio.run(asyncio.wait_for(main(), 30))


def test_requests_before_initialize_are_refused_in_process() -> None:
    agent = FixedVersionAgent(1)

    async def main() -> None:
        async with connected(agent, QuietClient()) as connection:
            with pytest.raises(InvalidRequest) as refused:
                await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
            assert refused.value.message == (
                "Invalid request: ACP connection must be initialized before 'session/new'"
            )
            await connection.initialize(InitializeRequest(protocol_version=1))
            await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))

    asyncio.run(asyncio.wait_for(main(), 30))
    assert agent.sessions == 1


def test_the_echo_agent_on_stdio_gates_and_negotiates() -> None:
    agent = Raw()
    try:
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "session/new",
                "params": {"cwd": "/", "mcpServers": []},
            }
        )
        # The echo agent serves v1 and v2: before `initialize` its protocol router answers
        # (tests/interop/test_protocol_router.py has the rest of its rules).
        assert agent.receive() == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32600,
                "message": "Invalid request",
                "data": "first ACP request must be initialize",
            },
        }
        # An extension request waits for initialize too; a notification is not answered.
        agent.send({"jsonrpc": "2.0", "id": 2, "method": "_vendor/ask", "params": {}})
        assert agent.receive()["error"]["code"] == -32600
        agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}})
        # A failed initialize does not open the connection.
        agent.send({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}})
        assert agent.receive()["error"]["code"] == -32602
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "session/new",
                "params": {"cwd": "/", "mcpServers": []},
            }
        )
        assert agent.receive()["error"]["code"] == -32600
        # A v1 client gets v1 (one asking for 7 would get v2, the latest at or below it).
        agent.send(
            {"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        assert agent.receive()["result"]["protocolVersion"] == 1
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "session/new",
                "params": {"cwd": "/", "mcpServers": []},
            }
        )
        assert "sessionId" in agent.receive()["result"]
        # initialize may come again.
        agent.send(
            {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        assert agent.receive()["result"]["protocolVersion"] == 1
    finally:
        agent.process.kill()
        agent.process.wait()


ACP_METHODS = sorted(
    {
        "authenticate",
        "logout",
        "session/new",
        "session/load",
        "session/prompt",
        "session/list",
        "session/set_mode",
        "session/set_config_option",
        "session/resume",
        "session/close",
        "session/delete",
    }
)


@given(
    calls=st.lists(
        st.tuples(
            st.one_of(st.sampled_from(ACP_METHODS), st.text(min_size=1, max_size=12)),
            st.one_of(
                st.none(),
                st.fixed_dictionaries(
                    {
                        "sessionId": st.text(max_size=5),
                        "cwd": st.just("/"),
                        "mcpServers": st.just([]),
                    }
                ),
            ),
        ),
        min_size=1,
        max_size=6,
    )
)
@settings(max_examples=40, deadline=None)
def test_no_request_reaches_the_agent_before_initialize(
    calls: list[tuple[str, dict[str, object] | None]],
) -> None:
    agent = FixedVersionAgent(1)

    async def main() -> list[int]:
        codes = []
        async with connected(agent, QuietClient()) as connection:
            for method, params in calls:
                if method == "initialize" or method.startswith("$/"):
                    continue
                try:
                    await connection.peer.request(method, params, object)
                except Exception as error:
                    codes.append(getattr(error, "code", None))
                else:
                    codes.append(0)
        return codes

    codes = asyncio.run(asyncio.wait_for(main(), 30))
    # -32600 from the gate; -32601 (a protocol method this agent does not implement) and
    # -32602 (params that do not decode) come from the runtime, which refuses those before
    # any interceptor sees the call (docs/acp.md, "Versions and `initialize`").
    assert set(codes) <= {-32600, -32601, -32602}
    assert agent.sessions == 0
