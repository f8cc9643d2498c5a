"""Where a decode chooses — a variant's tagged case or its `default:` case, an untagged
union's alternative — the strict path and the lenient one choose alike (docs/wire.md §4):
the strict path converts a choice that can meet a `lenient` field leniently before trying
the next one, so the result never depends on which path ran."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_runtime.codec import lenient
from idlc_runtime.codec.decoders import decoder_for
from idlc_runtime.hooks import dec_hook, enc_hook
from tests.generated import generated_package

IDL = """
type W = record { z: int64 = 0 lenient; };
type V = variant tag "k" {
  "a": record { x: int64; w: optional<W>; };
  default: record { y: optional<string>; };
};
type V2 = variant tag "k" {
  "a": record { x: int64; };
  default: record { y: optional<string>; };
};
type A = record { v: V; };
type A2 = record { v: V2; };
type B = record { v: json; };
type U = union { A; B; };
type U2 = union { A2; B; };
type L = record { x: int64; n: int64 = 0 lenient; };
type M = record { x: int64; n: string; };
type LM = union { L; M; };
type Shape = open variant tag "k" fields { id: string; tags: list<string> = [] skip-invalid; } {
  "a": record { x: int64; w: optional<W>; };
  "u": LM;
  unknown: record { size: int32 = 0 lenient; n: optional<string>; };
  default: record { y: optional<Rich>; };
};
type Rich = record {
  u: optional<U>;
  lm: optional<LM>;
  shape: optional<Shape>;
  shapes: list<Shape> = [] skip-invalid;
  v: optional<V>;
  nul: list<int64> null-default;
  lv: optional<V2> lenient;
};
"""


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with generated_package(tmp_path_factory.mktemp("paths"), "gen_paths", IDL) as module:
        yield module


def strict(type_: Any, value: Any) -> Any:
    """The strict decode alone, as `msgspec.json.Decoder(T, dec_hook=…)` gives it."""
    return msgspec.json.Decoder(type_, dec_hook=dec_hook).decode(json.dumps(value))


# The tagged case "a" does not decode (x is not an int); a `lenient` field sits below it.
BAD_CASE = {"v": {"k": "a", "x": "bad"}}


def test_a_union_over_a_fallback_variant_is_the_same_on_both_paths(gen: ModuleType) -> None:
    """The strict path used to leave case "a" (it can meet `W.z`) to the lenient one
    without falling back, so the union moved on to B; the lenient rule falls back."""
    types = gen._types
    relaxed = lenient.convert(BAD_CASE, types.U)
    assert strict(types.U, BAD_CASE) == relaxed
    assert type(relaxed) is types.A and type(relaxed.v) is types.VDefault


def test_a_union_whose_earlier_alternative_a_lenient_field_rescues_is_that_alternative(
    gen: ModuleType,
) -> None:
    """The same family without variants: L fails strictly only at its `lenient` field, so
    it is L (n its default), not the later M, on both paths."""
    types = gen._types
    value = {"x": 1, "n": "s"}
    assert strict(types.LM, value) == lenient.convert(value, types.LM) == types.L(x=1, n=0)
    assert strict(types.LM, {"x": 1, "n": 2}) == types.L(x=1, n=2)


def test_the_fallback_can_move_a_union_to_an_earlier_alternative(gen: ModuleType) -> None:
    """docs/language.md "Variants": inside a union, a value whose earlier alternative
    failed only because a variant's tagged case failed is now that alternative, through the
    `default:` case (B before the fallback existed). The tag and `x` are not kept."""
    types = gen._types
    for value in (strict(types.U2, BAD_CASE), lenient.convert(BAD_CASE, types.U2)):
        assert value == types.A2(v=types.V2Default())
        assert json.loads(msgspec.json.encode(value, enc_hook=enc_hook)) == {"v": {}}
    # A `lenient` field no longer takes its default, a `skip-invalid` list no longer drops
    # the item: both keep the default case.
    failing = {"k": "a", "x": "bad", "id": "s"}
    value = {"lv": failing, "shapes": [failing], "nul": []}
    for rich in (strict(types.Rich, value), lenient.convert(value, types.Rich)):
        assert rich.lv == types.V2Default()
        assert rich.shapes == [types.ShapeDefault(id="s")]


# -- any JSON, both paths ---------------------------------------------------------------------

#: A member's value as the types want it, or one that fails them (a lenient field then
#: falls back), or another JSON kind.
ODD = st.sampled_from([None, True, 5, "bad", [], {}])


def either(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(good, good, ODD)


INT = either(st.integers(-2, 2))
STRING = either(st.sampled_from(["", "s"]))
W_VALUE = either(st.fixed_dictionaries({}, optional={"z": INT}))
TAG = st.sampled_from(["a", "u", "b", 5, None])


def shaped(rich: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Objects with the members of V, L and M, and Shape's: the tag, when there, any of
    its cases', an unknown one or not a string."""
    members = {
        "k": TAG,
        "x": INT,
        "w": W_VALUE,
        "y": either(rich | STRING),
        "n": either(st.integers(-2, 2) | STRING),
        "id": STRING,
        "tags": either(st.lists(STRING, max_size=3)),
        "size": INT,
    }
    return st.fixed_dictionaries({}, optional=members)


def rich_values() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        variant = shaped(inner)
        return st.fixed_dictionaries(
            {},
            optional={
                "u": either(st.fixed_dictionaries({"v": either(variant)})),
                "lm": either(variant),
                "shape": either(variant),
                "shapes": either(st.lists(variant, max_size=3)),
                "v": either(variant),
                "nul": st.one_of(st.none(), st.lists(INT, max_size=2)),
            },
        )

    return st.recursive(st.just({}), extend, max_leaves=6)


def values(name: str) -> st.SearchStrategy[Any]:
    rich = rich_values()
    if name == "Rich":
        return rich
    if name in ("U", "U2"):
        return st.fixed_dictionaries({"v": either(shaped(rich))})
    return either(shaped(rich))


@settings(max_examples=400, deadline=None)
@given(data=st.data(), name=st.sampled_from(["U", "U2", "LM", "Shape", "Rich", "V"]))
def test_strict_then_lenient_decodes_as_the_lenient_rule_alone(
    gen: ModuleType, data: st.DataObject, name: str
) -> None:
    """What a peer's decoder gives (strict, then lenient if that fails) is what the
    lenient rule alone gives, or both fail; and the strict decode, when it succeeds, is
    that value too."""
    type_ = getattr(gen._types, name)
    value = data.draw(values(name))
    try:
        expected = lenient.convert(value, type_)
    except msgspec.ValidationError:
        expected = None
    try:
        decoded = decoder_for(type_).decode(json.dumps(value))
    except msgspec.ValidationError:
        decoded = None
    assert decoded == expected
    try:
        alone = strict(type_, value)
    except msgspec.ValidationError:
        return
    assert alone == expected
