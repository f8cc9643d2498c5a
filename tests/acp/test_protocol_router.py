"""idlc_acp.router.ProtocolRouter in this process, on a line source the test feeds: any
sequence of messages before a valid `initialize` is answered (or not) by the rules, never
closes the connection, and the first valid one routes the rest (hypothesis)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_acp import Agent, v2
from idlc_acp.protocol import (
    AgentCapabilities,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    StopReason,
)
from idlc_acp.router import ProtocolRouter
from idlc_acp.v2_agent import AgentV2, StopReasonV2, TurnV2


class V1(Agent):
    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities())

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        return NewSessionResponse(session_id="v1")

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        return PromptResponse(stop_reason=StopReason.END_TURN)


class V2(AgentV2):
    async def initialize(self, input: v2.InitializeRequest) -> v2.InitializeResponse:
        return v2.InitializeResponse(
            protocol_version=2, info=v2.Implementation(name="v2", version="0")
        )

    async def new_session(self, input: v2.NewSessionRequest) -> v2.NewSessionResponse:
        return v2.NewSessionResponse(session_id="v2")

    async def run_turn(self, request: v2.PromptRequest, turn: TurnV2) -> StopReasonV2:
        return "end_turn"


class Source:
    def __init__(self) -> None:
        self.sink: Any = None
        self.closed = False

    def attach(self, sink: Any) -> None:
        self.sink = sink

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class Writer:
    def __init__(self) -> None:
        self.lines: list[Any] = []
        self.event = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.lines.extend(json.loads(line) for line in data.splitlines() if line.strip())
        self.event.set()

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        pass

    async def wait_closed(self) -> None:
        return None


INFO = {"name": "c", "version": "0"}

#: Messages before initialization and what each gets: an error code and id, or None.
EARLY: list[tuple[Any, tuple[int, Any] | None]] = [
    ({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}, None),
    ({"jsonrpc": "2.0", "id": 5, "result": {}}, None),
    ({"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": "x"}}, None),
    ([{"jsonrpc": "2.0", "id": 1, "method": "initialize"}], (-32600, None)),
    ({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/"}}, (-32600, 2)),
    ({"jsonrpc": "2.0", "id": "i", "method": "initialize"}, (-32602, "i")),
    (
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": 0}},
        (-32022, 3),
    ),
    (
        {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 2}},
        (-32602, 4),
    ),
    ("not json", (-32700, None)),
    (7, (-32600, None)),
]


@settings(max_examples=60, deadline=None)
@given(
    early=st.lists(st.sampled_from(range(len(EARLY))), max_size=8),
    version=st.sampled_from([1, 2, 5]),
)
def test_early_messages_never_close_and_the_first_valid_initialize_routes(
    early: list[int], version: int
) -> None:
    async def main() -> None:
        router = ProtocolRouter(V1(), v2=V2())
        source, writer = Source(), Writer()
        serving = asyncio.ensure_future(router.serve(source, writer))
        await asyncio.sleep(0)
        lines = [
            (
                EARLY[i][0].encode()
                if isinstance(EARLY[i][0], str)
                else json.dumps(EARLY[i][0]).encode()
            )
            for i in early
        ]
        params: dict[str, Any] = {"protocolVersion": version}
        if version >= 2:
            params["info"] = INFO
        initialize = {"jsonrpc": "2.0", "id": 100, "method": "initialize", "params": params}
        session = {
            "jsonrpc": "2.0",
            "id": 101,
            "method": "session/new",
            "params": {"cwd": "/", "mcpServers": []},
        }
        source.sink.lines_received([*lines, json.dumps(initialize).encode()])
        source.sink.lines_received([json.dumps(session).encode()])
        while not any(isinstance(line, dict) and line.get("id") == 101 for line in writer.lines):
            writer.event.clear()
            await asyncio.wait_for(writer.event.wait(), 5)
        expected = [EARLY[i][1] for i in early if EARLY[i][1] is not None]
        answers = writer.lines[: len(expected)]
        assert [(a["error"]["code"], a["id"]) for a in answers] == expected
        routed, opened = writer.lines[len(expected) :]
        assert routed["id"] == 100 and routed["result"]["protocolVersion"] == min(version, 2)
        assert opened["result"]["sessionId"] == ("v1" if version == 1 else "v2")
        assert not source.closed
        source.sink.input_ended(None)
        await asyncio.wait_for(serving, 10)
        assert source.closed

    asyncio.run(main())


def test_a_client_leaving_before_initialize_ends_the_connection() -> None:
    async def main() -> None:
        source, writer = Source(), Writer()
        serving = asyncio.ensure_future(ProtocolRouter(V1(), v2=V2()).serve(source, writer))
        await asyncio.sleep(0)
        source.sink.lines_received([b'{"jsonrpc": "2.0", "id": 1, "method": "x"}'])
        source.sink.input_ended(None)
        assert await asyncio.wait_for(serving, 5) is None
        assert source.closed and writer.lines[0]["error"]["code"] == -32600

    asyncio.run(main())
