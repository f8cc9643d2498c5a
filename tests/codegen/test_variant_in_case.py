"""A tagged case that is itself a variant on another tag field (docs/language.md,
"Variants"): ACP's unstable `StateUpdate`, whose `idle` case is `IdleStateUpdate`, a variant
on `stopReason` with shared fields and a `default:` case."""

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
type Failure = record { error: optional<string> lenient; };
type Idle = open variant tag "stopReason" fields {
  usage: optional<uint32> lenient;
} {
  "end_turn": unit;
  "error": Failure;
  "custom": record { note: string; };
  default: unit;
};
type State = open variant tag "state" fields { seq: uint32 = 0; } {
  "running": unit;
  "idle": Idle;
  "unknown": unit;
};
type Holder = record { state: optional<State> lenient; };
"""


@pytest.fixture(scope="module")
def g() -> Iterator[ModuleType]:
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_variant_in_case", IDL) as package:
            yield package


def _decode(g: ModuleType, data: dict[str, Any]) -> Any:
    return msgspec.json.Decoder(g.State, dec_hook=hooks.dec_hook).decode(json.dumps(data))


def _encode(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))


def test_the_outer_tag_picks_the_case_and_the_inner_tag_its_class(g: ModuleType) -> None:
    value = _decode(g, {"state": "idle", "stopReason": "error", "error": "boom", "usage": 3})
    assert value == g.StateIdleError(error="boom", usage=3)
    assert _decode(g, {"state": "idle", "stopReason": "end_turn"}) == g.StateIdleEndTurn()
    assert _decode(g, {"state": "idle", "stopReason": "custom", "note": "n"}) == (
        g.StateIdleCustom(note="n")
    )
    # No inner tag: the inner variant's default case.
    assert _decode(g, {"state": "idle", "seq": 4}) == g.StateIdleDefault(seq=4)
    # Unknown inner and outer tags are kept as they came, each by its own variant.
    inner = _decode(g, {"state": "idle", "stopReason": "_paused", "x": 1})
    assert type(inner) is g.StateIdleUnknown and inner.tag == "_paused"
    outer = _decode(g, {"state": "_sleeping"})
    assert type(outer) is g.StateUnknown_
    assert _decode(g, {"state": "unknown"}) == g.StateUnknown()


def test_both_tags_are_encoded(g: ModuleType) -> None:
    assert _encode(g.StateIdleEndTurn()) == {"state": "idle", "stopReason": "end_turn"}
    assert _encode(g.StateIdleError(error="e", seq=2)) == {
        "state": "idle",
        "stopReason": "error",
        "error": "e",
        "seq": 2,
    }
    assert _encode(g.StateIdleDefault(usage=1)) == {"state": "idle", "usage": 1}
    raw = {"state": "idle", "stopReason": "_paused", "x": 1}
    assert _encode(_decode(g, raw)) == raw


def test_a_wrong_inner_tag_or_payload_fails_like_any_case(g: ModuleType) -> None:
    # A known inner tag whose case does not decode falls back on the inner `default:` case,
    # on both paths alike (a `lenient` shared field does not leave it to the lenient one);
    # when that fails too, the error is the tagged case's.
    raw = {"state": "idle", "stopReason": "custom"}
    assert _decode(g, raw) == lenient.convert(raw, g.State) == g.StateIdleDefault()
    with pytest.raises(msgspec.ValidationError, match="seq"):
        _decode(g, {"state": "idle", "stopReason": "custom", "seq": "x"})
    # A tag that is no string is the inner variant's `default:` case, its fallback
    # (docs/language.md, "Variants"; ACP's G14: a malformed `stopReason` is not reported).
    assert _decode(g, {"state": "idle", "stopReason": 5}) == g.StateIdleDefault()
    assert _decode(g, {"state": "idle", "stopReason": None, "usage": 2}) == g.StateIdleDefault(
        usage=2
    )
    with pytest.raises(msgspec.ValidationError, match="stopReason"):
        _decode(g, {"state": "idle", "stopReason": 5, "seq": "x"})  # the fallback fails too
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"state": "idle", "stopReason": "error"}, g.StateIdleEndTurn)


def test_the_slow_path_applies_the_inner_cases_leniency(g: ModuleType) -> None:
    raw = {"state": {"state": "idle", "stopReason": "error", "error": 5, "usage": "x"}}
    assert lenient.convert(raw, g.Holder) == g.Holder(state=g.StateIdleError())
    # A case that still fails (its shared `seq` is wrong for every case, the fallback too)
    # makes the lenient field around it fall back.
    raw = {"state": {"state": "idle", "stopReason": "error", "seq": "x"}}
    assert lenient.convert(raw, g.Holder) == g.Holder()


@st.composite
def _states(draw: st.DrawFn, g: ModuleType) -> Any:
    seq = draw(st.integers(0, 2**32 - 1))
    usage = draw(st.none() | st.integers(0, 2**32 - 1))
    text = st.text(max_size=5)
    return draw(
        st.sampled_from(
            [
                g.StateIdleEndTurn(seq=seq, usage=usage),
                g.StateIdleError(seq=seq, usage=usage, error=draw(st.none() | text)),
                g.StateIdleCustom(seq=seq, usage=usage, note=draw(text)),
                g.StateIdleDefault(seq=seq, usage=usage),
                g.StateRunning(seq=seq),
                g.StateUnknown(seq=seq),
                g.StateIdleUnknown({"state": "idle", "stopReason": "_" + draw(text)}),
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_every_class_round_trips(g: ModuleType, data: st.DataObject) -> None:
    value = data.draw(_states(g))
    assert _decode(g, _encode(value)) == value


def _errors(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "bad.idl"
        source.write_text(text, encoding="utf-8")
        return sorted(
            d.code.id for d in compile_files([source]).diagnostics if d.code.id.startswith("E")
        )


INNER = 'type Inner = variant tag "{tag}"{fields} {{ "a": {case}; }};\n'


@pytest.mark.parametrize(
    ("inner", "outer", "expected"),
    [
        # The inner tag is the outer tag, or an outer shared field.
        (INNER.format(tag="kind", fields="", case="unit"), "", [codes.TAG_FIELD_CONFLICT.id]),
        (INNER.format(tag="sub", fields="", case="unit"), " fields { sub: string; }", ["E0121"]),
        # An inner shared field, or an inner case's field, is named like the outer tag or an
        # outer shared field.
        (INNER.format(tag="sub", fields=" fields { kind: string; }", case="unit"), "", ["E0121"]),
        (
            INNER.format(tag="sub", fields="", case="record { n: uint32; }"),
            " fields { n: uint32; }",
            [codes.DUPLICATE_FIELD.id],
        ),
        # The inner variant's cases must be records, `unit` or (tagged) a named variant,
        # whose tags and shared fields follow the same rules one level down
        # (tests/codegen/test_variant_in_variant_case.py: three levels).
        (
            INNER.format(tag="sub", fields="", case="union { string; uint32; }"),
            "",
            [codes.INVALID_CASE_TYPE.id] * 2,  # in `Inner` itself, and as a case of `Outer`
        ),
        (
            INNER.format(tag="sub", fields="", case="Inner2")
            + 'type Inner2 = variant tag "deep" { "b": unit; };\n',
            "",
            [],
        ),
        (
            INNER.format(tag="sub", fields="", case="Inner2")
            + 'type Inner2 = variant tag "kind" { "b": unit; };\n',
            "",
            [codes.TAG_FIELD_CONFLICT.id],
        ),
        (
            INNER.format(tag="sub", fields="", case="Inner2")
            + 'type Inner2 = variant tag "deep" { "b": Outer; };\n',
            "",
            [codes.INVALID_CASE_TYPE.id] * 3,  # a variant inside itself, at each level
        ),
        # The inner tag's Python attribute is taken by a field of another wire name.
        (
            INNER.format(tag="subKind", fields="", case="record { sub_kind: string; }"),
            "",
            [codes.PYTHON_NAME_COLLISION.id],
        ),
        (
            INNER.format(tag="subKind", fields="", case="unit"),
            " fields { sub_kind: string; }",
            [codes.PYTHON_NAME_COLLISION.id],
        ),
        # Fine: distinct tags and names.
        (INNER.format(tag="sub", fields=" fields { m: string; }", case="unit"), "", []),
    ],
)
def test_checks_of_a_variant_inside_a_case(inner: str, outer: str, expected: list[str]) -> None:
    text = inner + f'type Outer = variant tag "kind"{outer} {{ "x": Inner; }};\n'
    assert _errors(text) == expected


def test_an_inline_variant_as_a_case_is_not_allowed() -> None:
    text = 'type Outer = variant tag "kind" { "x": variant tag "sub" { "a": unit; }; };\n'
    assert _errors(text) == [codes.INVALID_CASE_TYPE.id]


_NAMES = st.sampled_from(["kind", "sub", "subKind", "sub_kind", "state", "n", "m"])
_TAG_VALUES = st.sampled_from(["a", "b", "unknown", "Unknown_", "a_b", "aB", "x"])


@st.composite
def _variant_pairs(draw: st.DrawFn) -> str:
    """An outer variant whose case "c" names an inner variant, with names drawn from a small
    set so that the checks' collisions come up often."""

    def cases(inner: bool) -> list[str]:
        tags = draw(st.lists(_TAG_VALUES, max_size=3, unique=True))
        body = []
        for tag in tags:
            kind = draw(st.sampled_from(["unit", "record", "named"]))
            if kind == "record":
                body.append(f'"{tag}": record {{ {draw(_NAMES)}: string; }};')
            elif kind == "named":
                body.append(f'"{tag}": Leaf;')
            else:
                body.append(f'"{tag}": unit;')
        if draw(st.booleans()):
            body.append("default: unit;")
        if not inner:
            body.append('"c": Inner;')
        return body

    def head(name: str) -> str:
        open_ = "open " if draw(st.booleans()) else ""
        fields = f" fields {{ {draw(_NAMES)}: uint32 = 0; }}" if draw(st.booleans()) else ""
        return f'type {name} = {open_}variant tag "{draw(_NAMES)}"{fields}'

    inner = head("Inner") + " { " + " ".join(cases(True)) + " };\n"
    outer = head("Outer") + " { " + " ".join(cases(False)) + " };\n"
    return f"type Leaf = record {{ {draw(_NAMES)}: bool = false; }};\n" + inner + outer


@settings(max_examples=60, deadline=None)
@given(idl=_variant_pairs())
def test_any_variant_inside_a_case_is_reported_or_generates_importable_code(idl: str) -> None:
    """Never a traceback: the checks refuse what the classes could not say, and whatever
    they accept generates a package that imports, whose classes encode both tags."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "pair.idl"
        source.write_text(idl, encoding="utf-8")
        compilation = compile_files([source])
        if compilation.model is None:
            assert all(d.code.id.startswith(("E0", "W0")) for d in compilation.diagnostics)
            return
        with generated_package(Path(folder), "gen_variant_pair", idl) as package:
            decoder = msgspec.json.Decoder(package.Outer, dec_hook=hooks.dec_hook)
            for name in dir(package):
                cls = getattr(package, name)
                if not (
                    name.startswith("OuterC")
                    and isinstance(cls, type)
                    and issubclass(cls, msgspec.Struct)
                ):
                    continue
                try:
                    value = cls()
                except TypeError:
                    continue  # a required field: nothing to build without values
                encoded = _encode(value)
                assert decoder.decode(json.dumps(encoded)) == value, (name, encoded)
