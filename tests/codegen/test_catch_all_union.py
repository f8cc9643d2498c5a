"""A union whose last alternative is `json`: any value no earlier alternative decodes, kept
as it came (docs/language.md, "Unions"; ACP v2's `ErrorData` and `ElicitationContentValue`,
G19 of docs/acp-gaps.md). Decoded by the hooked-union path on both decoding paths, encoded
as it is; `json` anywhere else stays refused; `idlc breaking` reads a trailing `json` added
as a widening of what is read."""

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

from idlc.breaking import rules
from idlc.breaking.compare import compare
from idlc.diagnostics import codes
from idlc.pipeline import compile_files
from idlc_runtime.codec import hooks, lenient
from tests.generated import generated_package

IDL = """
type NotFound = record { sessionId: string; };
type Unsupported = record { protocolVersion: uint16; supported: list<uint16> = []; };
type Other = json;
type ErrorData = union { Unsupported; NotFound; Other; };
type Value = union { string; int64; float64; bool; list<string>; json; };
type Holder = record {
  data: optional<ErrorData>;
  value: optional<Value> lenient;
  values: list<Value> = [];
  count: uint32 = 0 lenient;
};
"""


@pytest.fixture(scope="module")
def g() -> Iterator[ModuleType]:
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_catch_all", IDL) as package:
            yield package


def _decode(g: ModuleType, data: dict[str, Any]) -> Any:
    """`data` as a `Holder`, on the strict path, checked equal to the lenient path's."""
    strict = msgspec.json.Decoder(g.Holder, dec_hook=hooks.dec_hook).decode(json.dumps(data))
    assert lenient.convert(data, g.Holder) == strict
    return strict


def _encode(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))


def test_each_alternative_in_order_then_the_value_as_it_came(g: ModuleType) -> None:
    assert _decode(g, {"data": {"sessionId": "s"}}).data == g.NotFound(session_id="s")
    unsupported = _decode(g, {"data": {"protocolVersion": 2, "supported": [1]}}).data
    assert type(unsupported).__name__.startswith("Unsupported")
    assert unsupported.protocol_version == 2 and unsupported.supported == [1]
    # No record decodes: the value itself, whatever its kind.
    for other in ({"x": 1}, {"protocolVersion": "x"}, 5, "text", [1, {"a": None}], True):
        assert _decode(g, {"data": other}).data == other
    assert _decode(g, {"value": "a"}).value == "a"
    assert _decode(g, {"value": 3}).value == 3 and type(_decode(g, {"value": 3}).value) is int
    assert _decode(g, {"value": 2.5}).value == 2.5
    assert _decode(g, {"value": True}).value is True
    assert _decode(g, {"value": ["a", "b"]}).value == ["a", "b"]
    for other in ([1, 2], {"o": 1}, ["a", 1]):
        assert _decode(g, {"value": other}).value == other
    assert _decode(g, {"values": [1, "a", None, [2], {}]}).values == [1, "a", None, [2], {}]


def test_encoded_as_it_is(g: ModuleType) -> None:
    for raw in (
        {"data": {"sessionId": "s"}},
        {"data": {"protocolVersion": 2, "supported": [1]}},
        {"data": {"anything": [1, None]}},
        {"data": 7},
        {"value": ["a"], "values": [{"k": "v"}, 1.5, False]},
    ):
        assert _encode(_decode(g, raw)) == raw
    assert _encode(g.Holder(data={"free": 1}, value=[None])) == {
        "data": {"free": 1},
        "value": [None],
    }


def test_the_lenient_path_around_it(g: ModuleType) -> None:
    # The catch-all never fails, so a lenient field elsewhere is what falls back.
    holder = lenient.convert({"value": {"odd": 1}, "count": "x"}, g.Holder)
    assert holder == g.Holder(value={"odd": 1})


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=100, deadline=None)
@given(value=_JSON)
def test_any_json_value_round_trips(g: ModuleType, value: Any) -> None:
    for key in ("data", "value"):
        raw = {key: value}
        decoded = _decode(g, raw)
        if value is None:
            assert getattr(decoded, key) is None  # `optional<…>`: absent
            continue
        assert _encode(decoded) == raw
        assert _decode(g, _encode(decoded)) == decoded


def _errors(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "bad.idl"
        source.write_text(text, encoding="utf-8")
        return sorted(
            d.code.id for d in compile_files([source]).diagnostics if d.code.id.startswith("E")
        )


@pytest.mark.parametrize(
    ("union", "expected"),
    [
        ("union { string; record { a: string; }; json; }", []),
        ("union { list<string>; json; }", []),
        # `json` anywhere but last: what follows it can never be chosen (E0122, as before).
        ("union { json; string; }", [codes.INVALID_UNION.id]),
        ("union { string; json; record { a: string; }; }", [codes.INVALID_UNION.id]),
        # Without a last `json`, a union of kinds msgspec cannot tell apart is refused.
        ("union { record { a: string; }; map<string, string>; }", [codes.UNREPRESENTABLE_UNION.id]),
    ],
)
def test_json_is_allowed_last_only(union: str, expected: list[str]) -> None:
    assert _errors(f"type U = {union};\n") == expected


def test_the_refusal_says_json_may_come_last() -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "bad.idl"
        source.write_text(
            "type U = union { record { a: string; }; map<string, string>; };\n",
            encoding="utf-8",
        )
        diagnostics = compile_files([source]).diagnostics
    (e0203,) = [d for d in diagnostics if d.code is codes.UNREPRESENTABLE_UNION]
    assert "`json` alternative is allowed last" in (e0203.help or "")


_INTERFACE = """
type Data = union {{ record {{ a: string; }}; {extra} }};
interface Svc id "svc" revision "svc@1" {{
  operation {name} id "svc:op" : {input} -> {output} {{call id "svc:op:call" execution transaction;}}
}}
"""


def _model(folder: Path, name: str, extra: str, *, output: bool) -> Any:
    source = folder / f"{name}.idl"
    source.write_text(
        _INTERFACE.format(
            extra=extra,
            name="op",
            input="unit" if output else "Data",
            output="Data" if output else "unit",
        ),
        encoding="utf-8",
    )
    compilation = compile_files([source])
    assert compilation.model is not None, list(compilation.diagnostics)
    return compilation.model


@pytest.mark.parametrize(
    ("old", "new", "output", "expected"),
    [
        # Added: what is read widens; only peers reading an output may be surprised.
        ("", "json;", False, []),
        ("", "json;", True, [rules.CLOSED_SET_EXTENDED.id]),
        # Removed: callers may send what is now refused; outputs only narrow.
        ("json;", "", False, [rules.DECODING_MADE_STRICTER.id]),
        ("json;", "", True, []),
        # Anything else added stays a change of the union.
        ("", "string;", False, [rules.TYPE_CHANGED.id]),
    ],
)
def test_breaking_reads_a_trailing_json_as_widening(
    old: str, new: str, output: bool, expected: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        before = _model(Path(folder), "old", old, output=output)
        after = _model(Path(folder), "new", new, output=output)
    comparison = compare(before, after)
    found = [change.rule.id for report in comparison.interfaces for change in report.changes]
    assert found == expected
