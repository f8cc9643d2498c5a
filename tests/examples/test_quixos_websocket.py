"""The quixos example over WebSocket (docs/web.md, "The quixos example over WebSocket"):
`quixos_server.py --listen HOST:PORT` and `quixos_client.py --connect URL`, both real
subprocesses."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from quixos_agent import AgentDirectoryProxy
from quixos_harness import CLIENT, EXAMPLE_ENV, running_server
from test_quixos_examples import WALKTHROUGH

from idlc_runtime import ConnectionClosed
from idlc_runtime.web import connect_websocket

LISTENING = rb"^quixos_server: listening on (ws://127\.0\.0\.1:\d+/)$"


def run_client(*flags: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CLIENT), *flags],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_the_walkthrough_over_websocket_twice_then_a_clean_stop(
    tmp_path: Path, signum: int
) -> None:
    with running_server(["--listen", "127.0.0.1:0"], LISTENING, EXAMPLE_ENV, signum) as found:
        url = found.group(1).decode()
        for _ in range(2):
            finished = run_client("--connect", url, cwd=tmp_path, env=EXAMPLE_ENV)
            assert finished.returncode == 0, finished.stdout + finished.stderr
            assert finished.stdout.startswith(f"Connecting to {url}\n")
            for expected in WALKTHROUGH:
                assert expected in finished.stdout, finished.stdout
            assert "Traceback" not in finished.stderr, finished.stderr


def test_a_server_with_a_token_admits_only_clients_that_send_it(tmp_path: Path) -> None:
    env = {**EXAMPLE_ENV, "QUIXOS_TOKEN": "t0ken-for-the-test"}
    flags = ["--listen", "127.0.0.1:0", "--token-env", "QUIXOS_TOKEN"]
    with running_server(flags, LISTENING, env) as found:
        url = found.group(1).decode()
        refused = run_client("--connect", url, cwd=tmp_path, env=env)
        assert refused.returncode == 1
        assert (
            refused.stderr == "the server refused the connection: 401 a bearer token is required\n"
        )
        wrong = run_client(
            "--connect", url, "--token-env", "OTHER", cwd=tmp_path, env={**env, "OTHER": "nope"}
        )
        assert wrong.returncode == 1
        assert wrong.stderr.startswith("the server refused the connection: 403"), wrong.stderr
        admitted = run_client(
            "--connect", url, "--token-env", "QUIXOS_TOKEN", cwd=tmp_path, env=env
        )
        assert admitted.returncode == 0, admitted.stdout + admitted.stderr
        assert admitted.stdout.endswith("Done.\n")


def test_a_token_variable_that_is_empty_stops_the_server_in_one_line() -> None:
    env = {**EXAMPLE_ENV, "QUIXOS_TOKEN": ""}
    server = subprocess.run(
        [
            sys.executable,
            "examples/quixos_server.py",
            "--listen",
            "127.0.0.1:0",
            "--token-env",
            "QUIXOS_TOKEN",
        ],
        cwd=Path(CLIENT).parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert server.returncode == 1
    assert server.stderr == (
        "quixos_server: the environment variable QUIXOS_TOKEN holds no token\n"
    ), server.stderr


def test_a_server_killed_mid_connection_fails_the_client_s_calls_without_a_hang() -> None:
    """The server dies without closing (SIGKILL): the client's next call raises
    `ConnectionClosed` at once instead of waiting for an answer that cannot come."""
    server = subprocess.Popen(
        [
            sys.executable,
            str(CLIENT.parent / "quixos_server.py"),
            "--quiet",
            "--listen",
            "127.0.0.1:0",
        ],
        env=EXAMPLE_ENV,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert server.stderr is not None
        found = re.search(rb"(ws://\S+)", server.stderr.readline())
        assert found, "the server did not say where it listens"

        async def scenario() -> None:
            async with connect_websocket(found.group(1).decode()) as peer:
                directory = AgentDirectoryProxy(peer)
                assert await directory.pending() == frozenset()
                server.kill()
                with pytest.raises(ConnectionClosed):
                    await directory.pending()

        asyncio.run(asyncio.wait_for(scenario(), 30))
    finally:
        server.kill()
        server.wait(30)


@pytest.mark.parametrize("flag", ["--listen", "--tcp"])
def test_a_port_in_use_stops_the_server_in_one_line(flag: str) -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        server = subprocess.run(
            [sys.executable, "examples/quixos_server.py", flag, f"127.0.0.1:{port}"],
            cwd=Path(CLIENT).parents[1],
            env=EXAMPLE_ENV,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert server.returncode == 1
    assert "Traceback" not in server.stderr, server.stderr
    assert server.stderr.startswith(f"quixos_server: cannot listen on 127.0.0.1:{port}: ")
    assert server.stderr.count("\n") == 1, server.stderr


def test_a_client_token_variable_that_is_unset_is_refused_before_connecting(
    tmp_path: Path,
) -> None:
    env = {key: value for key, value in EXAMPLE_ENV.items() if key != "NO_SUCH_TOKEN"}
    client = run_client(
        "--connect", "ws://127.0.0.1:9/", "--token-env", "NO_SUCH_TOKEN", cwd=tmp_path, env=env
    )
    assert client.returncode == 1
    assert client.stderr == (
        "quixos_client: --token-env NO_SUCH_TOKEN: the variable is unset or empty\n"
    ), client.stderr
