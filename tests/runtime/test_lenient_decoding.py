"""Forward-compatible fields decode as docs/language.md ("Forward-compatible fields") says.

A small IDL is compiled into a real package; its messages go through the runtime's decoder
(`decoder_for`, as a peer decodes params and results). The property test builds messages
field by field, each field valid or not, together with what the rules say the message
decodes to, and requires exactly that.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.generated import generated_package

IDL = """
type Kind = enum { "a"; "b"; };
type Flavour = open enum { "sweet"; };

type Point = record {
  x : int32;
  y : int32 = 0 lenient;
};

type Shape = variant tag "type" {
  "circle" : record { r : float64; label : optional<string> lenient; };
  "square" : record { side : float64; };
};

type Note = open variant tag "kind" {
  "text" : record { text : string; };
};

type Solo = variant tag "kind" {
  "only" : record { n : optional<int32> lenient; };
};

type Doc = record {
  id : string;
  kind : optional<Kind> lenient;
  flavour : optional<Flavour> lenient;
  count : uint32 = 7 lenient;
  flags : list<bool> = [] lenient skip-invalid;
  points : list<Point> lenient;
  shapes : optional<list<Shape>> skip-invalid;
  notes : list<Note> = [] skip-invalid;
  byName : map<string, Point> lenient;
  strict : optional<Point>;
  child : optional<Doc> lenient;
  tags : list<string> null-default;
  weight : float64 = 1.5 null-default;
  solo : optional<Solo>;
};

interface Inbox id "test:inbox" revision "test:inbox@1" {
  operation post id "test:inbox:post" : Doc -> unit { notify id "inbox/post"; }
}
"""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with generated_package(tmp_path_factory.mktemp("lenient"), "lenient_api", IDL) as module:
        yield module


def decode(api: ModuleType, value: Any) -> Any:
    from idlc_runtime.codec.decoders import decoder_for

    return decoder_for(api.Doc).decode(json.dumps(value))


def plain(value: Any) -> Any:
    """A decoded value as plain JSON (what it encodes to), for comparing."""
    from idlc_runtime.hooks import enc_hook

    return json.loads(msgspec.json.encode(value, enc_hook=enc_hook))


def test_a_message_that_decodes_strictly_takes_the_fast_path(api: ModuleType) -> None:
    from idlc_runtime.codec.decoders import decoder_for
    from idlc_runtime.codec.lenient import LenientDecoder

    decoder = decoder_for(api.Doc)
    assert isinstance(decoder, LenientDecoder)
    valid = {"id": "d", "points": [{"x": 1, "y": 2}], "byName": {}, "kind": "a", "tags": ["t"]}
    assert plain(decoder.decode(json.dumps(valid))) == valid
    # Types that reach no lenient record keep msgspec's own decoder.
    assert not isinstance(decoder_for(api.Kind), LenientDecoder)
    assert not isinstance(decoder_for(list[int]), LenientDecoder)


def test_a_served_notification_decodes_leniently_on_every_path(api: ModuleType) -> None:
    """A notification of the root takes the runtime's direct path, which tries msgspec's
    typed decode alone; a message only the lenient rules decode must still arrive, decoded
    by them, in its place among the others."""
    import asyncio

    from idlc_runtime import memory_pair

    received: list[Any] = []
    all_three = asyncio.Event()

    class Inbox(api.Inbox):  # type: ignore[misc, name-defined]
        async def post(self, input: Any) -> None:
            received.append(input)
            if len(received) == 3:
                all_three.set()

    strict = {"id": "s", "points": [], "byName": {}, "tags": []}
    lenient = {**strict, "id": "l", "count": "many", "kind": "z"}

    async def scenario() -> None:
        async with memory_pair(None, Inbox()) as (client, _server):
            for params in (strict, lenient, strict):
                await client.notify("inbox/post", params)
            async with asyncio.timeout(5):
                await all_three.wait()

    asyncio.run(scenario())
    assert [doc.id for doc in received] == ["s", "l", "s"]
    assert plain(received[1]) == plain(decode(api, lenient))
    assert received[1].count == 7 and received[1].kind is None


def test_each_rule(api: ModuleType) -> None:
    doc = decode(
        api,
        {
            "id": "d",
            "kind": "c",
            "flavour": "salty",
            "count": -1,
            "flags": [True, "no", False, None],
            "points": [{"x": 1, "y": "far"}, {"x": "bad"}],
            "shapes": [{"type": "circle", "r": 1, "label": 5}, {"type": "hexagon"}, {"r": 2}],
            "notes": [{"kind": "image", "src": "x"}, {"kind": "text", "text": 1}, "?"],
            "byName": {"a": {"x": 1}},
            "strict": {"x": 1, "y": []},
            "child": {"id": 5},
            "tags": None,
        },
    )
    assert doc.kind is None  # a value a closed enum does not list
    assert doc.flavour.value == "salty" and not doc.flavour.known  # open enums keep it
    assert doc.count == 7  # its default
    assert doc.flags == [True, False]  # bad items dropped
    assert doc.points == []  # one item fails, the list is not skip-invalid: the default
    assert plain(doc.shapes) == [{"type": "circle", "r": 1.0}]
    assert plain(doc.notes) == [{"kind": "image", "src": "x"}]  # unknown tag kept
    assert plain(doc.by_name) == {"a": {"x": 1}}
    assert plain(doc.strict) == {"x": 1}  # its lenient `y` took its default
    assert doc.child is None


def test_null_default_reads_null_as_the_default_and_nothing_else(api: ModuleType) -> None:
    base = {"id": "d", "points": [], "byName": {}}
    doc = decode(api, {**base, "tags": None, "weight": None})
    assert (doc.tags, doc.weight) == ([], 1.5)
    assert decode(api, {**base, "tags": ["a"], "weight": 2}).tags == ["a"]
    for bad in ({"tags": [1]}, {"weight": "x"}):  # not lenient: other wrong values fail
        with pytest.raises(msgspec.ValidationError):
            decode(api, {**base, **bad})
    with pytest.raises(msgspec.ValidationError):
        decode(api, {**base, "tags": None, "id": None})  # `id` is not null-default


@pytest.mark.parametrize(
    ("message", "path"),
    [
        ({"points": [], "byName": {}, "tags": []}, "$"),  # `id` is missing
        ({"id": 1, "points": [], "byName": {}, "tags": []}, "$.id"),
        ({"id": "d", "byName": {}, "tags": []}, "$"),  # a lenient required list may not be absent
        ({"id": "d", "points": [], "byName": {}, "tags": [], "strict": {"x": "1"}}, "$.strict.x"),
        ({"id": "d", "points": [], "byName": {}, "tags": [], "shapes": 3}, "$.shapes"),
        ({"id": "d", "points": [], "byName": {}, "tags": [], "notes": {}}, "$.notes"),
    ],
)
def test_what_is_not_lenient_still_fails_with_its_path(
    api: ModuleType, message: Any, path: str
) -> None:
    with pytest.raises(msgspec.ValidationError) as failure:
        decode(api, message)
    assert str(failure.value).endswith(f"- at `{path}`"), str(failure.value)


def test_a_one_case_variant_keeps_its_tag_checked_on_the_slow_path(api: ModuleType) -> None:
    # A one-case variant is generated as an alias of its case class; the slow path (taken
    # here because `count` fails) must refuse a wrong tag as the strict decode does.
    base = {"id": "d", "points": [], "byName": {}, "tags": [], "count": "bad"}
    assert decode(api, {**base, "solo": {"kind": "only", "n": "x"}}).solo.n is None
    assert decode(api, {**base, "solo": {"n": 1}}).solo.n == 1
    for tag in ("other", 5, None):
        with pytest.raises(msgspec.ValidationError) as failure:
            decode(api, {**base, "solo": {"kind": tag, "n": 1}})
        assert str(failure.value).endswith("- at `$.solo.kind`"), str(failure.value)


# -- the rules as an oracle ----------------------------------------------------------------

GARBAGE = st.sampled_from([None, True, -1, 2**40, 1.5, "", "z", [], [None], {}, {"q": 1}])
MISSING = object()


def point() -> st.SearchStrategy[tuple[Any, Any]]:
    """(JSON, what it decodes to or MISSING for a failure) of a `Point`."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[Any, Any]:
        x_ok = draw(st.booleans())
        x = draw(st.integers(-5, 5)) if x_ok else draw(GARBAGE.filter(_not_int32))
        value: dict[str, Any] = {"x": x}
        expected: dict[str, Any] = {"x": x}
        choice = draw(st.sampled_from(["absent", "good", "bad"]))
        if choice == "good":
            value["y"] = expected["y"] = draw(st.integers(1, 5))
        elif choice == "bad":
            value["y"] = draw(GARBAGE.filter(_not_int32))
        return value, expected if x_ok else MISSING

    return build()


def _not_int32(value: Any) -> bool:
    return not (type(value) is int and -(2**31) <= value < 2**31)


@st.composite
def documents(draw: st.DrawFn) -> tuple[Any, Any]:
    """A `Doc` message field by field, and what it decodes to (MISSING: it fails)."""
    message: dict[str, Any] = {"id": "d", "byName": {}, "tags": None}
    expected: dict[str, Any] = {"id": "d", "byName": {}, "points": [], "tags": []}
    fails = False

    if draw(st.booleans()):  # kind: lenient optional closed enum
        kind = draw(st.one_of(st.sampled_from(["a", "b"]), GARBAGE))
        message["kind"] = kind
        if kind in ("a", "b"):
            expected["kind"] = kind
    if draw(st.booleans()):  # count: lenient with a default
        count = draw(st.one_of(st.integers(0, 9), GARBAGE))
        message["count"] = count
        if type(count) is int and 0 <= count < 2**32 and count != 7:
            expected["count"] = count
    if draw(st.booleans()):  # flags: lenient skip-invalid list with a default
        items = draw(st.lists(st.one_of(st.booleans(), GARBAGE), max_size=4))
        flags = draw(st.one_of(st.just(items), GARBAGE))
        message["flags"] = flags
        kept = [i for i in flags if isinstance(i, bool)] if isinstance(flags, list) else []
        if kept:
            expected["flags"] = kept
    # points: a lenient required list, not skip-invalid: one bad item empties it
    points = draw(st.lists(point(), max_size=3))
    message["points"] = [value for value, _ in points]
    if all(result is not MISSING for _, result in points):
        expected["points"] = [result for _, result in points]
    if draw(st.booleans()):  # strict: not lenient, but its `y` is
        value, result = draw(point())
        message["strict"] = value
        if result is MISSING:
            fails = True
        else:
            expected["strict"] = result
    return message, MISSING if fails else expected


@settings(max_examples=200, deadline=None)
@given(documents())
def test_messages_decode_exactly_as_the_rules_say(api: ModuleType, sample: tuple[Any, Any]) -> None:
    message, expected = sample
    if expected is MISSING:
        with pytest.raises(msgspec.ValidationError):
            decode(api, message)
        return
    assert plain(decode(api, message)) == expected


def test_decoding_stays_linear_in_the_depth_of_lenient_records(api: ModuleType) -> None:
    """Nested lenient records are converted once each: a deep chain with a bad value at the
    bottom decodes, and its cost grows with the depth, not with its square or worse
    (counted in conversions, not timed)."""
    from idlc_runtime.codec import lenient

    def chain(depth: int) -> Any:
        node: Any = {"id": "leaf", "byName": {}, "points": [], "count": "bad", "tags": []}
        for _ in range(depth):
            node = {"id": "d", "byName": {}, "points": [], "tags": [], "child": node}
        return node

    counts = []
    original = lenient._record
    for depth in (10, 20, 40):
        calls = 0

        def counting(obj: Any, cls: Any) -> Any:
            nonlocal calls
            calls += 1
            return original(obj, cls)

        lenient._record = counting  # type: ignore[assignment]
        try:
            doc = decode(api, chain(depth))
        finally:
            lenient._record = original  # type: ignore[assignment]
        while doc.child is not None:
            doc = doc.child
        assert doc.id == "leaf" and doc.count == 7
        counts.append(calls)
    assert counts == [11, 21, 41]


def test_the_seeds_generated_package_registers_nothing() -> None:
    """Packages without the modifiers are generated as before: no registration at all."""
    root = Path(__file__).resolve().parents[2]
    for path in (root / "generated").rglob("*.py"):
        assert "forward_compatible" not in path.read_text(encoding="utf-8"), path


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "kind", "points", "x", "y", "child", "byName", "type", "r"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_any_json_decodes_or_fails_with_a_validation_error(api: ModuleType, value: Any) -> None:
    try:
        decode(api, value)
    except msgspec.ValidationError:
        pass


def test_nesting_too_deep_for_the_slow_path_is_a_validation_error(api: ModuleType) -> None:
    node: Any = {"id": "leaf", "byName": {}, "points": [], "count": "bad", "tags": []}
    for _ in range(5000):
        node = {"id": "d", "byName": {}, "points": [], "tags": [], "child": node}
    from idlc_runtime.codec.lenient import convert

    with pytest.raises(msgspec.ValidationError, match="nested too deeply"):
        convert(node, api.Doc)
