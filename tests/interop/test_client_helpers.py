"""idlc's client helpers against the agents written with the official SDKs.

`AgentConnection.turn` streams exactly the updates of the turn, in order, and ends at its
stop reason (also when cancelled); `SessionState` built from the stream holds the echoed
message and the completed tool call; the permission broker answers with its policy; the
agent's README read goes through `ConfinedFiles`; their error answers arrive as ACP classes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from idlc_acp import (
    CancelNotification,
    Client,
    ClientCapabilities,
    ContentBlockText,
    FileSystemCapabilities,
    InitializeRequest,
    InvalidParams,
    LoadSessionRequest,
    NewSessionRequest,
    PermissionOptionKind,
    PromptRequest,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    StopReason,
    ToolCallStatus,
    Unsupported,
    spawn_agent,
)
from idlc_acp.contrib import ConfinedFiles, PermissionBroker, Role, SessionState, choose

from .support import (
    PY_SDKS,
    TS_AGENT,
    Workspace,
    child_env,
    make_workspace,
    official_python,
    py_agent,
    require_node_modules,
)

AGENTS = [*(f"py-agent-{version}" for version in PY_SDKS), "ts-agent"]


class HelperClient(Client):
    def __init__(self) -> None:
        self.policy = "allow"
        self.broker = PermissionBroker(self.decide, remember=False)
        self.files = ConfinedFiles()
        self.seen: list[SessionNotification] = []
        self.asked: list[str] = []

    async def decide(self, request: RequestPermissionRequest) -> Any:
        self.asked.append(self.policy)
        kinds = {
            "allow": choose(PermissionOptionKind.ALLOW_ONCE),
            "reject": choose(PermissionOptionKind.REJECT_ONCE),
        }[self.policy]
        return await kinds(request)

    async def update(self, input: SessionNotification) -> None:
        self.seen.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return await self.broker.request_permission(input)

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        return await self.files.read_text_file(input)


async def scenario(agent: list[str], workspace: Workspace) -> dict[str, Any]:
    client = HelperClient()
    found: dict[str, Any] = {}
    async with spawn_agent(client, agent, env=child_env()) as connection:
        await connection.initialize(
            InitializeRequest(
                protocol_version=1,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True)
                ),
            )
        )
        opened = await connection.new_session(
            NewSessionRequest(cwd=str(workspace.path), mcp_servers=[])
        )
        session_id = opened.session_id
        client.files.open_session(session_id, str(workspace.path))
        state = SessionState.opened(session_id, opened)

        blocks = [ContentBlockText(text=t) for t in ("one", "two", "three")]
        state.begin_turn(list(blocks))
        before = len(client.seen)
        turn = connection.turn(PromptRequest(session_id=session_id, prompt=list(blocks)))
        streamed: list[SessionUpdate] = []
        async for update in turn:
            streamed.append(update)
            state.apply(update)
        found["stop"] = turn.response.stop_reason
        found["same_as_handler"] = streamed == [n.update for n in client.seen[before:]]
        found["state"] = state

        client.policy = "reject"
        rejected = connection.turn(
            PromptRequest(session_id=session_id, prompt=[ContentBlockText(text="no")])
        )
        found["rejected"] = [update async for update in rejected]
        found["rejected_stop"] = rejected.response.stop_reason

        client.policy = "allow"
        cancelled = connection.turn(
            PromptRequest(
                session_id=session_id,
                prompt=[ContentBlockText(text=f"block {i}") for i in range(30)],
            )
        )
        chunks = 0
        async for update in cancelled:
            if isinstance(update, SessionUpdateAgentMessageChunk):
                chunks += 1
                if chunks == 1:
                    await connection.cancel(CancelNotification(session_id=session_id))
        found["cancelled_stop"] = cancelled.response.stop_reason
        found["cancelled_chunks"] = chunks

        for name, call in {
            "unknown_session": connection.prompt(
                PromptRequest(session_id="no-such-session", prompt=[])
            ),
            "load": connection.load_session(
                LoadSessionRequest(session_id=session_id, cwd=str(workspace.path), mcp_servers=[])
            ),
        }.items():
            try:
                await call
            except Exception as error:
                found[name] = error
    found["asked"] = client.asked
    return found


@pytest.mark.parametrize("name", AGENTS)
def test_client_helpers_against_an_official_agent(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if name == "ts-agent":
        require_node_modules()
        agent = TS_AGENT
    else:
        agent = py_agent(official_python(request, name.removeprefix("py-agent-")))
    workspace = make_workspace(tmp_path)
    found = asyncio.run(asyncio.wait_for(scenario(agent, workspace), 120))

    assert found["stop"] is StopReason.END_TURN
    assert found["same_as_handler"]
    state: SessionState = found["state"]
    assert [(m.role, m.text) for m in state.messages] == [
        (Role.USER, "onetwothree"),
        (Role.AGENT, "onetwothree"),
    ]
    [call] = state.tool_calls.values()
    assert call.status is ToolCallStatus.COMPLETED and call.title == "Read README.md"
    assert call.content is not None
    assert workspace.first_line in str(call.content)

    assert found["rejected_stop"] is StopReason.END_TURN
    assert [type(u).__name__ for u in found["rejected"]][0] == "SessionUpdateAgentMessageChunk"
    assert found["asked"][:2] == ["allow", "reject"]

    assert found["cancelled_stop"] is StopReason.CANCELLED
    assert 1 <= found["cancelled_chunks"] < 30

    assert isinstance(found["unknown_session"], InvalidParams)
    assert isinstance(found["load"], Unsupported)
