"""The schema checker that judges captured traffic finds what it must find."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .wire_check import Message, Schema, read_tee_log


@pytest.fixture(scope="module")
def schema() -> Schema:
    return Schema()


def request(id_: int, method: str, params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def notification(method: str, params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def chunk(session_id: object, text: object) -> dict[str, object]:
    return notification(
        "session/update",
        {
            "sessionId": session_id,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            },
        },
    )


def test_valid_conversation_passes(schema: Schema) -> None:
    conversation = [
        Message("client", request(0, "initialize", {"protocolVersion": 1})),
        Message("agent", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
        Message("client", request(1, "session/new", {"cwd": "/w", "mcpServers": []})),
        Message("agent", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}}),
        Message("agent", chunk("s", "hi")),
        Message("client", request(2, "_vendor/thing", {"anything": [1, 2]})),
        Message("agent", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "no"}}),
    ]
    report = schema.check(conversation, only="agent")
    assert report.problems == []
    assert report.checked == 4
    assert report.methods == {"session/update"}


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([chunk("s", 42)], "SessionNotification"),
        ([chunk(None, "hi")], "SessionNotification"),
        (
            [
                notification(
                    "session/update", {"sessionId": "s", "update": {"sessionUpdate": "nope"}}
                )
            ],
            "SessionNotification",
        ),
        ([request(3, "session/prompt", {"sessionId": "s", "prompt": []})], "handled by the agent"),
        ([notification("session/updates", {})], "not an ACP v1 notification"),
        ([{"jsonrpc": "2.0", "id": 9, "result": {}}], "no request of the client had"),
        ([{"jsonrpc": "1.0", "method": "session/update"}], "jsonrpc"),
        (
            [{"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}],
            "exactly one",
        ),
        ([{"jsonrpc": "2.0", "id": 1, "error": {"code": "bad"}}], "Error"),
    ],
)
def test_invalid_agent_messages_are_reported(
    schema: Schema, messages: list[dict[str, object]], expected: str
) -> None:
    report = schema.check([Message("agent", m) for m in messages], only="agent")
    assert any(expected in problem for problem in report.problems), report.problems


def test_response_is_checked_against_its_request(schema: Schema) -> None:
    conversation = [
        Message("client", request(7, "session/prompt", {"sessionId": "s", "prompt": []})),
        Message("agent", {"jsonrpc": "2.0", "id": 7, "result": {"stopReason": "finished"}}),
    ]
    report = schema.check(conversation, only="agent")
    assert any("PromptResponse" in problem for problem in report.problems), report.problems


def test_tee_log_is_read_in_order(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    entries = [
        {"to": "child", "line": json.dumps(request(0, "initialize", {"protocolVersion": 1}))},
        {
            "to": "parent",
            "line": json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
        },
        {"to": "parent", "line": "not json"},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in entries))
    messages = read_tee_log(log, child="agent")
    assert [m.sender for m in messages] == ["client", "agent", "agent"]
    assert messages[2].body == "not json"
    report = Schema().check(messages, only="agent")
    assert report.checked == 2 and any("not a JSON object" in p for p in report.problems)
