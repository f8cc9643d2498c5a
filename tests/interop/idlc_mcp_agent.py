"""An agent written with idlc_acp's unstable surface that speaks MCP over ACP: it receives
`mcp/message` notifications and, during a prompt, sends `mcp/message` requests to the
client (one it answers with a result, one with an MCP error), reports both in an
`agent_message_chunk` as JSON, and sends a child session's state snapshots (`idle` with and
without a stop reason, `unknown`, and a custom state). Driven by js/mcp_client.mjs and by
idlc's own client in tests/interop/test_unstable.py."""

from __future__ import annotations

import asyncio
import json

import msgspec

from idlc_acp import run_agent
from idlc_acp.unstable import (
    Agent,
    ClientProxy,
    ContentBlockText,
    Error,
    InitializeRequest,
    InitializeResponse,
    MessageMcpNotification,
    MessageMcpRequest,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    SessionNotification,
    SessionUpdateAgentMessageChunk,
    SessionUpdateSubagentUpdate,
    StateUpdateIdleDefault,
    StateUpdateIdleError,
    StateUpdateIdleMaxTokens,
    StateUpdateUnknown,
    StateUpdateUnknown_,
    StopReason,
    Usage,
)
from idlc_runtime import current_peer
from idlc_runtime.hooks import enc_hook

#: The child states the agent reports, in order.
STATES = [
    StateUpdateIdleMaxTokens(usage=Usage(input_tokens=1, output_tokens=2, total_tokens=3)),
    StateUpdateIdleError(error=Error(code=-32000, message="child failed")),
    StateUpdateIdleDefault(),
    StateUpdateUnknown(),
    StateUpdateUnknown_({"state": "_paused", "reason": "user"}),
]


class McpAgent(Agent):
    def __init__(self) -> None:
        self.notifications: list[MessageMcpNotification] = []
        self.notified = asyncio.Event()

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        return NewSessionResponse(session_id="s-1")

    async def message_mcp(self, input: MessageMcpNotification) -> None:
        self.notifications.append(input)
        self.notified.set()

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        client = ClientProxy(current_peer())
        await self.notified.wait()  # sent before the prompt; handled concurrently with it
        answers = [
            await client.message_mcp(
                MessageMcpRequest(
                    server_id="srv-1", request_id=f"r-{method}", method=method, params={"n": 1}
                )
            )
            for method in ("tools/list", "fail")
        ]
        report = {
            "answers": [json.loads(msgspec.json.encode(a, enc_hook=enc_hook)) for a in answers],
            "answer_classes": [type(answer).__name__ for answer in answers],
            "notifications": [
                json.loads(msgspec.json.encode(n, enc_hook=enc_hook)) for n in self.notifications
            ],
        }
        updates = [
            SessionUpdateAgentMessageChunk(content=ContentBlockText(text=json.dumps(report)))
        ] + [SessionUpdateSubagentUpdate(session_id="child-1", state=state) for state in STATES]
        for update in updates:
            await client.update(SessionNotification(session_id=input.session_id, update=update))
        return PromptResponse(stop_reason=StopReason.END_TURN)


if __name__ == "__main__":
    run_agent(McpAgent())
