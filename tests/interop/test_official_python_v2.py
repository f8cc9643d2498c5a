"""ACP v2 (draft) against the official Python SDK 1.0.0rc3's `acp.experimental.v2`, both ways.

- Its v2 client (py_official_v2_client.py: `connect_to_agent`, `initialize` at version 2,
  `prompt`, `cancel_session`) drives our dual-version echo agent (examples/acp_echo_agent.py):
  the version it negotiates, a full turn (the ack, the updates, the idle stop reason) and a
  cancelled one; every message our agent sends is checked against the vendored v2 schema.
- Our client (`initialize_preferring_v2` and `ClientV2`: examples/acp_client.py, and in this
  process) drives its v2 agent behind its `AgentProtocolRouter` (py_official_v2_agent.py).
- Where rc3 answers otherwise than the TypeScript SDK 2.4.0 (and so than we do) before and
  around `initialize`, its answers are pinned (docs/acp-interop.md, "ACP v2 and the Python
  SDK 1.0.0rc3").

The SDK is installed in a virtual environment of its own (the session fixture
`official_python_1`, tests/interop/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from idlc_acp import v2
from idlc_acp.v2_client import ClientV2, initialize_preferring_v2
from idlc_acp.wire import acp_options
from idlc_runtime import spawn

from .expectations import assert_our_v2_turn
from .support import ECHO_AGENT, HERE, OUR_CLIENT, REPO, RUN_TIMEOUT, child_env, make_workspace, tee
from .wire_check import Schema, read_tee_log

V2_SCHEMA = REPO / "idl" / "acp-schema" / "v2" / "schema.json"
INFO = {"name": "raw", "version": "1"}


def _their_agent(python: str) -> list[str]:
    return [python, str(HERE / "py_official_v2_agent.py")]


def _records(stdout: str) -> dict[str, dict[str, Any]]:
    return {
        record["scenario"]: record
        for record in (json.loads(line) for line in stdout.splitlines() if line.strip())
    }


# ---------------------------------------------------------------- its client, our agent


@pytest.fixture(scope="module")
def their_run(
    official_python_1: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, dict[str, Any]], Path]:
    root = tmp_path_factory.mktemp("py-v2")
    workspace = make_workspace(root)
    completed = subprocess.run(
        [
            official_python_1,
            str(HERE / "py_official_v2_client.py"),
            "--cwd",
            str(workspace.path),
            "--",
            *tee(root / "wire.log", ECHO_AGENT),
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    records = _records(completed.stdout)
    assert "error" not in records, records["error"]
    assert completed.returncode == 0, completed.stdout + completed.stderr[-4000:]
    return records, workspace.path


def test_its_v2_client_negotiates_version_2_with_our_agent(their_run: Any) -> None:
    records, _ = their_run
    response = records["initialize"]["response"]
    assert response["protocolVersion"] == 2
    assert response["info"]["name"] == "idlc-echo-agent"


def test_its_v2_client_gets_a_full_turn_acked_and_ended_idle(their_run: Any) -> None:
    records, workspace = their_run
    echo = records["echo"]
    updates = echo["updates"]
    kinds = [update["sessionUpdate"] for update in updates]
    user = updates[kinds.index("user_message")]
    assert user["messageId"] == echo["ack"]["messageId"]
    assert [block["text"] for block in user["content"]] == ["Hello", "world"]
    assert {"sessionUpdate": "state_update", "state": "running"} in updates
    chunks = [update for update in updates if update["sessionUpdate"] == "agent_message_chunk"]
    assert [chunk["content"]["text"] for chunk in chunks] == ["Hello", "world"]
    assert len({chunk["messageId"] for chunk in chunks}) == 1
    calls = [update for update in updates if update["sessionUpdate"] == "tool_call_update"]
    assert [call.get("status") for call in calls] == ["pending", "in_progress", "completed"]
    first_line = (workspace / "README.md").read_text(encoding="utf-8").splitlines()[0]
    assert calls[-1]["content"][0]["content"]["text"] == first_line
    [permission] = echo["permissions"]
    assert permission["subject"]["toolCall"]["toolCallId"] == calls[0]["toolCallId"]
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }


def test_its_v2_client_cancels_a_turn(their_run: Any) -> None:
    records, _ = their_run
    cancel = records["cancel"]
    assert cancel["stopReason"] == "cancelled"
    chunks = [u for u in cancel["updates"] if u["sessionUpdate"] == "agent_message_chunk"]
    assert 1 <= len(chunks) < 30
    assert cancel["updates"][-1]["state"] == "idle"


def test_every_message_our_agent_sent_its_v2_client_is_valid_v2(their_run: Any) -> None:
    _, workspace = their_run
    messages = read_tee_log(workspace.parent / "wire.log", child="agent")
    report = Schema(V2_SCHEMA).check(messages, only="agent")
    assert report.problems == []
    assert {"session/update", "session/request_permission"} <= report.methods


# ---------------------------------------------------------------- our client, its agent


def _our_client(cwd: Path, *args: str) -> list[dict[str, Any]]:
    completed = subprocess.run(
        [*OUR_CLIENT, "--json", "--cwd", str(cwd), "--protocol-version", "2", *args],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]


def test_our_client_preferring_v2_drives_its_v2_agent(
    official_python_1: str, tmp_path: Path
) -> None:
    events = _our_client(
        tmp_path, "--prompt", "a", "--prompt", "b", "--", *_their_agent(official_python_1)
    )
    assert_our_v2_turn(events, "py-official-v2-agent")


def test_our_client_cancels_a_turn_of_its_v2_agent(official_python_1: str, tmp_path: Path) -> None:
    prompts = [arg for number in range(40) for arg in ("--prompt", f"block {number}")]
    events = _our_client(
        tmp_path, "--cancel-after", "0.3", *prompts, "--", *_their_agent(official_python_1)
    )
    assert events[-1]["event"] == "result" and events[-1]["stopReason"] == "cancelled"


class Client(ClientV2):
    async def request_permission(
        self, input: v2.RequestPermissionRequest
    ) -> v2.RequestPermissionResponse:
        return v2.RequestPermissionResponse(outcome=v2.RequestPermissionOutcomeCancelled())


def test_client_v2_state_accumulates_its_agents_turn(official_python_1: str) -> None:
    async def run() -> None:
        client = Client()
        async with spawn(_their_agent(official_python_1), options=acp_options()) as peer:
            negotiated = await initialize_preferring_v2(
                peer,
                v2_request=v2.InitializeRequest(
                    protocol_version=2, info=v2.Implementation(name="ours", version="0")
                ),
                v2_client=client,
            )
            assert negotiated.version == 2
            agent = v2.AgentProxy(peer)
            session = await agent.new_session(v2.NewSessionRequest(cwd=str(REPO)))
            prompt: list[v2.ContentBlock] = [v2.ContentBlockText(text=t) for t in ("x", "y")]
            turn = client.turn(
                agent, v2.PromptRequest(session_id=session.session_id, prompt=prompt)
            )
            async for _ in turn:
                pass
        state = client.sessions[session.session_id]
        assert turn.stop_reason == "end_turn" and state.idle
        agent_messages = [m for m in state.messages.values() if m["kind"] == "agent_message"]
        [answer] = agent_messages
        assert [block["text"] for block in answer["content"]] == ["x", "y"]
        assert turn.message_id is not None
        assert state.messages[turn.message_id]["kind"] == "user_message"

    asyncio.run(asyncio.wait_for(run(), 60))


# ---------------------------------------------------------------- where rc3 differs


def _answers(command: list[str], lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env(),
        cwd=REPO,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        answers = []
        for line in lines:
            process.stdin.write(json.dumps(line).encode() + b"\n")
            process.stdin.flush()
            answer = process.stdout.readline()
            assert answer, "the agent closed its stdout"
            answers.append(json.loads(answer))
        return answers
    finally:
        process.kill()
        process.wait()


def _initialize(id: Any, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}


def test_where_its_router_differs_from_the_typescript_one_and_ours(official_python_1: str) -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}},
        _initialize(2, {"protocolVersion": 0}),
        _initialize(3, {"protocolVersion": 3}),  # newer, without `info`
        _initialize(4, {"protocolVersion": 2, "info": INFO}),
    ]
    theirs = _answers(_their_agent(official_python_1), lines)
    ours = _answers(ECHO_AGENT, lines)
    # A request before initialize: -32600 both, the reason said differently.
    assert theirs[0]["error"]["data"] == {"details": "The first ACP request must be initialize"}
    assert ours[0]["error"]["data"] == "first ACP request must be initialize"
    # An unsupported version: -32600 there, -32022 with what is supported here.
    assert theirs[1]["error"]["code"] == -32600
    assert ours[1]["error"] == {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"requested": 0, "supported": [1, 2]},
    }
    # A newer version without `info`: refused there, read as 2 with `info` filled in here.
    assert theirs[2]["error"]["code"] == -32602
    assert ours[2]["result"]["protocolVersion"] == 2
    # rc3 selected its agent before the params were checked: after a refused initialize the
    # connection can never be initialized ("may only be initialized once").
    assert theirs[3]["error"] == {
        "code": -32600,
        "message": "Invalid request",
        "data": {"details": "ACP connections may only be initialized once"},
    }


def test_its_agent_refuses_any_repeated_initialize(official_python_1: str) -> None:
    ok = {"protocolVersion": 2, "info": INFO}
    theirs = _answers(_their_agent(official_python_1), [_initialize(1, ok), _initialize(2, ok)])
    ours = _answers(ECHO_AGENT, [_initialize(1, ok), _initialize(2, ok)])
    assert theirs[1]["error"]["data"] == {"details": "ACP connections may only be initialized once"}
    # The TypeScript SDK (and ours) allow a repeat before any other request.
    assert ours[1]["result"]["protocolVersion"] == 2


def test_its_agent_takes_a_request_id_v2_does_not_allow(official_python_1: str) -> None:
    line = _initialize(1.5, {"protocolVersion": 2, "info": INFO})
    [theirs] = _answers(_their_agent(official_python_1), [line])
    [ours] = _answers(ECHO_AGENT, [line])
    assert theirs["id"] == 1.5 and theirs["result"]["protocolVersion"] == 2
    assert ours == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "Invalid request: ACP v2 request IDs must be strings or integers",
        },
    }
