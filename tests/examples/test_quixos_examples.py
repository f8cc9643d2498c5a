"""The example scripts as a newcomer runs them, and their typing as mypy --strict sees it."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from quixos_harness import CLIENT, EXAMPLE_ENV, REPO, SERVER, tcp_server

#: What the walkthrough prints whatever the transport: every step answered as expected.
WALKTHROUGH = (
    "AgentAdmission(accepted=True",
    "AgentRequestClaimOutput(claimed=True, generation=1)",
    "AgentRequestClaimOutput(claimed=False, generation=1)",
    "Unsupported('agent:directory:reconcile-repair:call'",
    "RpcError(-32900",
    "Done.",
)


def test_client_walkthrough_runs_to_completion(tmp_path: Path) -> None:
    finished = subprocess.run(
        [sys.executable, str(CLIENT)],
        cwd=tmp_path,
        env=EXAMPLE_ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    out = finished.stdout
    for expected in WALKTHROUGH:
        assert expected in out, out
    # --quiet server: nothing logged, and no traceback from either side.
    assert "Traceback" not in finished.stderr, finished.stderr


def test_client_walkthrough_runs_over_tcp_against_a_running_server(tmp_path: Path) -> None:
    """`--tcp HOST:PORT` talks to a server started with `--tcp`; each run is a connection of
    its own with a fresh directory, so the walkthrough passes twice against one server."""
    with tcp_server() as (host, port):
        for _ in range(2):
            finished = subprocess.run(
                [sys.executable, str(CLIENT), "--tcp", f"{host}:{port}"],
                cwd=tmp_path,
                env=EXAMPLE_ENV,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert finished.returncode == 0, finished.stdout + finished.stderr
            assert finished.stdout.startswith(f"Connecting to {host}:{port}\n")
            for expected in WALKTHROUGH:
                assert expected in finished.stdout, finished.stdout
            assert "Traceback" not in finished.stderr, finished.stderr


def test_client_over_tcp_without_a_server_says_so_in_one_line(tmp_path: Path) -> None:
    # A socket bound and not listening: connections to its port are refused for as long as
    # it is held, so no other process can take the port meanwhile.
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        finished = subprocess.run(
            [sys.executable, str(CLIENT), "--tcp", f"127.0.0.1:{port}"],
            cwd=tmp_path,
            env=EXAMPLE_ENV,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert finished.returncode == 1
    assert finished.stderr.startswith("cannot connect: "), finished.stderr
    assert len(finished.stderr.splitlines()) == 1, finished.stderr


def test_client_fails_when_the_server_misbehaves(tmp_path: Path) -> None:
    """The walkthrough checks what it prints: a server whose claims are never fenced fails it."""
    broken = tmp_path / "examples"
    broken.mkdir()
    source = SERVER.read_text(encoding="utf-8")
    refusal = "return AgentRequestClaimOutput(claimed=False, "
    assert refusal in source
    (broken / "quixos_server.py").write_text(
        source.replace(refusal, "return AgentRequestClaimOutput(claimed=True, ").replace(
            "_REPO = Path(__file__).resolve().parent.parent", f"_REPO = Path({str(REPO)!r})"
        ),
        encoding="utf-8",
    )
    client = CLIENT.read_text(encoding="utf-8").replace(
        "_REPO = Path(__file__).resolve().parent.parent", f"_REPO = Path({str(REPO)!r})"
    )
    (broken / "quixos_client.py").write_text(client, encoding="utf-8")
    finished = subprocess.run(
        [sys.executable, str(broken / "quixos_client.py")],
        cwd=tmp_path,
        env=EXAMPLE_ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 1
    assert "unexpected answer: the generation did not fence the stale claim" in finished.stderr


def test_server_serves_stdio_without_installation(tmp_path: Path) -> None:
    request = (
        b'{"jsonrpc":"2.0","id":1,"method":"agent:directory:create-agent:call",'
        b'"params":{"name":"n","description":"d","instructions":"i","settings":"s"}}\n'
        b'{"jsonrpc":"2.0","id":2,"method":"agent:directory:agents:resolve"}\n'
    )
    finished = subprocess.run(
        [sys.executable, str(SERVER)],
        cwd=tmp_path,
        env=EXAMPLE_ENV,
        input=request,
        capture_output=True,
        timeout=60,
    )
    assert finished.returncode == 0, finished.stderr.decode()
    assert finished.stdout.splitlines() == [
        b'{"jsonrpc":"2.0","id":1,"result":"agent-1"}',
        b'{"jsonrpc":"2.0","id":2,"result":["agent-1"]}',
    ]
    # Logging goes to stderr.
    assert b"created agent-1" in finished.stderr


def test_examples_pass_mypy_strict(tmp_path: Path) -> None:
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            str(SERVER.relative_to(REPO)),
            str(CLIENT.relative_to(REPO)),
        ],
        cwd=REPO,
        env={**EXAMPLE_ENV, "MYPYPATH": str(REPO / "generated")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "Success: no issues found in 2 source files" in finished.stdout
