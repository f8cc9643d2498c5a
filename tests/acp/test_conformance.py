"""Schema-written fixture messages decode into the generated types, re-encode to the same
JSON, and that JSON validates against the ACP schema.

"The same JSON" up to one thing: an absent field whose default is `{}` (the capability
records, docs/language.md "Records and field defaults") is written back as the record at its
defaults, which encodes as nested empty objects; a peer reads it back as the same value."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from .conftest import FIXTURES, all_methods, method_defs, schema_errors


def fixture_cases() -> list[tuple[str, str, int]]:
    cases = []
    for path in sorted(FIXTURES.glob("*.json")):
        doc = json.loads(path.read_text())
        for kind in ("params", "result"):
            for index in range(len(doc.get(kind, []))):
                cases.append((path.name, kind, index))
    return cases


def _default_record(value: Any) -> bool:
    """Whether `value` is how a record at its defaults encodes: objects of empty objects."""
    return isinstance(value, dict) and all(_default_record(item) for item in value.values())


def without_added_default_records(encoded: Any, message: Any) -> Any:
    """`encoded` without the `{}`-defaulted records it has and `message` has not."""
    if isinstance(encoded, dict) and isinstance(message, dict):
        return {
            key: without_added_default_records(value, message[key]) if key in message else value
            for key, value in encoded.items()
            if key in message or not _default_record(value)
        }
    if isinstance(encoded, list) and isinstance(message, list) and len(encoded) == len(message):
        return [without_added_default_records(a, b) for a, b in zip(encoded, message, strict=True)]
    return encoded


def spec_of(method: str) -> Any:
    import idlc_acp

    for interface in (
        idlc_acp.protocol.Agent,
        idlc_acp.protocol.Client,
        idlc_acp.protocol.Protocol,
    ):
        table = interface.__idlc_interface__
        spec = table.requests.get(method) or table.notifications.get(method)
        if spec is not None:
            return spec
    raise KeyError(method)


def test_there_is_a_fixture_for_every_method_and_every_result() -> None:
    covered = {json.loads(path.read_text())["method"]: path for path in FIXTURES.glob("*.json")}
    assert sorted(covered) == sorted(all_methods())
    for method, path in covered.items():
        doc = json.loads(path.read_text())
        assert doc["params"], method
        assert bool(doc.get("result")) == (method_defs()[method][1] is not None), method


@pytest.mark.parametrize(("file", "kind", "index"), fixture_cases())
def test_fixture_round_trips_and_validates(file: str, kind: str, index: int) -> None:
    from idlc_runtime.hooks import dec_hook, enc_hook

    doc = json.loads((FIXTURES / file).read_text())
    method = doc["method"]
    message = doc[kind][index]
    params_def, result_def = method_defs()[method]
    definition = params_def if kind == "params" else result_def
    assert definition is not None
    # The fixture itself is what the schema says.
    assert schema_errors(message, definition) == []
    spec = spec_of(method)
    type_ = spec.params_type if kind == "params" else spec.result_type
    decoded = msgspec.json.decode(json.dumps(message).encode(), type=type_, dec_hook=dec_hook)
    encoded = json.loads(msgspec.json.encode(decoded, enc_hook=enc_hook))
    assert without_added_default_records(encoded, message) == message
    assert msgspec.json.decode(json.dumps(encoded), type=type_, dec_hook=dec_hook) == decoded
    assert schema_errors(encoded, definition) == []


def test_null_and_absent_optionals_both_decode_and_are_omitted() -> None:
    import idlc_acp
    from idlc_runtime.hooks import dec_hook

    raw = {"sessionId": "s", "path": "/a", "line": None, "limit": None, "_meta": None}
    decoded = msgspec.json.decode(
        json.dumps(raw).encode(), type=idlc_acp.ReadTextFileRequest, dec_hook=dec_hook
    )
    assert decoded.line is None and decoded.meta is None
    assert json.loads(msgspec.json.encode(decoded)) == {"sessionId": "s", "path": "/a"}


def test_meta_stays_its_own_field() -> None:
    import idlc_acp
    from idlc_runtime.hooks import dec_hook

    raw = {"sessionId": "real", "prompt": [], "_meta": {"sessionId": "fake"}}
    decoded = msgspec.json.decode(
        json.dumps(raw).encode(), type=idlc_acp.PromptRequest, dec_hook=dec_hook
    )
    assert decoded.session_id == "real" and decoded.meta == {"sessionId": "fake"}


@pytest.mark.parametrize(
    ("type_name", "message"),
    [
        ("ContentBlock", {"type": "video", "url": "x"}),
        ("ContentBlock", {"text": "no tag"}),
        ("SessionUpdate", {"sessionUpdate": "agent_message_chunk"}),
        ("ProtocolVersion", 70000),
        ("ToolCallLocation", {"path": "/a", "line": -1}),
        ("UsageUpdate", {"used": -5, "size": 1}),
        ("StopReason", "sleepy"),
        ("RequestPermissionOutcome", {"outcome": "maybe"}),
    ],
)
def test_schema_invalid_messages_are_refused(type_name: str, message: Any) -> None:
    import idlc_acp
    from idlc_runtime.hooks import dec_hook

    assert schema_errors(message, type_name) != []
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            json.dumps(message).encode(), type=getattr(idlc_acp, type_name), dec_hook=dec_hook
        )


def test_open_enums_and_open_variants_keep_unknown_values() -> None:
    import idlc_acp
    from idlc_runtime.hooks import dec_hook, enc_hook

    category = msgspec.json.decode(
        b'"_vendor"', type=idlc_acp.SessionConfigOptionCategory, dec_hook=dec_hook
    )
    assert category.value == "_vendor" and not category.known
    raw = {"type": "date-range", "from": "2026"}
    kept = msgspec.json.decode(
        json.dumps(raw).encode(), type=idlc_acp.ElicitationPropertySchema, dec_hook=dec_hook
    )
    assert isinstance(kept, idlc_acp.ElicitationPropertySchemaUnknown)
    assert json.loads(msgspec.json.encode(kept, enc_hook=enc_hook)) == raw


def test_values_equal_to_their_default_decode_and_are_left_out() -> None:
    import idlc_acp
    from idlc_runtime.hooks import dec_hook

    raw = {"type": "object", "properties": {}}
    decoded = msgspec.json.decode(
        json.dumps(raw).encode(), type=idlc_acp.ElicitationSchema, dec_hook=dec_hook
    )
    assert decoded.type is idlc_acp.ElicitationSchemaType.OBJECT
    caps = msgspec.json.decode(
        b'{"http": false, "sse": false}', type=idlc_acp.McpCapabilities, dec_hook=dec_hook
    )
    assert caps == idlc_acp.McpCapabilities() and msgspec.json.encode(caps) == b"{}"
    assert schema_errors({}, "McpCapabilities") == []


def test_absent_capabilities_are_the_records_at_their_defaults() -> None:
    """G4 (docs/acp-gaps.md): the schema's defaults of the capability records are `{}`."""
    import idlc_acp

    request = msgspec.json.decode(b'{"protocolVersion": 1}', type=idlc_acp.InitializeRequest)
    assert request.client_capabilities.fs.read_text_file is False
    assert request.client_capabilities.auth.terminal is False
    answer = msgspec.json.decode(b'{"protocolVersion": 1}', type=idlc_acp.InitializeResponse)
    capabilities = answer.agent_capabilities
    assert capabilities.prompt_capabilities.image is False
    assert capabilities.mcp_capabilities.http is False
    assert capabilities.session_capabilities.list_ is None
