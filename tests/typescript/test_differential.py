"""Differential test of the two targets' decoders on ACP's types (idl/acp.idl): JSON made
from the TypeScript plan's description of each type — mostly well-formed, with wrong values,
unknown enum values and tags, absent and `null` members mixed in — is read alike by the
Python runtime (`decoder_for`, strict then lenient) and by the generated TypeScript
validators: both refuse it, or both accept it and encode it to the same JSON. This holds the
one-pass forward-compatible decode of the TypeScript runtime to the Python runtime's outcome
(docs/typescript-mapping.md, "Decoding")."""

from __future__ import annotations

import base64
import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.diagnostics import Diagnostics
from idlc.pipeline import compile_files
from idlc.targets.typescript.mapping import plan
from idlc.targets.typescript.plan import (
    AliasPlan,
    Definition,
    EnumPlan,
    FieldPlan,
    ListOf,
    MapOf,
    Named,
    Nullable,
    Opt,
    Prim,
    RecordPlan,
    TsType,
    UnionPlan,
    UniqueOf,
    VariantPlan,
)
from idlc_runtime.codec.decoders import decoder_for

from .conftest import Node
from .support import REPO

idlc_acp = pytest.importorskip("idlc_acp")

WRONG = st.sampled_from([None, True, "x", -1, 1.5, [], {}])
_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}


def _definitions() -> dict[str, Definition]:
    compilation = compile_files([REPO / "idl/acp.idl"])
    assert compilation.model is not None
    result = plan(compilation.model, Diagnostics())
    found = {definition.name: definition for definition in result.definitions}
    for interface in result.interfaces:
        found.update((definition.name, definition) for definition in interface.definitions)
    return found


DEFINITIONS = _definitions()


def values(type_: TsType, depth: int) -> st.SearchStrategy[Any]:
    """JSON for `type_`: well-formed mostly, wrong now and then."""
    match type_:
        case Prim():
            return _primitive(type_.kind) | WRONG if depth else _primitive(type_.kind)
        case Named():
            definition = DEFINITIONS.get(type_.name)
            if definition is None:  # a reference
                return st.text(max_size=4)
            if depth > 3:
                return WRONG
            return st.deferred(lambda: defined(definition, depth + 1))
        case Opt() | Nullable():
            return st.none() | values(type_.inner, depth)
        case ListOf() | UniqueOf():
            return st.lists(values(type_.inner, depth + 1), max_size=2)
        case MapOf():
            return st.dictionaries(st.text(max_size=3), values(type_.inner, depth + 1), max_size=2)
    raise AssertionError(type_)


def _primitive(kind: str) -> st.SearchStrategy[Any]:
    if kind in _RANGES:
        low, high = _RANGES[kind]
        return st.integers(low, high) | st.sampled_from([low - 1, high + 1])
    return {
        "string": st.text(max_size=5),
        "bool": st.booleans(),
        "float64": st.floats(allow_nan=False, allow_infinity=False, width=32),
        "bytes": st.binary(max_size=4).map(lambda data: base64.b64encode(data).decode()),
        "json": st.none() | st.integers(-3, 3) | st.text(max_size=3) | st.just({"a": [1]}),
        "unit": st.none(),
    }[kind]


def members(fields: tuple[FieldPlan, ...], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {field.wire: values(field.type, depth) for field in fields if field.presence == "required"},
        optional={
            field.wire: values(field.type, depth)
            for field in fields
            if field.presence != "required"
        },
    )


def defined(definition: Definition, depth: int) -> st.SearchStrategy[Any]:
    match definition:
        case RecordPlan():
            return members(definition.fields, depth)
        case EnumPlan():
            return st.sampled_from([value.value for value in definition.values] + ["other"])
        case AliasPlan():
            return values(definition.type, depth)
        case UnionPlan():
            return st.one_of(
                [values(alternative, depth) for alternative in definition.alternatives]
            )
        case VariantPlan():
            shared = members(definition.shared, depth)
            choices = []
            for case in definition.cases:
                own = values(case.type, depth) if case.type is not None else st.just({})
                choices.append(
                    st.tuples(shared, own).map(
                        lambda both, tag=case.tag: _merge(both, definition.tag, tag)
                    )
                )
            default = definition.default
            if default is not None:
                own = values(default.type, depth) if default.type is not None else st.just({})
                choices.append(st.tuples(shared, own).map(lambda both: _merge(both, None, None)))
            choices.append(
                st.tuples(shared, st.just({"more": 1})).map(
                    lambda both: _merge(both, definition.tag, "unheard-of")
                )
            )
            return st.one_of(choices)
    raise AssertionError(definition)


def _merge(both: tuple[Any, Any], tag_field: str | None, tag: str | None) -> Any:
    shared, own = both
    if not isinstance(own, dict):
        return own
    merged = {**shared, **own}
    if tag_field is not None:
        merged[tag_field] = tag
    return merged


#: The records a variant's case holds: in Python the record's class may be the case class,
#: carrying the tag (`McpServerHttp`); in TypeScript the variant's member adds the tag to the
#: record. They are compared inside their variant.
CASE_RECORDS = {
    case.type.name
    for definition in DEFINITIONS.values()
    if isinstance(definition, VariantPlan)
    for case in (*definition.cases, definition.default)
    if case is not None and isinstance(case.type, Named)
}

#: The types compared: ACP's records, variants and unions that idlc_acp has by that name.
NAMES = sorted(
    name
    for name, definition in DEFINITIONS.items()
    if isinstance(definition, (RecordPlan, VariantPlan, UnionPlan))
    and hasattr(idlc_acp.protocol, name)
    and name not in CASE_RECORDS
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.sampled_from(NAMES).flatmap(
        lambda name: st.tuples(st.just(name), defined(DEFINITIONS[name], 0))
    )
)
def test_both_targets_read_acp_values_alike(node: Node, value: tuple[str, Any]) -> None:
    from idlc_runtime.hooks import enc_hook

    name, data = value
    text = json.dumps(data)
    answer = node.ask(name + "Codec", text, "acp")
    try:
        decoded = decoder_for(getattr(idlc_acp.protocol, name)).decode(text)
    except msgspec.ValidationError as error:
        assert "path" in answer, (answer, str(error))
        return
    assert "ok" in answer, answer
    assert json.loads(answer["ok"]) == json.loads(msgspec.json.encode(decoded, enc_hook=enc_hook))
