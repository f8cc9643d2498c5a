"""ACP's fixture messages (tests/acp/fixtures: one or more per method, params and results)
decode in the generated TypeScript validators of idl/acp.idl and encode to the JSON the
Python SDK (idlc_acp, the same IDL) encodes them to: the variants, unions, defaults and
forward-compatible fields of a real protocol, read alike by both targets. Messages the
Python runtime refuses (its strict decode, then the lenient one: `decoder_for`) are refused
too, and those its lenient decode rescues are read alike."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from idlc_runtime.codec.decoders import decoder_for
from tests.acp.conftest import FIXTURES
from tests.acp.test_conformance import fixture_cases, spec_of

from .conftest import Node


def python_type(method: str, kind: str) -> Any:
    spec = spec_of(method)
    return spec.params_type if kind == "params" else spec.result_type


def typescript_codec(type_: Any) -> tuple[str, str] | None:
    """The TypeScript package and codec of the Python class `type_`, None for an alias."""
    name = getattr(type_, "__name__", None)
    if name is None or not isinstance(type_, type):
        return None
    if name.startswith("_") and name.endswith("Base"):  # a hooked variant's or union's marker
        name = name[1:-4]
    package = "acp-unstable" if type_.__module__.startswith("idlc_acp.unstable") else "acp"
    return package, name + "Codec"


@pytest.mark.parametrize(("file", "kind", "index"), fixture_cases())
def test_fixture_reads_and_writes_as_in_python(
    node: Node, file: str, kind: str, index: int
) -> None:
    from idlc_runtime.hooks import enc_hook

    doc = json.loads((FIXTURES / file).read_text())
    message = doc[kind][index]
    type_ = python_type(doc["method"], kind)
    found = typescript_codec(type_)
    if found is None:
        pytest.skip(f"{type_} is no class of its own")
    package, codec = found
    text = json.dumps(message)
    decoded = decoder_for(type_).decode(text)
    expected = json.loads(msgspec.json.encode(decoded, enc_hook=enc_hook))
    answer = node.ask(codec, text, package)
    assert "ok" in answer, answer
    assert json.loads(answer["ok"]) == expected


@pytest.mark.parametrize(
    ("type_name", "message"),
    [
        ("ContentBlock", {"type": "video", "url": "x"}),
        ("ContentBlock", {"text": "no tag"}),
        ("SessionUpdate", {"sessionUpdate": "agent_message_chunk"}),
        ("ToolCallLocation", {"path": "/a", "line": -1}),
        ("UsageUpdate", {"used": -5, "size": 1}),
        ("RequestPermissionOutcome", {"outcome": "maybe"}),
    ],
)
def test_schema_invalid_messages_read_as_in_python(
    node: Node, type_name: str, message: Any
) -> None:
    import idlc_acp
    from idlc_runtime.hooks import enc_hook

    answer = node.ask(type_name + "Codec", json.dumps(message), "acp")
    try:
        decoded = decoder_for(getattr(idlc_acp, type_name)).decode(json.dumps(message))
    except msgspec.ValidationError:
        assert "path" in answer, answer
    else:  # a lenient field fell back (ToolCallLocation.line)
        assert json.loads(answer["ok"]) == json.loads(
            msgspec.json.encode(decoded, enc_hook=enc_hook)
        )
