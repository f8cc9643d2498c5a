"""One idlc agent process serving ACP v1 and the v2 draft (idlc_acp.router).

The official TypeScript SDK 2.4.0 drives examples/acp_echo_agent.py both ways: its
`experimental/v2` client (js/v2_client.mjs) at protocol version 2, its stable client (the
usual scenarios, js/client.mjs) at version 1, unchanged. Before `initialize` the agent
answers raw lines as the SDK's `AgentProtocolRouter` does (`protocol-router.js`), over a
real subprocess; `ProtocolRouter.route` is checked for the selection and rewriting rules.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from idlc_acp.router import ProtocolRouter

from .expectations import assert_echo_agent, assert_our_v2_turn, assert_v2_cancel, assert_v2_echo
from .support import (
    ECHO_AGENT,
    ECHO_AGENT_V1,
    JS,
    OUR_CLIENT,
    REPO,
    RUN_TIMEOUT,
    TS_AGENT,
    TS_CLIENT,
    child_env,
    drive,
    make_workspace,
    require_node_modules,
    tee,
)
from .wire_check import Schema, read_tee_log

TS_V2_CLIENT = ["node", str(JS / "v2_client.mjs")]
V2_SCHEMA = REPO / "idl" / "acp-schema" / "v2" / "schema.json"
TS_V2_ROUTER_AGENT = ["node", str(JS / "v2_router_agent.mjs")]


def _echo_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "acp_echo_agent_example", REPO / "examples" / "acp_echo_agent.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_echo = _echo_module()
EchoAgent, EchoAgentV2 = _echo.EchoAgent, _echo.EchoAgentV2


def _records(stdout: str) -> dict[str, dict[str, Any]]:
    return {
        record["scenario"]: record
        for record in (json.loads(line) for line in stdout.splitlines() if line.strip())
    }


@pytest.fixture(scope="module")
def v2_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, Any]], Path]:
    require_node_modules()
    root = tmp_path_factory.mktemp("v2")
    workspace = make_workspace(root)
    completed = subprocess.run(
        [*TS_V2_CLIENT, "--cwd", str(workspace.path), "--", *tee(root / "wire.log", ECHO_AGENT)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr[-4000:]
    records = _records(completed.stdout)
    assert "error" not in records, records["error"]
    return records, workspace.path


def test_every_message_the_agent_sent_at_v2_is_valid_v2(v2_run: Any) -> None:
    _, workspace = v2_run
    messages = read_tee_log(workspace.parent / "wire.log", child="agent")
    report = Schema(V2_SCHEMA).check(messages, only="agent")
    assert report.problems == []
    assert report.checked >= 15
    assert {"session/update", "session/request_permission"} <= report.methods


def test_the_official_v2_client_initializes_at_version_2(v2_run: Any) -> None:
    records, _ = v2_run
    response = records["initialize"]["response"]
    assert response["protocolVersion"] == 2
    assert response["info"]["name"] == "idlc-echo-agent"


def test_a_v2_turn_is_acked_with_its_message_id_and_ends_idle(v2_run: Any) -> None:
    records, workspace = v2_run
    assert_v2_echo(records, workspace)


def test_session_cancel_ends_a_v2_turn_idle_cancelled(v2_run: Any) -> None:
    records, _ = v2_run
    assert_v2_cancel(records)


def test_the_official_v1_client_gets_the_same_agent_unchanged(tmp_path: Path) -> None:
    require_node_modules()
    recorded = drive(TS_CLIENT, ECHO_AGENT, tmp_path)
    assert_echo_agent(recorded.run, recorded.workspace)


# ---------------------------------------------------------------- before initialize, raw


class Lines:
    """The echo agent driven one raw line at a time."""

    def __init__(self, *extra: str, command: list[str] = ECHO_AGENT) -> None:
        self.process = subprocess.Popen(
            [*command, *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env(),
            cwd=REPO,
        )

    def send(self, message: Any) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the agent closed its stdout"
        message: dict[str, Any] = json.loads(line)
        return message

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(message)
        return self.receive()

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def _initialize(id: Any, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}


V2_INFO = {"name": "raw", "version": "1"}
NEW_SESSION = {"jsonrpc": "2.0", "method": "session/new", "params": {"cwd": str(REPO)}}


def test_before_initialize_the_router_answers_as_the_typescript_router() -> None:
    agent = Lines()
    try:
        # Notifications and responses are ignored: the next answer is the batch's.
        agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}})
        agent.send({"jsonrpc": "2.0", "id": 99, "result": {}})
        assert agent.call([_initialize(1, {"protocolVersion": 2})]) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Invalid request: JSON-RPC batches are not supported",
            },
        }
        assert agent.call({**NEW_SESSION, "id": 2})["error"] == {
            "code": -32600,
            "message": "Invalid request",
            "data": "first ACP request must be initialize",
        }
        assert agent.call(_initialize(3, {}))["error"] == {
            "code": -32602,
            "message": "Invalid params",
            "data": "initialize.protocolVersion must be a valid ACP protocol version",
        }
        assert agent.call(_initialize(4, {"protocolVersion": 0}))["error"] == {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"requested": 0, "supported": [1, 2]},
        }
        # A v2 initialize without `info` does not decode: -32602, still not routed.
        assert agent.call(_initialize(5, {"protocolVersion": 2}))["error"]["code"] == -32602
        assert agent.call(_initialize(6.5, {"protocolVersion": 2, "info": V2_INFO})) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Invalid request: ACP v2 request IDs must be strings or integers",
            },
        }
        # The first valid one routes: v2.
        answer = agent.call(_initialize(7, {"protocolVersion": 2, "info": V2_INFO}))
        assert answer["result"]["protocolVersion"] == 2
        # A repeat asking v1 is the v2 agent's to refuse; the connection stays v2.
        repeat = {"protocolVersion": 1, "info": V2_INFO}
        assert agent.call(_initialize(8, repeat))["error"] == {
            "code": -32600,
            "message": "Invalid request: a repeated initialize must request protocol version 2 or later",
        }
        again = agent.call(_initialize(9, {"protocolVersion": 2, "info": V2_INFO}))
        assert again["result"]["protocolVersion"] == 2
        assert "sessionId" in agent.call({**NEW_SESSION, "id": 10})["result"]
        # After another request, initialize may not be repeated.
        late = agent.call(_initialize(11, {"protocolVersion": 2, "info": V2_INFO}))
        assert late["error"]["code"] == -32600
    finally:
        agent.close()


def test_a_v1_client_is_routed_to_v1_and_stays_there() -> None:
    agent = Lines()
    try:
        assert agent.call(b"{not json")["error"]["code"] == -32700
        answer = agent.call(_initialize(1, {"protocolVersion": 1, "clientCapabilities": {}}))
        assert answer["result"]["protocolVersion"] == 1
        assert "agentCapabilities" in answer["result"]
        # Never re-routed: a repeat asking 2 is the v1 agent's, which answers v1.
        again = agent.call(_initialize(2, {"protocolVersion": 2, "info": V2_INFO}))
        assert again["result"]["protocolVersion"] == 1
        session = agent.call(
            {**NEW_SESSION, "id": 3, "params": {"cwd": str(REPO), "mcpServers": []}}
        )
        assert "sessionId" in session["result"]
    finally:
        agent.close()


def test_a_client_asking_for_a_newer_version_gets_v2() -> None:
    agent = Lines()
    try:
        # `info` is missing: for a newer version it is filled in, not refused.
        answer = agent.call(_initialize("a", {"protocolVersion": 7}))
        assert answer == {"jsonrpc": "2.0", "id": "a", "result": answer["result"]}
        assert answer["result"]["protocolVersion"] == 2
    finally:
        agent.close()


def test_the_v1_only_agent_is_not_routed() -> None:
    agent = Lines("--v1-only")
    try:
        assert agent.call({**NEW_SESSION, "id": 1})["error"]["message"] == (
            "Invalid request: ACP connection must be initialized before 'session/new'"
        )
    finally:
        agent.close()


# ---------------------------------------------------------------- the rules, in process


def test_selection_is_the_highest_configured_version_at_or_below_the_request() -> None:
    both = ProtocolRouter(EchoAgent(), v2=EchoAgentV2())
    assert [both.select(version) for version in (0, 1, 2, 3, 9)] == [None, 1, 2, 2, 2]
    v1_only = ProtocolRouter(EchoAgent())
    assert [v1_only.select(version) for version in (0, 1, 2, 9)] == [1, 1, 1, 1]
    v2_only = ProtocolRouter(None, v2=EchoAgentV2())
    assert [v2_only.select(version) for version in (0, 1, 2, 9)] == [None, None, 2, 2]
    assert v2_only.versions == (2,)


def test_a_v1_only_router_takes_a_v2_initialize_as_v1() -> None:
    router = ProtocolRouter(EchoAgent())
    params = {
        "protocolVersion": 2,
        "info": V2_INFO,
        "capabilities": {"auth": {"terminal": {}}, "_meta": {"k": 1}},
    }
    version, message = router.route(_initialize(1, params))
    assert version == 1
    assert message["params"] == {
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": False, "writeTextFile": False},
            "terminal": False,
            "auth": {"terminal": True},
            "_meta": {"k": 1},
        },
        "clientInfo": V2_INFO,
    }
    # A v0 client still gets v1 (the legacy fallback), its version rewritten.
    version, message = router.route(_initialize(2, {"protocolVersion": 0}))
    assert (version, message["params"]["protocolVersion"]) == (1, 1)


def test_only_a_newer_requests_missing_info_is_filled_in() -> None:
    router = ProtocolRouter(EchoAgent(), v2=EchoAgentV2())
    version, message = router.route(_initialize(1, {"protocolVersion": 3, "info": 5}))
    assert version == 2
    assert message["params"] == {
        "protocolVersion": 2,
        "info": {"name": "unknown", "version": "unknown"},
    }
    version, error = router.route(_initialize(1, {"protocolVersion": 2, "info": 5}))
    assert version is None and error["error"]["code"] == -32602


# ---------------------------------------------------------------- our client, v2


def _our_client(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*OUR_CLIENT, "--json", "--cwd", str(workspace), *args],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        env=child_env(),
        cwd=REPO,
    )


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_our_client_drives_the_echo_agent_at_v2(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    completed = _our_client(
        workspace.path,
        "--protocol-version",
        "2",
        "--prompt",
        "a",
        "--prompt",
        "b",
        "--",
        *ECHO_AGENT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    events = _events(completed.stdout)
    assert_our_v2_turn(events, "idlc-echo-agent")
    updates = [event["update"] for event in events if event["event"] == "update"]
    completed_call = [u for u in updates if u.get("status") == "completed"]
    assert completed_call[0]["content"][0]["content"]["text"] == workspace.first_line
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }


def test_our_client_cancels_a_v2_turn(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    prompts = [arg for number in range(30) for arg in ("--prompt", f"block {number}")]
    completed = _our_client(
        workspace.path,
        "--protocol-version",
        "2",
        "--cancel-after",
        "0.5",
        *prompts,
        "--",
        *ECHO_AGENT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert _events(completed.stdout)[-1]["stopReason"] == "cancelled"


def test_our_client_preferring_v2_falls_back_to_v1_against_a_v1_only_agent(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path)
    completed = _our_client(workspace.path, "--protocol-version", "2", "--", *ECHO_AGENT_V1)
    assert completed.returncode == 0, completed.stderr[-4000:]
    events = _events(completed.stdout)
    assert events[0]["protocolVersion"] == 1
    assert events[0]["result"]["protocolVersion"] == 1
    # The v1 initialize that followed offered fs: the agent read the README through it.
    assert any(event["event"] == "read" for event in events)
    assert events[-1] == {"event": "result", "stopReason": "end_turn"}


def test_our_client_refuses_a_version_it_does_not_support(tmp_path: Path) -> None:
    completed = _our_client(tmp_path, "--protocol-version", "3", "--", *ECHO_AGENT)
    assert completed.returncode == 2
    assert "does not support ACP protocol version 3 (it supports 1 and 2)" in completed.stderr


def test_our_client_drives_a_typescript_v2_agent_behind_its_router(tmp_path: Path) -> None:
    require_node_modules()
    completed = _our_client(
        tmp_path,
        "--protocol-version",
        "2",
        "--prompt",
        "a",
        "--prompt",
        "b",
        "--",
        *TS_V2_ROUTER_AGENT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    events = _events(completed.stdout)
    assert_our_v2_turn(events, "ts-v2-agent")


def test_a_v1_client_is_refused_by_a_v2_only_typescript_router(tmp_path: Path) -> None:
    require_node_modules()
    completed = _our_client(tmp_path, "--", *TS_V2_ROUTER_AGENT)
    assert completed.returncode == 1
    assert "[-32022] Unsupported protocol version" in completed.stderr


EARLY_LINES: list[Any] = [
    [_initialize(1, {"protocolVersion": 2})],
    {**NEW_SESSION, "id": 2},
    {"jsonrpc": "2.0", "id": 3, "method": "_vendor/x", "params": {}},
    _initialize(4, {}),
    _initialize(5, {"protocolVersion": -1}),
    _initialize(6, {"protocolVersion": "2"}),
    _initialize(7, None),
    _initialize(8.5, {"protocolVersion": 2, "info": V2_INFO}),
]


def _early(command: list[str]) -> list[dict[str, Any]]:
    agent = Lines(command=command)
    try:
        agent.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}})
        agent.send({"jsonrpc": "2.0", "id": 99, "result": {}})
        answers = [agent.call(line) for line in EARLY_LINES]
        # Still open, and still routable.
        answers.append(agent.call(_initialize(9, {"protocolVersion": 2, "info": V2_INFO})))
        return answers
    finally:
        agent.close()


def test_before_initialize_ours_answers_what_the_typescript_router_answers() -> None:
    require_node_modules()
    theirs = _early(TS_V2_ROUTER_AGENT)
    ours = _early(ECHO_AGENT)
    assert [answer.get("error") for answer in ours[:-1]] == [
        answer.get("error") for answer in theirs[:-1]
    ]
    assert [answer["id"] for answer in ours] == [answer["id"] for answer in theirs]
    assert ours[-1]["result"]["protocolVersion"] == theirs[-1]["result"]["protocolVersion"] == 2


def test_our_client_preferring_v2_falls_back_to_v1_against_the_typescript_v1_agent(
    tmp_path: Path,
) -> None:
    require_node_modules()
    workspace = make_workspace(tmp_path)
    completed = _our_client(workspace.path, "--protocol-version", "2", "--", *TS_AGENT)
    assert completed.returncode == 0, completed.stderr[-4000:]
    events = _events(completed.stdout)
    assert events[0]["protocolVersion"] == 1
    assert any(event["event"] == "read" for event in events)
    assert events[-1] == {"event": "result", "stopReason": "end_turn"}
