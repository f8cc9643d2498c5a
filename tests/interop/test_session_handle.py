"""The official SDKs' clients drive the agent of docs/acp.md, which tells its turn through
the `Session` handle (thought, tool call, permission, file write, message): what it puts on
the wire is valid ACP and each official client understands every message."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.acp.test_guide import programs

from .support import (
    JS,
    PY_SDKS,
    PYTHON,
    RUN_TIMEOUT,
    child_env,
    official_python,
    require_node_modules,
    tee,
)
from .wire_check import Schema, read_tee_log

OFFICIAL_CLIENT = """
import asyncio, json, os, sys
import acp
from acp.schema import (AllowedOutcome, ClientCapabilities, FileSystemCapabilities,
                        RequestPermissionResponse, TextContentBlock, WriteTextFileResponse)

events = []

class Recorder:
    def on_connect(self, conn): pass
    async def session_update(self, session_id, update, **kwargs):
        events.append(["update", update.session_update])
    async def request_permission(self, session_id, tool_call, options, **kwargs):
        events.append(["permission", tool_call.title])
        allow = next(o for o in options if o.kind == "allow_once")
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id))
    async def write_text_file(self, content, path, session_id, **kwargs):
        events.append(["write", os.path.basename(path), content])
        with open(path, "w", encoding="utf-8") as file:
            file.write(content)
        return WriteTextFileResponse()

async def main():
    async with acp.spawn_agent_process(Recorder(), sys.argv[1], *sys.argv[2:]) as (conn, process):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=False, write_text_file=True)))
        session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[TextContentBlock(type="text", text="buy milk")])
        events.append(["stop", answer.stop_reason])
    print(json.dumps(events))

asyncio.run(main())
"""


# Run with `node --input-type=module` from tests/interop/js, where the SDK is installed.
OFFICIAL_TS_CLIENT = """
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [cwd, command, ...args] = process.argv.slice(1);
const events = [];
const app = acp
  .client({ name: "guide-ts-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    events.push(["update", params.update.sessionUpdate]);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    events.push(["permission", params.toolCall.title]);
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    events.push(["write", path.basename(params.path), params.content]);
    writeFileSync(params.path, params.content);
    return {};
  });
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
await app.connectWith(stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: true } },
  });
  const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const answer = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: "buy milk" }],
  });
  events.push(["stop", answer.stopReason]);
});
child.stdin.end();
console.log(JSON.stringify(events));
"""


def official_client(
    name: str, tmp_path: Path, agent: list[str], request: pytest.FixtureRequest
) -> list[str]:
    if name.startswith("py-client-"):
        client = tmp_path / "official_client.py"
        client.write_text(textwrap.dedent(OFFICIAL_CLIENT), encoding="utf-8")
        python = official_python(request, name.removeprefix("py-client-"))
        return [python, str(client), *agent]
    require_node_modules()
    return ["node", "--input-type=module", "-e", OFFICIAL_TS_CLIENT, str(tmp_path), *agent]


@pytest.mark.parametrize("name", [*(f"py-client-{version}" for version in PY_SDKS), "ts-client"])
def test_an_official_client_drives_the_guides_agent(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    agent = tmp_path / "guide_agent.py"
    agent.write_text(programs()["guide_agent.py"], encoding="utf-8")
    log = tmp_path / "wire.log"
    completed = subprocess.run(
        official_client(name, tmp_path, tee(log, [PYTHON, str(agent)]), request),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=JS if name == "ts-client" else tmp_path,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    events = json.loads(completed.stdout.splitlines()[-1])
    assert events == [
        ["update", "agent_thought_chunk"],
        ["update", "tool_call"],
        ["permission", "Write notes.txt"],
        ["write", "notes.txt", "buy milk\n"],
        ["update", "tool_call_update"],
        ["update", "agent_message_chunk"],
        ["stop", "end_turn"],
    ]
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "buy milk\n"
    report = Schema().check(read_tee_log(log, child="agent"), only="agent")
    assert report.problems == []
    assert {"session/update", "session/request_permission", "fs/write_text_file"} <= report.methods
