"""Remote ACP under load: many WebSocket clients against one uvicorn process, beside stdio.

The server is a child process: uvicorn, run from its command line as docs/acp-remote.md
shows, serving `create_asgi_app(BenchAgent)`; the agent answers each prompt with one
`agent_message_chunk` echoing its text, then `end_turn`. This process opens `--clients`
WebSocket connections at once (100), each with its own session, and has each run `--turns`
prompt turns (50) one after the other, all clients together, then checks:

- every turn ended `end_turn`, and each client received exactly the echoes of its own
  prompts, in order: no response or update lost, duplicated or delivered to another client;
- the server's memory is bounded: after a warm-up round, its resident size after the last
  round is within `--growth` (10 %) of what it was after the first; its peak is reported.

For comparison the same turns run over stdio: one agent process (`--stdio-agent`), the
same number of sessions on its one connection, all together; with `--http`, also over
streamable HTTP (HTTP/1.1, `connect_http`) against the same uvicorn. It reports turns per second
(connecting and `session/new` are not timed) per transport, the median over `--runs`
rounds. A failed check exits 1.

Usage:  python bench/acp_web.py [--clients 100] [--turns 50] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec

from idlc_acp import (
    Agent,
    Client,
    ContentBlockText,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    RequestPermissionOutcomeCancelled,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    StopReason,
    current_session,
    run_agent,
    spawn_agent,
)
from idlc_acp.client import AgentConnection
from idlc_acp.web import connect_http, connect_websocket, create_asgi_app

HERE = Path(__file__).resolve().parent


class BenchAgent(Agent):
    """Echoes each prompt's text as one update, then ends the turn."""

    def __init__(self) -> None:
        self.sessions = 0

    async def initialize(self, input: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input: NewSessionRequest) -> NewSessionResponse:
        self.sessions += 1
        return NewSessionResponse(session_id=f"bench-{id(self):x}-{self.sessions}")

    async def prompt(self, input: PromptRequest) -> PromptResponse:
        text = "".join(b.text for b in input.prompt if isinstance(b, ContentBlockText))
        await current_session().send_text(text)
        return PromptResponse(stop_reason=StopReason.END_TURN)


def create_app() -> Any:
    """The uvicorn factory: `uvicorn --factory acp_web:create_app`."""
    return create_asgi_app(BenchAgent, max_connections=10_000)


class EchoCollector(Client):
    """Keeps the echoed texts, by session."""

    def __init__(self) -> None:
        self.echoes: dict[str, list[str]] = {}

    async def update(self, input: SessionNotification) -> None:
        update = msgspec.to_builtins(input.update)
        if update.get("sessionUpdate") == "agent_message_chunk":
            self.echoes.setdefault(input.session_id, []).append(update["content"]["text"])

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())


async def open_session(agent: AgentConnection) -> str:
    await agent.initialize(InitializeRequest(protocol_version=1))
    session = await agent.new_session(NewSessionRequest(cwd=str(HERE), mcp_servers=[]))
    return session.session_id


async def turns(agent: AgentConnection, session_id: str, tag: str, count: int) -> list[str]:
    """`count` turns one after the other; the texts sent. Raises unless each ends end_turn."""
    sent = []
    for n in range(count):
        text = f"{tag}-turn-{n}"
        answer = await agent.prompt(
            PromptRequest(session_id=session_id, prompt=[ContentBlockText(text=text)])
        )
        if answer.stop_reason is not StopReason.END_TURN:
            raise AssertionError(f"{tag} turn {n} ended {answer.stop_reason}")
        sent.append(text)
    return sent


def check_echoes(collector: EchoCollector, session_id: str, sent: list[str], seen: int) -> None:
    got = collector.echoes.get(session_id, [])[seen:]
    if got != sent:
        raise AssertionError(
            f"session {session_id}: sent {len(sent)} prompts, got {len(got)} echoes"
        )


@contextlib.asynccontextmanager
async def uvicorn_server() -> AsyncIterator[tuple[str, int]]:
    """uvicorn from its command line on a free port: (the ws URL, the server's pid)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "uvicorn",
        "--app-dir",
        str(HERE),
        "--factory",
        "acp_web:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--ws",
        "websockets-sansio",
        "--log-level",
        "info",
        "--no-access-log",
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    port = None
    while port is None:
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        if not line:
            raise RuntimeError("uvicorn exited before it listened")
        found = re.search(rb"running on http://127\.0\.0\.1:(\d+)", line)
        if found:
            port = int(found.group(1))
    drain = asyncio.ensure_future(process.stderr.read())
    try:
        yield f"ws://127.0.0.1:{port}/acp", process.pid
    finally:
        process.terminate()
        await process.wait()
        drain.cancel()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def remote_rounds(args: argparse.Namespace, transport: str) -> tuple[list[float], list[int]]:
    rates: list[float] = []
    memory: list[int] = []
    async with uvicorn_server() as (ws_url, pid), contextlib.AsyncExitStack() as stack:
        clients: list[tuple[AgentConnection, EchoCollector, str]] = []
        url = ws_url if transport == "ws" else ws_url.replace("ws://", "http://", 1)
        connect_to = connect_websocket if transport == "ws" else connect_http

        async def connect(number: int) -> None:
            collector = EchoCollector()
            agent = await stack.enter_async_context(connect_to(url, collector))
            clients.append((agent, collector, await open_session(agent)))

        await asyncio.gather(*(connect(n) for n in range(args.clients)))
        for round_number in range(args.runs + 1):  # round 0 warms up
            seen = [len(c.echoes.get(s, [])) for _, c, s in clients]
            started = time.perf_counter()
            sent = await asyncio.gather(
                *(
                    turns(agent, session, f"c{n}-r{round_number}", args.turns)
                    for n, (agent, _, session) in enumerate(clients)
                )
            )
            elapsed = time.perf_counter() - started
            for (_, collector, session), texts, before in zip(clients, sent, seen, strict=True):
                check_echoes(collector, session, texts, before)
            memory.append(rss_kib(pid))
            if round_number:
                rates.append(args.clients * args.turns / elapsed)
    return rates, memory


async def stdio_rounds(args: argparse.Namespace) -> list[float]:
    rates: list[float] = []
    collector = EchoCollector()
    command = [sys.executable, str(Path(__file__).resolve()), "--stdio-agent"]
    async with spawn_agent(collector, command) as agent:
        await agent.initialize(InitializeRequest(protocol_version=1))
        sessions = [
            (await agent.new_session(NewSessionRequest(cwd=str(HERE), mcp_servers=[]))).session_id
            for _ in range(args.clients)
        ]
        for round_number in range(args.runs + 1):
            seen = [len(collector.echoes.get(s, [])) for s in sessions]
            started = time.perf_counter()
            sent = await asyncio.gather(
                *(
                    turns(agent, session, f"s{n}-r{round_number}", args.turns)
                    for n, session in enumerate(sessions)
                )
            )
            elapsed = time.perf_counter() - started
            for session, texts, before in zip(sessions, sent, seen, strict=True):
                check_echoes(collector, session, texts, before)
            if round_number:
                rates.append(args.clients * args.turns / elapsed)
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--growth", type=float, default=0.10)
    parser.add_argument(
        "--http", action="store_true", help="also run the turns over streamable HTTP"
    )
    parser.add_argument("--stdio-agent", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stdio_agent:
        run_agent(BenchAgent())
        return 0
    total = args.clients * args.turns

    def report(name: str, rates: list[float]) -> None:
        print(
            f"{name:<22} {statistics.median(rates):>9,.0f} turns/s  "
            f"(median of {len(rates)} rounds of {total:,} turns)"
        )

    failed = False
    for transport, name in (("ws", "WebSocket (uvicorn)"), ("http", "HTTP/1.1 (uvicorn)")):
        if transport == "http" and not args.http:
            continue
        rates, memory = asyncio.run(remote_rounds(args, transport))
        report(name, rates)
        first, last = memory[1], memory[-1]
        print(
            f"  server RSS after rounds: {', '.join(f'{m / 1024:.1f}' for m in memory)} MiB "
            f"(peak {max(memory) / 1024:.1f} MiB)"
        )
        if last > first * (1 + args.growth):
            print(f"FAILED: server memory grew from {first} KiB to {last} KiB", file=sys.stderr)
            failed = True
    report("stdio (one process)", asyncio.run(stdio_rounds(args)))
    if failed:
        return 1
    print("every turn ended end_turn; every echo arrived once, to its own client")
    return 0


if __name__ == "__main__":
    sys.exit(main())
