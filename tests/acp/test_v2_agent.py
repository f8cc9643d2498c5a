"""idlc_acp.v2_agent over pipes in this process: AgentV2's gate, turns and cancellation,
and ClientV2's turn iterator and session state on the other side."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from idlc_acp import v2
from idlc_acp.v2_agent import AgentV2, StopReasonV2, TurnV2
from idlc_acp.v2_client import ClientV2
from idlc_runtime import RpcError

from .pair import connected_v2 as connected

INFO = v2.Implementation(name="test", version="0")


class Agent(AgentV2):
    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.notified: list[str] = []
        self.release = asyncio.Event()
        #: Set when a held initialize has begun (the gate took it in).
        self.holding = asyncio.Event()

    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        if input.meta is not None and input.meta.get("hold"):
            self.holding.set()
            await self.release.wait()
        return v2.InitializeResponse(protocol_version=2, info=INFO)

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="s")

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        text = request.prompt[0]
        assert isinstance(text, v2.ContentBlockText)
        if text.text == "fail":
            raise ValueError("boom")
        await turn.send_text(text.text)
        if text.text == "wait":
            await asyncio.Event().wait()
        call = await turn.start_tool_call("t", tool_call_id="c")
        await turn.update_tool_call(call, status=v2.ToolCallStatus.COMPLETED, content="done")
        return "end_turn"

    async def close_session(self, input: v2.CloseSessionRequest) -> v2.CloseSessionResponse:
        return v2.CloseSessionResponse()

    async def ext_notification(self, method: str, params: Any) -> None:
        self.notified.append(method)

    async def ext_method(self, method: str, params: Any) -> Any:
        return {"echo": params}


class Client(ClientV2):
    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(outcome=v2.RequestPermissionOutcomeCancelled())


def _initialize() -> v2.InitializeRequest:
    return v2.InitializeRequest(protocol_version=2, info=INFO)


def _prompt(text: str) -> v2.PromptRequest:
    return v2.PromptRequest(session_id="s", prompt=[v2.ContentBlockText(text=text)])


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    def runner() -> None:
        asyncio.run(asyncio.wait_for(test(), 30))

    runner.__name__ = test.__name__
    return runner


@run
async def test_requests_wait_for_initialize_and_notifications_before_it_are_dropped() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        with pytest.raises(RpcError) as refused:
            await proxy.new_session(v2.NewSessionRequest(cwd="/"))
        assert refused.value.code == -32600
        assert refused.value.message == "Invalid request"
        assert refused.value.data == "ACP v2 connection must be initialized before 'session/new'"
        await peer.notify("_vendor/early", {})
        await proxy.initialize(_initialize())
        await peer.notify("_vendor/late", {})
        assert await peer.request("_vendor/ask", {"x": 1}, Any) == {"echo": {"x": 1}}
        assert agent.notified == ["_vendor/late"]
        # After another request, initialize may not come again.
        with pytest.raises(RpcError) as again:
            await proxy.initialize(_initialize())
        assert again.value.data == "ACP v2 initialize must not be repeated after other requests"


@run
async def test_notifications_during_a_first_initialize_are_dropped_during_a_repeat_wait() -> None:
    agent, client = Agent(), Client()
    held = v2.InitializeRequest(protocol_version=2, info=INFO, meta={"hold": True})
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        first = asyncio.ensure_future(proxy.initialize(held))
        await agent.holding.wait()  # the first initialize is in progress, not just sent
        await peer.notify("_vendor/during-first", {})
        # A request answered after the notification: the agent has taken it by then.
        with pytest.raises(RpcError):
            await proxy.new_session(v2.NewSessionRequest(cwd="/"))
        agent.release.set()
        await first
        agent.release.clear()
        agent.holding.clear()
        repeat = asyncio.ensure_future(proxy.initialize(held))
        await agent.holding.wait()
        await peer.notify("_vendor/during-repeat", {})
        with pytest.raises(RpcError):
            await proxy.new_session(v2.NewSessionRequest(cwd="/"))
        assert agent.notified == []  # waiting for the repeat
        agent.release.set()
        await repeat
        assert await peer.request("_vendor/ask", {}, Any) == {"echo": {}}
        assert agent.notified == ["_vendor/during-repeat"]


@run
async def test_a_turn_is_acked_then_iterated_until_idle_and_state_accumulates() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(_initialize())
        await proxy.new_session(v2.NewSessionRequest(cwd="/"))
        turn = client.turn(proxy, _prompt("hi"))
        updates = [update async for update in turn]
        assert turn.stop_reason == "end_turn" and turn.message_id is not None
        assert isinstance(updates[0], v2.SessionUpdateUserMessage)
        assert updates[0].message_id == turn.message_id
        assert isinstance(updates[-1], v2.SessionUpdateStateUpdateIdleEndTurn)
        state = client.sessions["s"]
        assert state.idle and state.stop_reason == "end_turn"
        assert state.tool_calls["c"]["status"] == "completed"
        assert state.tool_calls["c"]["title"] == "t"  # kept: the patch did not name it
        agent_messages = [m for m in state.messages.values() if m["kind"] == "agent_message"]
        assert agent_messages[0]["content"] == [{"type": "text", "text": "hi"}]


@run
async def test_session_cancel_ends_the_turn_cancelled_and_a_failing_turn_ends_error() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(_initialize())
        turn = client.turn(proxy, _prompt("wait"))
        seen: list[Any] = []
        async for update in turn:
            seen.append(update)
            if isinstance(update, v2.SessionUpdateAgentMessageChunk):
                await proxy.cancel(v2.CancelSessionNotification(session_id="s"))
        assert turn.stop_reason == "cancelled"
        assert isinstance(seen[-1], v2.SessionUpdateStateUpdateIdleCancelled)
        failing = client.turn(proxy, _prompt("fail"))
        _ = [update async for update in failing]
        assert failing.stop_reason == "error"


@run
async def test_session_close_answers_after_the_turns_it_cancelled_went_idle() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(_initialize())
        turn = client.turn(proxy, _prompt("wait"))
        order: list[str] = []

        async def iterate() -> None:
            async for update in turn:
                if isinstance(update, v2.SessionUpdateAgentMessageChunk):
                    started.set()
            order.append("idle")

        started = asyncio.Event()
        iterating = asyncio.ensure_future(iterate())
        await started.wait()
        await proxy.close_session(v2.CloseSessionRequest(session_id="s"))
        # The idle update came before the close's answer, which waits for the notifications
        # before it (docs/wire.md §13): the session's state says so already.
        assert client.sessions["s"].stop_reason == "cancelled"
        await iterating
        assert turn.stop_reason == "cancelled" and order == ["idle"]


@run
async def test_a_prompt_sent_while_a_turn_runs_is_held_then_withdrawn_by_cancel() -> None:
    agent, client = Agent(), Client()
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(_initialize())
        first = client.turn(proxy, _prompt("wait"))
        iterator = first.__aiter__()
        while not isinstance(await iterator.__anext__(), v2.SessionUpdateAgentMessageChunk):
            pass
        held = asyncio.ensure_future(proxy.prompt(_prompt("hi")))
        await asyncio.sleep(0.1)
        assert not held.done()  # held while the first turn runs
        await proxy.cancel(v2.CancelSessionNotification(session_id="s"))
        with pytest.raises(RpcError) as withdrawn:
            await held
        assert withdrawn.value.code == -32800
        _ = [update async for update in iterator]
        assert first.stop_reason == "cancelled"
        # A prompt after the cancel is not affected.
        after = client.turn(proxy, _prompt("hi"))
        _ = [update async for update in after]
        assert after.stop_reason == "end_turn"


@run
async def test_held_prompts_are_inserted_in_order_after_the_turn_before_went_idle() -> None:
    agent, client = Agent(), Client()
    order: list[str] = []

    class Recording(Client):
        async def on_update(self, input: v2.UpdateSessionNotification) -> None:
            update = input.update
            if isinstance(update, v2.SessionUpdateUserMessage):
                block = update.content[0] if update.content else None
                order.append(f"user {block.text if isinstance(block, v2.ContentBlockText) else ''}")
            elif getattr(update, "state", None) == "idle":
                order.append("idle")

    client = Recording()
    async with connected(agent, client) as peer:
        proxy = v2.AgentProxy(peer)
        await proxy.initialize(_initialize())
        answers = await asyncio.gather(*(proxy.prompt(_prompt(text)) for text in "abc"))
        assert len({answer.message_id for answer in answers}) == 3
        for _ in range(100):
            if order.count("idle") == 3:
                break
            await asyncio.sleep(0.02)
        assert order == ["user a", "idle", "user b", "idle", "user c", "idle"]
