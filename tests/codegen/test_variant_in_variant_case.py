"""A variant case whose variant has a variant case: three tags in one object
(docs/language.md, "Variants"; ACP v2's `SessionUpdate` → `StateUpdate` → `IdleStateUpdate`,
G18 of docs/acp-gaps.md). The one-level rules hold at every level: one class per innermost
case, `<Variant><Tag><InnerTag><InnerInnerTag>`, carrying every tag and every level's shared
fields; unknown tags and `default:` cases at each level."""

from __future__ import annotations

import importlib
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
  default: unit;
};
type Update = open variant tag "sessionUpdate" fields { sid: optional<string>; } {
  "state_update": State;
  "note": record { text: string; };
  default: unit;
};
type Holder = record { update: optional<Update> lenient; };
"""


@pytest.fixture(scope="module")
def g() -> Iterator[ModuleType]:
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_variant_three", IDL) as package:
            yield package


def _decode(g: ModuleType, data: dict[str, Any]) -> Any:
    return msgspec.json.Decoder(g.Update, dec_hook=hooks.dec_hook).decode(json.dumps(data))


def _both(g: ModuleType, data: dict[str, Any]) -> Any:
    """`data` decoded on the strict path, checked equal to the lenient path's value."""
    strict = _decode(g, data)
    assert lenient.convert(data, g.Update) == strict
    return strict


def _encode(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))


SU = {"sessionUpdate": "state_update"}
IDLE = {**SU, "state": "idle"}


def test_three_tags_pick_the_innermost_class(g: ModuleType) -> None:
    value = _both(g, {**IDLE, "stopReason": "error", "error": "boom", "usage": 3, "sid": "s"})
    assert value == g.UpdateStateUpdateIdleError(error="boom", usage=3, sid="s")
    assert _both(g, {**IDLE, "stopReason": "end_turn"}) == g.UpdateStateUpdateIdleEndTurn()
    assert _both(g, {**IDLE, "stopReason": "custom", "note": "n", "seq": 2}) == (
        g.UpdateStateUpdateIdleCustom(note="n", seq=2)
    )
    assert _both(g, {**SU, "state": "running"}) == g.UpdateStateUpdateRunning()
    assert _both(g, {**SU, "state": "unknown"}) == g.UpdateStateUpdateUnknown()
    assert _both(g, {"sessionUpdate": "note", "text": "t"}) == g.UpdateNote(text="t")
    # Every class is a case of each variant around it.
    types = importlib.import_module(g.__name__ + "._types")
    for base in ("_UpdateStateUpdateIdleBase", "_UpdateStateUpdateBase", "_UpdateBase"):
        assert isinstance(g.UpdateStateUpdateIdleEndTurn(), getattr(types, base))
        assert isinstance(_decode(g, {**IDLE, "stopReason": "_x"}), getattr(types, base))


def test_a_default_case_at_each_level(g: ModuleType) -> None:
    assert _both(g, {**IDLE, "usage": 1}) == g.UpdateStateUpdateIdleDefault(usage=1)
    assert _both(g, {**SU, "seq": 4}) == g.UpdateStateUpdateDefault(seq=4)
    assert _both(g, {"sid": "s"}) == g.UpdateDefault(sid="s")
    # A malformed tag is the default case of its level (G14).
    assert _both(g, {**IDLE, "stopReason": None}) == g.UpdateStateUpdateIdleDefault()
    assert _both(g, {**SU, "state": 5}) == g.UpdateStateUpdateDefault()
    # A known tag whose case does not decode: the default case of its level.
    assert _both(g, {**IDLE, "stopReason": "custom"}) == g.UpdateStateUpdateIdleDefault()
    assert _both(g, {"sessionUpdate": "note"}) == g.UpdateDefault()


def test_unknown_tags_at_each_level(g: ModuleType) -> None:
    raw = {**IDLE, "stopReason": "_paused", "usage": 2, "seq": 1, "sid": "s"}
    inner = _both(g, raw)
    assert type(inner) is g.UpdateStateUpdateIdleUnknown and inner.tag == "_paused"
    assert (inner.usage, inner.seq, inner.sid) == (2, 1, "s")
    assert _encode(inner) == raw
    middle = _both(g, {**SU, "state": "_sleeping", "seq": 3})
    assert type(middle) is g.UpdateStateUpdateUnknown_ and middle.seq == 3
    assert middle.tag == "_sleeping"
    outer = _both(g, {"sessionUpdate": "_new", "x": 1})
    assert type(outer) is g.UpdateUnknown and _encode(outer) == {"sessionUpdate": "_new", "x": 1}


def test_every_tag_is_encoded(g: ModuleType) -> None:
    assert _encode(g.UpdateStateUpdateIdleEndTurn()) == {**IDLE, "stopReason": "end_turn"}
    assert _encode(g.UpdateStateUpdateIdleError(error="e", seq=2, sid="s")) == {
        **IDLE,
        "stopReason": "error",
        "sid": "s",
        "seq": 2,
        "error": "e",
    }
    assert _encode(g.UpdateStateUpdateIdleDefault(usage=1)) == {**IDLE, "usage": 1}
    assert _encode(g.UpdateStateUpdateDefault()) == SU
    assert _encode(g.UpdateStateUpdateRunning()) == {**SU, "state": "running"}


def test_wrong_values_fail_or_fall_back(g: ModuleType) -> None:
    # A shared field wrong for every case of a level falls back level by level: on the
    # outermost default case, which does not have `seq`; one it has fails.
    assert _both(g, {**IDLE, "stopReason": "error", "seq": "x"}) == g.UpdateDefault()
    with pytest.raises(msgspec.ValidationError, match="sid"):
        _decode(g, {**IDLE, "stopReason": "error", "sid": 5})
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({**IDLE, "stopReason": "error"}, g.UpdateStateUpdateIdleEndTurn)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({**SU, "state": "running"}, g.UpdateStateUpdateIdleEndTurn)
    # The lenient paths of every level: a `lenient` field of the innermost case and of
    # the innermost shared fields fall back; a case that still fails makes the lenient
    # field around it fall back.
    raw = {"update": {**IDLE, "stopReason": "error", "error": 5, "usage": "x"}}
    assert lenient.convert(raw, g.Holder) == g.Holder(update=g.UpdateStateUpdateIdleError())
    raw = {"update": {**IDLE, "stopReason": "error", "sid": 5}}
    assert lenient.convert(raw, g.Holder) == g.Holder()


@st.composite
def _updates(draw: st.DrawFn, g: ModuleType) -> Any:
    seq = draw(st.integers(0, 2**32 - 1))
    usage = draw(st.none() | st.integers(0, 2**32 - 1))
    text = st.text(max_size=5)
    sid = draw(st.none() | text)
    idle = {"seq": seq, "usage": usage, "sid": sid}
    return draw(
        st.sampled_from(
            [
                g.UpdateStateUpdateIdleEndTurn(**idle),
                g.UpdateStateUpdateIdleError(**idle, error=draw(st.none() | text)),
                g.UpdateStateUpdateIdleCustom(**idle, note=draw(text)),
                g.UpdateStateUpdateIdleDefault(**idle),
                g.UpdateStateUpdateRunning(seq=seq, sid=sid),
                g.UpdateStateUpdateUnknown(seq=seq, sid=sid),
                g.UpdateStateUpdateDefault(seq=seq, sid=sid),
                g.UpdateNote(text=draw(text), sid=sid),
                g.UpdateDefault(sid=sid),
                g.UpdateStateUpdateIdleUnknown({**IDLE, "stopReason": "_" + draw(text)}),
                g.UpdateStateUpdateUnknown_({**SU, "state": "_" + draw(text)}),
                g.UpdateUnknown({"sessionUpdate": "_" + draw(text)}),
            ]
        )
    )


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_every_class_round_trips_on_both_paths(g: ModuleType, data: st.DataObject) -> None:
    value = data.draw(_updates(g))
    encoded = _encode(value)
    assert _decode(g, encoded) == value
    assert lenient.convert(encoded, g.Update) == value


def _errors(text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "bad.idl"
        source.write_text(text, encoding="utf-8")
        return sorted(
            d.code.id for d in compile_files([source]).diagnostics if d.code.id.startswith("E")
        )


def _three(deep: str = "", middle: str = "", outer: str = "", case: str = "unit") -> str:
    return (
        f'type Deep = variant tag "d"{deep} {{ "a": {case}; }};\n'
        f'type Middle = variant tag "m"{middle} {{ "b": Deep; }};\n'
        f'type Outer = variant tag "o"{outer} {{ "c": Middle; }};\n'
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_three(), []),
        # The innermost tag is the outermost tag, or an outermost shared field.
        (_three().replace('tag "d"', 'tag "o"'), [codes.TAG_FIELD_CONFLICT.id]),
        (_three(outer=" fields { d: string; }"), [codes.TAG_FIELD_CONFLICT.id]),
        # An innermost shared field or case field is named like the outermost tag …
        (_three(deep=" fields { o: string; }"), [codes.TAG_FIELD_CONFLICT.id]),
        (_three(case="record { o: string; }"), [codes.TAG_FIELD_CONFLICT.id]),
        # … or like a shared field of a level around it (E0107).
        (
            _three(deep=" fields { n: string; }", outer=" fields { n: string; }"),
            [codes.DUPLICATE_FIELD.id],
        ),
        (
            _three(case="record { n: string; }", middle=" fields { n: string; }"),
            [codes.DUPLICATE_FIELD.id],
        ),
        # Two tags of different levels that are one Python attribute; a field that is.
        (
            _three().replace('tag "d"', 'tag "subKind"').replace('tag "m"', 'tag "sub_kind"'),
            [codes.PYTHON_NAME_COLLISION.id],
        ),
        (
            _three(outer=" fields { sub_kind: string; }").replace('tag "d"', 'tag "subKind"'),
            [codes.PYTHON_NAME_COLLISION.id],
        ),
        # The innermost cases are records, `unit` or a named variant again.
        (
            _three(case="union { string; uint32; }"),
            [codes.INVALID_CASE_TYPE.id] * 2,  # in Deep itself, and as Middle's case
        ),
    ],
)
def test_rules_one_level_down(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


def test_four_levels_name_every_tag() -> None:
    idl = (
        'type L4 = variant tag "t4" { "d": record { x: string; }; };\n'
        'type L3 = variant tag "t3" { "c": L4; };\n'
        'type L2 = variant tag "t2" { "b": L3; };\n'
        'type L1 = variant tag "t1" { "a": L2; };\n'
    )
    with tempfile.TemporaryDirectory() as folder:
        with generated_package(Path(folder), "gen_variant_four", idl) as g:
            value = g.L1ABCD(x="v")
            wire = {"t1": "a", "t2": "b", "t3": "c", "t4": "d", "x": "v"}
            assert _encode(value) == wire
            decoder = msgspec.json.Decoder(g.L1, dec_hook=hooks.dec_hook)
            assert decoder.decode(json.dumps(wire)) == value
            assert lenient.convert(wire, g.L1) == value


_TAG_FIELDS = st.sampled_from(["t1", "t2", "t3", "t4", "subKind", "sub_kind", "n"])
_NAMES = st.sampled_from(["n", "m", "x", "y", "t2", "sub_kind"])
_TAGS = st.sampled_from(["a", "b", "unknown", "Unknown_", "a_b", "aB", "c"])


@st.composite
def _three_levels(draw: st.DrawFn) -> str:
    """Deep inside Middle inside Outer, with names drawn from a small set so that the
    checks' collisions come up often."""

    def variant(name: str, inner: str | None) -> str:
        open_ = "open " if draw(st.booleans()) else ""
        fields = f" fields {{ {draw(_NAMES)}: uint32 = 0; }}" if draw(st.booleans()) else ""
        body = []
        for tag in draw(st.lists(_TAGS, max_size=2, unique=True)):
            kind = draw(st.sampled_from(["unit", "record", "named"]))
            if kind == "record":
                body.append(f'"{tag}": record {{ {draw(_NAMES)}: string = ""; }};')
            else:
                body.append(f'"{tag}": {"Leaf" if kind == "named" else "unit"};')
        if draw(st.booleans()):
            body.append("default: unit;")
        if inner is not None:
            body.append(f'"v": {inner};')
        return f'type {name} = {open_}variant tag "{draw(_TAG_FIELDS)}"{fields} {{ {" ".join(body)} }};\n'

    leaf = f"type Leaf = record {{ {draw(_NAMES)}: bool = false; }};\n"
    return leaf + variant("Deep", None) + variant("Middle", "Deep") + variant("Outer", "Middle")


@settings(max_examples=150, deadline=None)
@given(idl=_three_levels())
def test_any_three_levels_are_reported_or_round_trip(idl: str) -> None:
    """Never a traceback: the checks refuse what the classes could not say, and whatever
    they accept generates a package whose classes of `Outer` encode every tag and read
    back as themselves on both decoding paths."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "three.idl"
        source.write_text(idl, encoding="utf-8")
        compilation = compile_files([source])
        if compilation.model is None:
            assert all(d.code.id.startswith(("E0", "W0")) for d in compilation.diagnostics)
            return
        with generated_package(Path(folder), "gen_variant_three_any", idl) as package:
            decoder = msgspec.json.Decoder(package.Outer, dec_hook=hooks.dec_hook)
            for name in dir(package):
                cls = getattr(package, name)
                if not (
                    name.startswith("OuterV")
                    and isinstance(cls, type)
                    and issubclass(cls, msgspec.Struct)
                ):
                    continue
                value = cls()
                encoded = _encode(value)
                assert decoder.decode(json.dumps(encoded)) == value, (name, encoded)
                assert lenient.convert(encoded, package.Outer) == value, (name, encoded)
