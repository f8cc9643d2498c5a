"""idlc decodes ACP messages from newer peers exactly as the official TypeScript SDK does.

The official SDK parses every incoming message with zod schemas that honour the schema's
`x-deserialize-default-on-error` and `x-deserialize-skip-invalid-items` marks; idlc's
generated types carry the same marks as `lenient` and `skip-invalid` (docs/acp.md,
"Messages from newer peers"; `null-default` for x-deserialize-default-on-null). Here both
decode the same values — the cases the issue names,
then valid messages from tests/acp/fixtures with wrong values put in random places — and
must agree on whether the value decodes and, when it does, on what it decodes to.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from .support import HERE, JS, require_node_modules

Json = Any


class OfficialDecoder:
    """The official SDK's own schemas, in one node process (tests/interop/js/decode.mjs)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ["node", str(JS / "decode.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def decode(self, definition: str, value: Json) -> Json:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"def": definition, "value": value}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        assert "unknown" not in answer, answer
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def official() -> Iterator[OfficialDecoder]:
    require_node_modules()
    decoder = OfficialDecoder()
    yield decoder
    decoder.close()


def ours(definition: str, value: Json) -> Json:
    """idlc's decode of `value` as `definition` (through the runtime's decoder, as a peer
    decodes params and results), re-encoded as JSON; or {"ok": False}."""
    import idlc_acp
    from idlc_runtime.codec.decoders import decoder_for
    from idlc_runtime.hooks import enc_hook

    type_ = getattr(idlc_acp, definition)
    try:
        decoded = decoder_for(type_).decode(json.dumps(value))
    except msgspec.ValidationError:
        return {"ok": False}
    return {"ok": True, "value": json.loads(msgspec.json.encode(decoded, enc_hook=enc_hook))}


def normalized(value: Json) -> Json:
    """Both sides' output with what only tells "nothing" apart dropped: a default the TS
    SDK fills in (`false`, `[]`) and idlc leaves out, and a failed optional list that the TS
    SDK sets to `[]` and idlc to nothing."""
    if isinstance(value, dict):
        kept = {key: normalized(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in (None, False, [], {})}
    if isinstance(value, list):
        return [normalized(item) for item in value]
    return value


def agree(official: OfficialDecoder, definition: str, value: Json) -> None:
    theirs = official.decode(definition, value)
    mine = ours(definition, value)
    assert mine["ok"] == theirs["ok"], (definition, value, theirs)
    if mine["ok"]:
        # The TS SDK's result is a valid message: decoded strictly by idlc and encoded
        # again, it says what idlc's own decode must have said (idlc's encoding leaves
        # defaults out, the TS SDK fills them in).
        canonical = ours(definition, theirs["value"])
        assert canonical["ok"], (definition, theirs)
        assert normalized(mine["value"]) == normalized(canonical["value"]), (definition, value)


# -- the cases the issue names ------------------------------------------------------------


def update(**fields: Json) -> Json:
    return {"sessionId": "s1", "update": fields}


CASES = {
    "notice": update(sessionUpdate="notice", severity="warning", title="Quota", description=7),
    "notice_unknown_severity": update(sessionUpdate="notice", severity="fatal", title="T"),
    "tool_call_unknown_kind": update(
        sessionUpdate="tool_call", toolCallId="t1", title="Browse", kind="browse"
    ),
    "tool_call_update_one_bad_location": update(
        sessionUpdate="tool_call_update",
        toolCallId="t1",
        locations=[{"path": "/a.py", "line": 3}, {"line": 4}, {"path": "/b.py"}],
    ),
    "tool_call_update_bad_status": update(
        sessionUpdate="tool_call_update", toolCallId="t1", status="paused", title=["x"]
    ),
    "deep_default_on_error": update(
        sessionUpdate="tool_call",
        toolCallId="t1",
        title="Read",
        content=[
            {
                "type": "content",
                "content": {
                    "type": "text",
                    "text": "hi",
                    "annotations": {"audience": ["user", "robot", 3], "priority": "high"},
                },
            }
        ],
    ),
    "bad_required_field": update(sessionUpdate="tool_call", toolCallId="t1", title=5),
    "unknown_update": update(sessionUpdate="weather", forecast="rain"),
}

#: An unknown tag of an open variant (a property schema of a kind this version does not
#: know), next to a bad value in a lenient field of a known one.
ELICITATION = {
    "mode": "form",
    "message": "Your details?",
    "sessionId": "s1",
    "requestedSchema": {
        "properties": {
            "when": {"type": "datetime", "title": "When", "timezone": "UTC"},
            "name": {"type": "string", "title": 5},
        },
    },
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_named_cases_decode_as_the_official_sdk_decodes_them(
    official: OfficialDecoder, case: str
) -> None:
    agree(official, "SessionNotification", CASES[case])


NULLS = {
    "NewSessionRequest": {"cwd": "/p", "mcpServers": None},
    "LoadSessionRequest": {
        "sessionId": "s1",
        "cwd": "/p",
        "mcpServers": [{"name": "m", "command": "run", "args": None, "env": None}],
    },
}


@pytest.mark.parametrize("definition", sorted(NULLS))
def test_null_in_a_null_default_place_is_the_empty_list_as_for_the_official_sdk(
    official: OfficialDecoder, definition: str
) -> None:
    agree(official, definition, NULLS[definition])
    assert ours(definition, NULLS[definition])["ok"]


def test_an_unknown_tag_of_an_open_variant_is_kept_as_the_official_sdk_keeps_it(
    official: OfficialDecoder,
) -> None:
    import idlc_acp
    from idlc_runtime.codec.decoders import decoder_for
    from idlc_runtime.hooks import UnknownCase

    agree(official, "CreateElicitationRequest", ELICITATION)
    request = decoder_for(idlc_acp.CreateElicitationRequest).decode(json.dumps(ELICITATION))
    properties = request.requested_schema.properties
    assert isinstance(properties["when"], UnknownCase)
    assert properties["when"].data == ELICITATION["requestedSchema"]["properties"]["when"]
    assert properties["name"].title is None


#: Variants with an untagged `default:` case, and the unknown case of an open variant with
#: shared fields (docs/language.md, "Variants"): (definition, value, whether it decodes).
VARIANT_CASES = {
    "auth_unknown_type": ("AuthMethod", {"type": "oauth", "id": "a", "name": "N"}, True),
    "auth_type_not_a_string": ("AuthMethod", {"type": 5, "id": "a", "name": "N"}, True),
    "auth_terminal_bad_args": (
        "AuthMethod",
        {"type": "terminal", "id": "a", "name": "N", "args": 5},
        True,
    ),
    "auth_fits_no_case": ("AuthMethod", {"type": "oauth", "id": "a"}, False),
    "mcp_http_without_url": (
        "McpServer",
        {"type": "http", "name": "m", "command": "run", "args": [], "env": []},
        True,
    ),
    "config_boolean_with_a_value_id": (
        "SetSessionConfigOptionRequest",
        {"sessionId": "s", "configId": "c", "type": "boolean", "value": "fast"},
        True,
    ),
    "config_boolean_fits_nothing": (
        "SetSessionConfigOptionRequest",
        {"sessionId": "s", "configId": "c", "type": "boolean", "value": 5},
        False,
    ),
    "items_unknown_type": ("MultiSelectItems", {"type": "number", "anyOf": []}, True),
    "items_string_without_enum": ("MultiSelectItems", {"type": "string", "anyOf": []}, True),
    "items_null_type": ("MultiSelectItems", {"type": None, "anyOf": []}, True),
    "elicitation_custom_mode": (
        "CreateElicitationRequest",
        {"mode": "_vendor", "message": "M", "sessionId": "s", "_meta": 5, "extra": [1]},
        True,
    ),
    # An unknown mode must also be tied to a session or a request (`unknown:`, G16).
    "elicitation_custom_mode_without_scope": (
        "CreateElicitationRequest",
        {"mode": "_vendor", "message": "M"},
        False,
    ),
    "elicitation_custom_mode_with_a_request_scope": (
        "CreateElicitationRequest",
        {"mode": "_vendor", "message": "M", "requestId": None, "k": 1},
        True,
    ),
    "elicitation_custom_mode_with_a_bad_scope": (
        "CreateElicitationRequest",
        {"mode": "_vendor", "message": "M", "sessionId": 5},
        False,
    ),
    "elicitation_custom_mode_without_message": (
        "CreateElicitationRequest",
        {"mode": "_vendor", "sessionId": "s"},
        False,
    ),
    "elicitation_custom_action": (
        "CreateElicitationResponse",
        {"action": "later", "_meta": 5, "when": "soon"},
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(VARIANT_CASES))
def test_variant_cases_are_chosen_as_the_official_sdk_chooses_them(
    official: OfficialDecoder, case: str
) -> None:
    definition, value, decodes = VARIANT_CASES[case]
    agree(official, definition, value)
    assert ours(definition, value)["ok"] is decodes


def test_the_named_cases_decode_to_what_the_rule_says() -> None:
    """Independently of the TS SDK: what each case becomes in Python."""
    import idlc_acp
    from idlc_runtime.codec.decoders import decoder_for

    decode = decoder_for(idlc_acp.SessionNotification).decode
    notice = decode(json.dumps(CASES["notice"])).update
    assert (notice.title, notice.description) == ("Quota", None)
    assert decode(json.dumps(CASES["notice_unknown_severity"])).update.severity.value == "fatal"
    assert decode(json.dumps(CASES["tool_call_unknown_kind"])).update.kind is None
    locations = decode(json.dumps(CASES["tool_call_update_one_bad_location"])).update.locations
    assert [(loc.path, loc.line) for loc in locations] == [("/a.py", 3), ("/b.py", None)]
    (content,) = decode(json.dumps(CASES["deep_default_on_error"])).update.content
    annotations = content.content.annotations
    assert (annotations.audience, annotations.priority) == ([idlc_acp.Role.USER], None)
    for bad in ("bad_required_field", "unknown_update"):
        with pytest.raises(msgspec.ValidationError):
            decode(json.dumps(CASES[bad]))


# -- mutated fixtures -----------------------------------------------------------------------


FIXTURES = HERE.parent / "acp" / "fixtures"
SCHEMA = HERE.parents[1] / "idl" / "acp-schema" / "v1" / "schema.json"


def method_defs() -> dict[str, tuple[str, str | None]]:
    """wire method → (params `$defs` name, result's or None)."""
    found: dict[str, dict[str, str]] = {}
    for name, node in json.loads(SCHEMA.read_text())["$defs"].items():
        if "x-method" in node:
            kind = "result" if name.endswith("Response") else "params"
            found.setdefault(node["x-method"], {})[kind] = name
    return {method: (kinds["params"], kinds.get("result")) for method, kinds in found.items()}


def seeds() -> list[tuple[str, Json]]:
    """(definition, value) of every params and result in tests/acp/fixtures."""
    defs = method_defs()
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        fixture = json.loads(path.read_text())
        params, result = defs[fixture["method"]]
        found += [(params, value) for value in fixture["params"]]
        if result is not None:
            found += [(result, value) for value in fixture.get("result", [])]
    return found


SEEDS = seeds()
#: Values of every JSON kind, wrong for most places they land in.
WRONG = [None, True, 0, -1, 1.5, 2**40, "", "other", [], [1], ["x"], {}, {"x": 1}]


def paths(value: Json, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every node under `value` (not `value` itself)."""
    children: Any = ()
    if isinstance(value, dict):
        children = value.items()
    elif isinstance(value, list):
        children = enumerate(value)
    for key, child in children:
        yield (*prefix, key)
        yield from paths(child, (*prefix, key))


def replaced(value: Json, path: tuple[Any, ...], new: Json) -> Json:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    copy = list(value)
    copy[head] = replaced(copy[head], rest, new)
    return copy


def unparsable_elicitation_url(definition: str, value: Json) -> bool:
    """A url-mode elicitation whose `url` is a string but no URL: the TypeScript SDK checks
    the schema's `format: uri` there (its one `format` of a string), idlc_acp takes any
    string (docs/acp-interop.md, "Messages from newer peers"). Not judged."""
    if definition != "CreateElicitationRequest" or not isinstance(value, dict):
        return False
    url = value.get("url")
    return value.get("mode") == "url" and isinstance(url, str) and ":" not in url


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, Json]:
    definition, value = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        places = list(paths(value))
        if not places:
            break
        path, new = draw(st.sampled_from(places)), draw(st.sampled_from(WRONG))
        value = replaced(value, path, new)
    assume(not unparsable_elicitation_url(definition, value))
    return definition, value


@settings(
    max_examples=int(os.environ.get("IDLC_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(mutated())
def test_mutated_messages_decode_exactly_where_the_official_sdk_decodes_them(
    official: OfficialDecoder, sample: tuple[str, Json]
) -> None:
    definition, value = sample
    agree(official, definition, value)


def test_every_seed_decodes_on_both_sides(official: OfficialDecoder) -> None:
    for definition, value in SEEDS:
        agree(official, definition, value)
        assert ours(definition, value)["ok"], definition
