"""idlc_acp.v2_client.ClientV2 over a real connection: the session state sees each update
as sent, so an explicit `null` clears what it names (decoded, it would read as absent and
keep); the typed update still reaches turns and `on_update`; params that do not decode are
reported as the runtime reports any notification's."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import msgspec

from idlc_acp import v2
from idlc_acp.v2_agent import AgentV2, StopReasonV2, TurnV2
from idlc_acp.v2_client import ClientV2, TurnStreamV2, stop_reason_of
from idlc_acp.wire import acp_options
from idlc_runtime import Peer, PeerOptions, RpcError, connect_fds
from idlc_runtime.codec.decoders import decoder_for

from .pair import connected_v2

INFO = v2.Implementation(name="test", version="0")


class Client(ClientV2):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[v2.SessionUpdate] = []
        self.idle = asyncio.Event()

    async def on_update(self, input: v2.UpdateSessionNotification) -> None:
        self.seen.append(input.update)
        if getattr(input.update, "state", None) == "idle":
            self.idle.set()

    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(outcome=v2.RequestPermissionOutcomeCancelled())


@contextlib.asynccontextmanager
async def connected(client: Client, options: PeerOptions | None = None) -> AsyncIterator[Peer]:
    """The agent's end of a pipe pair whose other end serves `client`: what it notifies
    travels as JSON lines, as any agent's would."""
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    async with connect_fds(client_read, client_write, client, options=options or acp_options()):
        async with connect_fds(agent_read, agent_write, None, options=acp_options()) as agent:
            yield agent


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    def runner() -> None:
        asyncio.run(asyncio.wait_for(test(), 30))

    runner.__name__ = test.__name__
    return runner


async def _send(agent: Peer, *updates: dict[str, Any]) -> None:
    for update in updates:
        await agent.notify("session/update", {"sessionId": "s", "update": update})


IDLE = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}


@run
async def test_an_explicit_null_sent_over_the_wire_clears_the_field() -> None:
    client = Client()
    async with connected(client) as agent:
        await _send(
            agent,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c",
                "title": "Read",
                "status": "pending",
                "content": [{"type": "content", "content": {"type": "text", "text": "x"}}],
                "_meta": {"a": 1, "b": 2},
            },
            # Clears the title, the content and one `_meta` key; the status is not named.
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c",
                "title": None,
                "content": None,
                "_meta": {"a": None},
            },
            # A malformed value of a lenient field is treated as not sent: it keeps.
            {"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": 5},
            {"sessionUpdate": "agent_message", "messageId": "m", "content": None},
            {"sessionUpdate": "terminal_update", "terminalId": "t", "command": "ls", "cwd": "/"},
            {"sessionUpdate": "terminal_update", "terminalId": "t", "cwd": None},
            IDLE,
        )
        await client.idle.wait()
    state = client.sessions["s"]
    assert state.tool_calls["c"] == {"toolCallId": "c", "status": "pending", "_meta": {"b": 2}}
    assert state.terminals["t"] == {"terminalId": "t", "command": "ls"}
    assert state.messages["m"] == {"messageId": "m", "kind": "agent_message", "content": []}
    assert state.idle and state.stop_reason == "end_turn"
    # What authors see is the typed update, in order: a patch field sent as `null` is None,
    # one not sent is `msgspec.UNSET`.
    first, second = client.seen[:2]
    assert isinstance(first, v2.SessionUpdateToolCallUpdate) and first.title == "Read"
    assert isinstance(second, v2.SessionUpdateToolCallUpdate)
    assert second.title is None and second.content is None
    assert second.status is msgspec.UNSET and second.kind is msgspec.UNSET


class ClearingAgent(AgentV2):
    """Its turn starts a tool call, then clears its title (a `null`)."""

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        return v2.InitializeResponse(protocol_version=2, info=INFO)

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="s")

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        call = await turn.start_tool_call("Read", tool_call_id="c")
        await turn.update_tool_call(call, title=None)
        return "end_turn"


async def _one_turn(agent: AgentV2, client: Client) -> tuple[TurnStreamV2, list[v2.SessionUpdate]]:
    """One prompt to `agent` in a new session, iterated by `client` until its end."""
    async with connected_v2(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(v2.InitializeRequest(protocol_version=2, info=INFO))
        await proxy.new_session(v2.NewSessionRequest(cwd="/"))
        prompt = v2.PromptRequest(session_id="s", prompt=[v2.ContentBlockText(text="hi")])
        turn = client.turn(proxy, prompt)
        return turn, [update async for update in turn]


@run
async def test_a_clear_from_an_agent_v2_turn_reaches_the_turn_and_the_state() -> None:
    client = Client()
    turn, updates = await _one_turn(ClearingAgent(), client)
    calls = [u for u in updates if isinstance(u, v2.SessionUpdateToolCallUpdate)]
    assert [call.title for call in calls] == ["Read", None]
    assert turn.stop_reason == "end_turn"
    assert "title" not in client.sessions["s"].tool_calls["c"]
    assert client.sessions["s"].tool_calls["c"]["status"] == "pending"


@run
async def test_params_that_do_not_decode_are_reported_as_the_runtime_reports_them() -> None:
    told: list[tuple[str, Any, RpcError]] = []
    options = dataclasses.replace(
        acp_options(), on_undecodable_notification=lambda *args: told.append(args)
    )
    client = Client()
    async with connected(client, options) as agent:
        bad = {"sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": 5}}
        await agent.notify("session/update", bad)
        await _send(agent, IDLE)
        await client.idle.wait()
    [(method, params, error)] = told
    assert (method, params) == ("session/update", bad)
    assert error.code == -32602
    assert error.data == {"path": "$.update.toolCallId", "reason": "Expected `str`, got `int`"}
    # The bad one was not applied; the good one after it was.
    assert client.sessions["s"].tool_calls == {} and client.sessions["s"].idle


@run
async def test_without_a_hook_params_that_do_not_decode_are_logged_and_skipped() -> None:
    client = Client()
    async with connected(client) as agent:
        await agent.notify("session/update", {"sessionId": "s", "update": 7})
        await _send(agent, IDLE)
        await client.idle.wait()
    assert client.seen[-1] == v2.SessionUpdateStateUpdateIdleEndTurn()


class SnapshotAgent(ClearingAgent):
    """Its turn reports an idle snapshot without a stop reason (as background work listed
    or done while idle does), then answers."""

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        await turn.update(v2.SessionUpdateStateUpdateIdleDefault())
        await turn.send_text("after the snapshot")
        return "end_turn"


@run
async def test_an_idle_snapshot_without_a_stop_reason_does_not_end_the_turn() -> None:
    client = Client()
    turn, updates = await _one_turn(SnapshotAgent(), client)
    assert any(isinstance(u, v2.SessionUpdateStateUpdateIdleDefault) for u in updates)
    chunks = [u for u in updates if isinstance(u, v2.SessionUpdateAgentMessageChunk)]
    assert [chunk.content.text for chunk in chunks] == ["after the snapshot"]
    assert isinstance(updates[-1], v2.SessionUpdateStateUpdateIdleEndTurn)
    assert turn.stop_reason == "end_turn"


def test_the_stop_reason_of_an_update() -> None:
    decode = decoder_for(v2.UpdateSessionNotification).decode
    cases = {
        '{"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}': "end_turn",
        '{"sessionUpdate": "state_update", "state": "idle", "stopReason": "_mine"}': "_mine",
        '{"sessionUpdate": "state_update", "state": "idle"}': None,
        '{"sessionUpdate": "state_update", "state": "running"}': None,
        '{"sessionUpdate": "agent_message", "messageId": "m"}': None,
    }
    for update, reason in cases.items():
        notification = decode(f'{{"sessionId": "s", "update": {update}}}'.encode())
        assert stop_reason_of(notification.update) == reason, update
