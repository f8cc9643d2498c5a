"""idlc_acp.v2_session over pipes in this process: the v2 session handle's plans, usage,
patches, `requires_action`, elicitation, agent-owned terminals (real subprocesses), background
work with `tool_call/cancel` and `terminal/cancel`, `session/close` stopping it, and the state
snapshot `session/resume` sends after its replay."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shlex
import signal
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, cast

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from idlc_acp import v2, v2_session
from idlc_acp.v2_agent import AgentV2, StopReasonV2, TurnV2
from idlc_acp.v2_client import ClientV2
from idlc_acp.v2_session import SessionV2, TerminalV2
from idlc_runtime import RpcError, Unsupported
from idlc_runtime.hooks import enc_hook

from .pair import connected_v2

INFO = v2.Implementation(name="test", version="0")
SLEEPER = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]


class Agent(AgentV2):
    """Each prompt's first text names what the turn does."""

    def __init__(self) -> None:
        self.terminals: list[TerminalV2] = []
        self.elicited: list[Any] = []

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        return v2.InitializeResponse(protocol_version=2, info=INFO)

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="s")

    async def resume_session(self, input: v2.ResumeSessionRequest) -> v2.ResumeSessionResponse:
        if input.replay_from is not None:
            await self.session(input.session_id).replay(
                [v2.SessionUpdateUserMessage(message_id="m1", content=[_text("before")])]
            )
        return v2.ResumeSessionResponse()

    async def close_session(self, input: v2.CloseSessionRequest) -> v2.CloseSessionResponse:
        return v2.CloseSessionResponse()

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        block = request.prompt[0]
        assert isinstance(block, v2.ContentBlockText)
        what = block.text
        if what == "report":
            thought = await turn.send_thought("thinking")
            assert thought != turn.agent_message_id
            await turn.plan(
                [
                    v2.PlanEntry(
                        content="step",
                        priority=v2.PlanEntryPriority.HIGH,
                        status=v2.PlanEntryStatus.PENDING,
                    )
                ]
            )
            await turn.usage(10, 100, cost=v2.Cost(amount=0.5, currency="USD"))
            call = await turn.start_tool_call("t", tool_call_id="c", kind=v2.ToolKind.READ)
            await turn.update_tool_call(call, status=v2.ToolCallStatus.IN_PROGRESS)
            await turn.add_tool_call_content(call, v2.ToolCallContentContent(content=_text("x")))
        elif what == "ask":
            call = await turn.start_tool_call("t", tool_call_id="c")
            async with turn.waiting_for_user():
                choice = await turn.request_permission(call, "May I?")
            await turn.send_text(f"chose {choice}")
        elif what == "elicit":
            try:
                answer = await turn.elicit_form("Name?", _schema())
            except Unsupported as error:
                self.elicited.append(error)
            else:
                self.elicited.append(answer)
        elif what == "elicit url":
            elicitation_id, answer = await turn.elicit_url("Sign in", "https://example.com/in")
            await turn.complete_elicitation(elicitation_id)
            self.elicited.append((elicitation_id, answer))
        elif what == "ask bogus":
            call = await turn.start_tool_call("t", tool_call_id="c")
            self.elicited.append(await turn.request_permission(call, "May I?"))
        elif what == "terminal":
            async with await turn.run_terminal(
                [sys.executable, "-c", "print('hello')"], terminal_id="t1"
            ) as terminal:
                status = await terminal.wait()
            await turn.send_text(f"exit {status.exit_code}: {bytes(terminal.output)!r}")
        elif what == "background terminal":
            await turn.report_background()
            terminal = await turn.run_terminal(SLEEPER, terminal_id="t2")
            self.terminals.append(terminal)
            turn.terminal_in_background(terminal)
        elif what == "background call":
            call = await turn.start_tool_call("watch", tool_call_id="w")
            turn.in_background(asyncio.Event().wait(), tool_call_id=call)
        elif what in ("open then wait", "open then fail"):
            await turn.start_tool_call("left open", tool_call_id="open")
            done = await turn.start_tool_call("done", tool_call_id="done")
            await turn.update_tool_call(done, status=v2.ToolCallStatus.COMPLETED)
            await turn.start_tool_call("background", tool_call_id="bg")
            turn.in_background(asyncio.Event().wait(), tool_call_id="bg")
            if what == "open then fail":
                raise RuntimeError("the turn fails")
            await asyncio.Event().wait()  # until cancelled
        return "end_turn"


class Client(v2.Client):
    """Records every update as it travels (`wire`)."""

    def __init__(
        self, elicitation: v2.CreateElicitationResponse | None = None, option_id: str = "allow"
    ) -> None:
        self.option_id = option_id
        self.asked: list[Any] = []
        self.completed: list[str] = []
        self.updates: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.elicitation = elicitation

    async def update(self, input: v2.UpdateSessionNotification) -> None:
        self.updates.append(wire(input.update))
        self.changed.set()

    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(
            outcome=v2.RequestPermissionOutcomeSelected(option_id=self.option_id)
        )

    async def elicit(self, input: v2.CreateElicitationRequest) -> v2.CreateElicitationResponse:
        assert self.elicitation is not None
        self.asked.append(input)
        return self.elicitation

    async def complete_elicitation(self, input: v2.CompleteElicitationNotification) -> None:
        self.completed.append(input.elicitation_id)

    async def until(self, found: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first update (from the start) that `found` accepts, once it has come."""
        while True:
            for update in self.updates:
                if found(update):
                    return update
            self.changed.clear()
            await self.changed.wait()

    async def turn(self, proxy: v2.AgentProxy, text: str) -> list[dict[str, Any]]:
        """Prompts and waits for the idle update ending that turn; its updates."""
        start = len(self.updates)
        answer = await proxy.prompt(v2.PromptRequest(session_id="s", prompt=[_text(text)]))
        user = await self.until(lambda u: u.get("messageId") == answer.message_id)
        begin = self.updates.index(user, start)
        end = await self.until(
            lambda u: self.updates.index(u) > begin
            and u["sessionUpdate"] == "state_update"
            and u["state"] == "idle"
        )
        return self.updates[begin : self.updates.index(end) + 1]


def wire(update: v2.SessionUpdate) -> dict[str, Any]:
    """The update as it travels: its JSON, omitted fields omitted."""
    sent: dict[str, Any] = json.loads(msgspec.json.encode(update, enc_hook=enc_hook))
    return sent


def _text(text: str) -> v2.ContentBlockText:
    return v2.ContentBlockText(text=text)


def _schema() -> v2.ElicitationSchema:
    return v2.ElicitationSchema(
        type=v2.ElicitationSchemaType.OBJECT,
        properties={"name": v2.ElicitationPropertySchemaString(title="Name")},
        required=["name"],
    )


@contextlib.asynccontextmanager
async def connected(
    agent: Agent, client: Client, capabilities: v2.ClientCapabilities | None = None
) -> AsyncIterator[v2.AgentProxy]:
    async with connected_v2(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(
            v2.InitializeRequest(
                protocol_version=2,
                info=INFO,
                capabilities=capabilities or v2.ClientCapabilities(),
            )
        )
        yield proxy


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    def runner() -> None:
        asyncio.run(asyncio.wait_for(test(), 30))

    runner.__name__ = test.__name__
    return runner


def kinds(updates: list[dict[str, Any]]) -> list[str]:
    return [update["sessionUpdate"] for update in updates]


def states(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [update for update in updates if update["sessionUpdate"] == "state_update"]


@run
async def test_thoughts_plans_usage_and_tool_call_patches_go_out_as_given() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        updates = await client.turn(proxy, "report")
    assert kinds(updates) == [
        "user_message",
        "state_update",
        "agent_thought_chunk",
        "plan_update",
        "usage_update",
        "tool_call_update",
        "tool_call_update",
        "tool_call_content_chunk",
        "state_update",
    ]
    _, _, thought, plan, usage, started, patched, chunk, idle = updates
    assert thought["content"] == {"type": "text", "text": "thinking"}
    assert plan["plan"] == {
        "type": "items",
        "planId": "plan",
        "entries": [{"content": "step", "priority": "high", "status": "pending"}],
    }
    assert usage == {
        "sessionUpdate": "usage_update",
        "used": 10,
        "size": 100,
        "cost": {"amount": 0.5, "currency": "USD"},
    }
    assert started == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c",
        "title": "t",
        "kind": "read",
        "status": "pending",
    }
    # A patch names only what changes.
    assert patched == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c",
        "status": "in_progress",
    }
    assert chunk["content"] == {"type": "content", "content": {"type": "text", "text": "x"}}
    assert idle == {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}


@run
async def test_waiting_for_the_user_reports_requires_action_then_running() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        updates = await client.turn(proxy, "ask")
    assert [update["state"] for update in states(updates)] == [
        "running",
        "requires_action",
        "running",
        "idle",
    ]
    assert updates[-2]["content"]["text"] == "chose allow"


@run
async def test_elicitation_needs_the_clients_offer_and_returns_its_answer() -> None:
    agent, silent = Agent(), Client()
    async with connected(agent, silent) as proxy:
        await silent.turn(proxy, "elicit")
    assert isinstance(agent.elicited[0], Unsupported)
    accepted = v2.CreateElicitationResponseAccept(content={"name": "Ada"})
    offered = v2.ClientCapabilities(
        elicitation=v2.ElicitationCapabilities(form=v2.ElicitationFormCapabilities())
    )
    client = Client(accepted)
    async with connected(agent, client, offered) as proxy:
        await client.turn(proxy, "elicit")
    assert agent.elicited[1] == accepted


@run
async def test_a_url_elicitation_is_sent_with_its_id_and_completed() -> None:
    agent = Agent()
    client = Client(v2.CreateElicitationResponseAccept())
    offered = v2.ClientCapabilities(
        elicitation=v2.ElicitationCapabilities(url=v2.ElicitationUrlCapabilities())
    )
    async with connected(agent, client, offered) as proxy:
        await client.turn(proxy, "elicit url")
    [(elicitation_id, answer)] = agent.elicited
    [asked] = client.asked
    assert isinstance(asked, v2.CreateElicitationRequestUrlOption1)
    assert (asked.elicitation_id, asked.url, asked.session_id) == (
        elicitation_id,
        "https://example.com/in",
        "s",
    )
    assert isinstance(answer, v2.CreateElicitationResponseAccept)
    # The notification came before the turn's idle update, which the client waited for.
    assert client.completed == [elicitation_id]


@run
async def test_a_permission_option_that_was_not_offered_is_not_approved() -> None:
    agent, client = Agent(), Client(option_id="bogus")
    async with connected(agent, client) as proxy:
        await client.turn(proxy, "ask bogus")
    assert agent.elicited == [None]


@run
async def test_a_terminal_runs_a_real_command_streams_its_output_and_reports_its_exit() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        updates = await client.turn(proxy, "terminal")
    terminal = [u for u in updates if u["sessionUpdate"].startswith("terminal_")]
    announced, *chunks, exited = terminal
    assert announced["terminalId"] == "t1"
    assert announced["command"] == shlex.join([sys.executable, "-c", "print('hello')"])
    assert announced["capabilities"] == {"cancel": {}}
    assert all(chunk["sessionUpdate"] == "terminal_output_chunk" for chunk in chunks)
    assert exited == {
        "sessionUpdate": "terminal_update",
        "terminalId": "t1",
        "exitStatus": {"exitCode": 0},
        "capabilities": {},
    }
    assert updates[-2]["content"]["text"] == f"exit 0: {b'hello' + os.linesep.encode()!r}"


@run
async def test_terminal_cancel_stops_background_work_that_outlived_its_turn() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        await client.turn(proxy, "background terminal")
        listed = [{"type": "terminal", "terminalId": "t2"}]
        await client.until(lambda u: u.get("background") == listed)
        # The turn's `running` came before it reported background work; every state update
        # since carries the list.
        first, *since = states(client.updates)
        assert "background" not in first and all("background" in u for u in since)
        await client.until(lambda u: u["sessionUpdate"] == "terminal_output_chunk")
        cancel = v2.CancelTerminalRequest(session_id="s", terminal_id="t2")
        await proxy.cancel_terminal(cancel)
        exited = await client.until(lambda u: "exitStatus" in u)
        assert exited["exitStatus"] == {"signal": "SIGTERM"}
        emptied = await client.until(
            lambda u: u["sessionUpdate"] == "state_update"
            and u.get("background") == []
            and client.updates.index(u) > client.updates.index(exited)
        )
        assert emptied["state"] == "idle" and "stopReason" not in emptied
        with pytest.raises(RpcError) as again:
            await proxy.cancel_terminal(cancel)
        assert again.value.code == -32602


@run
async def test_tool_call_cancel_cancels_a_background_tool_call() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        await client.turn(proxy, "background call")
        await client.until(
            lambda u: u.get("background") == [{"type": "tool_call", "toolCallId": "w"}]
        )
        await proxy.cancel_tool_call(v2.CancelToolCallRequest(session_id="s", tool_call_id="w"))
        final = await client.until(lambda u: u.get("status") == "cancelled")
        assert final == {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "w",
            "status": "cancelled",
            "capabilities": {},
        }
        await client.until(lambda u: u.get("background") == [])
        for unknown in ("w", "nope"):
            with pytest.raises(RpcError) as refused:
                await proxy.cancel_tool_call(
                    v2.CancelToolCallRequest(session_id="s", tool_call_id=unknown)
                )
            assert refused.value.code == -32602


@run
async def test_session_close_stops_background_work_before_it_answers() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as proxy:
        await client.turn(proxy, "background terminal")
        await proxy.close_session(v2.CloseSessionRequest(session_id="s"))
        # The close waits for the notifications before it: the exit is there already.
        [terminal] = agent.terminals
        assert terminal.exited
        assert any(u.get("exitStatus") == {"signal": "SIGKILL"} for u in client.updates)


@run
async def test_the_end_of_the_connection_stops_background_work() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as proxy:
        await client.turn(proxy, "background terminal")
    [terminal] = agent.terminals
    # The watcher of the connection's end killed the process and reported what it could.
    status = await terminal.wait()
    assert status.signal == "SIGKILL"


@run
async def test_resume_replays_then_sends_the_current_state_before_it_answers() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        await proxy.resume_session(
            v2.ResumeSessionRequest(session_id="s", cwd="/", replay_from=v2.ReplayFromStart())
        )
        assert client.updates == [
            {"sessionUpdate": "user_message", "messageId": "m1", "content": [_text_json("before")]},
            {"sessionUpdate": "state_update", "state": "idle"},
        ]
        await proxy.resume_session(v2.ResumeSessionRequest(session_id="s", cwd="/"))
        assert client.updates[2:] == [{"sessionUpdate": "state_update", "state": "idle"}]


def _text_json(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class _Recorder:
    """A client proxy that only records: for the handle's messages without a connection."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def update(self, input: v2.UpdateSessionNotification) -> None:
        self.sent.append(wire(input.update))


#: Each patch field's values; None clears the field (sent as `null`).
PATCH_FIELDS = {
    "status": st.none() | st.sampled_from(list(v2.ToolCallStatus)),
    "title": st.none() | st.text(max_size=5),
    "kind": st.none() | st.sampled_from(list(v2.ToolKind)),
    "content": st.none() | st.text(max_size=5),
    "locations": st.none() | st.just([v2.ToolCallLocation(path="/x")]),
    "raw_output": st.none() | st.integers(),
}
WIRE_NAMES = {"raw_output": "rawOutput"}


@given(patch=st.fixed_dictionaries({}, optional=PATCH_FIELDS))
def test_a_tool_call_patch_sends_exactly_the_fields_given(patch: dict[str, Any]) -> None:
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)
    asyncio.run(session.update_tool_call("c", **patch))
    [sent] = recorder.sent
    assert set(sent) == {"sessionUpdate", "toolCallId", *(WIRE_NAMES.get(k, k) for k in patch)}
    cleared = {WIRE_NAMES.get(key, key) for key, value in patch.items() if value is None}
    assert {key for key, value in sent.items() if value is None} == cleared


@given(
    patch=st.fixed_dictionaries(
        {}, optional={"output": st.none() | st.binary(max_size=4), "size": st.none()}
    )
)
def test_a_terminal_patch_sends_exactly_the_fields_given(patch: dict[str, Any]) -> None:
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)
    asyncio.run(session.update_terminal("t", **patch))
    [sent] = recorder.sent
    assert set(sent) == {"sessionUpdate", "terminalId", *patch}
    assert {key for key, value in sent.items() if value is None} == {
        key for key, value in patch.items() if value is None
    }


def test_a_new_tool_call_or_terminal_sends_no_nulls() -> None:
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)
    asyncio.run(session.start_tool_call("t", tool_call_id="c"))
    asyncio.run(session.start_terminal("ls", terminal_id="t"))
    asyncio.run(session.usage(1, 2))
    assert recorder.sent == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "t", "status": "pending"},
        {"sessionUpdate": "terminal_update", "terminalId": "t", "command": "ls"},
        {"sessionUpdate": "usage_update", "used": 1, "size": 2},
    ]


@given(
    background=st.lists(
        st.tuples(st.sampled_from(["tool_call", "terminal"]), st.sampled_from("abc")), max_size=6
    )
)
def test_every_state_update_carries_the_background_list_once_reported(
    background: list[tuple[str, str]],
) -> None:
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)

    async def go() -> set[tuple[str, str]]:
        await session.running()
        listed: set[tuple[str, str]] = set()
        for kind, name in background:
            ids = {"tool_call_id": name} if kind == "tool_call" else {"terminal_id": name}
            if (kind, name) in listed:
                await session.remove_background(**ids)
                listed.discard((kind, name))
            else:
                await session.add_background(**ids)
                listed.add((kind, name))
            await session.requires_action()
        return listed

    listed = asyncio.run(go())
    first, *rest = recorder.sent
    assert "background" not in first  # not reported yet
    for sent in rest:
        assert "background" in sent
    if rest:
        final = rest[-1]["background"]
        key = {"tool_call": "toolCallId", "terminal": "terminalId"}
        assert {(item["type"], item[key[item["type"]]]) for item in final} == listed


class StateClient(ClientV2):
    """idlc_acp's own v2 client: its session state, told of every update."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = asyncio.Event()

    async def update(self, input: v2.UpdateSessionNotification) -> None:
        await super().update(input)
        self.changed.set()

    async def until(self, found: Callable[[], bool]) -> None:
        while not found():
            self.changed.clear()
            await self.changed.wait()

    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(outcome=v2.RequestPermissionOutcomeCancelled())


@run
async def test_clientv2s_session_state_follows_background_work_and_its_cancel_controls() -> None:
    client = StateClient()
    agent = Agent()
    async with connected_v2(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(v2.InitializeRequest(protocol_version=2, info=INFO))
        turn = client.turn(
            proxy, v2.PromptRequest(session_id="s", prompt=[_text("background terminal")])
        )
        _ = [update async for update in turn]
        state = client.sessions["s"]
        await client.until(lambda: state.background == [{"type": "terminal", "terminalId": "t2"}])
        assert state.can_cancel_terminal("t2")
        await proxy.cancel_terminal(v2.CancelTerminalRequest(session_id="s", terminal_id="t2"))
        await client.until(lambda: state.background == [])
        assert not state.can_cancel_terminal("t2")
        assert state.terminals["t2"]["exitStatus"] == {"signal": "SIGTERM"}


def test_a_terminal_keeps_the_last_of_its_output_and_sends_all_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(v2_session, "OUTPUT_LIMIT", 8)
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)
    printed = b"0123456789" * 3 + b"END"

    async def go() -> bytes:
        argv = [sys.executable, "-c", f"import sys; sys.stdout.buffer.write({printed!r})"]
        async with await session.run_terminal(argv, terminal_id="t") as terminal:
            await terminal.wait()
        return bytes(terminal.output)

    assert asyncio.run(go()) == printed[-8:]
    sent = b"".join(
        base64.b64decode(update["data"])
        for update in recorder.sent
        if update["sessionUpdate"] == "terminal_output_chunk"
    )
    assert sent == printed


def test_a_signal_without_a_name_is_reported_by_its_number() -> None:
    assert v2_session._signal_name(signal.SIGTERM) == "SIGTERM"
    unnamed = next(n for n in range(1, 128) if n not in {s.value for s in signal.Signals})
    assert v2_session._signal_name(unnamed) == f"SIG{unnamed}"


#: Bounds the waits below (a hang fails the test instead of stopping the run).
WAIT = 20


def test_cancelling_a_terminal_stops_what_its_command_started_too() -> None:
    """A pipeline's other end holds the output open after its shell is signalled: the
    terminal's group is signalled, and its exit reported."""
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)

    async def go() -> v2.TerminalExitStatus:
        terminal = await session.run_terminal(["sh", "-c", "sleep 60 | cat"], terminal_id="t")
        terminal.cancel()
        return await asyncio.wait_for(terminal.wait(), WAIT)

    status = asyncio.run(go())
    assert status.signal == "SIGTERM" or status.exit_code not in (None, 0)
    assert recorder.sent[-1]["sessionUpdate"] == "terminal_update"
    assert "exitStatus" in recorder.sent[-1]


def test_a_terminal_stopped_before_its_output_was_read_is_killed() -> None:
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)

    async def go() -> tuple[v2.TerminalExitStatus, int]:
        # A command that runs until it is killed (stdin is /dev/null: `input()` would end it).
        terminal = await session.run_terminal(SLEEPER, terminal_id="t")
        assert terminal._task is not None
        terminal._task.cancel()  # in the same pass: its output was never read
        status = await asyncio.wait_for(terminal.wait(), WAIT)
        code = await asyncio.wait_for(terminal._process.wait(), WAIT)
        return status, code

    status, code = asyncio.run(go())
    assert status.signal == "SIGKILL" and code == -signal.SIGKILL


def _statuses_before_idle(updates: list[dict[str, Any]]) -> tuple[dict[str, str], dict[str, Any]]:
    """The last status each tool call had before the first idle state with a stop reason,
    and that state."""
    statuses: dict[str, str] = {}
    for update in updates:
        if update["sessionUpdate"] == "tool_call_update" and "status" in update:
            statuses[update["toolCallId"]] = update["status"]
        if update.get("state") == "idle" and "stopReason" in update:
            return statuses, update
    raise AssertionError("no idle state")


@run
async def test_a_cancelled_turn_ends_its_open_tool_calls_before_its_idle_state() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        answer = await proxy.prompt(
            v2.PromptRequest(session_id="s", prompt=[_text("open then wait")])
        )
        await client.until(lambda u: u.get("toolCallId") == "bg" and "capabilities" in u)
        await proxy.cancel(v2.CancelSessionNotification(session_id="s"))
        await client.until(lambda u: u.get("stopReason") == "cancelled")
    statuses, idle = _statuses_before_idle(
        client.updates[
            next(
                i for i, u in enumerate(client.updates) if u.get("messageId") == answer.message_id
            ) :
        ]
    )
    assert idle["stopReason"] == "cancelled"
    # Its open call is cancelled, the completed one stays so, the background one still runs.
    assert statuses == {"open": "cancelled", "done": "completed", "bg": "pending"}


@run
async def test_a_failed_turn_ends_its_open_tool_calls_as_failed() -> None:
    client = Client()
    async with connected(Agent(), client) as proxy:
        updates = await client.turn(proxy, "open then fail")
    statuses, idle = _statuses_before_idle(updates)
    assert idle["stopReason"] == "error"
    assert statuses == {"open": "failed", "done": "completed", "bg": "pending"}


def test_a_cancel_that_is_a_coroutine_function_is_run() -> None:
    recorder = _Recorder()
    session = SessionV2("s", cast(v2.ClientProxy, recorder), None)
    cancelled = asyncio.Event()

    async def cancel() -> None:
        cancelled.set()

    async def go() -> None:
        await session.start_tool_call("t", tool_call_id="c", cancel=cancel)
        await session.start_terminal("ls", terminal_id="t", cancel=cancel)
        assert session.cancel_tool_call("c")
        await asyncio.wait_for(cancelled.wait(), WAIT)
        cancelled.clear()
        assert session.cancel_terminal("t")
        await asyncio.wait_for(cancelled.wait(), WAIT)

    asyncio.run(go())
