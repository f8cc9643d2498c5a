"""examples/acp_client.py keeps an agent inside the session's folders.

It used to write any path an agent named (`Path(input.path).write_text(...)`); an agent
here tries the classic escapes and one honest write, and reports what each attempt got.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from .conftest import CLIENT

PROBING_AGENT = """
import json, sys
from idlc_acp import (Agent, InitializeResponse, NewSessionResponse, PromptResponse, StopReason,
                      current_session, run_agent)
from idlc_runtime import RpcError

TARGETS = json.loads(sys.argv[1])

class Probe(Agent):
    async def initialize(self, input):
        return InitializeResponse(protocol_version=1)

    async def new_session(self, input):
        return NewSessionResponse(session_id="probe")

    async def prompt(self, input):
        session = current_session()
        for kind, path in TARGETS:
            try:
                if kind == "write":
                    await session.write_text_file(path, "written by the agent")
                    outcome = "ok"
                else:
                    outcome = "read:" + await session.read_text_file(path)
            except RpcError as error:
                outcome = f"error {error.code} {(error.data or {}).get('reason')}"
            await session.send_text(json.dumps([kind, path, outcome]))
        return PromptResponse(stop_reason=StopReason.END_TURN)

run_agent(Probe())
"""


def probe(
    tmp_path: Path, targets: list[tuple[str, str]], *options: str
) -> dict[tuple[str, str], str]:
    agent = tmp_path / "probe_agent.py"
    agent.write_text(textwrap.dedent(PROBING_AGENT))
    completed = subprocess.run(
        [
            sys.executable,
            str(CLIENT),
            "--json",
            "--cwd",
            str(tmp_path / "project"),
            *options,
            "--",
            sys.executable,
            str(agent),
            json.dumps(targets),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    events: list[dict[str, Any]] = [json.loads(line) for line in completed.stdout.splitlines()]
    assert events[-1] == {"event": "result", "stopReason": "end_turn"}
    reports = [
        json.loads(e["update"]["content"]["text"])
        for e in events
        if e["event"] == "update" and e["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    return {(kind, path): outcome for kind, path, outcome in reports}


def test_the_example_client_refuses_paths_outside_the_session(tmp_path: Path) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (project / "escape").symlink_to(outside, target_is_directory=True)
    targets = [
        ("write", str(outside / "planted.txt")),
        ("write", str(project / ".." / "outside" / "planted2.txt")),
        ("write", str(project / "escape" / "planted3.txt")),
        ("write", "relative.txt"),
        ("read", str(outside / "secret.txt")),
        ("read", str(project / "escape" / "secret.txt")),
        ("write", str(project / "fine.txt")),
        ("read", str(project / "fine.txt")),
    ]
    outcomes = probe(tmp_path, targets)
    assert outcomes == {
        targets[0]: "error -32602 outside",
        targets[1]: "error -32602 outside",
        targets[2]: "error -32602 outside",
        targets[3]: "error -32602 relative",
        targets[4]: "error -32602 outside",
        targets[5]: "error -32602 outside",
        targets[6]: "ok",
        targets[7]: "read:written by the agent",
    }
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not (project / "relative.txt").exists() and not Path("relative.txt").exists()


def test_confirmed_writes_follow_the_permission_policy(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "extra").mkdir()
    inside = str(tmp_path / "project" / "a.txt")
    extra = str(tmp_path / "extra" / "b.txt")
    refused = probe(tmp_path, [("write", inside)], "--confirm-writes", "--permission", "reject")
    assert refused == {("write", inside): "error -32602 denied"}
    allowed = probe(
        tmp_path,
        [("write", inside), ("write", extra)],
        "--confirm-writes",
        "--add-dir",
        str(tmp_path / "extra"),
    )
    assert allowed == {("write", inside): "ok", ("write", extra): "ok"}
