"""What idlc_acp does around a session's life: `additionalDirectories` in the capabilities,
`session/close` ending the session's running turns before the agent's `close_session` runs,
`cancel_turns()` for the agent's own ends (`session/delete`), turns kept per connection, and
`current_session()` in every call that names a session.

Each test runs an agent and a client of this process over pipes (`pair.connected`), through
the public API only."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import msgspec
import pytest

from idlc_acp import (
    Agent,
    AgentCapabilities,
    CancelNotification,
    Client,
    ClientCapabilities,
    CloseSessionRequest,
    CloseSessionResponse,
    ContentBlockText,
    DeleteSessionRequest,
    DeleteSessionResponse,
    InitializeRequest,
    InitializeResponse,
    ListSessionsRequest,
    ListSessionsResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    RequestPermissionOutcomeCancelled,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResumeSessionRequest,
    ResumeSessionResponse,
    Session,
    SessionAdditionalDirectoriesCapabilities,
    SessionNotification,
    SessionScope,
    SessionUpdateAgentMessageChunk,
    SetSessionConfigOptionRequest,
    SetSessionConfigOptionRequestDefault,
    SetSessionConfigOptionResponse,
    SetSessionModeRequest,
    SetSessionModeResponse,
    StopReason,
    Unsupported,
    agent_capabilities,
    agent_options,
    current_session,
)
from idlc_runtime.hooks import enc_hook

from .conftest import ACP, schema_errors
from .pair import connected

T = TypeVar("T")
STEP = 30.0


def run(main: Awaitable[T]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(main, STEP)

    return asyncio.run(bounded())


class Updates(Client):
    """Keeps every `session/update` it gets."""

    def __init__(self) -> None:
        self.updates: list[SessionNotification] = []

    async def update(self, input: SessionNotification) -> None:
        self.updates.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())

    def texts(self) -> list[tuple[str, str]]:
        """(session id, text) of each message chunk, in order."""
        return [
            (u.session_id, u.update.content.text)
            for u in self.updates
            if isinstance(u.update, SessionUpdateAgentMessageChunk)
            and isinstance(u.update.content, ContentBlockText)
        ]


class HeldTurns(Agent):
    """Each prompt waits for `release` (or its cancellation); what the handlers saw is kept."""

    def __init__(self) -> None:
        self.sessions = 0
        #: A session id each time a turn starts waiting.
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self.release = asyncio.Event()
        #: The tasks that ran the prompts, in order.
        self.turn_tasks: list[asyncio.Task[Any]] = []
        #: For each `close_session`: whether every turn's task had ended when it ran.
        self.turns_ended_at_close: list[bool] = []

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        self.sessions += 1
        return NewSessionResponse(session_id=f"s-{self.sessions}")

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        task = asyncio.current_task()
        assert task is not None
        self.turn_tasks.append(task)
        self.started.put_nowait(input.session_id)
        await self.release.wait()
        return PromptResponse(stop_reason=StopReason.END_TURN)


class Closing(HeldTurns):
    async def close_session(self, input: CloseSessionRequest) -> CloseSessionResponse:
        self.turns_ended_at_close.append(all(task.done() for task in self.turn_tasks))
        return CloseSessionResponse()


async def open_session(connection: Any) -> str:
    await connection.initialize(InitializeRequest(protocol_version=1))
    made = await connection.new_session(NewSessionRequest(cwd="/project", mcp_servers=[]))
    session_id: str = made.session_id
    return session_id


def prompt(session_id: str) -> PromptRequest:
    return PromptRequest(session_id=session_id, prompt=[ContentBlockText(text="wait")])


# -- additionalDirectories ---------------------------------------------------------------------


def encoded(capabilities: AgentCapabilities) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(msgspec.json.encode(capabilities, enc_hook=enc_hook))
    return result


def test_additional_directories_is_said_only_when_asked_for() -> None:
    agent = HeldTurns()
    plain = agent_capabilities(agent)
    said = agent_capabilities(agent, additional_directories=True)
    assert plain.session_capabilities.additional_directories is None
    assert isinstance(
        said.session_capabilities.additional_directories,
        SessionAdditionalDirectoriesCapabilities,
    )
    assert "additionalDirectories" not in encoded(plain).get("sessionCapabilities", {})
    wire = encoded(said)
    assert wire["sessionCapabilities"] == {"additionalDirectories": {}}
    assert schema_errors(wire, "AgentCapabilities") == []


def test_additional_directories_comes_beside_what_the_members_say() -> None:
    agent = Closing()
    wire = encoded(agent_capabilities(agent, additional_directories=True))
    assert wire["sessionCapabilities"] == {"additionalDirectories": {}, "close": {}}


# -- session/close ends the session's turns ----------------------------------------------------


def test_close_cancels_a_running_turn_before_close_session_runs() -> None:
    agent = Closing()

    async def main() -> tuple[PromptResponse, PromptResponse]:
        async with connected(agent, Updates()) as connection:
            session_id = await open_session(connection)
            turns = [asyncio.ensure_future(connection.prompt(prompt(session_id))) for _ in "ab"]
            assert [await agent.started.get() for _ in turns] == [session_id, session_id]
            answer = await connection.close_session(CloseSessionRequest(session_id=session_id))
            assert answer == CloseSessionResponse()
            first, second = await asyncio.gather(*turns)
            return first, second

    first, second = run(main())
    assert first.stop_reason is second.stop_reason is StopReason.CANCELLED
    # Both turns had answered when the agent's close_session ran: nothing of them was left.
    assert agent.turns_ended_at_close == [True]


def test_close_leaves_the_other_sessions_turns_alone() -> None:
    agent = Closing()

    async def main() -> PromptResponse:
        async with connected(agent, Updates()) as connection:
            closed = await open_session(connection)
            kept = (
                await connection.new_session(NewSessionRequest(cwd="/project", mcp_servers=[]))
            ).session_id
            turn = asyncio.ensure_future(connection.prompt(prompt(kept)))
            assert await agent.started.get() == kept
            await connection.close_session(CloseSessionRequest(session_id=closed))
            assert not turn.done()
            agent.release.set()
            return await turn

    assert run(main()).stop_reason is StopReason.END_TURN
    assert agent.turns_ended_at_close == [False]


def test_close_an_agent_does_not_implement_cancels_nothing() -> None:
    agent = HeldTurns()

    async def main() -> PromptResponse:
        async with connected(agent, Updates()) as connection:
            session_id = await open_session(connection)
            turn = asyncio.ensure_future(connection.prompt(prompt(session_id)))
            await agent.started.get()
            with pytest.raises(Unsupported):
                await connection.close_session(CloseSessionRequest(session_id=session_id))
            agent.release.set()
            return await turn

    assert run(main()).stop_reason is StopReason.END_TURN


def test_a_connection_never_reaches_another_connections_turns() -> None:
    """One agent and one set of options for two connections (as `serve_tcp` shares them):
    B's close and cancel naming A's session leave A's turn running."""
    agent = Closing()
    shared = agent_options(agent)

    async def main() -> PromptResponse:
        async with (
            connected(agent, Updates(), shared) as a,
            connected(agent, Updates(), shared) as b,
        ):
            session_id = await open_session(a)
            await b.initialize(InitializeRequest(protocol_version=1))
            turn = asyncio.ensure_future(a.prompt(prompt(session_id)))
            await agent.started.get()
            await b.close_session(CloseSessionRequest(session_id=session_id))
            await b.cancel(CancelNotification(session_id=session_id))
            # A request after the notification: B's cancel has been handled when it answers.
            await b.close_session(CloseSessionRequest(session_id=session_id))
            assert not turn.done()
            await a.cancel(CancelNotification(session_id=session_id))
            return await turn

    assert run(main()).stop_reason is StopReason.CANCELLED


# -- cancel_turns ------------------------------------------------------------------------------


class Deleting(HeldTurns):
    """`delete_session` ends the session's turns; a prompt saying "stop the others" too."""

    def __init__(self) -> None:
        super().__init__()
        #: What each `cancel_turns()` returned, and whether the turns had ended then.
        self.cancelled: list[tuple[int, bool]] = []

    async def delete_session(self, input: DeleteSessionRequest) -> DeleteSessionResponse:
        stopped = await current_session().cancel_turns()
        self.cancelled.append((stopped, all(task.done() for task in self.turn_tasks)))
        return DeleteSessionResponse()

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        [block] = input.prompt
        if isinstance(block, ContentBlockText) and block.text == "stop the others":
            stopped = await current_session().cancel_turns()
            await current_session().send_text(f"stopped {stopped}")
            return PromptResponse(stop_reason=StopReason.END_TURN)
        return await super().prompt(input)


def test_cancel_turns_ends_the_turns_and_waits_for_their_answers() -> None:
    agent = Deleting()

    async def main() -> PromptResponse:
        async with connected(agent, Updates()) as connection:
            session_id = await open_session(connection)
            turn = asyncio.ensure_future(connection.prompt(prompt(session_id)))
            await agent.started.get()
            await connection.delete_session(DeleteSessionRequest(session_id=session_id))
            return await turn

    assert run(main()).stop_reason is StopReason.CANCELLED
    assert agent.cancelled == [(1, True)]


def test_a_turn_calling_cancel_turns_goes_on() -> None:
    agent = Deleting()
    client = Updates()

    async def main() -> tuple[PromptResponse, PromptResponse]:
        async with connected(agent, client) as connection:
            session_id = await open_session(connection)
            held = asyncio.ensure_future(connection.prompt(prompt(session_id)))
            await agent.started.get()
            stopper = PromptRequest(
                session_id=session_id, prompt=[ContentBlockText(text="stop the others")]
            )
            return await connection.prompt(stopper), await held

    stopping, held = run(main())
    assert (stopping.stop_reason, held.stop_reason) == (StopReason.END_TURN, StopReason.CANCELLED)
    assert client.texts() == [("s-1", "stopped 1")]


def test_cancel_turns_needs_the_connections_turns() -> None:
    session = Session(cast(Any, None), "s-1", ClientCapabilities())
    with pytest.raises(RuntimeError, match="current_session"):
        run(session.cancel_turns())


# -- current_session() wherever a session is named ---------------------------------------------


class Everywhere(Agent):
    """Each session method says its name through `current_session()`."""

    def __init__(self) -> None:
        self.outside: list[str] = []

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def say(self, method: str) -> None:
        await current_session().send_text(method)

    def none_here(self, method: str) -> None:
        try:
            current_session()
        except RuntimeError:
            self.outside.append(method)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        self.none_here("session/new")
        return NewSessionResponse(session_id="s-1")

    async def list_sessions(self, input: ListSessionsRequest) -> ListSessionsResponse:
        self.none_here("session/list")
        return ListSessionsResponse(sessions=[])

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        await self.say("session/prompt")
        return PromptResponse(stop_reason=StopReason.END_TURN)

    async def cancel(self, input: CancelNotification) -> None:
        await self.say("session/cancel")

    async def load_session(self, input: LoadSessionRequest) -> LoadSessionResponse:
        await self.say("session/load")
        return LoadSessionResponse()

    async def resume_session(self, input: ResumeSessionRequest) -> ResumeSessionResponse:
        await self.say("session/resume")
        return ResumeSessionResponse()

    async def set_mode(self, input: SetSessionModeRequest) -> SetSessionModeResponse:
        await self.say("session/set_mode")
        return SetSessionModeResponse()

    async def set_config_option(
        self, input: SetSessionConfigOptionRequest
    ) -> SetSessionConfigOptionResponse:
        await self.say("session/set_config_option")
        return SetSessionConfigOptionResponse(config_options=[])

    async def close_session(self, input: CloseSessionRequest) -> CloseSessionResponse:
        await self.say("session/close")
        return CloseSessionResponse()

    async def delete_session(self, input: DeleteSessionRequest) -> DeleteSessionResponse:
        await self.say("session/delete")
        return DeleteSessionResponse()


def test_current_session_is_the_named_session_in_every_session_handler() -> None:
    agent = Everywhere()
    client = Updates()
    calls: list[Callable[[Any, str], Awaitable[Any]]] = [
        lambda c, s: c.cancel(CancelNotification(session_id=s)),
        lambda c, s: c.prompt(PromptRequest(session_id=s, prompt=[])),
        lambda c, s: c.load_session(LoadSessionRequest(session_id=s, cwd="/p", mcp_servers=[])),
        lambda c, s: c.resume_session(ResumeSessionRequest(session_id=s, cwd="/p")),
        lambda c, s: c.set_mode(SetSessionModeRequest(session_id=s, mode_id="m")),
        lambda c, s: c.set_config_option(
            SetSessionConfigOptionRequestDefault(session_id=s, config_id="c", value="v")
        ),
        lambda c, s: c.close_session(CloseSessionRequest(session_id=s)),
        lambda c, s: c.delete_session(DeleteSessionRequest(session_id=s)),
    ]

    async def main() -> None:
        async with connected(agent, client) as connection:
            await connection.initialize(InitializeRequest(protocol_version=1))
            await connection.new_session(NewSessionRequest(cwd="/p", mcp_servers=[]))
            await connection.list_sessions(ListSessionsRequest())
            for number, call in enumerate(calls):
                # Each call names a session of its own: the handle is the named one.
                await call(connection, f"named-{number}")

    run(main())
    said = [
        "session/cancel",
        "session/prompt",
        "session/load",
        "session/resume",
        "session/set_mode",
        "session/set_config_option",
        "session/close",
        "session/delete",
    ]
    assert client.texts() == [(f"named-{n}", method) for n, method in enumerate(said)]
    assert agent.outside == ["session/new", "session/list"]


def session_methods(schema_file: str) -> set[str]:
    """The agent's methods of a vendored schema whose params name a `sessionId`."""
    defs: dict[str, Any] = json.loads((ACP / schema_file).read_text())["$defs"]

    def names_a_session(node: dict[str, Any]) -> bool:
        if "sessionId" in node.get("properties", {}):
            return True
        branches = [b for key in ("anyOf", "oneOf", "allOf") for b in node.get(key, [])]
        return any(
            names_a_session(defs[b["$ref"].rsplit("/", 1)[1]] if "$ref" in b else b)
            for b in branches
        )

    return {
        node["x-method"]
        for name, node in defs.items()
        if node.get("x-side") == "agent"
        and "x-method" in node
        and not name.endswith("Response")
        and names_a_session(node)
    }


def test_the_scope_covers_every_method_that_names_a_session() -> None:
    stable = session_methods("schema.json")
    assert {"session/set_mode", "session/close", "session/cancel"} <= stable
    # session/new makes a session and session/list names none: not scoped.
    assert SessionScope.methods == stable | session_methods("schema.unstable.json")


def test_session_cancel_reaches_an_agent_that_does_not_override_cancel() -> None:
    """`TurnControl` sees a `session/cancel` the agent leaves to the generated skeleton: the
    runtime hands such a notification to the interceptors that name it
    (tests/runtime/test_interceptors.py has the mechanism for any interface)."""
    agent = HeldTurns()
    assert "cancel" not in vars(HeldTurns)

    async def main() -> PromptResponse:
        async with connected(agent, Updates()) as connection:
            session_id = await open_session(connection)
            turn = asyncio.ensure_future(connection.prompt(prompt(session_id)))
            await agent.started.get()
            await connection.cancel(CancelNotification(session_id=session_id))
            return await turn

    assert run(main()).stop_reason is StopReason.CANCELLED
