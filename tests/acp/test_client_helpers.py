"""The client helpers on their own: update streams per session, the session state, the
permission broker, and ACP's error classes."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import idlc_acp
from idlc_acp import (
    AcpError,
    AcpErrorCode,
    Agent,
    AuthRequired,
    Client,
    ContentBlockText,
    InitializeRequest,
    InitializeResponse,
    InternalError,
    InvalidParams,
    InvalidRequest,
    NewSessionRequest,
    NewSessionResponse,
    ParseError,
    PermissionOption,
    PermissionOptionKind,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    PromptRequest,
    PromptResponse,
    RequestCancelled,
    RequestPermissionOutcomeCancelled,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResourceNotFound,
    SessionMode,
    SessionModeState,
    SessionNotification,
    SessionUpdateAgentMessageChunk,
    SessionUpdateAgentThoughtChunk,
    SessionUpdateCurrentModeUpdate,
    SessionUpdatePlan,
    SessionUpdateSessionInfoUpdate,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    SessionUpdateUsageUpdate,
    SessionUpdateUserMessageChunk,
    StopReason,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    Unsupported,
    acp_error,
    client_options,
    current_session,
    protocol,
)
from idlc_acp.contrib import PermissionBroker, Role, SessionState, choose
from idlc_acp.skeletons import routes_updates
from idlc_runtime import ProtocolError, RpcError, implemented_members
from idlc_runtime.codec.decoders import decoder_for

from .pair import connected

# ------------------------------------------------------------------ errors


def test_every_code_of_the_schemas_error_code_has_its_class() -> None:
    from .conftest import schema

    listed = {
        alternative["const"]
        for alternative in schema()["$defs"]["ErrorCode"]["anyOf"]
        if "const" in alternative
    }
    assert listed == {int(code) for code in AcpErrorCode}
    for code in AcpErrorCode:
        typed = acp_error(RpcError(code, "m", {"d": 1}))
        assert typed.code == code and typed.message == "m" and typed.data == {"d": 1}
        if code == AcpErrorCode.METHOD_NOT_FOUND:
            assert type(typed) is RpcError  # the runtime's proxies raise Unsupported already
        else:
            assert isinstance(typed, AcpError) and typed.code_value == code


def test_constructors_say_what_the_official_sdks_say() -> None:
    assert (ResourceNotFound.session("s").code, ResourceNotFound.session("s").data) == (
        -32002,
        {"sessionId": "s"},
    )
    assert ResourceNotFound.uri("/a").data == {"uri": "/a"}
    for kind, code, message in [
        (ParseError, -32700, "Parse error"),
        (InvalidRequest, -32600, "Invalid request"),
        (InvalidParams, -32602, "Invalid params"),
        (InternalError, -32603, "Internal error"),
        (RequestCancelled, -32800, "Request cancelled"),
        (AuthRequired, -32000, "Authentication required"),
        (ResourceNotFound, -32002, "Resource not found"),
    ]:
        error = kind()
        assert (error.code, error.message, error.data) == (code, message, None)


def test_other_codes_and_local_errors_stay_what_they_are() -> None:
    other = RpcError(-32042, "vendor")
    assert acp_error(other) is other
    local = ProtocolError("bad result")  # -32603 too, but raised here, not answered there
    assert acp_error(local) is local
    unsupported = Unsupported("x")
    assert acp_error(unsupported) is unsupported


class ErrorAgent(Agent):
    def __init__(self, error: Exception) -> None:
        self.error = error

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        raise self.error

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        session = current_session()
        await session.send_text(f"before {input.session_id}")
        if input.session_id == "fail":
            raise self.error
        await asyncio.sleep(0.01)
        await session.send_text(f"after {input.session_id}")
        return PromptResponse(stop_reason=StopReason.END_TURN)


class QuietClient(Client):
    def __init__(self) -> None:
        self.seen: list[SessionNotification] = []

    async def update(self, input: SessionNotification) -> None:
        self.seen.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        raise AssertionError("not asked")


@pytest.mark.parametrize(
    "error", [AuthRequired(), ResourceNotFound.session("x"), InvalidParams("no", {"why": 1})]
)
def test_an_agents_acp_error_reaches_the_client_as_its_class(error: AcpError) -> None:
    async def main() -> None:
        async with connected(ErrorAgent(error), QuietClient()) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            with pytest.raises(type(error)) as caught:
                await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
            assert (caught.value.code, caught.value.message, caught.value.data) == (
                error.code,
                error.message,
                error.data,
            )

    asyncio.run(asyncio.wait_for(main(), 30))


# ------------------------------------------------------------------ update streams


class GeneratedBaseClient(protocol.Client):
    """A client on the generated skeleton itself: its updates are routed by an interceptor."""

    def __init__(self) -> None:
        self.seen: list[SessionNotification] = []

    async def update(self, input: SessionNotification) -> None:
        self.seen.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        raise AssertionError("not asked")


def test_which_clients_route_their_updates_in_their_dispatch_table() -> None:
    assert routes_updates(QuietClient()) and not routes_updates(GeneratedBaseClient())
    options, controls = client_options(QuietClient())
    assert controls.updates not in options.interceptors
    options, controls = client_options(GeneratedBaseClient())
    assert controls.updates in options.interceptors
    # What a client implements is still judged against the generated skeleton.
    assert implemented_members(QuietClient()) == {"session/update", "session/request_permission"}


@pytest.mark.parametrize("client_class", [QuietClient, GeneratedBaseClient])
def test_concurrent_turns_of_two_sessions_each_get_their_own_updates(client_class: type) -> None:
    client = client_class()

    async def main() -> dict[str, list[str]]:
        async with connected(ErrorAgent(AuthRequired()), client) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            turns = {
                sid: connection.turn(PromptRequest(session_id=sid, prompt=[])) for sid in ("a", "b")
            }
            assert connection.watching("a") and connection.watching("b")

            async def texts(sid: str) -> list[str]:
                return [
                    u.content.text
                    async for u in turns[sid]
                    if isinstance(u, SessionUpdateAgentMessageChunk)
                    and isinstance(u.content, ContentBlockText)
                ]

            got = dict(zip(turns, await asyncio.gather(*(texts(s) for s in turns)), strict=True))
            assert not connection.watching("a") and not connection.watching("b")
            assert all(t.response.stop_reason is StopReason.END_TURN for t in turns.values())
            return got

    got = asyncio.run(asyncio.wait_for(main(), 30))
    assert got == {"a": ["before a", "after a"], "b": ["before b", "after b"]}
    assert len(client.seen) == 4  # the client's own handler still saw everything


def test_a_failed_turn_yields_its_updates_then_raises_its_error() -> None:
    async def main() -> None:
        async with connected(ErrorAgent(AuthRequired()), QuietClient()) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            turn = connection.turn(PromptRequest(session_id="fail", prompt=[]))
            updates = []
            with pytest.raises(AuthRequired):
                async for update in turn:
                    updates.append(update)
            assert len(updates) == 1
            with pytest.raises(AuthRequired):
                _ = turn.response
            with pytest.raises(AuthRequired):
                await turn.result()

    asyncio.run(asyncio.wait_for(main(), 30))


# ------------------------------------------------------------------ session state


def chunk(kind: type, text: str, message_id: str | None = None) -> Any:
    return kind(content=ContentBlockText(text=text), message_id=message_id)


def test_chunks_become_messages() -> None:
    state = SessionState("s")
    state.begin_turn([ContentBlockText(text="question")])
    for update in [
        chunk(SessionUpdateAgentThoughtChunk, "thinking "),
        chunk(SessionUpdateAgentThoughtChunk, "hard"),
        chunk(SessionUpdateAgentMessageChunk, "an "),
        chunk(SessionUpdateAgentMessageChunk, "answer"),
        chunk(SessionUpdateAgentMessageChunk, "second", "m2"),
        chunk(SessionUpdateAgentMessageChunk, " message", "m2"),
        chunk(SessionUpdateAgentMessageChunk, "third", "m3"),
    ]:
        state.apply(update)
    state.begin_turn([ContentBlockText(text="again")])
    state.apply(chunk(SessionUpdateAgentMessageChunk, "next answer"))
    state.apply(chunk(SessionUpdateUserMessageChunk, "replayed", "u1"))
    state.apply(chunk(SessionUpdateUserMessageChunk, " question", "u1"))
    assert [(m.role, m.text) for m in state.messages] == [
        (Role.USER, "question"),
        (Role.THOUGHT, "thinking hard"),
        (Role.AGENT, "an answer"),
        (Role.AGENT, "second message"),
        (Role.AGENT, "third"),
        (Role.USER, "again"),
        (Role.AGENT, "next answer"),
        (Role.USER, "replayed question"),
    ]


def test_tool_calls_merge_and_the_rest_is_replaced_whole() -> None:
    modes = SessionModeState(
        current_mode_id="ask", available_modes=[SessionMode(id="ask", name="Ask")]
    )
    state = SessionState.opened("s", NewSessionResponse(session_id="s", modes=modes))
    assert state.current_mode_id == "ask" and [m.id for m in state.available_modes] == ["ask"]
    state.apply(
        SessionUpdateToolCallUpdate(tool_call_id="early", status=ToolCallStatus.IN_PROGRESS)
    )
    state.apply(
        SessionUpdateToolCall(
            tool_call_id="c", title="Read", kind=ToolKind.READ, status=ToolCallStatus.PENDING
        )
    )
    state.apply(SessionUpdateToolCallUpdate(tool_call_id="c", status=ToolCallStatus.COMPLETED))
    state.apply(SessionUpdateToolCallUpdate(tool_call_id="c", title="Read a"))
    call = state.tool_calls["c"]
    assert (call.title, call.kind, call.status) == (
        "Read a",
        ToolKind.READ,
        ToolCallStatus.COMPLETED,
    )
    assert state.tool_calls["early"].status is ToolCallStatus.IN_PROGRESS
    entry = PlanEntry(content="x", priority=PlanEntryPriority.LOW, status=PlanEntryStatus.PENDING)
    state.apply(SessionUpdatePlan(entries=[entry, entry]))
    state.apply(SessionUpdatePlan(entries=[entry]))
    assert state.plan == [entry]
    state.apply(SessionUpdateCurrentModeUpdate(current_mode_id="code"))
    state.apply(SessionUpdateUsageUpdate(used=10, size=100))
    state.apply(SessionUpdateSessionInfoUpdate(title="A title"))
    state.apply(SessionNotification(session_id="s", update=SessionUpdateSessionInfoUpdate()))
    assert (state.current_mode_id, state.usage and state.usage.used, state.title) == (
        "code",
        10,
        "A title",
    )
    # `title` is a patch: absent (above) kept it, `null` clears it.
    cleared = b'{"sessionUpdate": "session_info_update", "title": null}'
    state.apply(decoder_for(idlc_acp.SessionUpdate).decode(cleared))
    assert state.title is None
    with pytest.raises(ValueError):
        state.apply(SessionNotification(session_id="other", update=SessionUpdatePlan(entries=[])))


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "agent", "thought"]),
            st.text(max_size=5),
            st.one_of(st.none(), st.sampled_from(["m1", "m2"])),
        ),
        max_size=20,
    )
)
@settings(max_examples=100, deadline=None)
def test_no_chunk_is_lost_or_reordered(chunks: list[tuple[str, str, str | None]]) -> None:
    kinds = {
        "user": SessionUpdateUserMessageChunk,
        "agent": SessionUpdateAgentMessageChunk,
        "thought": SessionUpdateAgentThoughtChunk,
    }
    state = SessionState("s")
    for kind, text, message_id in chunks:
        state.apply(chunk(kinds[kind], text, message_id))
    flattened = [
        (message.role.value, block.text)
        for message in state.messages
        for block in message.blocks
        if isinstance(block, ContentBlockText)
    ]
    assert flattened == [(kind, text) for kind, text, _ in chunks]
    for earlier, later in itertools.pairwise(state.messages):
        assert earlier.role is not later.role or later.message_id is not None


# ------------------------------------------------------------------ permission broker

ALLOW = PermissionOption(option_id="a", name="Allow", kind=PermissionOptionKind.ALLOW_ONCE)
ALWAYS = PermissionOption(option_id="aa", name="Always", kind=PermissionOptionKind.ALLOW_ALWAYS)
REJECT = PermissionOption(option_id="r", name="Reject", kind=PermissionOptionKind.REJECT_ONCE)


def request(session: str = "s", kind: ToolKind | None = ToolKind.EDIT) -> RequestPermissionRequest:
    return RequestPermissionRequest(
        session_id=session,
        tool_call=ToolCallUpdate(tool_call_id="c", kind=kind),
        options=[ALLOW, ALWAYS, REJECT],
    )


def test_an_always_answer_is_remembered_per_session_and_tool_kind() -> None:
    asked: list[RequestPermissionRequest] = []
    policy = choose(PermissionOptionKind.ALLOW_ALWAYS)

    async def decide(input: RequestPermissionRequest) -> PermissionOption | None:
        asked.append(input)
        return await policy(input)

    broker = PermissionBroker(decide)

    async def main() -> list[RequestPermissionResponse]:
        return [
            await broker.request_permission(request()),
            await broker.request_permission(request()),  # remembered
            await broker.request_permission(request(kind=ToolKind.READ)),  # another kind: asked
            await broker.request_permission(request(session="t")),  # another session: asked
            await broker.request_permission(request(kind=None)),  # no kind: always asked
        ]

    answers = asyncio.run(main())
    assert [a.outcome for a in answers] == [RequestPermissionOutcomeSelected(option_id="aa")] * 5
    assert len(asked) == 4
    broker.forget("s")
    asyncio.run(broker.request_permission(request()))
    assert len(asked) == 5


def test_a_policy_that_cancels_or_invents_an_option() -> None:
    cancelled = asyncio.run(PermissionBroker(choose()).request_permission(request()))
    assert cancelled.outcome == RequestPermissionOutcomeCancelled()

    async def invent(input: RequestPermissionRequest) -> PermissionOption | None:
        return PermissionOption(option_id="zz", name="?", kind=PermissionOptionKind.ALLOW_ONCE)

    with pytest.raises(ValueError, match="zz"):
        asyncio.run(PermissionBroker(invent).request_permission(request()))
    assert asyncio.run(
        PermissionBroker(choose(PermissionOptionKind.ALLOW_ONCE)).allow(
            "s", ToolCallUpdate(tool_call_id="w")
        )
    )
    assert not asyncio.run(
        PermissionBroker(choose(PermissionOptionKind.REJECT_ONCE)).allow(
            "s", ToolCallUpdate(tool_call_id="w")
        )
    )
