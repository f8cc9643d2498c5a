"""ACP v2 over remote ACP with the official TypeScript SDK (docs/acp-remote.md, "ACP v2").

Its `experimental/v2` client (js/v2_client.mjs --connect), on the experimental ws-client
and http-client streams, drives `examples/acp_echo_agent.py --listen`, which serves v1 and
the v2 draft on every connection: initialize at version 2, an echo turn acked with its
message id and ended by the idle state, and a turn cancelled with `session/cancel`. Its v1
clients against the same server are tests/interop/test_remote.py's, unchanged.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .expectations import assert_v2_cancel, assert_v2_echo
from .support import (
    ECHO_AGENT,
    JS,
    REPO,
    RUN_TIMEOUT,
    child_env,
    make_workspace,
    require_node_modules,
)
from .test_remote import SCHEMES, remote_agent, url_for

TS_V2_CLIENT = ["node", str(JS / "v2_client.mjs")]


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
