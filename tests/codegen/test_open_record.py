"""`open record`: a record that keeps the members it does not declare (docs/language.md,
"Open records"; ACP's unstable `McpError`, docs/acp-gaps.md G15) — decoding on both paths,
encoding, and where it stands: lists, maps, optionals, unions, params."""

from __future__ import annotations

import asyncio
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
from idlc_runtime import PeerOptions, memory_pair
from idlc_runtime.codec import hooks, lenient
from tests.generated import generated_package

IDL = """
type Failure = open record {
  code: int32;
  message: string;
  data: optional<nullable<json>>;
  retryOf: list<Failure> = [] skip-invalid;
  level: optional<Level> lenient;
};
type Level = enum { "low"; "high"; };
type Closed = record { code: int32; };
type Holder = record {
  one: Failure;
  many: list<Failure> = [];
  byName: map<string, Failure> = {};
  maybe: optional<Failure>;
  either: optional<Either>;
};
type Either = union { Failure; Closed; };
interface Relay id "relay" revision "relay@1" {
  operation forward id "relay:forward" : Failure -> Failure {
    call id "relay:forward:call" execution transaction;
  }
  operation note id "relay:note" : open record { text: string; } -> list<string> {
    call id "relay:note:call" execution transaction;
  }
}
"""

DECLARED = {"code", "message", "data", "retryOf", "level"}


@pytest.fixture(scope="module")
def g() -> Iterator[ModuleType]:
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_open_record", IDL) as package:
            yield package


def _decode(type_: Any, data: Any) -> Any:
    return msgspec.json.Decoder(type_, dec_hook=hooks.dec_hook).decode(json.dumps(data))


def _encode(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))


def test_undeclared_members_are_kept_and_sent_back(g: ModuleType) -> None:
    raw = {"code": 1, "message": "m", "x": [1, {"y": None}], "z": None}
    failure = _decode(g.Failure, raw)
    assert failure.code == 1 and failure.message == "m"
    assert failure.extra == {"x": [1, {"y": None}], "z": None}
    assert _encode(failure) == raw


def test_a_closed_record_still_drops_them(g: ModuleType) -> None:
    assert _encode(_decode(g.Closed, {"code": 1, "x": 2})) == {"code": 1}


def test_declared_fields_win_over_extra_on_a_name_clash(g: ModuleType) -> None:
    failure = g.Failure(code=2, message="m", extra={"code": 9, "retryOf": [1], "other": True})
    assert _encode(failure) == {"code": 2, "message": "m", "other": True}


def test_target_is_a_member_like_any_other_to_the_record(g: ModuleType) -> None:
    """Only the runtime's handling takes out a `$target` that routed a call (docs/wire.md
    §5; below); to the record it is data."""
    failure = _decode(g.Failure, {"code": 1, "message": "m", "$target": "k"})
    assert failure.extra == {"$target": "k"}
    assert _encode(failure) == {"code": 1, "message": "m", "$target": "k"}


def test_built_by_hand(g: ModuleType) -> None:
    failure = g.Failure(code=1, message="m")
    assert failure.extra == {} and failure.retry_of == [] and failure.data is msgspec.UNSET
    failure.message = "n"
    assert failure == g.Failure(code=1, message="n")
    assert failure != g.Failure(code=1, message="n", extra={"a": 1})
    assert "extra={'a': 1}" in repr(g.Failure(code=1, message="n", extra={"a": 1}))
    with pytest.raises(TypeError):
        g.Failure(message="no code")


def test_inside_lists_maps_optionals_and_unions(g: ModuleType) -> None:
    inner = {"code": 3, "message": "i", "kept": "yes"}
    raw = {
        "one": {"code": 1, "message": "a", "retryOf": [inner], "k": 1},
        "many": [inner, {"code": 4, "message": "b"}],
        "byName": {"x": inner},
        "maybe": inner,
        "either": inner,
    }
    holder = _decode(g.Holder, raw)
    assert holder.one.retry_of[0].extra == {"kept": "yes"}
    assert holder.by_name["x"].extra == {"kept": "yes"}
    assert isinstance(holder.either, g.Failure) and holder.either.extra == {"kept": "yes"}
    assert _encode(holder) == raw
    assert _decode(g.Holder, {"one": inner, "maybe": None}).maybe is None


def test_errors_name_the_path(g: ModuleType) -> None:
    with pytest.raises(msgspec.ValidationError, match=r"Expected `int`.*\.code.*\$\.one"):
        _decode(g.Holder, {"one": {"code": "x", "message": "m"}})
    with pytest.raises(msgspec.ValidationError, match=r"Expected `object`, got `array`"):
        _decode(g.Holder, {"one": []})


def test_the_slow_path_keeps_them_too(g: ModuleType) -> None:
    """A `lenient` field or a `skip-invalid` item makes the strict decode fail: the lenient
    path decodes the declared fields and keeps the others, at any depth."""
    raw = {
        "code": 1,
        "message": "m",
        "level": "unheard-of",
        "retryOf": [{"code": 2, "message": "n", "k": 2}, {"code": "bad"}],
        "k": 1,
    }
    strict = msgspec.json.Decoder(g.Failure, dec_hook=hooks.dec_hook)
    decoded = lenient.LenientDecoder(g.Failure, strict).decode(json.dumps(raw))
    assert decoded.level is None and decoded.extra == {"k": 1}
    assert [item.extra for item in decoded.retry_of] == [{"k": 2}]
    assert _encode(decoded) == {
        "code": 1,
        "message": "m",
        "retryOf": [{"code": 2, "message": "n", "k": 2}],
        "k": 1,
    }
    with pytest.raises(msgspec.ValidationError, match=r"Expected `object`"):
        lenient.convert(3, g.Failure)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
_UNDECLARED = st.dictionaries(
    (st.just("$target") | st.text(max_size=6)).filter(lambda key: key not in DECLARED),
    _JSON,
    max_size=4,
)


@settings(max_examples=80, deadline=None)
@given(
    extra=_UNDECLARED,
    data=st.none() | _JSON | st.just("absent"),
    nested=st.lists(_UNDECLARED, max_size=2),
)
def test_any_object_with_valid_declared_fields_round_trips(
    g: ModuleType, extra: dict[str, Any], data: Any, nested: list[dict[str, Any]]
) -> None:
    raw: dict[str, Any] = {**extra, "code": 7, "message": "m"}
    if data != "absent":
        raw["data"] = data
    if nested:
        raw["retryOf"] = [{"code": i, "message": "n", **more} for i, more in enumerate(nested)]
    value = _decode(g.Failure, raw)
    assert value.extra == extra
    assert _encode(value) == raw
    assert lenient.convert(raw, g.Failure) == value  # the slow path decodes it alike


def test_through_a_connection_to_a_keyed_object(g: ModuleType) -> None:
    """Params and results of a real call keep the members; the `$target` the proxy adds
    beside them addresses the object and is not one of them (docs/wire.md §5)."""
    received: list[Any] = []

    class Relay(g.Relay):  # type: ignore[misc,name-defined]
        async def forward(self, input: Any) -> Any:
            received.append(input)
            return input

        async def note(self, input: Any) -> list[str]:
            received.append(input)
            return sorted(input.extra)

    async def run() -> None:
        async with memory_pair(None, None) as (client, server):
            server.register("k", Relay())
            proxy = g.RelayProxy(client, "k")
            sent = g.Failure(code=1, message="m", extra={"retryAfterMs": 5, "hint": {"a": [1]}})
            assert await proxy.forward(sent) == sent
            note = g.RelayNoteInput(text="t", extra={"x": 1})
            assert await proxy.note(note) == ["x"]

    asyncio.run(run())
    assert [item.extra for item in received] == [{"retryAfterMs": 5, "hint": {"a": [1]}}, {"x": 1}]


def test_without_routing_target_reaches_the_handler_in_extra(g: ModuleType) -> None:
    """`PeerOptions(route_targets=False)` (ACP's wire): `$target` is an ordinary member of
    params, so an open record keeps it (review finding: it was always dropped)."""
    received: list[Any] = []

    class Relay(g.Relay):  # type: ignore[misc,name-defined]
        async def forward(self, input: Any) -> Any:
            received.append(input)
            return input

    async def run() -> Any:
        options = PeerOptions(route_targets=False)
        async with memory_pair(None, Relay(), options=options) as (client, _server):
            params = {"code": 1, "message": "m", "$target": "x"}
            return await client.request("relay:forward:call", params, Any)

    assert asyncio.run(run()) == {"code": 1, "message": "m", "$target": "x"}
    assert [item.extra for item in received] == [{"$target": "x"}]


# -- checks --------------------------------------------------------------------------------


def _codes(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "t.idl"
        source.write_text(text, encoding="utf-8")
        return [d.code.id for d in compile_files([source]).diagnostics if d.code.id.startswith("E")]


def test_a_field_named_extra_is_e0113() -> None:
    assert _codes("type R = open record { extra: string; };") == [codes.PYTHON_NAME_COLLISION.id]
    assert _codes("type R = record { extra: string; };") == []


@pytest.mark.parametrize(
    "idl",
    [
        'type V = variant tag "k" { "a": open record { x: string; }; };',
        'type R = open record { x: string; }; type V = variant tag "k" { default: R; };',
        "type R = open record { x: string; }; type Q = record { y: string; };"
        ' type V = variant tag "k" { "a": union { Q; R; }; };',
        'type R = open record { x: string; }; type I = variant tag "j" { "b": R; };'
        ' type V = variant tag "k" { "a": I; };',
    ],
)
def test_an_open_record_as_a_variant_case_is_e0130(idl: str) -> None:
    assert codes.OPEN_RECORD_CASE.id in _codes(idl)


def test_an_open_record_is_an_object_like_any_record() -> None:
    idl = "type R = open record { a: int32 = 1; }; type S = record { r: R = {}; };"
    assert _codes(idl) == []
