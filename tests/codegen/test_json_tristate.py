"""`optional<nullable<json>>`, the tri-state of `json` (docs/language.md, "Nullable and
tri-state fields"; ACP's unstable `McpError.data`, docs/acp-gaps.md G15): absent, `null`
and a value apart, where `optional<json>` reads `null` as absent."""

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

IDL = """
type Failure = record {
  code: int32;
  data: optional<nullable<json>>;
  loose: optional<json>;
  items: list<optional<nullable<json>>> = [];
};
"""


@pytest.fixture(scope="module")
def g() -> Iterator[ModuleType]:
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_json_tristate", IDL) as package:
            yield package


def _round_trip(g: ModuleType, data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    value = msgspec.json.Decoder(g.Failure, dec_hook=hooks.dec_hook).decode(json.dumps(data))
    return value, json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))


def test_absent_null_and_a_value_stay_apart(g: ModuleType) -> None:
    absent, wire = _round_trip(g, {"code": 1})
    assert absent.data is msgspec.UNSET and wire == {"code": 1}
    null, wire = _round_trip(g, {"code": 1, "data": None, "loose": None})
    assert null.data is None and wire == {"code": 1, "data": None}  # `loose` reads null as absent
    value, wire = _round_trip(g, {"code": 1, "data": {"a": [1, None]}})
    assert value.data == {"a": [1, None]} and wire == {"code": 1, "data": {"a": [1, None]}}


def test_the_slow_path_keeps_them_apart_too(g: ModuleType) -> None:
    decoded = lenient.convert({"code": 1, "data": None, "items": [None, 2]}, g.Failure)
    assert decoded.data is None and decoded.items == [None, 2]
    assert lenient.convert({"code": 1}, g.Failure).data is msgspec.UNSET


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None)
@given(data=st.none() | _JSON, present=st.booleans())
def test_any_json_value_round_trips(g: ModuleType, data: Any, present: bool) -> None:
    raw = {"code": 1, "data": data} if present else {"code": 1}
    value, wire = _round_trip(g, raw)
    assert wire == raw
    assert (value.data is msgspec.UNSET) == (not present)


def _errors(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "t.idl"
        source.write_text(text, encoding="utf-8")
        return [d.code.id for d in compile_files([source]).diagnostics if d.code.id.startswith("E")]


@pytest.mark.parametrize(
    "type_",
    [
        "nullable<json>",  # alone it adds nothing
        "list<nullable<json>>",
        "optional<J>",  # through a name: the typedef itself is `nullable<json>`
    ],
)
def test_nullable_json_elsewhere_is_still_e0129(type_: str) -> None:
    text = f"type J = nullable<json>;\ntype R = record {{ f: {type_}; }};\n"
    found = _errors(text)
    assert found and set(found) == {codes.NULLABLE_OF_NULL.id}


def test_only_the_written_tristate_is_allowed() -> None:
    assert _errors("type R = record { f: optional<nullable<json>>; };\n") == []
