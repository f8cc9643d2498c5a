"""An ACP agent on stdio that echoes prompts: `python examples/acp_echo_agent.py`.

An editor can launch it like any ACP agent. Each turn:

1. every text block of the prompt comes back, whole and in order, as an
   `agent_message_chunk`, about 100 ms apart (so a `session/cancel` can land);
2. it announces a tool call reading `README.md` in the session's cwd and asks permission;
3. if allowed, and the client offered `fs.readTextFile`, it reads the file through
   `fs/read_text_file` and reports the first line in a `tool_call_update`;
4. it answers `end_turn`, or `cancelled` when the client cancelled the turn.

It implements `initialize`, `session/new`, `session/prompt` and `session/cancel` only, so its
`agentCapabilities` (derived from that) declare no `loadSession` and no session extras.
"""

from __future__ import annotations

import asyncio
import os
import uuid

from idlc_acp import (
    PROTOCOL_VERSION,
    Agent,
    CancelNotification,
    ClientCapabilities,
    ContentBlockText,
    Implementation,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PermissionOption,
    PermissionOptionKind,
    PromptCapabilities,
    PromptRequest,
    PromptResponse,
    __version__,
    ReadTextFileRequest,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    SessionNotification,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    StopReason,
    ToolCallContentContent,
    ToolCallLocation,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    agent_capabilities,
    current_client,
    run_agent,
)

#: The pause between echoed blocks, in seconds.
PAUSE = 0.1
ALLOW = "allow-once"
REJECT = "reject-once"


class EchoAgent(Agent):
    def __init__(self) -> None:
        self.client_capabilities = ClientCapabilities()
        #: Session id → its working directory.
        self.sessions: dict[str, str] = {}

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        if input.client_capabilities is not None:
            self.client_capabilities = input.client_capabilities
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=agent_capabilities(
                self, prompt=PromptCapabilities(embedded_context=True)
            ),
            agent_info=Implementation(
                name="idlc-echo-agent", title="idlc echo agent", version=__version__
            ),
        )

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        session_id = f"echo-{uuid.uuid4().hex[:12]}"
        self.sessions[session_id] = input.cwd
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        session_id = input.session_id
        cwd = self.sessions.get(session_id)
        if cwd is None:
            from idlc_runtime import RpcError

            raise RpcError(-32002, f"Unknown session: {session_id}", {"sessionId": session_id})
        peer = current_client()
        first = True
        for block in input.prompt:
            if not isinstance(block, ContentBlockText):
                continue
            if not first:
                await asyncio.sleep(PAUSE)
            first = False
            await send(
                session_id,
                SessionUpdateAgentMessageChunk(content=ContentBlockText(text=block.text)),
            )
        await asyncio.sleep(PAUSE)

        readme = os.path.join(cwd, "README.md")
        tool_call_id = f"read-readme-{uuid.uuid4().hex[:8]}"
        await send(
            session_id,
            SessionUpdateToolCall(
                tool_call_id=tool_call_id,
                title="Read README.md",
                kind=ToolKind.READ,
                status=ToolCallStatus.PENDING,
                locations=[ToolCallLocation(path=readme)],
            ),
        )
        answer = await peer.request_permission(
            RequestPermissionRequest(
                session_id=session_id,
                tool_call=ToolCallUpdate(
                    tool_call_id=tool_call_id, title="Read README.md", kind=ToolKind.READ
                ),
                options=[
                    PermissionOption(
                        option_id=ALLOW, name="Allow", kind=PermissionOptionKind.ALLOW_ONCE
                    ),
                    PermissionOption(
                        option_id=REJECT, name="Reject", kind=PermissionOptionKind.REJECT_ONCE
                    ),
                ],
            )
        )
        outcome = answer.outcome
        if not isinstance(outcome, RequestPermissionOutcomeSelected):
            # The client cancelled the request: the turn was cancelled.
            return PromptResponse(stop_reason=StopReason.CANCELLED)
        fs = self.client_capabilities.fs
        if outcome.option_id != ALLOW:
            await send(
                session_id, tool_update(tool_call_id, ToolCallStatus.FAILED, "Permission denied.")
            )
        elif fs is None or not fs.read_text_file:
            await send(
                session_id,
                tool_update(tool_call_id, ToolCallStatus.FAILED, "The client cannot read files."),
            )
        else:
            await send(session_id, tool_update(tool_call_id, ToolCallStatus.IN_PROGRESS, None))
            read = await peer.read_text_file(
                ReadTextFileRequest(session_id=session_id, path=readme, line=1, limit=1)
            )
            first_line = read.content.split("\n", 1)[0]
            await send(session_id, tool_update(tool_call_id, ToolCallStatus.COMPLETED, first_line))
        return PromptResponse(stop_reason=StopReason.END_TURN)

    async def cancel(self, input: CancelNotification) -> None:
        # `idlc_acp` already cancels the running turn of `input.session_id`; nothing else to
        # stop here. Declaring it only documents that cancellation is supported.
        return None


async def send(session_id: str, update: SessionUpdate) -> None:
    await current_client().update(SessionNotification(session_id=session_id, update=update))


def tool_update(
    tool_call_id: str, status: ToolCallStatus, text: str | None
) -> SessionUpdateToolCallUpdate:
    return SessionUpdateToolCallUpdate(
        tool_call_id=tool_call_id,
        status=status,
        content=(
            None if text is None else [ToolCallContentContent(content=ContentBlockText(text=text))]
        ),
    )


def main() -> None:
    run_agent(EchoAgent())


if __name__ == "__main__":
    main()
