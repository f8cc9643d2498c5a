"""A client's `update` handler sees a turn's updates in the order the agent sent them, and
all of them have been handled when `prompt` returns, whatever the handler awaits
(docs/wire.md §13): through the public API, over two pipes as over a subprocess's stdio,
and over WebSocket and streamable HTTP (`idlc_acp.web`)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_acp import (
    Agent,
    AgentConnection,
    Client,
    ContentBlockText,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    SessionNotification,
    SessionUpdateAgentMessageChunk,
    StopReason,
    current_client,
)

from .pair import connected

COUNT = 50
#: Bounds a hang (a deadlock would be one), not how long anything takes.
HANG = 60.0


class CountingAgent(Agent):
    """Streams "0" … "49" as message chunks, then answers the prompt."""

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        return NewSessionResponse(session_id="s")

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        client = current_client()
        for index in range(COUNT):
            chunk = SessionUpdateAgentMessageChunk(content=ContentBlockText(text=str(index)))
            await client.update(SessionNotification(session_id=input.session_id, update=chunk))
        return PromptResponse(stop_reason=StopReason.END_TURN)


class AwaitingClient(Client):
    """Awaits a drawn number of loop turns (or sleeps) in each update, may call the agent
    back from some, and raises in others; records what it saw."""

    def __init__(self, seed: int, calls_back: frozenset[int], raises: frozenset[int]) -> None:
        self.random = random.Random(seed)
        self.calls_back = calls_back
        self.raises = raises
        self.seen: list[int] = []
        self.connection: AgentConnection | None = None

    async def update(self, input: SessionNotification) -> None:
        update = input.update
        assert isinstance(update, SessionUpdateAgentMessageChunk)
        assert isinstance(update.content, ContentBlockText)
        index = int(update.content.text)
        for _ in range(self.random.randrange(4)):
            if self.random.random() < 0.3:
                await asyncio.sleep(self.random.random() / 1000)
            else:
                await asyncio.sleep(0)
        if index in self.calls_back:
            # The agent's answer arrives behind the updates sent after this one: it must
            # reach this handler all the same.
            assert self.connection is not None
            await self.connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        self.seen.append(index)
        if index in self.raises:
            raise RuntimeError(f"update {index} fails; the next ones are handled all the same")

    async def request_permission(self, input: object) -> object:
        raise NotImplementedError


@contextlib.asynccontextmanager
async def _connected(client: AwaitingClient, transport: str) -> AsyncIterator[AgentConnection]:
    if transport == "pipes":
        async with connected(CountingAgent(), client) as connection:
            yield connection
        return
    from idlc_acp.web import connect_http, connect_websocket, serve_acp

    async with serve_acp(CountingAgent) as server:
        if transport == "websocket":
            async with connect_websocket(server.ws_url, client) as connection:
                yield connection
        else:
            async with connect_http(server.url, client) as connection:
                yield connection


async def _turns(client: AwaitingClient, turns: int, transport: str = "pipes") -> None:
    async with _connected(client, transport) as connection:
        client.connection = connection
        await connection.initialize(InitializeRequest(protocol_version=1))
        session = await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        request = PromptRequest(session_id=session.session_id, prompt=[ContentBlockText(text="")])
        for turn in range(turns):
            answer = await connection.prompt(request)
            assert answer.stop_reason is StopReason.END_TURN
            # Every update sent before the answer has been handled, in order.
            assert client.seen == list(range(COUNT)) * (turn + 1)


TRANSPORTS = ["pipes", "websocket", "http"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_awaiting_update_handler_sees_every_update_in_order_before_prompt_returns(
    transport: str,
) -> None:
    client = AwaitingClient(seed=3, calls_back=frozenset(), raises=frozenset())
    asyncio.run(asyncio.wait_for(_turns(client, 3, transport), HANG))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_update_handler_that_calls_the_agent_gets_its_answer(transport: str) -> None:
    client = AwaitingClient(seed=5, calls_back=frozenset({0, 10, 49}), raises=frozenset())
    asyncio.run(asyncio.wait_for(_turns(client, 2, transport), HANG))


def test_an_update_handler_that_raises_does_not_stop_the_next() -> None:
    client = AwaitingClient(seed=7, calls_back=frozenset(), raises=frozenset({0, 1, 25, 49}))
    asyncio.run(asyncio.wait_for(_turns(client, 2), HANG))


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    calls_back=st.frozensets(st.integers(0, COUNT - 1), max_size=5),
    raises=st.frozensets(st.integers(0, COUNT - 1), max_size=5),
)
def test_any_mix_of_awaits_callbacks_and_failures_keeps_the_order(
    seed: int, calls_back: frozenset[int], raises: frozenset[int]
) -> None:
    client = AwaitingClient(seed, calls_back, raises)
    asyncio.run(asyncio.wait_for(_turns(client, 1), HANG))
