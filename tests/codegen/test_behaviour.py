"""What generated code does: codec round trips and rejections, skeleton defaults."""

from __future__ import annotations

import ast
import asyncio
import importlib
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc_runtime import ErrorCode, Unsupported, hooks, implemented_members

ENCODER = msgspec.json.Encoder(enc_hook=hooks.enc_hook)


def decode(type_: Any, data: bytes) -> Any:
    return msgspec.json.Decoder(type_, dec_hook=hooks.dec_hook).decode(data)


def roundtrip(type_: Any, value: Any) -> Any:
    return decode(type_, ENCODER.encode(value))


@pytest.fixture(scope="module")
def seeds(package_dir: Path) -> Any:
    return importlib.import_module("gen_seeds")


@pytest.fixture(scope="module")
def features(package_dir: Path) -> Any:
    return importlib.import_module("gen_features")


@pytest.fixture(scope="module")
def ext(package_dir: Path) -> Any:
    return importlib.import_module("gen_extensions")


def test_wire_names_and_omitted_optionals(seeds: Any) -> None:
    admission = seeds.AgentAdmission(accepted=True, thread=seeds.AgentThreadObjectRef("t1"))
    assert ENCODER.encode(admission) == b'{"accepted":true,"thread":"t1"}'
    item = seeds.ItemData(
        key="k",
        kind="x",
        text="t",
        phase="p",
        sequence=1,
        version=2,
        created_at="c",
        updated_at="u",
        control=seeds.ItemDataControl(attempt="a", generation=3, status="s", reason="r"),
    )
    data = ENCODER.encode(item)
    assert b'"createdAt":"c"' in data and b'"updatedAt":"u"' in data
    assert roundtrip(seeds.ItemData, item) == item


def test_absent_and_null_optionals_and_unknown_fields(seeds: Any) -> None:
    absent = decode(seeds.AgentAdmission, b'{"accepted":false,"extra":[1,{"x":2}]}')
    null = decode(seeds.AgentAdmission, b'{"accepted":false,"reason":null,"thread":null}')
    assert absent == null == seeds.AgentAdmission(accepted=False)
    assert absent.reason is None and absent.thread is None


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b'{"accepted":"yes"}', "Expected `bool`, got `str` - at `$.accepted`"),
        (b'{"reason":"x"}', "missing required field `accepted`"),
        (b'{"accepted":true,"thread":5}', "Expected `str | null`, got `int` - at `$.thread`"),
    ],
)
def test_invalid_records_name_the_path(seeds: Any, data: bytes, fragment: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=re.escape(fragment)):
        decode(seeds.AgentAdmission, data)


@pytest.mark.parametrize(
    ("value", "ok"),
    [(0, True), (2**32 - 1, True), (2**32, False), (-1, False)],
)
def test_uint32_range(seeds: Any, value: int, ok: bool) -> None:
    data = (
        b'{"sequence":1,"pending":%d,"ordinaryPending":0,"notificationPending":0,"profiles":"","availability":""}'
        % value
    )
    if ok:
        assert decode(seeds.DirectoryData, data).pending == value
    else:
        with pytest.raises(msgspec.ValidationError, match=r"at `\$.pending`"):
            decode(seeds.DirectoryData, data)


@pytest.mark.parametrize(("value", "ok"), [(2**64 - 1, True), (2**64, False), (-1, False)])
def test_uint64_range(seeds: Any, value: int, ok: bool) -> None:
    data = (
        b'{"sequence":%d,"pending":0,"ordinaryPending":0,"notificationPending":0,"profiles":"","availability":""}'
        % value
    )
    if ok:
        decoded = decode(seeds.DirectoryData, data)
        assert decoded.sequence == value
        assert ENCODER.encode(decoded).startswith(b'{"sequence":%d' % value)
    else:
        with pytest.raises(msgspec.ValidationError, match=r"at `\$.sequence`"):
            decode(seeds.DirectoryData, data)


def test_many_unique_result_rejects_duplicates(seeds: Any) -> None:
    spec = seeds.AgentDirectory.__idlc_interface__.requests["agent:directory:agents:resolve"]
    assert decode(spec.result_type, b'["a","b"]') == frozenset({"a", "b"})
    with pytest.raises(msgspec.ValidationError, match=r"^Duplicate entry 'a' at index 2$"):
        decode(spec.result_type, b'["a","b","a"]')


def test_refs_are_distinct_strings(seeds: Any) -> None:
    ref = seeds.AgentObjectRef("x")
    assert ref == "x" and isinstance(ref, str) and hash(ref) == hash("x")
    assert seeds.AgentObjectRef is not seeds.AgentThreadObjectRef
    assert seeds.AgentObjectRef.__name__ == "AgentObjectRef"


def test_variant_tags_default_and_open_unknown(ext: Any) -> None:
    servers = decode(
        list[ext.McpServer],
        b'[{"name":"a","command":"c","env":[]},{"type":"sse","name":"s","url":"u"},'
        b'{"type":"http","name":"h","url":"u","headers":[]}]',
    )
    assert [type(server) for server in servers] == [
        ext.McpServerDefault,
        ext.McpServerSse,
        ext.McpServerHttp,
    ]
    assert ENCODER.encode(servers[0]) == b'{"name":"a","command":"c","env":[]}'
    assert ENCODER.encode(servers[1]).startswith(b'{"type":"sse"')
    with pytest.raises(
        msgspec.ValidationError, match=r"Invalid value 'ftp' for tag field `type` - at `\$\[0\]`"
    ):
        decode(list[ext.McpServer], b'[{"type":"ftp"}]')
    with pytest.raises(
        msgspec.ValidationError, match=r"missing required field `url` - at `\$\[0\]`"
    ):
        decode(list[ext.McpServer], b'[{"type":"sse","name":"s"}]')
    raw = b'{"kind":"oauth","scopes":["a"],"n":1}'
    unknown = decode(ext.AuthMethod, raw)
    assert isinstance(unknown, ext.AuthMethodUnknown) and unknown.tag == "oauth"
    assert ENCODER.encode(unknown) == raw
    assert isinstance(decode(ext.AuthMethod, b'{"kind":"none"}'), ext.AuthMethodNone)
    with pytest.raises(msgspec.ValidationError, match="missing required field `kind`"):
        decode(ext.AuthMethod, b"{}")


def test_untagged_union_takes_first_alternative_that_validates(ext: Any) -> None:
    text = decode(ext.EmbeddedResourceResource, b'{"uri":"u","text":"t"}')
    blob = decode(ext.EmbeddedResourceResource, b'{"uri":"u","blob":"aGk="}')
    assert isinstance(text, ext.TextResource) and isinstance(blob, ext.BlobResource)
    assert blob.blob == b"hi" and ENCODER.encode(blob) == b'{"uri":"u","blob":"aGk="}'
    with pytest.raises(msgspec.ValidationError, match="No alternative matches"):
        decode(ext.EmbeddedResourceResource, b'{"uri":"u"}')


def test_enums_closed_and_open(ext: Any) -> None:
    assert decode(ext.StopReason, b'"end_turn"') is ext.StopReason.END_TURN
    with pytest.raises(msgspec.ValidationError):
        decode(ext.StopReason, b'"sleepy"')
    mauve = decode(ext.ToolKind, b'"mauve"')
    assert mauve.value == "mauve" and not mauve.known and ext.ToolKind.READ.known
    assert mauve == decode(ext.ToolKind, b'"mauve"')
    assert ENCODER.encode(mauve) == b'"mauve"'


def test_field_defaults(features: Any) -> None:
    counters = decode(features.Counters, b'{"data":null,"nested":{"inner":{"depth":1},"more":[]}}')
    assert counters.misses == 7 and counters.ratio == 2.0 and counters.tags == []
    assert counters.mode is features.Priority.NORMAL and counters.flavor is features.Flavor.VANILLA
    assert counters.label == "none"
    assert isinstance(counters.nested, features.CountersNested)
    assert isinstance(counters.nested.inner, features.CountersNestedInner)


# -- hypothesis round trips over the feature corpus types -----------------------------------

_text = st.text(max_size=8)
_u32 = st.integers(0, 2**32 - 1)
_i32 = st.integers(-(2**31), 2**31 - 1)


def _strategies(f: Any) -> dict[str, st.SearchStrategy[Any]]:
    rename = st.builds(f.Rename, old_name=_text, new_name=_text)
    point = st.builds(f.Point, x=_i32, y=_i32)
    node = st.recursive(
        st.builds(
            f.Node,
            label=_text,
            children=st.just([]),
            weights=st.dictionaries(
                _text, st.floats(allow_nan=False, allow_infinity=False), max_size=2
            ),
            attachment=st.none() | st.binary(max_size=6),
        ),
        lambda children: st.builds(
            f.Node,
            label=_text,
            parent=st.none() | children,
            children=st.lists(children, max_size=2),
            weights=st.just({}),
        ),
        max_leaves=6,
    )
    change = st.one_of(
        st.builds(f.ChangeCreated, document=_text.map(f.DocumentObjectRef), at=_text),
        st.builds(f.ChangeRenamed, old_name=_text, new_name=_text),
        st.just(f.ChangeCleared()),
    )
    shape = st.one_of(
        st.builds(f.ShapeCircle, radius=st.floats(allow_nan=False, allow_infinity=False)),
        st.builds(f.ShapeDefault, points=st.lists(point, max_size=3)),
        st.builds(
            lambda tag: f.ShapeUnknown({"kind": tag, "x": 1}), _text.filter(lambda t: t != "circle")
        ),
    )
    counters = st.builds(
        f.Counters,
        hits=st.integers(0, 2**64 - 1),
        misses=_u32,
        mode=st.sampled_from(list(f.Priority)),
        flavor=st.sampled_from(list(f.Flavor)) | _text.map(f.Flavor),
        tags=st.lists(_text, max_size=3),
        label=st.none() | _text,
        data=st.none() | st.integers(-5, 5) | _text | st.lists(st.booleans(), max_size=2),
        nested=st.builds(
            f.CountersNested,
            inner=st.builds(
                f.CountersNestedInner,
                depth=st.integers(0, 255),
                priority=st.none() | st.sampled_from(list(f.Priority)),
            ),
            more=st.lists(
                st.builds(
                    (
                        f.CountersNestedMoreItem
                        if hasattr(f, "CountersNestedMoreItem")
                        else f.CountersNestedMore
                    ),
                    value=st.integers(-(2**15), 2**15 - 1),
                ),
                max_size=2,
            ),
        ),
    )
    return {
        "Rename": rename,
        "Point": point,
        "Node": node,
        "Change": change,
        "Shape": shape,
        "Counters": counters,
        "Either": st.one_of(rename, point),
        "Scalar": st.one_of(_text, st.integers(-(2**63), 2**63 - 1), st.booleans()),
    }


@pytest.mark.parametrize(
    "name", ["Rename", "Point", "Node", "Change", "Shape", "Counters", "Either", "Scalar"]
)
def test_round_trip(features: Any, name: str) -> None:
    strategy = _strategies(features)[name]
    type_ = getattr(features, name)

    @settings(max_examples=60, deadline=None)
    @given(strategy)
    def check(value: Any) -> None:
        assert roundtrip(type_, value) == value

    check()


# -- skeletons ------------------------------------------------------------------------------


def test_unimplemented_members_raise_unsupported(seeds: Any) -> None:
    class Nothing(seeds.AgentRequest):
        pass

    implementation = Nothing()
    spec = seeds.AgentRequest.__idlc_interface__
    assert implemented_members(implementation) == frozenset()

    async def run() -> None:
        for method in spec.methods:
            wire = method.wire
            with pytest.raises(Unsupported) as raised:
                await getattr(implementation, method.member)(**_dummy_arguments(method))
            assert raised.value.method == wire
            assert raised.value.code == ErrorCode.METHOD_NOT_FOUND == -32601

    asyncio.run(run())


def _dummy_arguments(method: Any) -> dict[str, Any]:
    if method.params_type is None:
        return {}
    fields = method.params_type.__struct_fields__
    if method.shape.value == "record" and fields != ("input",):
        return {name: None for name in fields}
    return {}


def test_positional_and_wrapped_inputs_dispatch(seeds: Any, features: Any) -> None:
    class Store(features.DocumentStore):
        async def root(self) -> Any:
            return features.Node(label="r", children=[], weights={})

        async def create(self, **kwargs: Any) -> Any:
            return features.DocumentObjectRef(kwargs["name"])

        async def rename(self, input: Any) -> Any:
            return features.ChangeRenamed(old_name=input.old_name, new_name=input.new_name)

        async def ping(self) -> None:
            return None

    spec = features.DocumentStore.__idlc_interface__
    store = Store()

    async def run() -> None:
        created = spec.requests["store:create:call"]
        params = decode(created.params_type, b'{"name":"n"}')
        assert await created.invoke(store, params) == "n"
        renamed = spec.requests["store:rename:call"]
        assert renamed.shape.value == "record"
        change = await renamed.invoke(
            store, decode(renamed.params_type, b'{"oldName":"a","newName":"b"}')
        )
        assert ENCODER.encode(change) == b'{"op":"renamed","oldName":"a","newName":"b"}'
        touch = spec.requests["store:touch:call"]
        assert touch.shape.value == "wrapped"
        with pytest.raises(Unsupported):
            await touch.invoke(store, decode(touch.params_type, b'{"input":"d1"}'))
        changed = spec.notifications["store:changed:notify"]
        assert changed.notify and changed.execution is None
        assert (
            await changed.invoke(store, decode(changed.params_type, b'{"change":{"op":"cleared"}}'))
            is None
        )

    asyncio.run(run())
    assert implemented_members(store) == frozenset(
        {"store:root:get", "store:create:call", "store:rename:call", "store:ping:notify"}
    )


def test_missing_required_member_fails_clearly(features: Any) -> None:
    class Partial(features.DocumentStore):
        async def root(self) -> Any:
            raise AssertionError

    with pytest.raises(TypeError, match="abstract method.*(create|ping)"):
        Partial()
    assert features.DocumentStore.INTERFACE_ID == "interface:org.example.features:store"
    assert features.DocumentStore.REVISION == "interface:org.example.features:store@3"
    assert "Stores documents." in (features.DocumentStore.__doc__ or "")


def test_hostile_strings_survive(package_dir: Path) -> None:
    hostile = importlib.import_module("gen_hostile")
    tricky = hostile.Tricky(choice=hostile.TrickyChoice("{{e}}"), ref=hostile.QuoteObjectRef("r"))
    assert tricky.text == 'a"b\'c\\d\n{{e}}\x00\u2028"""'
    assert tricky.both == 'it\'s "both"' and tricky.raw == "\\\\" and tricky.single == "it's"
    assert [value.value for value in hostile.TrickyChoice] == [
        'a"b',
        "c\\d",
        "{{e}}",
        "ünï",
        "with space",
    ]
    spec = hostile.Hostile.__idlc_interface__
    assert spec.id == 'interface:"hostile"\\{{}}'
    assert {method.wire for method in spec.methods} == {
        'hostile:"tricky":get\\\n',
        "hostile:éé{{}}",
    }
    tree = ast.parse((package_dir / "gen_hostile" / "_refs.py").read_text(encoding="utf-8"))
    docs = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    ]
    quote_doc = next(doc for doc in docs if "triple quotes" in doc)
    assert '"""triple quotes"""' in quote_doc and "{{ jinja }} {% block %}" in quote_doc
    assert "a backslash \\ at the end \\\n" in quote_doc
    assert any("Ünïcödé doc — ✓ 😀" in doc for doc in docs)
    assert hostile.HostileEscapeInput.__struct_fields__[:4] == (
        "self_",
        "str_",
        "msgspec_",
        "typing_",
    )
    data = ENCODER.encode(
        hostile.HostileEscapeInput(
            self_="a",
            str_="b",
            msgspec_="c",
            typing_="d",
            class_="e",
            input="f",
            params="g",
            impl="h",
        )
    )
    assert (
        data
        == b'{"self":"a","str":"b","msgspec":"c","typing":"d","class":"e","input":"f","params":"g","impl":"h"}'
    )
