"""What each Python client makes of `notice` and `compaction_update` (with `summary: null`)
from an agent that sends them unasked, followed by an ordinary message chunk.

Recorded so that a change in the official Python SDK shows up here:
- agent-client-protocol 0.12.1 knows neither update: it logs a validation error and drops
  each of those notifications; the turn goes on, the chunk arrives.
- agent-client-protocol 1.0.0rc3 decodes both; `summary: null` ("clear the summary" in the
  schema's patch semantics) decodes to None, as an absent summary ("leave it") does.
- idlc's client decodes both and tells `summary: null` (None) from an absent summary
  (`msgspec.UNSET`): idl/acp.idl says `summary : optional<nullable<list<ContentBlock>>>`,
  docs/acp-gaps.md G9.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from idlc_acp import (
    Client,
    InitializeRequest,
    NewSessionRequest,
    PromptRequest,
    RequestPermissionOutcomeCancelled,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    SessionUpdateCompactionUpdate,
    SessionUpdateNotice,
    spawn_agent,
)

from .support import PY_SDK_1, PY_SDKS, PYTHON, RUN_TIMEOUT, child_env, official_python

RAW_AGENT = """
import json, sys
UPDATES = [
    {"sessionUpdate": "notice", "severity": "info", "title": "Heads up"},
    {"sessionUpdate": "compaction_update", "compactionId": "c-1", "status": "completed",
     "summary": None},
    {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "after"}},
]
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}}
    elif method == "session/new":
        result = {"sessionId": "s-1"}
    elif method == "session/prompt":
        for update in UPDATES:
            params = {"sessionId": "s-1", "update": update}
            print(json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}))
        result = {"stopReason": "end_turn"}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                          "error": {"code": -32601, "message": "Method not found"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""

OFFICIAL_CLIENT = """
import asyncio, json, sys
import acp
from acp.schema import TextContentBlock

seen = []

class Recorder:
    def on_connect(self, conn): pass
    async def session_update(self, session_id, update, **kwargs):
        seen.append(update.model_dump(mode="json", by_alias=True))

async def main():
    async with acp.spawn_agent_process(Recorder(), sys.argv[1], *sys.argv[2:]) as (conn, process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd="/", mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[TextContentBlock(type="text", text="go")]
        )
    print(json.dumps({"stop": answer.stop_reason, "seen": seen}))

asyncio.run(main())
"""


def script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("version", PY_SDKS)
def test_what_the_official_python_client_makes_of_news(
    version: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    python = official_python(request, version)
    agent = script(tmp_path, "agent.py", RAW_AGENT)
    client = script(tmp_path, "client.py", OFFICIAL_CLIENT)
    completed = subprocess.run(
        [python, client, PYTHON, agent],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    found = json.loads(completed.stdout.splitlines()[-1])
    assert found["stop"] == "end_turn"
    kinds = [update["sessionUpdate"] for update in found["seen"]]
    if version == PY_SDK_1:
        assert kinds == ["notice", "compaction_update", "agent_message_chunk"]
        assert found["seen"][0]["title"] == "Heads up"
        assert found["seen"][1]["summary"] is None  # `null` and absent are one to it
    else:
        assert kinds == ["agent_message_chunk"]
        assert "compaction_update" in completed.stderr and "notice" in completed.stderr


class Recorder(Client):
    def __init__(self) -> None:
        self.seen: list[SessionNotification] = []

    async def update(self, input: SessionNotification) -> None:
        self.seen.append(input)

    async def request_permission(
        self, input: RequestPermissionRequest
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=RequestPermissionOutcomeCancelled())


async def our_client(agent: list[str]) -> tuple[str, list[Any]]:
    client = Recorder()
    async with spawn_agent(client, agent, env=child_env()) as connection:
        await connection.initialize(InitializeRequest(protocol_version=1))
        session = await connection.new_session(NewSessionRequest(cwd="/", mcp_servers=[]))
        answer = await connection.prompt(PromptRequest(session_id=session.session_id, prompt=[]))
    return str(answer.stop_reason.value), [n.update for n in client.seen]


def test_what_our_client_makes_of_news(tmp_path: Path) -> None:
    agent = [PYTHON, script(tmp_path, "agent.py", RAW_AGENT)]
    stop, seen = asyncio.run(asyncio.wait_for(our_client(agent), 60))
    assert stop == "end_turn"
    notice, compaction, chunk = seen
    assert isinstance(notice, SessionUpdateNotice) and notice.title == "Heads up"
    assert isinstance(compaction, SessionUpdateCompactionUpdate) and compaction.summary is None
    assert type(chunk).__name__ == "SessionUpdateAgentMessageChunk"
