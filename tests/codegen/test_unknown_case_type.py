"""`unknown: T;` in an `open variant`: the object of a tag this side does not know must also
decode as T, a record or a union of records (docs/language.md, "Variants"; ACP's
`CreateElicitationRequest`, whose unknown modes need a session or a request scope:
docs/acp-gaps.md G16) — both decoding paths, encoding, the attributes, the checks."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import codes
from idlc.pipeline import compile_files
from idlc_runtime.codec import hooks, lenient
from tests.generated import generated_package
from tests.syntax.support import fmt

IDL = """
type SessionScope = record { sessionId: string; toolCallId: optional<string> lenient; };
type RequestScope = record { requestId: nullable<union { int64; string; }>; };
type Request = open variant tag "mode" fields { message: string; } {
  "form": record { schema: string; };
  unknown: union { SessionScope; RequestScope; };
};
type Kind = open variant tag "kind" {
  "a": record { x: string; };
  /// What a new kind still carries.
  unknown: record { id: string; note: optional<string> lenient; };
};
type Holder = record { requests: list<Request> = []; kinds: map<string, Kind> = {}; };
"""


@pytest.fixture(scope="module")
def g() -> Iterator[ModuleType]:
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_unknown_case_type", IDL) as package:
            yield package


def _decode(g: ModuleType, data: Any) -> Any:
    strict = msgspec.json.Decoder(g.Holder, dec_hook=hooks.dec_hook)
    return lenient.LenientDecoder(g.Holder, strict).decode(json.dumps(data))


def _encode(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))


def test_an_unknown_tag_must_also_be_the_unknown_type(g: ModuleType) -> None:
    scoped = {"mode": "_vendor", "message": "m", "sessionId": "s", "more": [1]}
    holder = _decode(g, {"requests": [scoped]})
    (request,) = holder.requests
    assert isinstance(request, g.RequestUnknown) and request.message == "m"
    assert isinstance(request._idlc_typed, g.SessionScope)
    assert _encode(holder) == {"requests": [scoped]}
    by_request = {"mode": "_vendor", "message": "m", "requestId": None}
    assert _encode(_decode(g, {"requests": [by_request]})) == {"requests": [by_request]}
    with pytest.raises(msgspec.ValidationError, match="alternative"):
        _decode(g, {"requests": [{"mode": "_vendor", "message": "m"}]})


def test_a_known_tag_needs_nothing_of_it(g: ModuleType) -> None:
    form = {"mode": "form", "message": "m", "schema": "s"}
    assert isinstance(_decode(g, {"requests": [form]}).requests[0], g.RequestForm)


def test_the_unknown_class_exposes_the_fields_of_a_record(g: ModuleType) -> None:
    raw = {"kind": "new", "id": "i", "note": "n", "k": 1}
    kind = _decode(g, {"kinds": {"x": raw}}).kinds["x"]
    assert isinstance(kind, g.KindUnknown) and (kind.id, kind.note) == ("i", "n")
    with pytest.raises(msgspec.ValidationError, match="`id`"):
        _decode(g, {"kinds": {"x": {"kind": "new"}}})


def test_a_lenient_field_of_it_falls_back_on_the_slow_path(g: ModuleType) -> None:
    """Only the lenient path can rescue it; the value it fell back to goes out."""
    raw = {"kind": "new", "id": "i", "note": 5, "k": 1}
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"kinds": {"x": raw}}, g.Holder, dec_hook=hooks.dec_hook)
    kind = _decode(g, {"kinds": {"x": raw}}).kinds["x"]
    assert kind.note is None
    assert _encode(kind) == {"kind": "new", "id": "i", "k": 1}


def test_built_by_hand_it_must_decode_too(g: ModuleType) -> None:
    assert g.KindUnknown({"kind": "new", "id": "i"}).id == "i"
    with pytest.raises(msgspec.ValidationError):
        g.KindUnknown({"kind": "new"})


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=5,
)


@settings(max_examples=80, deadline=None)
@given(
    mode=st.text(max_size=6).filter(lambda mode: mode != "form"),
    scope=st.sampled_from(["sessionId", "requestId", None]),
    others=st.dictionaries(
        st.text(max_size=5).filter(
            lambda key: key not in ("mode", "message", "sessionId", "requestId", "toolCallId")
        ),
        _JSON,
        max_size=3,
    ),
)
def test_an_unknown_mode_decodes_exactly_when_it_has_a_scope(
    g: ModuleType, mode: str, scope: str | None, others: dict[str, Any]
) -> None:
    raw: dict[str, Any] = {**others, "mode": mode, "message": "m"}
    if scope is not None:
        raw[scope] = "s"
    try:
        holder = _decode(g, {"requests": [raw]})
    except msgspec.ValidationError:
        assert scope is None
        return
    assert scope is not None
    assert _encode(holder) == {"requests": [raw]}


# -- checks, layout, compatibility -----------------------------------------------------------


def _codes(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "t.idl"
        source.write_text(text, encoding="utf-8")
        found = compile_files([source]).diagnostics
        return sorted(d.code.id for d in found if d.code.id.startswith("E"))


@pytest.mark.parametrize(
    ("idl", "expected"),
    [
        ('type V = variant tag "k" { "a": unit; unknown: record { x: string; }; };', ["E0131"]),
        ('type V = open variant tag "k" { unknown: string; };', ["E0119"]),
        ('type V = open variant tag "k" { unknown: record { k: string; }; };', ["E0121"]),
        (
            'type V = open variant tag "k" fields { x: string; } { unknown: record { x: string; }; };',
            ["E0107"],
        ),
        ('type V = open variant tag "k" { unknown: record { data: string; }; };', ["E0205"]),
        ('type V = open variant tag "k" { unknown: open record { x: string; }; };', ["E0130"]),
        ('type V = open variant tag "k" { unknown: record { x: string; }; };', []),
        # A variant as a case: its `unknown:` fields sit beside the outer tag too.
        (
            'type I = open variant tag "j" { unknown: record { k: string; }; };'
            ' type V = open variant tag "k" { "a": I; };',
            ["E0121"],
        ),
        (
            'type I = open variant tag "j" { unknown: record { tag: string; }; };'
            ' type V = open variant tag "k" { "a": I; };',
            ["E0205", "E0205"],
        ),
    ],
)
def test_checks(idl: str, expected: list[str]) -> None:
    assert _codes(idl) == expected
    assert all(code in codes.REGISTRY for code in expected)


def test_fmt_keeps_it() -> None:
    text = 'type V = open variant tag "k" {unknown:record {x:string;};};'
    assert "unknown : record { x : string; };" in fmt(text)
