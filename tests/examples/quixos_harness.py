"""Runs the example server as a real child process and connects to it (stdio or TCP)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

from idlc.runtime import Peer, connect_tcp, spawn
from quixos_agent import (
    AgentContextSubjectRef,
    AgentDirectoryProxy,
    AgentObjectRef,
    AgentRequestObjectRef,
    AgentRequestProxy,
    AgentSubmission,
    AgentThreadObjectRef,
)

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "examples" / "quixos_server.py"
CLIENT = REPO / "examples" / "quixos_client.py"
TRANSPORTS = ("stdio", "tcp")
WHEN = "2025-01-01T12:00:00Z"

#: The application error codes the server's docstring promises.
UNKNOWN_OBJECT = 4004
CONFLICT = 4009

#: Upper bound for a whole test, and for any one thing awaited; nothing comes close.
TEST_TIMEOUT = 30.0
STEP_TIMEOUT = 10.0


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an `async def` test in a fresh event loop with a timeout; no task may be left."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        async def body() -> None:
            await asyncio.wait_for(test(*args, **kwargs), TEST_TIMEOUT)
            stray = asyncio.all_tasks() - {asyncio.current_task()}
            assert not stray, f"tasks left behind: {stray}"

        asyncio.run(body())

    return wrapper


@contextlib.asynccontextmanager
async def tcp_server() -> AsyncIterator[tuple[str, int]]:
    """Start the server with `--tcp 127.0.0.1:0`; yield the address it reports on stderr.

    On exit it is stopped with SIGTERM and must exit 0, with nothing on stdout and no
    traceback on stderr.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        "--quiet",
        "--tcp",
        "127.0.0.1:0",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        first = await asyncio.wait_for(process.stderr.readline(), STEP_TIMEOUT)
        found = re.search(rb"listening on (\S+):(\d+)$", first.strip())
        assert found, f"unexpected first line on stderr: {first!r}"
        rest = asyncio.ensure_future(process.stderr.read())
        out = asyncio.ensure_future(process.stdout.read())
        yield found.group(1).decode(), int(found.group(2))
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), STEP_TIMEOUT)
        errors = await asyncio.wait_for(rest, STEP_TIMEOUT)
        assert await asyncio.wait_for(out, STEP_TIMEOUT) == b""
        assert b"Traceback" not in errors, errors.decode()
        assert code == 0, errors.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@contextlib.asynccontextmanager
async def connection(transport: str) -> AsyncIterator[Peer]:
    """A peer talking to a freshly started example server over `transport`."""
    if transport == "stdio":
        async with spawn([sys.executable, str(SERVER), "--quiet"]) as peer:
            yield peer
    else:
        assert transport == "tcp"
        async with tcp_server() as (host, port), connect_tcp(host, port) as peer:
            yield peer


async def within(awaitable: Any) -> Any:
    return await asyncio.wait_for(awaitable, STEP_TIMEOUT)


def submission(text: str = "Draft the notes", **fields: Any) -> AgentSubmission:
    values: dict[str, Any] = {
        "text": text,
        "source_kind": "user",
        "source_label": "tests",
        "created_at": WHEN,
        "contexts": [AgentContextSubjectRef("context:a"), AgentContextSubjectRef("context:b")],
        "causal_depth": 0,
    }
    values.update(fields)
    return AgentSubmission(**values)


async def admitted(
    directory: AgentDirectoryProxy, **fields: Any
) -> tuple[AgentObjectRef, AgentThreadObjectRef, AgentRequestObjectRef]:
    """Create an agent and a thread and admit one request on them."""
    agent = await within(
        directory.create_agent(name="writer", description="d", instructions="i", settings="s")
    )
    thread = await within(
        directory.create_thread(agent=agent, title="t", kind="chat", created_at=WHEN, contexts=[])
    )
    admission = await within(
        directory.admit(
            agent=agent, thread=thread, submission=submission(**fields), optional_work=False
        )
    )
    assert admission.accepted and admission.request is not None, admission
    return agent, thread, admission.request


async def claimed(request: AgentRequestProxy, attempt: str = "worker-a") -> int:
    """Claim a fresh request; return the generation the attempt holds."""
    answer = await within(
        request.claim(attempt=attempt, expected_generation=0, started_at=WHEN, recover=False)
    )
    assert answer.claimed and answer.generation == 1, answer
    return int(answer.generation)
