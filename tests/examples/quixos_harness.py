"""Runs the example server as a real child process and connects to it (stdio or TCP)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeAlias

from quixos_agent import (
    AgentContextSubjectRef,
    AgentDirectoryProxy,
    AgentObjectRef,
    AgentRequestObjectRef,
    AgentRequestProxy,
    AgentSubmission,
    AgentThreadObjectRef,
)

from idlc_runtime import Peer, connect_tcp, spawn
from idlc_runtime.web import connect_websocket

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "examples" / "quixos_server.py"
CLIENT = REPO / "examples" / "quixos_client.py"
#: The examples import the committed, uninstalled `generated/quixos_agent`, so they are started
#: as their docstrings say: with `generated` on PYTHONPATH.
EXAMPLE_ENV = {**os.environ, "PYTHONPATH": str(REPO / "generated")}
TRANSPORTS = ("stdio", "tcp", "websocket")
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


@contextlib.contextmanager
def tcp_server() -> Iterator[tuple[str, int]]:
    """Start the server with `--tcp 127.0.0.1:0`; yield the address it reports on stderr.

    On exit it is stopped with SIGTERM and must exit 0, with nothing on stdout and no
    traceback on stderr. Every connection gets a directory of its own, so tests can share
    one server and still start from nothing.
    """
    pattern = rb"listening on (\S+):(\d+)$"
    with running_server(["--tcp", "127.0.0.1:0"], pattern, EXAMPLE_ENV) as found:
        yield found.group(1).decode(), int(found.group(2))


@contextlib.contextmanager
def running_server(
    flags: list[str], pattern: bytes, env: dict[str, str], signum: int = signal.SIGTERM
) -> Iterator[re.Match[bytes]]:
    """Start the server with `flags`; yield the match of `pattern` in its first stderr line.

    On exit it is stopped with `signum` and must exit 0, with nothing on stdout and no
    traceback on stderr.
    """
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--quiet", *flags],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    # A server that never reports its address is killed, which ends the read below.
    watchdog = threading.Timer(STEP_TIMEOUT, process.kill)
    watchdog.start()
    try:
        first = process.stderr.readline()
        watchdog.cancel()
        found = re.search(pattern, first.strip())
        assert found, f"unexpected first line on stderr: {first!r}"
        # Read what else it says, so that it can never block on a full pipe.
        with concurrent.futures.ThreadPoolExecutor(2) as readers:
            errors = readers.submit(process.stderr.read)
            out = readers.submit(process.stdout.read)
            try:
                yield found
            finally:
                # Also when the test failed: the readers end only once the server exits.
                process.send_signal(signum)
            code = process.wait(STEP_TIMEOUT)
            said = errors.result(STEP_TIMEOUT).decode()
            assert out.result(STEP_TIMEOUT) == b""
        assert "Traceback" not in said, said
        assert code == 0, said
    finally:
        watchdog.cancel()
        if process.returncode is None:
            process.kill()
            process.wait()


@contextlib.asynccontextmanager
async def stdio_connection() -> AsyncIterator[Peer]:
    """A peer talking to a freshly started server over the child's stdin and stdout."""
    async with spawn([sys.executable, str(SERVER), "--quiet"], env=EXAMPLE_ENV) as peer:
        yield peer


#: Opens a connection to a server with a fresh directory.
Connect: TypeAlias = Callable[[], contextlib.AbstractAsyncContextManager[Peer]]


def tcp_connector(host: str, port: int) -> Connect:
    def connect() -> contextlib.AbstractAsyncContextManager[Peer]:
        return connect_tcp(host, port)

    return connect


def websocket_connector(url: str) -> Connect:
    def connect() -> contextlib.AbstractAsyncContextManager[Peer]:
        return connect_websocket(url)

    return connect


@contextlib.contextmanager
def websocket_server() -> Iterator[str]:
    """Start the server with `--listen 127.0.0.1:0`; yield the URL it reports on stderr."""
    pattern = rb"^quixos_server: listening on (ws://127\.0\.0\.1:\d+/)$"
    with running_server(["--listen", "127.0.0.1:0"], pattern, EXAMPLE_ENV) as found:
        yield found.group(1).decode()


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
