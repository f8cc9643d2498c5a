"""The agent's `Session` handle: every method is the one ACP message it stands for, with the
session id filled in, and nothing the client did not offer reaches the wire."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from idlc_acp import (
    ALLOW_ONCE,
    REJECT_ONCE,
    Agent,
    Client,
    ClientCapabilities,
    ContentBlockText,
    CreateTerminalRequest,
    CreateTerminalResponse,
    FileSystemCapabilities,
    InitializeRequest,
    InitializeResponse,
    KillTerminalRequest,
    KillTerminalResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    NewSessionRequest,
    NewSessionResponse,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    PromptRequest,
    PromptResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    ReleaseTerminalResponse,
    RequestPermissionOutcomeCancelled,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResourceNotFound,
    ResumeSessionRequest,
    ResumeSessionResponse,
    Session,
    SessionNotification,
    SessionUpdateAgentMessageChunk,
    SessionUpdateAgentThoughtChunk,
    SessionUpdatePlan,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    SessionUpdateUserMessageChunk,
    StopReason,
    TerminalOutputRequest,
    TerminalOutputResponse,
    ToolCallContentContent,
    ToolCallContentTerminal,
    ToolCallStatus,
    ToolKind,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
    current_session,
)
from idlc_runtime import ProtocolError, Unsupported

from .pair import connected

SESSION = "s-1"
Script = Any  # async (Session) -> StopReason


class ScriptedAgent(Agent):
    """Runs `script(current_session())` as its turn; records what the script raised."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.raised: list[BaseException] = []
        self.outside: list[BaseException] = []

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        try:
            current_session()
        except RuntimeError as error:
            self.outside.append(error)
        return NewSessionResponse(session_id=SESSION)

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        try:
            stop: StopReason = await self.script(current_session())
        except Exception as error:
            self.raised.append(error)
            stop = StopReason.REFUSAL
        return PromptResponse(stop_reason=stop)

    async def resume_session(self, input: ResumeSessionRequest) -> ResumeSessionResponse:
        await current_session().send_text(f"resumed {input.session_id}")
        return ResumeSessionResponse()

    async def load_session(self, input: LoadSessionRequest) -> LoadSessionResponse:
        session = current_session()
        await session.update(
            SessionUpdateUserMessageChunk(content=ContentBlockText(text="earlier question"))
        )
        await session.send_text("earlier answer")
        return LoadSessionResponse()


class RecordingClient(Client):
    def __init__(
        self, choose: str | None = "allow-once", read_error: Exception | None = None
    ) -> None:
        self.calls: list[Any] = []
        self.choose = choose
        self.read_error = read_error

    async def update(self, input: SessionNotification) -> None:
        self.calls.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        self.calls.append(input)
        if self.choose is None:
            return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())
        return RequestPermissionResponse(
            outcome=RequestPermissionOutcomeSelected(option_id=self.choose)
        )

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        self.calls.append(input)
        if self.read_error is not None:
            raise self.read_error
        return ReadTextFileResponse(content="line one\n")

    async def write_text_file(self, input: WriteTextFileRequest) -> WriteTextFileResponse:
        self.calls.append(input)
        return WriteTextFileResponse()

    async def create_terminal(self, input: CreateTerminalRequest) -> CreateTerminalResponse:
        self.calls.append(input)
        return CreateTerminalResponse(terminal_id="t-1")

    async def terminal_output(self, input: TerminalOutputRequest) -> TerminalOutputResponse:
        self.calls.append(input)
        return TerminalOutputResponse(output="hello\n", truncated=False)

    async def wait_for_terminal_exit(
        self, input: WaitForTerminalExitRequest
    ) -> WaitForTerminalExitResponse:
        self.calls.append(input)
        return WaitForTerminalExitResponse(exit_code=0)

    async def kill_terminal(self, input: KillTerminalRequest) -> KillTerminalResponse:
        self.calls.append(input)
        return KillTerminalResponse()

    async def release_terminal(self, input: ReleaseTerminalRequest) -> ReleaseTerminalResponse:
        self.calls.append(input)
        return ReleaseTerminalResponse()


EVERYTHING = ClientCapabilities(
    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
)


def run_turn(
    script: Script,
    client: RecordingClient,
    capabilities: ClientCapabilities = EVERYTHING,
) -> tuple[ScriptedAgent, PromptResponse]:
    agent = ScriptedAgent(script)

    async def main() -> PromptResponse:
        async with connected(agent, client) as connection:
            await connection.initialize(
                InitializeRequest(protocol_version=1, client_capabilities=capabilities)
            )
            await connection.new_session(NewSessionRequest(cwd="/project", mcp_servers=[]))
            return await connection.prompt(PromptRequest(session_id=SESSION, prompt=[]))

    return agent, asyncio.run(asyncio.wait_for(main(), 30))


def test_each_method_is_its_acp_message_with_the_session_id() -> None:
    seen: dict[str, Any] = {}

    async def script(session: Session) -> StopReason:
        await session.send_text("hello")
        await session.send_thought("hmm")
        entry = PlanEntry(
            content="read", priority=PlanEntryPriority.HIGH, status=PlanEntryStatus.PENDING
        )
        await session.plan([entry])
        call = await session.start_tool_call("Read a", kind=ToolKind.READ, content="why")
        seen["choice"] = await session.request_permission(call)
        seen["text"] = await session.read_text_file("/project/a", line=2, limit=3)
        await session.write_text_file("/project/b", "new text")
        async with await session.create_terminal(
            "make", args=["test"], env={"CI": "1"}, cwd="/project", output_byte_limit=100
        ) as terminal:
            await session.update_tool_call(call, content=[terminal.content()])
            seen["output"] = await terminal.output()
            seen["exit"] = await terminal.wait_for_exit()
            await terminal.kill()
            await terminal.release()  # released once: leaving the block sends nothing more
        await session.update_tool_call(call, status=ToolCallStatus.COMPLETED, content="done")
        return StopReason.END_TURN

    client = RecordingClient()
    agent, answer = run_turn(script, client)
    assert agent.raised == [] and answer.stop_reason is StopReason.END_TURN
    assert {call.session_id for call in client.calls} == {SESSION}
    kinds = [
        type(c.update if isinstance(c, SessionNotification) else c).__name__ for c in client.calls
    ]
    assert kinds == [
        "SessionUpdateAgentMessageChunk",
        "SessionUpdateAgentThoughtChunk",
        "SessionUpdatePlan",
        "SessionUpdateToolCall",
        "RequestPermissionRequest",
        "ReadTextFileRequest",
        "WriteTextFileRequest",
        "CreateTerminalRequest",
        "SessionUpdateToolCallUpdate",
        "TerminalOutputRequest",
        "WaitForTerminalExitRequest",
        "KillTerminalRequest",
        "ReleaseTerminalRequest",
        "SessionUpdateToolCallUpdate",
    ]
    text, thought, plan, started = (c.update for c in client.calls[:4])
    assert isinstance(text, SessionUpdateAgentMessageChunk) and text.content == ContentBlockText(
        text="hello"
    )
    assert isinstance(
        thought, SessionUpdateAgentThoughtChunk
    ) and thought.content == ContentBlockText(text="hmm")
    assert isinstance(plan, SessionUpdatePlan) and [e.content for e in plan.entries] == ["read"]
    assert isinstance(started, SessionUpdateToolCall)
    assert started.status is ToolCallStatus.PENDING and started.kind is ToolKind.READ
    assert started.content == [ToolCallContentContent(content=ContentBlockText(text="why"))]
    permission = client.calls[4]
    assert permission.tool_call.tool_call_id == started.tool_call_id
    assert permission.tool_call.title == "Read a" and permission.options == [
        ALLOW_ONCE,
        REJECT_ONCE,
    ]
    assert seen["choice"] is ALLOW_ONCE
    read = client.calls[5]
    assert (read.path, read.line, read.limit) == ("/project/a", 2, 3) and seen[
        "text"
    ] == "line one\n"
    assert (client.calls[6].path, client.calls[6].content) == ("/project/b", "new text")
    create = client.calls[7]
    assert (create.command, create.args, create.cwd, create.output_byte_limit) == (
        "make",
        ["test"],
        "/project",
        100,
    )
    assert [(v.name, v.value) for v in create.env or []] == [("CI", "1")]
    shown = client.calls[8].update
    assert isinstance(shown, SessionUpdateToolCallUpdate)
    assert shown.content == [ToolCallContentTerminal(terminal_id="t-1")] and shown.status is None
    assert {c.terminal_id for c in client.calls[9:13]} == {"t-1"}
    assert seen["output"].output == "hello\n" and seen["exit"].exit_code == 0
    final = client.calls[13].update
    assert (
        isinstance(final, SessionUpdateToolCallUpdate) and final.status is ToolCallStatus.COMPLETED
    )


@pytest.mark.parametrize(
    ("capabilities", "refused"),
    [
        (ClientCapabilities(), {"fs/read_text_file", "fs/write_text_file", "terminal/create"}),
        (
            ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True)),
            {"fs/write_text_file", "terminal/create"},
        ),
        (
            ClientCapabilities(fs=FileSystemCapabilities(write_text_file=True), terminal=True),
            {"fs/read_text_file"},
        ),
    ],
)
def test_what_the_client_did_not_offer_is_refused_before_the_wire(
    capabilities: ClientCapabilities, refused: set[str]
) -> None:
    outcomes: dict[str, str] = {}

    async def script(session: Session) -> StopReason:
        attempts = {
            "fs/read_text_file": lambda: session.read_text_file("/project/a"),
            "fs/write_text_file": lambda: session.write_text_file("/project/a", "x"),
            "terminal/create": lambda: session.create_terminal("ls"),
        }
        for method, attempt in attempts.items():
            try:
                await attempt()
                outcomes[method] = "sent"
            except Unsupported as error:
                outcomes[method] = error.method
        return StopReason.END_TURN

    client = RecordingClient()
    run_turn(script, client, capabilities)
    assert {method for method, outcome in outcomes.items() if outcome != "sent"} == refused
    assert all(outcomes[method] == method for method in refused)
    sent = {type(call).__name__ for call in client.calls}
    assert not sent & {
        {
            "fs/read_text_file": "ReadTextFileRequest",
            "fs/write_text_file": "WriteTextFileRequest",
            "terminal/create": "CreateTerminalRequest",
        }[method]
        for method in refused
    }


def test_a_cancelled_permission_is_none_and_an_option_not_offered_is_a_protocol_error() -> None:
    answers: list[Any] = []

    async def script(session: Session) -> StopReason:
        answers.append(await session.request_permission("call-1"))
        return StopReason.END_TURN

    run_turn(script, RecordingClient(choose=None))
    assert answers == [None]
    agent, answer = run_turn(script, RecordingClient(choose="made-up"))
    assert answer.stop_reason is StopReason.REFUSAL
    assert len(agent.raised) == 1 and isinstance(agent.raised[0], ProtocolError)
    assert "made-up" in str(agent.raised[0])


def test_the_clients_errors_reach_the_agent_as_acp_classes() -> None:
    async def script(session: Session) -> StopReason:
        await session.read_text_file("/project/missing")
        return StopReason.END_TURN

    agent, _ = run_turn(
        script, RecordingClient(read_error=ResourceNotFound.uri("/project/missing"))
    )
    assert len(agent.raised) == 1
    error = agent.raised[0]
    assert isinstance(error, ResourceNotFound) and error.data == {"uri": "/project/missing"}


def test_current_session_is_only_there_for_session_calls_and_load_replays_through_it() -> None:
    agent = ScriptedAgent(None)
    client = RecordingClient()

    async def main() -> list[Any]:
        async with connected(agent, client) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            await connection.new_session(NewSessionRequest(cwd="/project", mcp_servers=[]))
            replay = connection.replay(
                LoadSessionRequest(session_id="old", cwd="/project", mcp_servers=[])
            )
            updates = [update async for update in replay]
            assert replay.response == LoadSessionResponse()
            await connection.resume_session(
                ResumeSessionRequest(session_id="live", cwd="/project", mcp_servers=[])
            )
            return updates

    updates = asyncio.run(asyncio.wait_for(main(), 30))
    assert len(agent.outside) == 1 and "current_session()" in str(agent.outside[0])
    assert [type(u) for u in updates] == [
        SessionUpdateUserMessageChunk,
        SessionUpdateAgentMessageChunk,
    ]
    assert [c.session_id for c in client.calls] == ["old", "old", "live"]
    assert client.calls[-1].update.content == ContentBlockText(text="resumed live")
