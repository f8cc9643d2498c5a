"""docs/acp-remote.md, run as written: its programs, their output, its shell sessions.

Servers listen on 127.0.0.1 on a port free at the time, and are stopped with SIGTERM; each
must exit 0 without a traceback.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOC = (REPO / "docs" / "acp-remote.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w+)(?: ([\w.-]+))?\n(.*?)^```$", re.MULTILINE | re.DOTALL)
DOC_PORT = "8765"
TIMEOUT = 60
#: What each server says once it accepts connections, on stderr.
LISTENING = {
    "uvicorn": re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)"),
    "hypercorn": re.compile(r"Running on http://127\.0\.0\.1:(\d+)"),
    "python": re.compile(r"listening on http://127\.0\.0\.1:(\d+)/acp$"),
}
SESSIONS = ["uvicorn-session", "hypercorn-session", "echo-session"]


def block(language: str, name: str) -> str:
    found = [body for lang, label, body in FENCE.findall(DOC) if (lang, label) == (language, name)]
    assert len(found) == 1, f"{len(found)} ```{language} {name} blocks"
    return found[0]


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def argv(line: str, port: str) -> list[str]:
    """A line of a shell session as this interpreter runs it (examples/ from the repo)."""
    words = shlex.split(line.replace(DOC_PORT, port))
    words = [str(REPO / w) if w.startswith("examples/") else w for w in words]
    tool = words[0]
    assert tool in LISTENING, line
    return ([sys.executable] if tool == "python" else [sys.executable, "-m", tool]) + words[1:]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "notes_agent.py").write_text(block("python", "notes_agent.py"))
    (tmp_path / "README.md").write_text("# a workspace\n")
    return tmp_path


def env_for(workdir: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(workdir)}


def test_the_program_in_one_process_prints_what_the_doc_shows(workdir: Path) -> None:
    program = workdir / "notes_in_one_process.py"
    program.write_text(block("python", "notes_in_one_process.py"))
    done = subprocess.run(
        [sys.executable, str(program)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=workdir,
        env=env_for(workdir),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == block("text", "notes-in-one-process-output")


@contextlib.contextmanager
def server(line: str, port: str, workdir: Path) -> Iterator[None]:
    words = argv(line, port)
    process = subprocess.Popen(
        words,
        cwd=workdir,
        env=env_for(workdir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    pattern = LISTENING[shlex.split(line)[0]]
    watchdog = threading.Timer(TIMEOUT, process.kill)
    watchdog.start()
    said: list[str] = []
    try:
        for text in process.stderr:
            said.append(text)
            if pattern.search(text.strip()):
                break
        watchdog.cancel()
        assert process.poll() is None, "".join(said)
        with concurrent.futures.ThreadPoolExecutor(1) as reader:
            rest = reader.submit(process.stderr.read)
            try:
                yield
            finally:
                process.send_signal(signal.SIGTERM)
            code = process.wait(TIMEOUT)
            said.append(rest.result(TIMEOUT))
        assert "Traceback" not in "".join(said), "".join(said)
        # uvicorn, once shut down, raises the signal again to end as its default would.
        tool = shlex.split(line)[0]
        assert code in ((0, -signal.SIGTERM) if tool == "uvicorn" else (0,)), "".join(said)
    finally:
        watchdog.cancel()
        if process.returncode is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("name", SESSIONS)
def test_the_shell_sessions_run(name: str, workdir: Path) -> None:
    lines = block("sh", name).splitlines()
    assert lines[0].endswith(" &") and lines[-1] == "kill %1", lines
    port = free_port()
    with server(lines[0].removesuffix(" &"), port, workdir):
        for line in lines[1:-1]:
            done = subprocess.run(
                argv(line, port),
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                cwd=workdir,
                env=env_for(workdir),
            )
            assert done.returncode == 0, done.stderr
            # (A v2 turn's result line also names its messageId.)
            last = done.stdout.splitlines()[-1]
            assert re.fullmatch(
                r'\[result\] stopReason="end_turn"( messageId="[^"]+")?', last
            ), done.stdout


#: A client that opens a streamable-HTTP connection (so its SSE stream is open), says so,
#: and waits until the server ends the connection.
HOLDER = """
import asyncio, sys
from idlc_acp import InitializeRequest, Client
from idlc_acp.web import connect_http

class Quiet(Client):
    async def update(self, input):
        pass

    async def request_permission(self, input):
        raise NotImplementedError

async def main():
    async with connect_http(sys.argv[1], Quiet()) as agent:
        await agent.initialize(InitializeRequest(protocol_version=1))
        print("open", flush=True)
        await agent.peer.wait_closed()
        print("closed by the server", flush=True)

asyncio.run(main())
"""


def test_uvicorn_stops_while_a_client_holds_its_streams_open(workdir: Path) -> None:
    line = block("sh", "uvicorn-session").splitlines()[0].removesuffix(" &")
    port = free_port()
    holder = None
    try:
        with server(line, port, workdir):
            holder = subprocess.Popen(
                [sys.executable, "-c", HOLDER, f"http://127.0.0.1:{port}/acp"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert holder.stdout is not None
            assert holder.stdout.readline() == "open\n"
        # The server has exited (the context checked how); the client saw its connection end.
        out, err = holder.communicate(timeout=TIMEOUT)
        assert out == "closed by the server\n", err
    finally:
        if holder is not None and holder.returncode is None:
            holder.kill()
            holder.wait()
