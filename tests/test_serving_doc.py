"""docs/serving.md, run as written: every program block, its output, its shell sessions.

Servers listen on 127.0.0.1 (port 0, the port read from what they print) or on a socket in a
temporary folder; every process has a timeout, and servers are stopped with SIGTERM.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOC = (REPO / "docs" / "serving.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w+)(?: ([\w.-]+))?\n(.*?)^```$", DOC, re.MULTILINE | re.DOTALL)
PROGRAMS = {name: text for language, name, text in BLOCKS if language == "python"}

#: The programs each test below runs (or imports, for the shared implementation).
RUN_BELOW = {
    "counter_service.py",
    "tcp_in_one_process.py",
    "tcp_server.py",
    "tcp_client.py",
    "unix_socket.py",
    "stdio_server.py",
    "spawn_client.py",
    "cancel_client.py",
    "limits.py",
}
#: The port the shell sessions of the document use; the tests use one the system chose.
DOC_PORT = "8765"
TIMEOUT = 60


def block(language: str, name: str) -> str:
    found = [text for lang, label, text in BLOCKS if (lang, label) == (language, name)]
    assert len(found) == 1, f"docs/serving.md has {len(found)} ```{language} {name} blocks"
    return found[0]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), str(REPO)])}
    return subprocess.run(
        list(args), cwd=cwd, capture_output=True, text=True, env=env, timeout=TIMEOUT
    )


def command(line: str, port: str) -> list[str]:
    """A `python …` line of a shell session, with this interpreter and `port`."""
    argv = shlex.split(line.replace(DOC_PORT, port))
    assert argv[0] == "python", line
    return [sys.executable, *argv[1:]]


def session(name: str) -> tuple[list[str], list[str]]:
    """A session block: the server line (`… &`), the client lines, then `kill %1`."""
    lines = block("sh", name).splitlines()
    assert lines[0].endswith(" &") and lines[-1] == "kill %1", lines
    return lines[0].removesuffix(" &").split(), lines[1:-1]


@contextlib.contextmanager
def server_process(
    argv: list[str], cwd: Path, env: dict[str, str], says_port_on: str
) -> Iterator[str]:
    """Start a server that prints `listening on HOST:PORT` on `says_port_on` (stdout or
    stderr); yield the port; stop it with SIGTERM, and check it exited 0 without a traceback."""
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    streams = {"stdout": process.stdout, "stderr": process.stderr}
    # A server that never says where it listens is killed, which ends the read below.
    watchdog = threading.Timer(TIMEOUT, process.kill)
    watchdog.start()
    try:
        first = streams[says_port_on].readline().decode()
        watchdog.cancel()
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)$", first.strip())
        assert found, f"unexpected first line on {says_port_on}: {first!r}"
        with concurrent.futures.ThreadPoolExecutor(2) as readers:
            rest = {key: readers.submit(stream.read) for key, stream in streams.items()}
            try:
                yield found.group(1)
            finally:
                process.send_signal(signal.SIGTERM)
            code = process.wait(TIMEOUT)
            said = {key: future.result(TIMEOUT).decode() for key, future in rest.items()}
        assert "Traceback" not in said["stderr"], said["stderr"]
        assert code == 0, said
    finally:
        watchdog.cancel()
        if process.returncode is None:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with counter.idl, the package generated from it and every program."""
    folder = tmp_path_factory.mktemp("serving")
    (folder / "counter.idl").write_text(block("idl", "counter.idl"))
    idlc = [sys.executable, "-m", "idlc"]
    canonical = run(*idlc, "fmt", "--check", "counter.idl", cwd=folder)
    assert canonical.returncode == 0, canonical.stderr
    generated = run(*idlc, *shlex.split(block("sh", "generate").split("#")[0])[1:], cwd=folder)
    assert generated.returncode == 0, generated.stderr
    for name, text in PROGRAMS.items():
        (folder / name).write_text(text)
    return folder


def test_every_program_of_the_document_is_run_here() -> None:
    assert set(PROGRAMS) == RUN_BELOW


def test_the_programs_pass_mypy_strict(workspace: Path) -> None:
    typed = run(sys.executable, "-m", "mypy", "--strict", *sorted(PROGRAMS), cwd=workspace)
    assert typed.returncode == 0, typed.stdout


def test_tcp_in_one_process_port_zero(workspace: Path) -> None:
    result = run(sys.executable, "tcp_in_one_process.py", cwd=workspace)
    assert result.returncode == 0, result.stderr
    expected = block("text", "tcp-in-one-process-output")
    [shown_port] = re.findall(r"port (\d+)", expected)
    pattern = re.escape(expected).replace(shown_port, r"(\d+)")
    found = re.fullmatch(pattern, result.stdout)
    assert found, result.stdout
    assert 0 < int(found.group(1)) < 65536


def test_tcp_server_and_clients_session(workspace: Path) -> None:
    server, clients = session("tcp-session")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(workspace), str(REPO)])}
    outputs = []
    with server_process(command(" ".join(server), "0"), workspace, env, "stdout") as port:
        for line in clients:
            result = run(*command(line, port), cwd=workspace)
            assert result.returncode == 0, result.stderr
            outputs.append(result.stdout)
    assert "".join(outputs) == block("text", "tcp-client-output")


def test_unix_socket(workspace: Path) -> None:
    result = run(sys.executable, "unix_socket.py", cwd=workspace)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == block("text", "unix-socket-output")


def test_a_stdio_server_answers_lines_written_by_hand(workspace: Path) -> None:
    [line] = block("sh", "stdio-by-hand").splitlines()
    message, server = line.split(" | ")
    [text] = shlex.split(message)[1:]  # echo's argument, unquoted
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(workspace), str(REPO)])}
    result = subprocess.run(
        command(server, DOC_PORT),
        cwd=workspace,
        env=env,
        input=text + "\n",
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == block("text", "stdio-by-hand-output")


def test_spawn_a_stdio_server(workspace: Path) -> None:
    result = run(sys.executable, "spawn_client.py", cwd=workspace)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == block("text", "spawn-client-output")


def test_cancelling_a_call_cancels_the_server_handler(workspace: Path) -> None:
    result = run(sys.executable, "cancel_client.py", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == block("text", "cancel-client-output")
    # The child's stderr is inherited: what its cancelled handler said is there.
    assert result.stderr == "counter: totalLater cancelled by the caller\n"


def test_limits(workspace: Path) -> None:
    result = run(sys.executable, "limits.py", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == block("text", "limits-output")


def test_the_quixos_example_over_tcp(tmp_path: Path) -> None:
    server, [client] = session("quixos-tcp")
    # As the document says: the committed generated package on the import path.
    env = {**os.environ, "PYTHONPATH": str(REPO / "generated")}
    with server_process(command(" ".join(server), "0"), REPO, env, "stderr") as port:
        result = subprocess.run(
            command(client, port),
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"Connecting to 127.0.0.1:{port}\n")
    assert result.stdout.endswith("Done.\n")
    assert "Traceback" not in result.stderr
