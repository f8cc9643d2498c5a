"""The echo agent over raw stdio: bad input gets its error and the agent keeps serving;
closing stdin ends the process."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from .conftest import ECHO_AGENT, message_errors


class Raw:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(ECHO_AGENT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def send(self, line: bytes | str | dict[str, Any]) -> None:
        if isinstance(line, dict):
            line = json.dumps(line)
        if isinstance(line, str):
            line = line.encode()
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the agent closed its stdout"
        message: dict[str, Any] = json.loads(line)
        return message


def test_bad_input_gets_errors_and_the_agent_keeps_serving() -> None:
    agent = Raw()
    requests: dict[Any, str] = {}
    try:
        agent.send(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {')
        error = agent.receive()
        # The id the unparseable line shows is answered (docs/wire.md §8).
        assert error["error"]["code"] == -32700 and error["id"] == 1
        assert message_errors(error, requests) == []

        # ACP has no batches: one -32600 with id null, as the official TypeScript SDK answers.
        agent.send(
            b'[{"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {"protocolVersion": 1}}]'
        )
        error = agent.receive()
        assert error == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Invalid request: JSON-RPC batches are not supported",
            },
        }
        assert message_errors(error, requests) == []

        agent.send({"jsonrpc": "1.0", "id": 2, "method": "initialize", "params": {}})
        error = agent.receive()
        assert error["error"]["code"] == -32600 and error["id"] == 2

        agent.send({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"x": 1}})
        error = agent.receive()
        assert error["error"]["code"] == -32602 and error["id"] == 3
        # The protocol router's answer (the echo agent serves v1 and v2): the reason is in
        # `data`, as the TypeScript SDK's router gives it.
        assert "protocolVersion" in json.dumps(error["error"])

        agent.send(
            {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        answer = agent.receive()
        assert answer["id"] == 4 and answer["result"]["protocolVersion"] == 1
        requests[4] = "initialize"
        assert message_errors(answer, requests) == []

        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "session/new",
                "params": {"cwd": "/tmp", "mcpServers": []},
            }
        )
        session_id = agent.receive()["result"]["sessionId"]

        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 6,
                "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": [{"type": "video", "url": "x"}]},
            }
        )
        error = agent.receive()
        assert error["error"]["code"] == -32602 and error["id"] == 6
        # PromptRequest holds lenient fields, so this went through the forward-compatible
        # path too (docs/wire.md §4): what it cannot save is still -32602, with its path.
        assert error["error"]["data"]["path"].startswith("$.prompt[0]"), error

        agent.send({"jsonrpc": "2.0", "id": 7, "method": "session/nope", "params": {}})
        assert agent.receive()["error"]["code"] == -32601
        agent.send({"jsonrpc": "2.0", "method": "_vendor/ignored", "params": {}})
        agent.send({"jsonrpc": "2.0", "id": 8, "method": "_vendor/ask", "params": {}})
        assert agent.receive() == {
            "jsonrpc": "2.0",
            "id": 8,
            "error": {"code": -32601, "message": "Method not found: _vendor/ask"},
        }

        agent.send(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "session/new",
                "params": {"cwd": "/tmp", "mcpServers": []},
            }
        )
        assert "sessionId" in agent.receive()["result"]
    finally:
        agent.process.kill()
        agent.process.wait()


#: Far longer than an agent takes to end once its input has: only a hang gets there.
HANG = 30.0


def test_closing_stdin_ends_the_agent() -> None:
    agent = Raw()
    agent.send(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    )
    assert agent.receive()["id"] == 1
    assert agent.process.stdin is not None
    agent.process.stdin.close()
    try:
        # An agent that kept waiting for input after EOF would still run: TimeoutExpired.
        code = agent.process.wait(timeout=HANG)
    finally:
        agent.process.kill()
    assert code == 0
