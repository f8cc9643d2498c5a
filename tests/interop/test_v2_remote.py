"""ACP v2 over remote ACP with the official TypeScript SDK (docs/acp-remote.md, "ACP v2").

Its `experimental/v2` client (js/v2_client.mjs --connect), on the experimental ws-client
and http-client streams, drives `examples/acp_echo_agent.py --listen`, which serves v1 and
the v2 draft on every connection: initialize at version 2, an echo turn acked with its
message id and ended by the idle state, and a turn cancelled with `session/cancel`. Its v1
clients against the same server are tests/interop/test_remote.py's, unchanged.

The other way round, our example client (`examples/acp_client.py --connect URL`) drives the
SDK's experimental server serving its `AgentProtocolRouter` per connection
(js/v2_remote_agent.mjs: v1 and v2 agents) at v2, and our scenario client at v1.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .expectations import assert_echo_agent, assert_our_v2_turn, assert_v2_cancel, assert_v2_echo
from .support import (
    ECHO_AGENT,
    JS,
    OUR_CLIENT,
    REPO,
    RUN_TIMEOUT,
    child_env,
    make_workspace,
    require_node_modules,
)
from .test_remote import IDLC_CLIENT, SCHEMES, remote_agent, run_remote, url_for

TS_V2_CLIENT = ["node", str(JS / "v2_client.mjs")]
TS_V2_REMOTE_AGENT = ["node", str(JS / "v2_remote_agent.mjs")]


def run_v2_client(url: str, cwd: Path) -> dict[str, dict[str, Any]]:
    completed = subprocess.run(
        [*TS_V2_CLIENT, "--cwd", str(cwd), "--connect", url],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr[-4000:]
    records = {
        record["scenario"]: record
        for record in (json.loads(line) for line in completed.stdout.splitlines() if line.strip())
    }
    assert "error" not in records, records["error"]
    return records


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_official_v2_client_drives_our_agent_remotely(scheme: str, tmp_path: Path) -> None:
    require_node_modules()
    workspace = make_workspace(tmp_path)
    with remote_agent(ECHO_AGENT + ["--listen", "127.0.0.1:0"]) as url:
        records = run_v2_client(url_for(scheme, url), workspace.path)
    response = records["initialize"]["response"]
    assert response["protocolVersion"] == 2
    assert response["info"]["name"] == "idlc-echo-agent"
    assert_v2_echo(records, workspace.path)
    assert_v2_cancel(records)


def our_client(url: str, cwd: Path, *flags: str) -> list[dict[str, Any]]:
    completed = subprocess.run(
        [*OUR_CLIENT, "--json", "--cwd", str(cwd), "--connect", url, *flags],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_our_client_drives_the_official_typescript_server_at_v2(
    scheme: str, tmp_path: Path
) -> None:
    require_node_modules()
    blocks = [flag for n in range(30) for flag in ("--prompt", f"block {n}")]
    with remote_agent(TS_V2_REMOTE_AGENT) as url:
        events = our_client(
            url_for(scheme, url),
            tmp_path,
            "--protocol-version",
            "2",
            "--prompt",
            "a",
            "--prompt",
            "b",
        )
        cancelled = our_client(
            url_for(scheme, url),
            tmp_path,
            "--protocol-version",
            "2",
            "--cancel-after",
            "0.3",
            *blocks,
        )
    assert_our_v2_turn(events, "ts-v2-agent")
    assert cancelled[-1]["event"] == "result" and cancelled[-1]["stopReason"] == "cancelled"
    seen = [e["update"] for e in cancelled if e["event"] == "update"]
    assert 1 <= sum(u["sessionUpdate"] == "agent_message_chunk" for u in seen) < 30


@pytest.mark.parametrize("scheme", SCHEMES)
def test_our_v1_client_gets_the_typescript_servers_v1_agent_behind_its_router(
    scheme: str, tmp_path: Path
) -> None:
    require_node_modules()
    workspace = make_workspace(tmp_path)
    with remote_agent(TS_V2_REMOTE_AGENT) as url:
        run = run_remote(IDLC_CLIENT, url_for(scheme, url), workspace.path)
    assert run.returncode == 0, run.stderr
    assert_echo_agent(run, workspace)
