"""docs/web.md, run as written: every program block, its output, its shell sessions.

The counter of docs/serving.md is generated into a temporary folder; servers listen on
127.0.0.1, on a port the system chose, and are stopped with SIGTERM.
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
DOC = (REPO / "docs" / "web.md").read_text(encoding="utf-8")
SERVING = (REPO / "docs" / "serving.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w+)(?: ([\w.-]+))?\n(.*?)^```$", re.MULTILINE | re.DOTALL)
BLOCKS = FENCE.findall(DOC)
PROGRAMS = {name: text for language, name, text in BLOCKS if language == "python"}
#: The programs each test below runs (or serves, for the application).
RUN_BELOW = {"ws_in_one_process.py", "counter_app.py", "ws_client.py"}
#: The port the shell sessions of the document use; the tests use one the system chose.
DOC_PORT = "8765"
TIMEOUT = 60
#: What each server says once it accepts connections, on stderr.
LISTENING = {
    "uvicorn": re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)"),
    "hypercorn": re.compile(r"Running on http://127\.0\.0\.1:(\d+)"),
    "python": re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/$"),
}


def block(language: str, name: str, text: str = DOC) -> str:
    found = [body for lang, label, body in FENCE.findall(text) if (lang, label) == (language, name)]
    assert len(found) == 1, f"{len(found)} ```{language} {name} blocks"
    return found[0]


def free_port() -> str:
    """A port free now, for servers that cannot report the one they got (hypercorn)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def command(line: str, port: str) -> tuple[list[str], dict[str, str]]:
    """A line of a shell session: its argv (the tools run by this interpreter) and the
    environment assignments before it."""
    words = shlex.split(line.replace(DOC_PORT, port))
    env = {}
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    tool = words[0]
    assert tool in LISTENING, line
    prefix = [sys.executable] if tool == "python" else [sys.executable, "-m", tool]
    return prefix + words[1:], env


def session(name: str) -> tuple[str, list[str]]:
    """A session block: the server line (`… &`), the client lines, then `kill %1`."""
    lines = block("sh", name).splitlines()
    assert lines[0].endswith(" &") and lines[-1] == "kill %1", lines
    return lines[0].removesuffix(" &"), lines[1:-1]


@contextlib.contextmanager
def server_process(line: str, cwd: Path, pythonpath: str) -> Iterator[str]:
    """Start the server of a session line; yield its port once it says it listens; stop it
    with SIGTERM and check that it exited 0 without a traceback."""
    tool = shlex.split(line)[0 if "=" not in line.split()[0] else 1]
    port = free_port() if tool == "hypercorn" else "0"
    argv, assigned = command(line, port)
    env = {**os.environ, **assigned, "PYTHONPATH": pythonpath}
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    watchdog = threading.Timer(TIMEOUT, process.kill)
    watchdog.start()
    try:
        said: list[str] = []
        while True:
            text = process.stderr.readline().decode()
            assert text, f"the server ended before it listened: {said}"
            said.append(text)
            found = LISTENING[tool].search(text.strip())
            if found:
                break
        watchdog.cancel()
        with concurrent.futures.ThreadPoolExecutor(2) as readers:
            rest = readers.submit(process.stderr.read)
            out = readers.submit(process.stdout.read)
            try:
                yield found.group(1)
            finally:
                process.send_signal(signal.SIGTERM)
            code = process.wait(TIMEOUT)
            errors = rest.result(TIMEOUT).decode()
            out.result(TIMEOUT)
        assert "Traceback" not in errors, errors
        # uvicorn raises the signal it stopped on again once it has shut down, so that its
        # parent sees how it ended; the others exit 0.
        assert code in ((0, -signal.SIGTERM) if tool == "uvicorn" else (0,)), errors
        assert "Application shutdown complete" in errors or tool != "uvicorn", errors
    finally:
        watchdog.cancel()
        if process.returncode is None:
            process.kill()
            process.wait()


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The counter of docs/serving.md, generated, with this document's programs beside it."""
    folder = tmp_path_factory.mktemp("web")
    (folder / "counter.idl").write_text(block("idl", "counter.idl", SERVING))
    (folder / "counter_service.py").write_text(block("python", "counter_service.py", SERVING))
    generate = shlex.split(block("sh", "generate", SERVING).split("#")[0])[1:]
    generated = run([sys.executable, "-m", "idlc", *generate], folder, dict(os.environ))
    assert generated.returncode == 0, generated.stderr
    for name, text in PROGRAMS.items():
        (folder / name).write_text(text)
    return folder


def pythonpath(workspace: Path) -> str:
    return os.pathsep.join([str(workspace), str(REPO)])


def test_every_program_of_the_document_is_run_here() -> None:
    assert set(PROGRAMS) == RUN_BELOW


def test_the_programs_pass_mypy_strict(workspace: Path) -> None:
    checked = run(
        [sys.executable, "-m", "mypy", "--strict", *sorted(PROGRAMS)], workspace, dict(os.environ)
    )
    assert checked.returncode == 0, checked.stdout


def test_one_process(workspace: Path) -> None:
    env = {**os.environ, "PYTHONPATH": pythonpath(workspace)}
    result = run([sys.executable, "ws_in_one_process.py"], workspace, env)
    assert result.returncode == 0, result.stderr
    expected = block("text", "ws-in-one-process-output")
    [shown_port] = re.findall(r":(\d+)/", expected)
    pattern = re.escape(expected).replace(shown_port, r"(\d+)")
    assert re.fullmatch(pattern, result.stdout), result.stdout


@pytest.mark.parametrize("name", ["uvicorn", "hypercorn"])
def test_the_application_under_an_asgi_server(workspace: Path, name: str) -> None:
    server, clients = session(f"{name}-session")
    outputs = []
    with server_process(server, workspace, pythonpath(workspace)) as port:
        for line in clients:
            argv, assigned = command(line, port)
            env = {**os.environ, **assigned, "PYTHONPATH": pythonpath(workspace)}
            result = run(argv, workspace, env)
            assert result.returncode == 0, result.stderr
            outputs.append(result.stdout)
        # The application refuses what the document says it refuses.
        url = f"ws://127.0.0.1:{port}/"
        check = (
            "import asyncio, sys\n"
            "from idlc_runtime.web import Refused, connect_websocket\n"
            "async def main() -> None:\n"
            "    try:\n"
            "        async with connect_websocket(sys.argv[1], headers=dict([sys.argv[2:4]]) if len(sys.argv) > 2 else {}):\n"
            "            print('admitted')\n"
            "    except Refused as refusal:\n"
            "        print(refusal.status)\n"
            "asyncio.run(main())\n"
        )
        env = {**os.environ, "PYTHONPATH": pythonpath(workspace)}
        said = [
            run([sys.executable, "-c", check, url, *headers], workspace, env).stdout.strip()
            for headers in (
                [],
                ["Authorization", "Bearer wrong"],
                ["Origin", "https://elsewhere.example"],
            )
        ]
        assert said == ["401", "403", "403"]
    assert "".join(outputs) == block("text", f"{name}-client-output")


def test_the_quixos_example_over_websocket(tmp_path: Path) -> None:
    server, [client] = session("quixos-websocket")
    generated = str(REPO / "generated")
    with server_process(server, REPO, generated) as port:
        argv, _ = command(client, port)
        env = {**os.environ, "PYTHONPATH": generated}
        result = run(argv, REPO, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"Connecting to ws://127.0.0.1:{port}/\n")
    assert result.stdout.endswith("Done.\n")
    assert "Traceback" not in result.stderr
