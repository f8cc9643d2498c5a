"""An ACP agent that echoes prompts: `python examples/acp_echo_agent.py`.

An editor can launch it like any ACP agent, on stdio. With `--listen HOST:PORT` it serves
remote ACP instead (docs/acp-remote.md): streamable HTTP and WebSocket at
`http://HOST:PORT/acp`, one agent per connection, under hypercorn; it writes
`listening on http://HOST:PORT/acp` to stderr once it accepts connections and stops on
SIGINT or SIGTERM (`idlc_acp.agent_main` is that command line). Each turn:

1. every text block of the prompt comes back, whole and in order, as an
   `agent_message_chunk`, about 100 ms apart (so a `session/cancel` can land);
2. it announces a tool call reading `README.md` in the session's cwd and asks permission;
3. if allowed, and the client offered `fs.readTextFile`, it reads the file through
   `fs/read_text_file` and reports the first line in a `tool_call_update`;
4. it answers `end_turn`, or `cancelled` when the client cancelled the turn.

It implements `initialize`, `session/new`, `session/prompt` and `session/cancel` only, so its
`agentCapabilities` (derived from that) declare no `loadSession` and no session extras.

On stdio, and on every `--listen` connection, it serves ACP v1 and the v2 draft, the
client's `initialize` choosing (docs/acp.md, "Serving v1 and v2"; docs/acp-remote.md,
"ACP v2"); `--v1-only` serves v1 alone. The v2 agent (`EchoAgentV2`) does the same in
v2's shape: `session/prompt` answers at once with the user message's `messageId`, the echo
comes as `agent_message_chunk`s of one agent message, the tool call is patched by id, and
the turn ends with an idle `state_update` carrying the stop reason (`end_turn`, or
`cancelled` after `session/cancel`). v2 has no `fs/*` methods: the agent reads the README
itself once the user allows it.
"""

from __future__ import annotations

import asyncio
import os
import uuid

from idlc_acp import (
    ALLOW_ONCE,
    Agent,
    CancelNotification,
    ContentBlockText,
    Implementation,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptCapabilities,
    PromptRequest,
    PromptResponse,
    ResourceNotFound,
    StopReason,
    ToolCallLocation,
    ToolCallStatus,
    ToolKind,
    __version__,
    agent_capabilities,
    agent_main,
    current_session,
    negotiate_protocol_version,
    v2,
)
from idlc_acp.v2_agent import AgentV2, StopReasonV2, TurnV2

#: The pause between echoed blocks, in seconds.
PAUSE = 0.1


class EchoAgent(Agent):
    def __init__(self) -> None:
        #: Session id → its working directory.
        self.sessions: dict[str, str] = {}

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=negotiate_protocol_version(input.protocol_version),
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
        cwd = self.sessions.get(input.session_id)
        if cwd is None:
            raise ResourceNotFound.session(input.session_id)
        session = current_session()

        # 1. The prompt's text comes back, block by block.
        texts = [block.text for block in input.prompt if isinstance(block, ContentBlockText)]
        for number, text in enumerate(texts):
            if number:
                await asyncio.sleep(PAUSE)
            await session.send_text(text)
        await asyncio.sleep(PAUSE)

        # 2. A tool call that wants to read the README, if the user lets it.
        readme = os.path.join(cwd, "README.md")
        call = await session.start_tool_call(
            "Read README.md",
            kind=ToolKind.READ,
            locations=[ToolCallLocation(path=readme)],
            tool_call_id=f"read-readme-{uuid.uuid4().hex[:8]}",
        )
        choice = await session.request_permission(call)
        if choice is None:
            # The client answered `cancelled`: the turn is being cancelled.
            return PromptResponse(stop_reason=StopReason.CANCELLED)

        # 3. Read it through the client, or say why not.
        fs = session.capabilities.fs
        if choice is not ALLOW_ONCE:
            await session.update_tool_call(
                call, status=ToolCallStatus.FAILED, content="Permission denied."
            )
        elif not fs.read_text_file:
            await session.update_tool_call(
                call, status=ToolCallStatus.FAILED, content="The client cannot read files."
            )
        else:
            await session.update_tool_call(call, status=ToolCallStatus.IN_PROGRESS)
            text = await session.read_text_file(readme, line=1, limit=1)
            first_line = text.split("\n", 1)[0]
            await session.update_tool_call(
                call, status=ToolCallStatus.COMPLETED, content=first_line
            )

        # 4. Done (a `session/cancel` on the way would have ended the turn `cancelled`).
        return PromptResponse(stop_reason=StopReason.END_TURN)

    async def cancel(self, input: CancelNotification) -> None:
        # `idlc_acp` already cancels the running turn of `input.session_id`; nothing else to
        # stop here. Declaring it only documents that cancellation is supported.
        return None


class EchoAgentV2(AgentV2):
    """The same agent in ACP v2 (draft) shape."""

    def __init__(self) -> None:
        #: Session id → its working directory.
        self.sessions: dict[str, str] = {}

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        return v2.InitializeResponse(
            protocol_version=2,
            info=v2.Implementation(
                name="idlc-echo-agent", title="idlc echo agent", version=__version__
            ),
            capabilities=v2.AgentCapabilities(
                session=v2.SessionCapabilities(
                    prompt=v2.PromptCapabilities(
                        embedded_context=v2.PromptEmbeddedContextCapabilities()
                    )
                ),
            ),
        )

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        session_id = f"echo-{uuid.uuid4().hex[:12]}"
        self.sessions[session_id] = input.cwd
        return v2.NewSessionResponse(session_id=session_id)

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        cwd = self.sessions.get(request.session_id)
        if cwd is None:
            await turn.send_text(f"Unknown session {request.session_id}.")
            return "error"

        # 1. The prompt's text comes back, block by block, in one agent message.
        texts = [block.text for block in request.prompt if isinstance(block, v2.ContentBlockText)]
        for number, text in enumerate(texts):
            if number:
                await asyncio.sleep(PAUSE)
            await turn.send_text(text)
        await asyncio.sleep(PAUSE)

        # 2. A tool call that wants to read the README, if the user lets it.
        readme = os.path.join(cwd, "README.md")
        call = await turn.start_tool_call(
            "Read README.md",
            kind=v2.ToolKind.READ,
            locations=[v2.ToolCallLocation(path=readme)],
            tool_call_id=f"read-readme-{uuid.uuid4().hex[:8]}",
        )
        choice = await turn.request_permission(call, "Read README.md?")
        if choice is None:
            return "cancelled"

        # 3. Read it, or say why not.
        if choice != "allow":
            await turn.update_tool_call(
                call, status=v2.ToolCallStatus.FAILED, content="Permission denied."
            )
        else:
            await turn.update_tool_call(call, status=v2.ToolCallStatus.IN_PROGRESS)
            try:
                with open(readme, encoding="utf-8") as file:
                    first_line = file.readline().rstrip("\n")
            except OSError as error:
                await turn.update_tool_call(
                    call, status=v2.ToolCallStatus.FAILED, content=f"Cannot read: {error}"
                )
            else:
                await turn.update_tool_call(
                    call, status=v2.ToolCallStatus.COMPLETED, content=first_line
                )

        # 4. Done: the idle state says `end_turn` (`cancelled` after `session/cancel`).
        return "end_turn"


if __name__ == "__main__":
    agent_main(EchoAgent, description="An ACP agent that echoes prompts.", v2_factory=EchoAgentV2)
