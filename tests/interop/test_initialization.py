"""Before `initialize`: what the official SDKs' agents answer, and that ours answers the same.

The official TypeScript SDK (2.4.0) refuses every request before a successful `initialize`
with -32600 "Invalid request: ACP connection must be initialized before '<method>'" and lets
notifications through; `initialize` also answers an unsupported requested version with its
latest. The official Python SDK (0.12.1 and 1.0.0rc3 alike) checks nothing: it serves
`session/new` before `initialize`. idlc's agent answers like the TypeScript SDK.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from .support import (
    ECHO_AGENT_V1,
    PY_SDKS,
    REPO,
    TS_AGENT,
    child_env,
    official_python,
    py_agent,
    require_node_modules,
)

NEW_SESSION = {"cwd": str(REPO), "mcpServers": []}


class Stdio:
    """An agent process driven one raw JSON-RPC line at a time."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=child_env(),
            cwd=REPO,
        )

    def call(self, id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.notify(method, params, id=id)
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            assert line, "the agent closed its stdout"
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == id and "method" not in message:
                return message

    def notify(self, method: str, params: dict[str, Any], id: int | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if id is not None:
            message["id"] = id
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


#: Requests before `initialize` that the runtime would refuse on its own before any
#: interceptor runs (a method the agent does not implement, params that do not decode, an
#: extension, a method nobody knows): the family the admission hook answers like the rest.
EARLY = [
    ("session/load", {"sessionId": "s", "cwd": str(REPO), "mcpServers": []}),
    ("session/set_mode", {"sessionId": "s", "modeId": "m"}),
    ("session/new", {"cwd": 5}),
    ("session/prompt", {}),
    ("_vendor/thing", {}),
    ("nonsense", {}),
]


def before_and_after(command: list[str]) -> list[dict[str, Any]]:
    """The answers to: session/new, initialize(v7), session/new — with a notification first."""
    agent = Stdio(command)
    try:
        agent.notify("session/cancel", {"sessionId": "nothing-yet"})
        return [
            agent.call(1, "session/new", NEW_SESSION),
            agent.call(2, "initialize", {"protocolVersion": 7}),
            agent.call(3, "session/new", NEW_SESSION),
        ]
    finally:
        agent.close()


def early_answers(command: list[str]) -> list[dict[str, Any]]:
    """The errors of the EARLY requests, sent before `initialize`."""
    agent = Stdio(command)
    try:
        return [agent.call(i, m, p)["error"] for i, (m, p) in enumerate(EARLY, 1)]
    finally:
        agent.close()


@pytest.fixture(scope="module")
def ts_answers() -> list[dict[str, Any]]:
    require_node_modules()
    return before_and_after(TS_AGENT)


def test_the_typescript_sdk_refuses_requests_before_initialize(
    ts_answers: list[dict[str, Any]],
) -> None:
    refused, initialized, served = ts_answers
    assert refused["error"] == {
        "code": -32600,
        "message": "Invalid request: ACP connection must be initialized before 'session/new'",
    }
    assert initialized["result"]["protocolVersion"] == 1
    assert "sessionId" in served["result"]


def test_before_initialize_every_request_gets_the_typescript_sdks_answer() -> None:
    """Whatever the method or its params, as the official TypeScript SDK answers them."""
    require_node_modules()
    theirs = early_answers(TS_AGENT)
    assert theirs == [
        {
            "code": -32600,
            "message": f"Invalid request: ACP connection must be initialized before '{method}'",
        }
        for method, _ in EARLY
    ]
    assert early_answers(ECHO_AGENT_V1) == theirs


def test_our_agent_answers_as_the_typescript_sdk(ts_answers: list[dict[str, Any]]) -> None:
    ours = before_and_after(ECHO_AGENT_V1)
    assert ours[0] == ts_answers[0]
    assert ours[1]["result"]["protocolVersion"] == ts_answers[1]["result"]["protocolVersion"] == 1
    assert "sessionId" in ours[2]["result"]


@pytest.mark.parametrize("version", PY_SDKS)
def test_the_python_sdk_does_not_check(version: str, request: pytest.FixtureRequest) -> None:
    # Recorded so that a change in the official Python SDK shows up here.
    served_early, initialized, _ = before_and_after(py_agent(official_python(request, version)))
    assert "sessionId" in served_early["result"]
    assert initialized["result"]["protocolVersion"] == 1
