"""Prompt turns per second: idlc's ACP SDK against the official Python SDK, same exchange.

One process, one run. For each SDK a client and an agent written with it are joined by two
`os.pipe` pairs (real file descriptors, newline-delimited JSON, the event loop of this
process), and the client runs prompt turns one after another. In each turn the agent sends
10 `agent_message_chunk` updates (`session/update`) and then answers `end_turn`; the turn ends
when the client has the answer and has handled all 10 updates. The SDKs take turns, run after
run, so both see the same machine load; the medians are printed, then the ratio.

    python bench/acp_sdk.py [--runs 7] [--turns 400]
    python bench/acp_sdk.py --ours-cpu [--runs 9] [--turns 2000]

`--ours-cpu` runs idlc's side alone and prints the process CPU time per turn: steadier than
turns per second on a shared machine, for comparing two versions of idlc.

The official SDK is PyPI `agent-client-protocol` (module `acp`, in the test extras).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
)

import acp  # the official SDK
from idlc_acp import (
    Agent,
    AgentConnection,
    Client,
    ContentBlockText,
    InitializeRequest,
    NewSessionRequest,
    PromptRequest,
    SessionNotification,
    SessionUpdateAgentMessageChunk,
    StopReason,
    agent_options,
    client_options,
    current_client,
)
from idlc_acp import (
    AgentCapabilities as IdlcAgentCapabilities,
)
from idlc_acp import (
    InitializeResponse as IdlcInitializeResponse,
)
from idlc_acp import (
    NewSessionResponse as IdlcNewSessionResponse,
)
from idlc_acp import (
    PromptResponse as IdlcPromptResponse,
)
from idlc_runtime import connect_fds

UPDATES = 10
PROMPT_TEXT = "How are you today?"
CHUNK_TEXT = "a chunk of the answer, "

Turns = Callable[[int], Awaitable[float]]  # runs N turns, returns the seconds they took


# ---------------------------------------------------------------- idlc's ACP SDK


class IdlcBenchAgent(Agent):
    async def initialize(self, input: InitializeRequest) -> IdlcInitializeResponse:
        return IdlcInitializeResponse(
            protocol_version=1, agent_capabilities=IdlcAgentCapabilities()
        )

    async def new_session(self, input: NewSessionRequest) -> IdlcNewSessionResponse:
        return IdlcNewSessionResponse(session_id="bench-session")

    async def prompt(self, input: PromptRequest) -> IdlcPromptResponse:
        client = current_client()
        chunk = SessionUpdateAgentMessageChunk(content=ContentBlockText(text=CHUNK_TEXT))
        for _ in range(UPDATES):
            await client.update(SessionNotification(session_id=input.session_id, update=chunk))
        return IdlcPromptResponse(stop_reason=StopReason.END_TURN)


class IdlcBenchClient(Client):
    def __init__(self) -> None:
        self.updates = 0

    async def update(self, input: SessionNotification) -> None:
        self.updates += 1

    async def request_permission(self, input: Any) -> Any:
        raise NotImplementedError("the benchmark asks no permission")


async def idlc_turns(stack: list[Any]) -> Turns:
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    agent = IdlcBenchAgent()
    client = IdlcBenchClient()
    options, controls = client_options(client)
    agent_cm = connect_fds(agent_read, agent_write, agent, options=agent_options(agent))
    client_cm = connect_fds(client_read, client_write, client, options=options)
    await agent_cm.__aenter__()
    peer = await client_cm.__aenter__()
    stack.extend([client_cm, agent_cm])
    proxy = AgentConnection(peer, controls)
    await proxy.initialize(InitializeRequest(protocol_version=1))
    session = await proxy.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
    request = PromptRequest(
        session_id=session.session_id, prompt=[ContentBlockText(text=PROMPT_TEXT)]
    )

    async def turns(count: int) -> float:
        before = client.updates
        started = time.perf_counter()
        for _ in range(count):
            answer = await proxy.prompt(request)
            assert answer.stop_reason is StopReason.END_TURN
        elapsed = time.perf_counter() - started
        assert client.updates - before == count * UPDATES, "updates went missing"
        return elapsed

    return turns


# ---------------------------------------------------------------- the official Python SDK


class OfficialBenchAgent:
    def __init__(self) -> None:
        self.conn: Any = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="bench-session")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        chunk = acp.update_agent_message_text(CHUNK_TEXT)
        for _ in range(UPDATES):
            await self.conn.session_update(session_id, chunk)
        return PromptResponse(stop_reason="end_turn")


class OfficialBenchClient:
    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates += 1

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the benchmark asks no permission")


async def _streams(
    read_fd: int, write_fd: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


async def official_turns(stack: list[Any]) -> Turns:
    agent_read, client_write = os.pipe()
    client_read, agent_write = os.pipe()
    agent_reader, agent_writer = await _streams(agent_read, agent_write)
    client_reader, client_writer = await _streams(client_read, client_write)
    agent = OfficialBenchAgent()
    client = OfficialBenchClient()
    serving = asyncio.ensure_future(
        acp.run_agent(agent, input_stream=agent_writer, output_stream=agent_reader)
    )
    conn = acp.connect_to_agent(client, client_writer, client_reader)
    stack.extend([conn, serving, agent_writer, client_writer])
    await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
    session = await conn.new_session(cwd="/", mcp_servers=[])
    prompt = [acp.text_block(PROMPT_TEXT)]

    async def turns(count: int) -> float:
        before = client.updates
        started = time.perf_counter()
        for _ in range(count):
            answer = await conn.prompt(session_id=session.session_id, prompt=prompt)
            assert answer.stop_reason == "end_turn"
        elapsed = time.perf_counter() - started
        assert client.updates - before == count * UPDATES, "updates went missing"
        return elapsed

    return turns


async def _close(stack: list[Any]) -> None:
    for item in stack:
        if isinstance(item, asyncio.StreamWriter):
            item.close()
        elif isinstance(item, asyncio.Future):
            item.cancel()
            try:
                await item
            except (asyncio.CancelledError, Exception):
                pass
        elif hasattr(item, "__aexit__"):
            await item.__aexit__(None, None, None)
        elif hasattr(item, "close"):
            await item.close()


# ---------------------------------------------------------------- the run


async def main_async(runs: int, turns: int) -> float:
    stack: list[Any] = []
    try:
        sides = {"idlc": await idlc_turns(stack), "official": await official_turns(stack)}
        for run in sides.values():  # warm-up: caches, decoders, the first tasks
            await run(max(turns // 10, 10))
        rates: dict[str, list[float]] = {name: [] for name in sides}
        for index in range(runs):
            # Alternate which side goes first, so neither always gets the quieter moment.
            order = list(sides) if index % 2 == 0 else list(reversed(sides))
            for name in order:
                rates[name].append(turns / await sides[name](turns))
    finally:
        await _close(stack)
    medians = {name: statistics.median(values) for name, values in rates.items()}
    print(
        f"python {sys.version.split()[0]}, {runs} runs of {turns} prompt turns, {UPDATES} updates each"
    )
    for name, label in (("idlc", "idlc ACP SDK"), ("official", "official Python SDK (acp)")):
        runs_text = ", ".join(f"{r:,.0f}" for r in sorted(rates[name]))
        print(f"{label:<28} median {medians[name]:>9,.0f} turns/s   (runs: {runs_text})")
    ratio = medians["idlc"] / medians["official"]
    print(f"ratio_vs_official_sdk: {ratio:.2f}")
    return ratio


async def ours_cpu(runs: int, turns: int) -> None:
    stack: list[Any] = []
    try:
        run = await idlc_turns(stack)
        await run(max(turns // 10, 10))
        per_turn = []
        for _ in range(runs):
            started = time.process_time()
            await run(turns)
            per_turn.append((time.process_time() - started) / turns * 1e6)
    finally:
        await _close(stack)
    print(f"python {sys.version.split()[0]}, {runs} runs of {turns} prompt turns, idlc alone")
    print(
        f"CPU per turn: median {statistics.median(per_turn):.1f} µs, "
        f"range {min(per_turn):.1f}–{max(per_turn):.1f} µs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="repetitions per SDK (default 7)")
    parser.add_argument(
        "--turns", type=int, default=400, help="prompt turns per repetition (default 400)"
    )
    parser.add_argument("--ours-cpu", action="store_true", help="idlc alone: CPU time per turn")
    options = parser.parse_args()
    if options.ours_cpu:
        asyncio.run(ours_cpu(options.runs, options.turns))
    else:
        asyncio.run(main_async(options.runs, options.turns))


if __name__ == "__main__":
    main()
