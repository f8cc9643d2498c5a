"""idl/acp-v2.idl says the vendored ACP v2 draft schema (idl/acp-schema/v2) exactly: every
`$defs` entry but the JSON-RPC envelopes is a declaration, every method a member, every
property a field, every enum value and variant case a value and a case — and what only
schema.unstable.json has is marked `@unstable`, what schema.json has is not (issue 26
item 1; docs/acp.md, "Protocol version 2").

The file compiles: the draft's three tags in one object (`SessionUpdate`'s `state_update`
case is `StateUpdate`, whose `idle` case is `IdleStateUpdate`, a variant on `stopReason`:
docs/acp-gaps.md G18) and its two unions ending in "any other value" (a last `json`, G19)
the language says.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.pipeline import compile_files
from idlc.semantics import model as m
from idlc.semantics.resolver import resolve_unsorted
from idlc.source import SourceFile
from idlc.syntax.parser import parse

from .conftest import ROOT

V2 = ROOT / "idl" / "acp-schema" / "v2"
ACP_V2_IDL = ROOT / "idl" / "acp-v2.idl"
TOOL = ROOT / "tools" / "acp_idl.py"

#: JSON-RPC envelopes (method + params unions) of the schemas: the runtime's framing.
ENVELOPES = {
    f"{side}{kind}"
    for side in ("Agent", "Client", "Proxy", "Ext")
    for kind in ("Request", "Response", "Notification")
}


@cache
def _schema(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((V2 / name).read_text(encoding="utf-8"))
    return result


def stable() -> dict[str, Any]:
    return _schema("schema.json")


def unstable() -> dict[str, Any]:
    return _schema("schema.unstable.json")


@cache
def idl_model() -> m.Model:
    """The resolver's model of idl/acp-v2.idl (made also when there are errors)."""
    source = SourceFile(str(ACP_V2_IDL), ACP_V2_IDL.read_text(encoding="utf-8"))
    tree = parse(source, Diagnostics())
    assert tree is not None
    return resolve_unsorted([tree], Diagnostics())


def _typedefs() -> dict[str, m.Typedef]:
    return dict(idl_model().typedefs.items())


def _drawn(tmp_path: Path, *arguments: str) -> str:
    """What tools/acp_idl.py writes with `arguments`, formatted."""
    drawn = subprocess.run(
        [sys.executable, str(TOOL), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    target = tmp_path / "acp-v2.idl"
    target.write_text(drawn, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "idlc", "fmt", str(target)],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return target.read_text(encoding="utf-8")


def test_acp_v2_idl_is_what_tools_acp_idl_writes(tmp_path: Path) -> None:
    """No hand edit hides in idl/acp-v2.idl."""
    assert _drawn(tmp_path, "--v2") == ACP_V2_IDL.read_text(encoding="utf-8")


def test_the_vendored_schemas_are_the_draft_of_2_4_0() -> None:
    assert len(stable()["$defs"]) == 197
    assert len(unstable()["$defs"]) == 262
    assert set(stable()["$defs"]) <= set(unstable()["$defs"])


def test_every_definition_is_declared_and_marked_as_the_schemas_say() -> None:
    typedefs = _typedefs()
    defs = unstable()["$defs"]
    # The envelopes of the agent, client, proxy and extension messages: 12, none declared.
    assert len(ENVELOPES & set(defs)) == 12
    assert sorted(typedefs) == sorted(set(defs) - ENVELOPES)
    stable_defs = set(stable()["$defs"])
    marked = {name for name, typedef in typedefs.items() if typedef.unstable is not None}
    assert marked == set(typedefs) - stable_defs
    assert {"ErrorStopReason", "StateUpdate", "IdleStateUpdate", "Error"} <= set(typedefs)


def _methods(schema: dict[str, Any]) -> dict[str, set[str]]:
    """wire method → the kinds of its defs ("request", "result", "notification")."""
    found: dict[str, set[str]] = {}
    for name, node in schema["$defs"].items():
        method = node.get("x-method")
        if method is None:
            continue
        kind = "result" if name.endswith("Response") else "request"
        if name.endswith("Notification"):
            kind = "notification"
        found.setdefault(method, set()).add(kind)
    return found


def test_every_method_is_a_member_marked_as_the_schemas_say() -> None:
    members: dict[tuple[str, bool], bool] = {}
    for interface in idl_model().interfaces.values():
        for member in interface.members:
            assert isinstance(member, m.Operation)
            key = (member.binding.id, member.binding.notify)
            assert key not in members, key
            members[key] = interface.unstable is not None or member.unstable is not None
    expected: dict[tuple[str, bool], bool] = {}
    stable_methods = _methods(stable())
    for method, kinds in _methods(unstable()).items():
        if "request" in kinds:
            expected[(method, False)] = method not in stable_methods
        if "notification" in kinds:
            expected[(method, True)] = method not in stable_methods
    assert members == expected
    # The draft's own methods (v1 has neither) and the ones it renames.
    assert {("tool_call/cancel", False), ("terminal/cancel", False)} <= set(members)
    assert ("auth/login", False) in members and ("session/load", False) not in members


def test_every_member_uses_its_methods_definitions() -> None:
    methods: dict[str, dict[str, str]] = {}
    for name, node in unstable()["$defs"].items():
        if "x-method" in node:
            kind = "result" if name.endswith("Response") else "request"
            kind = "notification" if name.endswith("Notification") else kind
            methods.setdefault(node["x-method"], {})[kind] = name
    for interface in idl_model().interfaces.values():
        for member in interface.members:
            assert isinstance(member, m.Operation)
            kinds = methods[member.binding.id]
            assert isinstance(member.input, m.TypeRef)
            if member.binding.notify:
                assert member.input.name == kinds["notification"]
            else:
                assert member.input.name == kinds["request"]
                assert isinstance(member.output, m.TypeRef)
                assert member.output.name == kinds["result"]


def _records() -> list[tuple[str, m.Record, dict[str, Any]]]:
    """(definition, its record, its schema node) of every definition that is a record."""
    defs = unstable()["$defs"]
    return [
        (name, typedef.type, defs[name])
        for name, typedef in _typedefs().items()
        if isinstance(typedef.type, m.Record)
    ]


def test_every_property_is_a_field_marked_as_the_schemas_say() -> None:
    records = _records()
    assert len(records) > 120  # most definitions are objects
    stable_defs = stable()["$defs"]
    for name, record, node in records:
        fields = {field.name: field for field in record.fields}
        assert set(fields) == set(node.get("properties", {})), name
        required = set(node.get("required", ()))
        theirs = stable_defs.get(name, {}).get("properties", {})
        for field_name, field in fields.items():
            # Only a definition both schemas have can have a field only one of them has.
            if name in stable_defs:
                assert (field.unstable is not None) == (field_name not in theirs), (
                    name,
                    field_name,
                )
            optional = isinstance(field.type, m.Optional) or field.default is not None
            assert optional == (field_name not in required), (name, field_name)
        assert record.open == (node.get("additionalProperties") is True), name


def _constants(node: dict[str, Any]) -> list[str]:
    return [str(a["const"]) for a in node.get("oneOf") or node.get("anyOf") or [] if "const" in a]


def test_every_enum_value_is_a_value_marked_as_the_schemas_say() -> None:
    defs = unstable()["$defs"]
    stable_defs = stable()["$defs"]
    enums = [
        (name, typedef.type)
        for name, typedef in _typedefs().items()
        if isinstance(typedef.type, m.Enum)
    ]
    assert len(enums) > 5
    for name, enum in enums:
        assert [value.value for value in enum.values] == _constants(defs[name]), name
        theirs = set(_constants(stable_defs.get(name, {})))
        for value in enum.values:
            marked = value.unstable is not None
            assert marked == (name in stable_defs and value.value not in theirs), (name, value)
        # An open enum keeps `_`-prefixed and future values: the schema's string branch.
        alternatives = defs[name].get("oneOf") or defs[name].get("anyOf")
        assert enum.open == any("const" not in a for a in alternatives), name


def _tags(node: dict[str, Any], tag: str) -> list[str]:
    return [
        str(a["properties"][tag]["const"])
        for a in node.get("oneOf") or node.get("anyOf") or []
        if "const" in a.get("properties", {}).get(tag, {})
    ]


def test_every_variant_case_is_a_case_marked_as_the_schemas_say() -> None:
    defs = unstable()["$defs"]
    stable_defs = stable()["$defs"]
    variants = [
        (name, typedef.type)
        for name, typedef in _typedefs().items()
        if isinstance(typedef.type, m.Variant)
    ]
    assert len(variants) > 15
    for name, variant in variants:
        tags = [case.tag for case in variant.cases if case.tag is not None]
        assert tags == _tags(defs[name], variant.tag_field), name
        theirs = set(_tags(stable_defs.get(name, {}), variant.tag_field))
        for case in variant.cases:
            if case.tag is None:
                continue
            marked = case.unstable is not None
            assert marked == (name in stable_defs and case.tag not in theirs), (name, case.tag)


def test_the_language_says_it_all() -> None:
    """The draft's three tags in one object (`SessionUpdate` → `StateUpdate` →
    `IdleStateUpdate`, G18) and its unions ending in any value (`ErrorData`,
    `ElicitationContentValue`, G19): the file compiles, in the stable view and in the view
    with the unstable items."""
    for features in (None, frozenset({"unstable"})):
        compilation = compile_files([ACP_V2_IDL], features=features)
        errors = [d for d in compilation.diagnostics if d.code.id.startswith("E")]
        assert errors == [], features
        assert compilation.model is not None


def _open_enums() -> list[type[Any]]:
    from idlc_acp.protocol import _types
    from idlc_runtime.codec.hooks import OpenEnum

    return [
        value
        for value in vars(_types).values()
        if isinstance(value, type) and issubclass(value, OpenEnum) and value is not OpenEnum
    ]


@settings(deadline=None)  # the first call builds decoders: slow beside other workers
@given(data=st.data(), suffix=st.text(min_size=1, max_size=20))
def test_an_implementation_specific_value_of_an_open_enum_travels_as_it_came(
    data: st.DataObject, suffix: str
) -> None:
    """The draft's `_`-prefixed values need no language change (docs/language.md, "Enums"):
    an `open enum` keeps them, `.known` False, and encodes them back unchanged."""
    from idlc_runtime.codec.decoders import decoder_for
    from idlc_runtime.hooks import enc_hook

    enums = _open_enums()
    assert enums  # v1's CompactionStatus, NoticeSeverity, SessionConfigOptionCategory
    cls = data.draw(st.sampled_from(enums))
    raw = msgspec.json.encode(f"_{suffix}")
    value = decoder_for(cls).decode(raw)
    assert isinstance(value, cls) and not value.known
    assert value.value == f"_{suffix}"
    assert msgspec.json.encode(value, enc_hook=enc_hook) == raw


@pytest.mark.parametrize("arguments", [["--v2", "/nonexistent-acp-schema"], ["--v9"]])
def test_the_tool_refuses_what_it_cannot_read_without_a_traceback(arguments: list[str]) -> None:
    completed = subprocess.run(
        [sys.executable, str(TOOL), *arguments], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("acp_idl: ")


# -- the generated packages, idlc_acp.v2 and idlc_acp.v2.unstable -------------------------

VIEWS = [("schema.json", "idlc_acp.v2"), ("schema.unstable.json", "idlc_acp.v2.unstable")]


def _package(name: str) -> Any:
    import importlib

    return importlib.import_module(name)


def _leaf_classes(generated: Any) -> list[Any]:
    """The classes values of `generated` (a class, a variant's or union's alias) are: a
    variant's cases, at any depth (a case base maps its inner tags to classes or to the
    next level's base), a union's alternatives, the class itself."""
    info = getattr(generated, "__idlc_variant__", None) if isinstance(generated, type) else None
    if info is not None and "__idlc_variant__" in vars(generated):
        cases = [*info.cases.values(), *([info.default] if info.default else [])]
        return [leaf for case in cases for leaf in _leaf_classes(case)]
    if isinstance(generated, type) and "__idlc_union__" in vars(generated):
        return [
            leaf
            for alternative in generated.__idlc_union__.alternatives
            for leaf in _leaf_classes(alternative)
        ]
    return [generated] if isinstance(generated, type) else []


@pytest.mark.parametrize(("schema_file", "package"), VIEWS)
def test_every_definition_is_generated_with_every_property(schema_file: str, package: str) -> None:
    """Every `$defs` entry but the envelopes is a declaration of the package of its view,
    and every property of it a field of each of its classes (as tests/acp/test_coverage.py
    checks v1)."""
    generated = _package(package)
    defs = _schema(schema_file)["$defs"]
    names = sorted(set(defs) - ENVELOPES)
    assert names and all(hasattr(generated, name) for name in names), [
        name for name in names if not hasattr(generated, name)
    ]
    checked = 0
    for name in names:
        properties = set(defs[name].get("properties", {}))
        if not properties:
            continue
        for cls in _leaf_classes(getattr(generated, name)):
            if not issubclass(cls, msgspec.Struct):
                continue  # an unknown case keeps the raw object
            wire_names = {field.encode_name for field in msgspec.structs.fields(cls)}
            tag = getattr(cls.__struct_config__, "tag_field", None)
            missing = properties - wire_names - {tag} - _tag_fields(getattr(generated, name))
            assert not missing, f"{package}.{cls.__name__} lacks {sorted(missing)}"
            checked += 1
    assert checked > 100


def _tag_fields(generated: Any) -> set[str]:
    """The tag fields of a variant, at every depth: a default case's class has none of
    its level's tag (nor an unknown tag's object the known values)."""
    if not isinstance(generated, type) or "__idlc_variant__" not in vars(generated):
        return set()
    info = generated.__idlc_variant__
    cases = [*info.cases.values(), *([info.default] if info.default else [])]
    return {info.tag_field}.union(*(_tag_fields(case) for case in cases))


@pytest.mark.parametrize(("schema_file", "package"), VIEWS)
def test_every_method_is_a_method_spec_with_the_schemas_types(
    schema_file: str, package: str
) -> None:
    generated = _package(package)
    table: dict[tuple[str, bool], Any] = {}
    for interface in ("Agent", "Client", "Protocol", "Proxy", "Successor"):
        cls = getattr(generated, interface, None)
        if cls is None:
            continue
        for spec in cls.__idlc_interface__.methods:
            key = (spec.wire, spec.notify)
            assert key not in table, key
            table[key] = spec
    expected: dict[tuple[str, bool], dict[str, str]] = {}
    for name, node in _schema(schema_file)["$defs"].items():
        method = node.get("x-method")
        if method is None:
            continue
        kind = "result" if name.endswith("Response") else "request"
        kind = "notification" if name.endswith("Notification") else kind
        expected.setdefault((method, kind == "notification"), {})[kind] = name
    assert sorted(table) == sorted(expected)
    for key, spec in table.items():
        params = expected[key].get("notification" if key[1] else "request")
        assert params is not None, key
        assert spec.params_type is getattr(generated, params), (key, spec.params_type)
        result = expected[key].get("result")
        if result is not None:
            assert spec.result_type is getattr(generated, result), (key, spec.result_type)


def _validator(schema_file: str, name: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator({"$defs": _schema(schema_file)["$defs"], "$ref": f"#/$defs/{name}"})


def _minimal(type_: Any, depth: int = 0) -> Any:
    """A small value of a generated type: every required field filled, optional ones left
    out (msgspec.inspect's view of the type)."""
    from msgspec import inspect

    info = inspect.type_info(type_) if not isinstance(type_, inspect.Type) else type_
    match info:
        case inspect.StrType():
            return "x" * max(info.min_length or 0, 1)
        case inspect.IntType():
            return max(info.ge if info.ge is not None else 1, 1)
        case inspect.FloatType():
            return 0.5
        case inspect.BoolType():
            return True
        case inspect.NoneType():
            return None
        case inspect.ListType() | inspect.SetType() | inspect.FrozenSetType():
            # One item (the schema's `minItems: 1` places), none deep inside.
            return [] if depth > 6 else [_minimal(info.item_type, depth + 1)]
        case inspect.DictType():
            return {}
        case inspect.LiteralType():
            return info.values[0]
        case inspect.EnumType():
            return next(iter(info.cls))
        case inspect.UnionType():
            choices = [t for t in info.types if not isinstance(t, inspect.NoneType)]
            return _minimal(choices[0], depth)
        case inspect.StructType():
            assert depth < 30, info.cls
            fields = {f.name: _minimal(f.type, depth + 1) for f in info.fields if f.required}
            return info.cls(**fields)
        case inspect.CustomType() if "__idlc_fields__" in vars(info.cls):  # an open record
            declared = _minimal(info.cls.__idlc_fields__, depth)
            return info.cls(**{f: getattr(declared, f) for f in declared.__struct_fields__})
        case inspect.CustomType():
            leaves = [c for c in _leaf_classes(info.cls) if issubclass(c, msgspec.Struct)]
            if leaves:
                return _minimal(leaves[0], depth)
            alternatives = getattr(info.cls, "__idlc_union__", None)
            if alternatives is not None:
                return _minimal(alternatives.alternatives[0], depth)
            return 0  # an unsigned 64-bit integer (hooks.UInt64)
        case inspect.AnyType():
            return {}
    raise AssertionError(f"no minimal value for {info!r}")


@pytest.mark.parametrize(("schema_file", "package"), VIEWS)
def test_values_of_the_generated_classes_are_valid_and_read_back(
    schema_file: str, package: str
) -> None:
    """Both ways: a value built from each generated class of each definition (every
    required field filled) encodes to JSON the vendored schema accepts as that definition,
    and decodes back to the same value on both decoding paths."""
    from idlc_runtime.codec import hooks, lenient

    generated = _package(package)
    defs = _schema(schema_file)["$defs"]
    checked = 0
    invalid = []
    for name in sorted(set(defs) - ENVELOPES):
        alias = getattr(generated, name)
        validator = _validator(schema_file, name)
        for cls in _leaf_classes(alias):
            if not issubclass(cls, msgspec.Struct):
                continue
            value = _minimal(cls)
            encoded = json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook))
            errors = [error.message[:200] for error in validator.iter_errors(encoded)]
            if errors:
                invalid.append((name, cls.__name__, encoded, errors))
                continue
            decoder = msgspec.json.Decoder(alias, dec_hook=hooks.dec_hook)
            assert decoder.decode(json.dumps(encoded)) == value, (name, cls.__name__)
            assert lenient.convert(encoded, alias) == value, (name, cls.__name__)
            checked += 1
    assert invalid == []
    assert checked > 150


def test_three_tags_and_a_catch_all_on_the_v2_wire() -> None:
    """G18 and G19 as ACP v2 uses them: a `session/update`'s `state_update` with three tags,
    and an error's `data` that is none of the known shapes."""
    from idlc_runtime.codec import hooks

    v2 = _package("idlc_acp.v2")
    wire = {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    decoder = msgspec.json.Decoder(v2.SessionUpdate, dec_hook=hooks.dec_hook)
    value = decoder.decode(json.dumps(wire))
    assert type(value) is v2.SessionUpdateStateUpdateIdleEndTurn
    assert json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook)) == wire
    assert not list(_validator("schema.json", "SessionUpdate").iter_errors(wire))
    data = msgspec.json.Decoder(v2.ErrorData, dec_hook=hooks.dec_hook)
    assert data.decode(b'{"anything": [1]}') == {"anything": [1]}


#: The draft's schemas carry no examples: these are written by hand, each checked against
#: the vendored stable schema first, for the places G18, G19 and this package's other
#: shapes meet (definition, JSON).
WIRE_EXAMPLES: list[tuple[str, Any]] = [
    # (`capabilities` defaults to `{}`, which is encoded: written here so it reads back.)
    (
        "InitializeRequest",
        {"protocolVersion": 2, "info": {"name": "c", "version": "1"}, "capabilities": {}},
    ),
    (
        "UpdateSessionNotification",
        {
            "sessionId": "s",
            "update": {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
        },
    ),
    (
        "UpdateSessionNotification",
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "error",
                "error": {"code": -32603, "message": "boom", "data": {"sessionId": "s"}},
            },
        },
    ),
    (
        "UpdateSessionNotification",
        {"sessionId": "s", "update": {"sessionUpdate": "state_update", "state": "running"}},
    ),
    (
        "UpdateSessionNotification",
        {
            "sessionId": "s",
            "update": {"sessionUpdate": "state_update", "state": "idle", "stopReason": "_paused"},
        },
    ),
    ("Error", {"code": -32000, "message": "m", "data": {"requested": 3, "supported": [2]}}),
    ("Error", {"code": -32000, "message": "m", "data": {"sessionId": "s"}}),
    ("Error", {"code": 1, "message": "m", "data": ["any", {"thing": None}]}),
    ("Error", {"code": 1, "message": "m", "data": "text"}),
    ("ElicitationContentValue", "text"),
    ("ElicitationContentValue", 3),
    ("ElicitationContentValue", 2.5),
    ("ElicitationContentValue", False),
    ("ElicitationContentValue", ["a", "b"]),
    ("ElicitationContentValue", {"other": [1]}),
    ("AvailableCommandInput", {"type": "text", "hint": "h"}),
    ("AvailableCommandInput", {"type": "_custom", "x": 1}),
]


@pytest.mark.parametrize(("name", "wire"), WIRE_EXAMPLES)
def test_json_the_schema_accepts_decodes_and_encodes_back(name: str, wire: Any) -> None:
    from idlc_runtime.codec import hooks, lenient

    assert not [e.message for e in _validator("schema.json", name).iter_errors(wire)]
    for package in ("idlc_acp.v2", "idlc_acp.v2.unstable"):
        alias = getattr(_package(package), name)
        value = msgspec.json.Decoder(alias, dec_hook=hooks.dec_hook).decode(json.dumps(wire))
        assert lenient.convert(wire, alias) == value, package
        assert json.loads(msgspec.json.encode(value, enc_hook=hooks.enc_hook)) == wire, package
