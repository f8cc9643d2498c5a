"""Version negotiation against the official Python SDK, both ways: its client asking for a
version our agent does not speak gets our latest; its agent answering a version our client
does not speak is refused, with a clear error and exit status 1 from examples/acp_client.py."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from .support import (
    ECHO_AGENT_V1,
    OUR_CLIENT,
    PY_SDKS,
    REPO,
    RUN_TIMEOUT,
    child_env,
    official_python,
)

OFFICIAL_CLIENT_ASKING_FOR_2 = """
import asyncio, json, sys
import acp
from acp.schema import ClientCapabilities

class Quiet:
    async def session_update(self, *args, **kwargs): pass
    async def request_permission(self, *args, **kwargs): raise RuntimeError("not asked")
    def on_connect(self, conn): pass

async def main():
    async with acp.spawn_agent_process(Quiet(), sys.argv[1], *sys.argv[2:]) as (conn, process):
        answer = await conn.initialize(protocol_version=2, client_capabilities=ClientCapabilities())
        print(json.dumps({"protocolVersion": answer.protocol_version}))

asyncio.run(main())
"""

OFFICIAL_AGENT_ANSWERING_2 = """
import asyncio
import acp
from acp.schema import AgentCapabilities, InitializeResponse, NewSessionResponse

class FutureAgent:
    def on_connect(self, conn): pass
    async def initialize(self, protocol_version, **kwargs):
        return InitializeResponse(protocol_version=2, agent_capabilities=AgentCapabilities())
    async def new_session(self, cwd, **kwargs):
        raise AssertionError("a client that refused the version opens no session")

asyncio.run(acp.run_agent(FutureAgent()))
"""


def script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("version", PY_SDKS)
def test_an_official_client_asking_for_a_newer_version_gets_ours(
    version: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    client = script(tmp_path, "client.py", OFFICIAL_CLIENT_ASKING_FOR_2)
    completed = subprocess.run(
        [official_python(request, version), client, *ECHO_AGENT_V1],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert json.loads(completed.stdout.splitlines()[-1]) == {"protocolVersion": 1}


@pytest.mark.parametrize("version", PY_SDKS)
def test_our_client_refuses_an_official_agent_speaking_another_version(
    version: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    agent = script(tmp_path, "agent.py", OFFICIAL_AGENT_ANSWERING_2)
    completed = subprocess.run(
        [*OUR_CLIENT, "--cwd", str(tmp_path), "--", official_python(request, version), agent],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert completed.stderr.strip().splitlines()[-1] == (
        "error: the agent speaks ACP protocol version 2, which this client does not support "
        "(it supports 1); the connection was closed"
    )
    assert "[session]" not in completed.stdout
