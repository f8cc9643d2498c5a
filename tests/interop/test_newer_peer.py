"""Messages from a newer peer arrive: the official TypeScript SDK's agent (js/agent.mjs,
prompt NEWER) sends values this schema version does not know in places the schema marks
default-on-error or skip-invalid-items, and an update kind it does not know at all; idlc's
client decodes the first as the official SDKs do and hands the last to the application's
hook (docs/acp.md, "Messages from newer peers")."""

from __future__ import annotations

import asyncio
from typing import Any

from idlc_acp import (
    Client,
    ContentBlockText,
    InitializeRequest,
    NewSessionRequest,
    PromptRequest,
    RequestPermissionOutcomeCancelled,
    RequestPermissionRequest,
    RequestPermissionResponse,
    Role,
    SessionNotification,
    SessionUpdateAgentMessageChunk,
    SessionUpdateNotice,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    ToolCallStatus,
    spawn_agent,
)
from idlc_runtime import RpcError

from .support import TS_AGENT, child_env, require_node_modules


class Recorder(Client):
    def __init__(self) -> None:
        self.seen: list[SessionNotification] = []

    async def update(self, input: SessionNotification) -> None:
        self.seen.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())


async def newer_turn() -> tuple[str, list[Any], list[tuple[str, Any, RpcError]]]:
    client = Recorder()
    undecodable: list[tuple[str, Any, RpcError]] = []
    async with spawn_agent(
        client,
        TS_AGENT,
        env=child_env(),
        on_undecodable_notification=lambda *args: undecodable.append(args),
    ) as connection:
        await connection.initialize(InitializeRequest(protocol_version=1))
        session = await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        answer = await connection.prompt(
            PromptRequest(session_id=session.session_id, prompt=[ContentBlockText(text="NEWER")])
        )
    return str(answer.stop_reason.value), [n.update for n in client.seen], undecodable


def test_a_newer_ts_agents_updates_arrive_as_the_official_sdks_decode_them() -> None:
    require_node_modules()
    stop, seen, undecodable = asyncio.run(asyncio.wait_for(newer_turn(), 60))
    assert stop == "end_turn"
    call, update, notice, chunk = seen
    assert isinstance(call, SessionUpdateToolCall)
    assert (call.title, call.kind, call.status) == ("Browse", None, None)
    assert isinstance(update, SessionUpdateToolCallUpdate)
    assert update.status is ToolCallStatus.COMPLETED
    assert [(loc.path, loc.line) for loc in update.locations or []] == [
        ("/a.py", 3),
        ("/b.py", None),
    ]
    assert isinstance(notice, SessionUpdateNotice)
    assert (notice.title, notice.severity.value, notice.description) == ("Heads up", "fatal", None)
    assert isinstance(chunk, SessionUpdateAgentMessageChunk)
    annotations = chunk.content.annotations
    assert annotations is not None and (annotations.audience, annotations.priority) == (
        [Role.USER],
        None,
    )
    # The update kind nobody here knows is not dropped silently: the hook has it, raw.
    ((method, params, error),) = undecodable
    assert method == "session/update"
    assert params["update"] == {"sessionUpdate": "weather", "forecast": "rain"}
    assert error.code == -32602 and "sessionUpdate" in str(error.data or error.message)
