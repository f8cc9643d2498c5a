"""idlc_acp.v2_client.SessionStateV2: the draft's patches, applied in order.

An absent field keeps its value, `null` clears it, a value replaces it; chunks append to
their message or tool call, and a full message's `content` replaces what chunks built.
Hypothesis checks it against a second formulation: each field's value is that of the
last update naming it (absent when that was `null`), chunks the content since the last
full `content`.
"""

from __future__ import annotations

import base64
from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from idlc_acp import v2, v2_client
from idlc_acp.v2_client import SessionStateV2

FIELDS = ["title", "status", "kind", "rawInput"]
VALUES = st.one_of(
    st.none(), st.integers(-3, 3), st.text(max_size=3), st.lists(st.integers(), max_size=2)
)
PATCHES = st.lists(
    st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=len(FIELDS)), max_size=12
)


@given(patches=PATCHES)
def test_tool_call_patches_keep_clear_and_replace(patches: list[dict[str, Any]]) -> None:
    state = SessionStateV2()
    for patch in patches:
        state.apply({"sessionUpdate": "tool_call_update", "toolCallId": "t", **patch})
    expected: dict[str, Any] = {"toolCallId": "t"} if patches else {}
    for key in FIELDS:
        named = [patch[key] for patch in patches if key in patch]
        if named and named[-1] is not None:
            expected[key] = named[-1]
    assert state.tool_calls.get("t", {}) == expected


MESSAGE_EVENTS = st.lists(
    st.one_of(
        st.tuples(st.just("chunk"), st.text(max_size=2)),
        st.tuples(st.just("full"), st.one_of(st.none(), st.lists(st.text(max_size=2), max_size=2))),
    ),
    max_size=12,
)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


@given(events=MESSAGE_EVENTS)
def test_chunks_append_and_full_content_replaces(events: list[tuple[str, Any]]) -> None:
    state = SessionStateV2()
    for kind, value in events:
        if kind == "chunk":
            state.apply(
                {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": _text(value)}
            )
        else:
            content = None if value is None else [_text(text) for text in value]
            state.apply({"sessionUpdate": "agent_message", "messageId": "m", "content": content})
    texts: list[str] = []
    for kind, value in events:
        if kind == "chunk":
            texts.append(value)
        else:
            texts = list(value or [])
    if events:
        message = state.messages["m"]
        assert message["kind"] == "agent_message"
        assert [block["text"] for block in message["content"]] == texts
    else:
        assert state.messages == {}


@given(
    patches=st.lists(
        st.dictionaries(st.sampled_from("abc"), st.one_of(st.none(), st.integers())), max_size=8
    )
)
def test_meta_is_patched_by_key(patches: list[dict[str, Any]]) -> None:
    state = SessionStateV2()
    for meta in patches:
        state.apply({"sessionUpdate": "tool_call_update", "toolCallId": "t", "_meta": meta})
    expected: dict[str, Any] = {}
    for meta in patches:
        for key, value in meta.items():
            if value is None:
                expected.pop(key, None)
            else:
                expected[key] = value
    if patches:
        assert state.tool_calls["t"]["_meta"] == expected


def test_the_idle_state_carries_the_stop_reason_and_decoded_updates_apply() -> None:
    state = SessionStateV2()
    assert state.idle and state.stop_reason is None
    state.apply(v2.SessionUpdateStateUpdateRunning())
    assert not state.idle
    state.apply(
        v2.SessionUpdateAgentMessageChunk(message_id="m", content=v2.ContentBlockText(text="x"))
    )
    state.apply(v2.SessionUpdateStateUpdateIdleCancelled())
    assert state.idle and state.stop_reason == "cancelled"
    assert state.messages["m"]["content"] == [{"type": "text", "text": "x"}]


def test_background_config_options_and_cancel_capabilities() -> None:
    state = SessionStateV2()
    assert state.background is None and state.config_options is None
    state.apply({"sessionUpdate": "state_update", "state": "running", "background": []})
    assert state.background == []
    work = [{"type": "terminal", "terminalId": "t"}]
    state.apply({"sessionUpdate": "state_update", "state": "requires_action", "background": work})
    assert state.background == work
    # Each state is a complete snapshot: omitted is "not reported", as is a state unknown.
    state.apply({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    assert state.background is None
    state.apply({"sessionUpdate": "state_update", "state": "paused", "background": []})
    assert state.background is None
    options = [{"configId": "m", "name": "M", "type": "select", "currentValue": "x", "options": []}]
    state.apply({"sessionUpdate": "config_option_update", "configOptions": options})
    assert state.config_options == options
    for kind, key, can in (
        ("tool_call_update", "toolCallId", state.can_cancel_tool_call),
        ("terminal_update", "terminalId", state.can_cancel_terminal),
    ):
        assert not can("x")
        state.apply({"sessionUpdate": kind, key: "x", "capabilities": {"cancel": {}}})
        assert can("x")
        state.apply({"sessionUpdate": kind, key: "x", "title": "kept"})  # capabilities kept
        assert can("x")
        state.apply({"sessionUpdate": kind, key: "x", "capabilities": {}})  # replaced whole
        assert not can("x")
        state.apply({"sessionUpdate": kind, key: "x", "capabilities": {"cancel": {}}})
        state.apply({"sessionUpdate": kind, key: "x", "capabilities": None})
        assert not can("x")


@given(
    events=st.lists(
        st.tuples(st.sampled_from(["chunk", "replace", "clear", "junk"]), st.binary(max_size=6)),
        max_size=10,
    ),
    limit=st.sampled_from([4, 1024]),
)
def test_terminal_output_chunks_append_to_the_output_bytes(
    events: list[tuple[str, bytes]], limit: int
) -> None:
    """`terminal_output_chunk`s append their bytes, a `terminal_update`'s `output` replaces
    them all, `null` clears them, a chunk that is not base64 is dropped, and only the last
    `TERMINAL_OUTPUT_LIMIT` bytes are kept."""
    state = SessionStateV2()
    expected = b""
    with mock.patch.object(v2_client, "TERMINAL_OUTPUT_LIMIT", limit):
        for kind, data in events:
            encoded = base64.b64encode(data).decode("ascii")
            update: dict[str, Any]
            if kind == "chunk":
                update = {
                    "sessionUpdate": "terminal_output_chunk",
                    "terminalId": "t",
                    "data": encoded,
                }
                expected += data
            elif kind == "junk":
                update = {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "*"}
            elif kind == "replace":
                update = {
                    "sessionUpdate": "terminal_update",
                    "terminalId": "t",
                    "output": {"data": encoded},
                }
                expected = data
            else:
                update = {"sessionUpdate": "terminal_update", "terminalId": "t", "output": None}
                expected = b""
            state.apply(update)
    assert state.terminal_output("t") == expected[-limit:]
