"""Remote ACP with the official SDKs (docs/acp-remote.md): real servers on 127.0.0.1, port 0.

- The TypeScript SDK 2.4.0's experimental ws and http clients, and agent-client-protocol
  1.0.0rc3's `acp.ws` and `acp.http` clients, run the interop scenarios (initialize,
  session/new, prompts with updates, permission requests, `fs/read_text_file`,
  `session/cancel`, a 2 MiB prompt) against `examples/acp_echo_agent.py --listen`.
- idlc's scenario client runs them over `connect_websocket` and `connect_http` against the
  TypeScript SDK's experimental server (js/remote_agent.mjs).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import re
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import built_once

from .expectations import (
    assert_echo_agent,
    assert_tool_call_read,
    assert_turn_belongs_to,
    chunk_texts,
)
from .support import (
    ECHO_AGENT,
    HERE,
    JS,
    PYTHON,
    REPO,
    RUN_TIMEOUT,
    TS_CLIENT,
    Run,
    child_env,
    make_official_python_1,
    make_workspace,
    official_python_in,
    py_client,
    require_node_modules,
)

IDLC_CLIENT = [PYTHON, str(HERE / "idlc_scenario_client.py")]
TS_REMOTE_AGENT = ["node", str(JS / "remote_agent.mjs")]
LISTENING = re.compile(rb"listening on (http://127\.0\.0\.1:\d+/acp)$")
#: How long a server may take to say it listens, and to exit once told to stop.
START_TIMEOUT = 30.0
SCHEMES = ["ws", "http"]


@contextlib.contextmanager
def remote_agent(command: Sequence[str]) -> Iterator[str]:
    """Start a server that prints `listening on URL`; yield the URL. It must exit 0 on
    SIGTERM."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=child_env(),
        cwd=REPO,
    )
    assert process.stderr is not None
    watchdog = threading.Timer(START_TIMEOUT, process.kill)
    watchdog.start()
    try:
        first = process.stderr.readline()
        watchdog.cancel()
        found = LISTENING.search(first.strip())
        assert found, f"unexpected first line on stderr: {first!r}"
        with concurrent.futures.ThreadPoolExecutor(1) as reader:
            said = reader.submit(process.stderr.read)
            try:
                yield found.group(1).decode()
            finally:
                process.send_signal(signal.SIGTERM)
            code = process.wait(START_TIMEOUT)
            assert code == 0, said.result(START_TIMEOUT).decode()
    finally:
        watchdog.cancel()
        if process.returncode is None:
            process.kill()
            process.wait()


def url_for(scheme: str, http_url: str) -> str:
    return http_url.replace("http://", "ws://", 1) if scheme == "ws" else http_url


def run_remote(client: Sequence[str], url: str, cwd: Path) -> Run:
    """Run a scenario client with `--connect url`; its JSON lines by scenario."""
    completed = subprocess.run(
        [*client, "--cwd", str(cwd), "--connect", url],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    records: dict[str, dict[str, Any]] = {}
    for line in completed.stdout.splitlines():
        if line.strip():
            record = json.loads(line)
            records[record["scenario"]] = record
    return Run(records, completed.stdout, completed.stderr, completed.returncode)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_official_typescript_clients_drive_our_agent(scheme: str, tmp_path: Path) -> None:
    require_node_modules()
    workspace = make_workspace(tmp_path)
    with remote_agent(ECHO_AGENT + ["--listen", "127.0.0.1:0"]) as url:
        run = run_remote(TS_CLIENT, url_for(scheme, url), workspace.path)
    assert run.returncode == 0, run.stderr
    assert_echo_agent(run, workspace)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_our_client_drives_the_official_typescript_server(scheme: str, tmp_path: Path) -> None:
    require_node_modules()
    workspace = make_workspace(tmp_path)
    with remote_agent(TS_REMOTE_AGENT) as url:
        run = run_remote(IDLC_CLIENT, url_for(scheme, url), workspace.path)
    assert run.returncode == 0, run.stderr
    assert_echo_agent(run, workspace)


@pytest.fixture(scope="session")
def official_python_1_remote(tmp_path_factory: pytest.TempPathFactory) -> str:
    """agent-client-protocol 1.0.0rc3 with its `http` extra (httpx2, websockets, starlette), in
    an environment of its own (the one of `official_python_1` is shared by the xdist workers,
    so nothing is added to it)."""
    folder = built_once(
        tmp_path_factory, "acp-sdk-1-http", lambda root: make_official_python_1(root, "[http]")
    )
    return str(official_python_in(folder))


def test_official_python_http_client_drives_our_agent(
    official_python_1_remote: str, tmp_path: Path
) -> None:
    workspace = make_workspace(tmp_path)
    with remote_agent(ECHO_AGENT + ["--listen", "127.0.0.1:0"]) as url:
        run = run_remote(py_client(official_python_1_remote), url, workspace.path)
    assert run.returncode == 0, run.stderr
    assert_echo_agent(run, workspace)


def test_official_python_ws_client_drives_our_agent(
    official_python_1_remote: str, tmp_path: Path
) -> None:
    """Everything but the 2 MiB echo: `acp.ws` opens its WebSocket with the `websockets`
    library's default 1 MiB frame limit, so it closes the connection when the echo of a
    2 MiB prompt arrives (docs/acp-remote.md, "The official SDKs")."""
    workspace = make_workspace(tmp_path)
    with remote_agent(ECHO_AGENT + ["--listen", "127.0.0.1:0"]) as url:
        run = run_remote(py_client(official_python_1_remote), url_for("ws", url), workspace.path)
    assert "Connection closed" in run["large_prompt"]["failed"]["exception"]
    session_id = run["session_new"]["response"]["sessionId"]
    for name in ("prompt", "prompt_rejected", "after_cancel"):
        assert run[name]["stopReason"] == "end_turn", run[name]
        assert chunk_texts(run[name]) == run[name]["sent"]
        assert_turn_belongs_to(run[name], session_id)
    assert_tool_call_read(run["prompt"], workspace, offered_fs=True)
    assert run["prompt_rejected"]["reads"] == []
    assert run["cancel"]["cancel_sent"] and run["cancel"]["stopReason"] == "cancelled"
