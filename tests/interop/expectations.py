"""What an echo agent must have done, judged from the records of a scenario client.

js/client.mjs and py_official_client.py print the same records (one per scenario); these
checks hold for examples/acp_echo_agent.py and for the echo agents written with the official
SDKs alike, which is how the scenarios themselves are known to be right.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from .support import Run, Workspace

STREAM_MIN_GAP_MS = 40.0  # chunks are sent ~100 ms apart; batching would put them ~0 ms apart
MIB = 1024 * 1024


def updates_of(record: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [u for u in record["updates"] if u["params"]["update"]["sessionUpdate"] == kind]


def chunk_texts(record: dict[str, Any]) -> list[str]:
    return [
        u["params"]["update"]["content"]["text"]
        for u in updates_of(record, "agent_message_chunk")
        if u["params"]["update"]["content"]["type"] == "text"
    ]


def assert_no_failures(run: Run) -> None:
    failed = {name: r["failed"] for name, r in run.records.items() if "failed" in r}
    assert not failed, f"scenarios failed: {failed}\nstderr:\n{run.stderr[-4000:]}"
    assert "done" in run.records, f"the client did not finish; stderr:\n{run.stderr[-4000:]}"
    assert run.returncode == 0, run.stderr[-4000:]


def assert_turn_belongs_to(record: dict[str, Any], session_id: str) -> None:
    """Everything the agent sent during the turn names `session_id` (even when `_meta` of
    the agents in tests/interop names another one)."""
    sessions = {u["params"]["sessionId"] for u in record["updates"]}
    assert sessions <= {session_id}, f"updates for other sessions: {sessions - {session_id}}"
    for request in record["permissions"] + record["reads"]:
        assert request["sessionId"] == session_id


def assert_tool_call_read(record: dict[str, Any], workspace: Workspace, offered_fs: bool) -> None:
    """The tool call, its permission round trip and (if allowed and offered) the file read."""
    calls = updates_of(record, "tool_call")
    assert len(calls) == 1, record["updates"]
    call = calls[0]["params"]["update"]
    assert call.get("kind") == "read"
    assert len(record["permissions"]) == 1, record["permissions"]
    permission = record["permissions"][0]
    assert permission["toolCall"]["toolCallId"] == call["toolCallId"]
    kinds = {option["kind"] for option in permission["options"]}
    assert kinds & {"allow_once", "allow_always"} and kinds & {"reject_once", "reject_always"}
    finals = [
        u["params"]["update"]
        for u in updates_of(record, "tool_call_update")
        if u["params"]["update"]["toolCallId"] == call["toolCallId"]
        and u["params"]["update"].get("status") in ("completed", "failed")
    ]
    assert len(finals) == 1, finals
    if offered_fs:
        reads = [(read["sessionId"], read["path"]) for read in record["reads"]]
        assert reads == [(record["sessionId"], workspace.readme)]
        assert finals[0]["status"] == "completed"
        texts = [
            c["content"]["text"]
            for c in finals[0].get("content") or []
            if c.get("type") == "content" and c["content"].get("type") == "text"
        ]
        assert any(workspace.first_line in text for text in texts), finals[0]
    else:
        assert record["reads"] == []


def assert_echo_agent(
    run: Run, workspace: Workspace, offered_fs: bool = True, meta_shadow: bool = True
) -> None:
    assert_no_failures(run)

    initialize = run["initialize"]["response"]
    assert initialize["protocolVersion"] == 1
    capabilities = initialize.get("agentCapabilities") or {}
    assert not capabilities.get("loadSession"), "the echo agent has no session/load"

    session_id = run["session_new"]["response"]["sessionId"]
    assert isinstance(session_id, str) and session_id

    prompt = run["prompt"]
    assert prompt["stopReason"] == "end_turn"
    assert chunk_texts(prompt) == prompt["sent"]
    assert_turn_belongs_to(prompt, session_id)
    times = [u["t_ms"] for u in updates_of(prompt, "agent_message_chunk")]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert gaps and min(gaps) >= STREAM_MIN_GAP_MS, f"chunks were not streamed: gaps {gaps} ms"
    assert_tool_call_read(prompt, workspace, offered_fs)

    rejected = run["prompt_rejected"]
    assert rejected["stopReason"] == "end_turn"
    assert chunk_texts(rejected) == rejected["sent"]
    assert len(rejected["permissions"]) == 1
    assert rejected["reads"] == [], "read the file although permission was rejected"
    assert_turn_belongs_to(rejected, session_id)

    cancel = run["cancel"]
    assert cancel["cancel_sent"], "no chunk arrived to trigger the cancellation"
    assert cancel["stopReason"] == "cancelled"
    assert 1 <= len(chunk_texts(cancel)) < cancel["sent_blocks"]
    assert cancel["reads"] == []
    assert_turn_belongs_to(cancel, session_id)

    after = run["after_cancel"]
    assert after["stopReason"] == "end_turn"
    assert chunk_texts(after) == after["sent"]

    assert run["unsupported_method"].get("error", {}).get("code") == -32601, run[
        "unsupported_method"
    ]
    assert run["unknown_ext_method"].get("error", {}).get("code") == -32601, run[
        "unknown_ext_method"
    ]
    if "unknown_method" in run.records:  # only js/client.mjs can send a non-ACP method
        assert run["unknown_method"].get("error", {}).get("code") == -32601

    large = run["large_prompt"]
    assert large["sent_bytes"] >= 2 * MIB
    assert large["stopReason"] == "end_turn"
    assert [(c["length"], c["sha256"]) for c in large["chunks"]] == [
        (large["sent_length"], large["sent_sha256"])
    ], "the 2 MiB block was not echoed whole in one chunk"
    assert {c["sessionId"] for c in large["chunks"]} == {session_id}
    assert_tool_call_read(large, workspace, offered_fs)

    if not meta_shadow:
        return
    shadow = run["meta_shadow"]
    assert shadow["stopReason"] == "end_turn"
    assert shadow["new_session"]["sessionId"] not in (shadow["shadow"], session_id)
    assert chunk_texts(shadow) == shadow["sent"]
    assert_turn_belongs_to(shadow, shadow["new_session"]["sessionId"])
    assert_tool_call_read(shadow, workspace, offered_fs)


NEWS = "NEWS"

#: What the news scenario's agents (py_official_agent.py on agent-client-protocol 1.0,
#: idlc_news_agent.py) send for the prompt NEWS, as the scenario clients record it.
NEWS_UPDATES = [
    {
        "sessionUpdate": "notice",
        "severity": "warning",
        "title": "Context almost full",
        "description": "compacting soon",
    },
    {"sessionUpdate": "compaction_update", "compactionId": "c-1", "status": "in_progress"},
    {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": "c-1",
        "content": {"type": "text", "text": "summary, first part"},
    },
    {
        "sessionUpdate": "compaction_update",
        "compactionId": "c-1",
        "status": "completed",
        "summary": [{"type": "text", "text": "the whole summary"}],
        "_meta": {"tokensBefore": 1000, "tokensAfter": 100},
    },
]


def assert_news(run: Run) -> None:
    """The notice and the compaction of the news scenario arrived whole, in order, for the
    session, and the turn ended normally."""
    news = run["news"]
    assert news["stopReason"] == "end_turn", news
    assert [u["params"]["update"] for u in news["updates"]] == NEWS_UPDATES
    assert_turn_belongs_to(news, run["session_new"]["response"]["sessionId"])


def assert_v2_echo(records: dict[str, dict[str, Any]], workspace: Path) -> None:
    """js/v2_client.mjs's echo turn against examples/acp_echo_agent.py at v2."""
    echo = records["echo"]
    updates = echo["updates"]
    message_id = echo["ack"]["messageId"]
    kinds = [update["sessionUpdate"] for update in updates]
    # The user message carries the ack's id, then the session runs.
    user = updates[kinds.index("user_message")]
    assert user["messageId"] == message_id
    assert [block["text"] for block in user["content"]] == ["Hello", "world"]
    assert {"sessionUpdate": "state_update", "state": "running"} in updates
    # The echo: chunks of one agent message, each with its messageId.
    chunks = [update for update in updates if update["sessionUpdate"] == "agent_message_chunk"]
    assert [chunk["content"]["text"] for chunk in chunks] == ["Hello", "world"]
    assert len({chunk["messageId"] for chunk in chunks}) == 1
    assert chunks[0]["messageId"] != message_id
    # The tool call is patched by id: announced, asked about, in progress, completed.
    calls = [update for update in updates if update["sessionUpdate"] == "tool_call_update"]
    assert len({call["toolCallId"] for call in calls}) == 1
    assert [call.get("status") for call in calls] == ["pending", "in_progress", "completed"]
    first_line = (workspace / "README.md").read_text(encoding="utf-8").splitlines()[0]
    assert calls[-1]["content"][0]["content"]["text"] == first_line
    assert echo["permissions"][0]["subject"]["toolCall"]["toolCallId"] == calls[0]["toolCallId"]
    # The turn ends with the idle state carrying the stop reason.
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    assert echo["stopReason"] == "end_turn"


def assert_v2_cancel(records: dict[str, dict[str, Any]]) -> None:
    """js/v2_client.mjs's cancelled turn against examples/acp_echo_agent.py at v2."""
    cancel = records["cancel"]
    assert cancel["stopReason"] == "cancelled"
    chunks = [u for u in cancel["updates"] if u["sessionUpdate"] == "agent_message_chunk"]
    assert 1 <= len(chunks) < 30
    assert cancel["updates"][-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "cancelled",
    }


def assert_our_v2_turn(events: list[dict[str, Any]], agent_name: str) -> None:
    """examples/acp_client.py's events for `--protocol-version 2 --prompt a --prompt b`
    against the v2 agent named `agent_name`: negotiated at 2, both prompts echoed, and the
    result carrying the user message's id."""
    assert events[0]["event"] == "initialized" and events[0]["protocolVersion"] == 2
    assert events[0]["result"]["info"]["name"] == agent_name
    updates = [event["update"] for event in events if event["event"] == "update"]
    chunks = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert chunks == ["a", "b"]
    user = next(u for u in updates if u["sessionUpdate"] == "user_message")
    assert events[-1] == {
        "event": "result",
        "stopReason": "end_turn",
        "messageId": user["messageId"],
    }
