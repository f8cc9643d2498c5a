"""Messages captured from the official SDKs (captured/*.json) decode with the generated types.

Each fixture is one message as an official SDK put it on the wire (capture_fixtures.py).
Its params or result decodes into the generated type the schema names for its method, and
encodes back to the same JSON (up to fields equal to their default): nothing the official SDKs
send is lost or changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

import idlc_acp
from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.hooks import enc_hook
from idlc_runtime.rpc.wire import ErrorObject

from .wire_check import Message, Schema

CAPTURED = Path(__file__).resolve().parent / "captured"
FIXTURES = sorted(CAPTURED.glob("*.json"))
ENCODER = msgspec.json.Encoder(enc_hook=enc_hook)


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


EMPTY: tuple[Any, ...] = (None, False, [], {})


def _default_record(value: Any) -> bool:
    """Whether `value` is how a record at its defaults encodes: objects of empty objects."""
    return isinstance(value, dict) and all(_default_record(item) for item in value.values())


def differences(sent: Any, again: Any, path: str = "$") -> list[str]:
    """Where `again` (decoded and encoded again) differs from what the SDK sent.

    The generated types leave out fields equal to their default, so a field may vanish
    when it was null, false or empty; and a field whose default is `{}` (the capability
    records) comes back, when it was absent, as the record at its defaults: objects of empty
    objects. Anything else must come back as it was sent.
    """
    if isinstance(sent, dict) and isinstance(again, dict):
        found = []
        for key, value in sent.items():
            if key in again:
                found += differences(value, again[key], f"{path}.{key}")
            elif not any(value == empty and type(value) is type(empty) for empty in EMPTY):
                found.append(f"{path}.{key} lost (was {value!r:.80})")
        found += [
            f"{path}.{key} added"
            for key in again.keys() - sent.keys()
            if not _default_record(again[key])
        ]
        return found
    if isinstance(sent, list) and isinstance(again, list) and len(sent) == len(again):
        return [
            d
            for i, (s, a) in enumerate(zip(sent, again, strict=True))
            for d in differences(s, a, f"{path}[{i}]")
        ]
    if sent != again or type(sent) is not type(again):
        return [f"{path}: {sent!r:.80} became {again!r:.80}"]
    return []


@pytest.fixture(scope="module")
def schema() -> Schema:
    return Schema()


def test_the_official_sdks_were_captured() -> None:
    names = {path.stem for path in FIXTURES}
    for sdk in ("ts", "py"):
        for expected in (
            "client-request-initialize",
            "client-request-session_new",
            "client-request-session_prompt",
            "client-notification-session_cancel",
            "client-response-session_request_permission",
            "client-response-fs_read_text_file",
            "agent-response-initialize",
            "agent-response-session_prompt",
            "agent-notification-session_update-agent_message_chunk",
            "agent-notification-session_update-tool_call",
            "agent-notification-session_update-tool_call_update",
            "agent-request-session_request_permission",
            "agent-request-fs_read_text_file",
        ):
            assert f"{sdk}-{expected}" in names


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_is_valid_acp(path: Path, schema: Schema) -> None:
    fixture = load(path)
    message = fixture["message"]
    if fixture["kind"] in ("response", "error"):
        # A response is checked against the request it answers.
        other = "client" if fixture["sender"] == "agent" else "agent"
        request = {"jsonrpc": "2.0", "id": message["id"], "method": fixture["method"]}
        conversation = [Message(other, request), Message(fixture["sender"], message)]
    else:
        conversation = [Message(fixture["sender"], message)]
    report = schema.check(conversation, only=fixture["sender"])
    assert report.checked == 1 and report.problems == []


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_generated_types_decode_fixture(path: Path, schema: Schema) -> None:
    fixture = load(path)
    message = fixture["message"]
    if fixture["kind"] == "error":
        type_name, payload = "Error", message["error"]
    elif fixture["kind"] == "response":
        type_name, payload = schema.by_method[(fixture["method"], "Response")], message["result"]
    else:
        kind = "Request" if fixture["kind"] == "request" else "Notification"
        type_name, payload = schema.by_method[(fixture["method"], kind)], message["params"]
    # The runtime owns the JSON-RPC error object; the generated package owns the rest.
    type_ = ErrorObject if type_name == "Error" else getattr(idlc_acp, type_name)
    decoded = decoder_for(type_).decode(json.dumps(payload).encode())
    assert isinstance(decoded, type_)
    assert differences(payload, json.loads(ENCODER.encode(decoded))) == []
