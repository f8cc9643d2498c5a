"""Helpers of the remote ACP tests: the echo agent in-process and as a listening subprocess,
the example client as one, a recording client."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import importlib.util
import json
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from idlc_acp import (
    ALLOW_ONCE,
    Client,
    ClientCapabilities,
    ContentBlockText,
    FileSystemCapabilities,
    InitializeRequest,
    NewSessionRequest,
    PromptRequest,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionOutcomeSelected,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
)
from idlc_acp.client import AgentConnection

ROOT = Path(__file__).resolve().parents[3]
ECHO_AGENT = ROOT / "examples" / "acp_echo_agent.py"
CLIENT = ROOT / "examples" / "acp_client.py"
#: Upper bound for a whole test; nothing comes close.
TEST_TIMEOUT = 60.0


def load_echo_agent() -> Any:
    """examples/acp_echo_agent.py as a module (its `EchoAgent` class serves in-process)."""
    spec = importlib.util.spec_from_file_location("acp_echo_agent", ECHO_AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EchoAgent = load_echo_agent().EchoAgent


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an `async def` test in a fresh event loop with a timeout."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), TEST_TIMEOUT))

    return wrapper


class RecordingClient(Client):
    """Allows every permission, reads files from disk, records the updates."""

    def __init__(self) -> None:
        self.updates: list[SessionNotification] = []
        self.permissions: list[RequestPermissionRequest] = []
        self.reads: list[str] = []
        self.first_update = asyncio.Event()

    async def update(self, input: SessionNotification) -> None:
        self.updates.append(input)
        self.first_update.set()

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        self.permissions.append(input)
        return RequestPermissionResponse(
            outcome=RequestPermissionOutcomeSelected(option_id=ALLOW_ONCE.option_id)
        )

    async def read_text_file(self, input: ReadTextFileRequest) -> ReadTextFileResponse:
        self.reads.append(input.path)
        return ReadTextFileResponse(content=Path(input.path).read_text(encoding="utf-8"))


async def one_turn(agent: AgentConnection, cwd: Path, text: str = "hello") -> tuple[str, str]:
    """initialize, session/new in `cwd` (given a README.md, which the echo agent reads),
    one prompt: (the session id, the stop reason)."""
    readme = cwd / "README.md"
    if not readme.exists():
        readme.write_text("# a workspace\n", encoding="utf-8")
    await agent.initialize(
        InitializeRequest(
            protocol_version=1,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=False)
            ),
        )
    )
    session = await agent.new_session(NewSessionRequest(cwd=str(cwd), mcp_servers=[]))
    answer = await agent.prompt(
        PromptRequest(session_id=session.session_id, prompt=[ContentBlockText(text=text)])
    )
    return session.session_id, answer.stop_reason.value


LISTENING = re.compile(rb"^listening on (http://127\.0\.0\.1:(\d+)/acp)$")
STEP_TIMEOUT = 30.0


@contextlib.contextmanager
def echo_agent(
    listen: str = "127.0.0.1:0", signum: int = signal.SIGTERM, flags: tuple[str, ...] = ()
) -> Iterator[tuple[str, int]]:
    """`acp_echo_agent.py --listen` (and `flags`); yields its URL and port once it says it
    listens. Stopped with `signum`, it must exit 0, print nothing on stdout and no
    traceback."""
    process = subprocess.Popen(
        [sys.executable, str(ECHO_AGENT), "--listen", listen, *flags],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    watchdog = threading.Timer(STEP_TIMEOUT, process.kill)
    watchdog.start()
    try:
        first = process.stderr.readline()
        watchdog.cancel()
        found = LISTENING.match(first.strip())
        assert found, f"unexpected first line on stderr: {first!r}"
        with concurrent.futures.ThreadPoolExecutor(2) as readers:
            errors = readers.submit(process.stderr.read)
            out = readers.submit(process.stdout.read)
            try:
                yield found.group(1).decode(), int(found.group(2))
            finally:
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


def run_client(url: str, cwd: Path, *flags: str) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(
        [sys.executable, str(CLIENT), "--connect", url, "--cwd", str(cwd), "--json", *flags],
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, events, done.stderr
