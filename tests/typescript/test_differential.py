"""Differential test of the two targets' decoders on ACP's types (idl/acp.idl and the v2 draft,
idl/acp-v2.idl, whose variants go three tags deep and whose unions may end in `json`), and on those
of the codegen corpus with forward-compatible fields and variants: JSON made
from the TypeScript plan's description of each type — mostly well-formed, with wrong values,
unknown enum values and tags, absent and `null` members mixed in — is read alike by the
Python runtime (`decoder_for`, strict then lenient) and by the generated TypeScript
validators: both refuse it, or both accept it and encode it to the same JSON (or to JSON
that Python reads as the same value: where the two runtimes leave out defaults
differently). This holds the
one-pass forward-compatible decode of the TypeScript runtime to the Python runtime's outcome
(docs/typescript-mapping.md, "Decoding")."""

from __future__ import annotations

import base64
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idlc.codegen import generate
from idlc.diagnostics import Diagnostics
from idlc.output.package import write_package
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

#: TypeScript package → its IDL files (the Python package of ACP is idlc_acp.protocol; the
#: others are generated for the test).
SOURCES = {
    "acp": [REPO / "idl/acp.idl"],
    "acp-unstable": [REPO / "idl/acp.idl"],
    "acp-v2": [REPO / "idl/acp-v2.idl"],
    "acp-v2-unstable": [REPO / "idl/acp-v2.idl"],
    "features": [REPO / "tests/codegen/corpus/features.idl"],
    "acp-constructs": [REPO / "tests/corpus/valid/acp_constructs.idl"],
    "edges": [REPO / "tests/codegen/corpus/edge_shapes.idl"],
}

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


def _definitions(package: str) -> dict[str, Definition]:
    features = None if package.endswith("-unstable") else frozenset()
    compilation = compile_files(SOURCES[package], features=features)
    assert compilation.model is not None
    result = plan(compilation.model, Diagnostics())
    found = {definition.name: definition for definition in result.definitions}
    for interface in result.interfaces:
        found.update((definition.name, definition) for definition in interface.definitions)
    return found


#: Every package's definitions by name (the names of one package; strategies read the
#: package's own through `_current`).
ALL = {package: _definitions(package) for package in SOURCES}


def values(type_: TsType, depth: int, defs: dict[str, Definition]) -> st.SearchStrategy[Any]:
    """JSON for `type_`: well-formed mostly, wrong now and then."""
    match type_:
        case Prim():
            return _primitive(type_.kind) | WRONG if depth else _primitive(type_.kind)
        case Named():
            definition = defs.get(type_.name)
            if definition is None:  # a reference
                return st.text(max_size=4)
            if depth > 3:
                return WRONG
            return st.deferred(lambda: defined(definition, depth + 1, defs))
        case Opt() | Nullable():
            return st.none() | values(type_.inner, depth, defs)
        case ListOf() | UniqueOf():
            return st.lists(values(type_.inner, depth + 1, defs), max_size=2)
        case MapOf():
            return st.dictionaries(
                st.text(max_size=3), values(type_.inner, depth + 1, defs), max_size=2
            )
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


def members(
    fields: tuple[FieldPlan, ...], depth: int, defs: dict[str, Definition]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            field.wire: values(field.type, depth, defs)
            for field in fields
            if field.presence == "required"
        },
        optional={
            field.wire: values(field.type, depth, defs)
            for field in fields
            if field.presence != "required"
        },
    )


def defined(
    definition: Definition, depth: int, defs: dict[str, Definition]
) -> st.SearchStrategy[Any]:
    match definition:
        case RecordPlan():
            return members(definition.fields, depth, defs)
        case EnumPlan():
            return st.sampled_from([value.value for value in definition.values] + ["other"])
        case AliasPlan():
            return values(definition.type, depth, defs)
        case UnionPlan():
            return st.one_of(
                [values(alternative, depth, defs) for alternative in definition.alternatives]
            )
        case VariantPlan():
            shared = members(definition.shared, depth, defs)
            choices = []
            for case in definition.cases:
                own = values(case.type, depth, defs) if case.type is not None else st.just({})
                choices.append(
                    st.tuples(shared, own).map(
                        lambda both, tag=case.tag: _merge(both, definition.tag, tag)
                    )
                )
            default = definition.default
            if default is not None:
                own = values(default.type, depth, defs) if default.type is not None else st.just({})
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


def case_records(defs: dict[str, Definition]) -> set[str]:
    """The records a variant's case holds: in Python the record's class may be the case
    class, carrying the tag (`McpServerHttp`); in TypeScript the variant's member adds the
    tag to the record. They are compared inside their variant."""
    found = {
        case.type.name
        for definition in defs.values()
        if isinstance(definition, VariantPlan)
        for case in (*definition.cases, definition.default)
        if case is not None and isinstance(case.type, Named)
    }
    for name in list(found):  # a union's records, each a case class of its own in Python
        union = defs.get(name)
        if isinstance(union, UnionPlan):
            found.update(alt.name for alt in union.alternatives if isinstance(alt, Named))
    return found


def python_package(package: str, folder: Path) -> Any:
    """The Python package of `package`'s IDL files."""
    if package == "acp":
        return idlc_acp.protocol
    if package == "acp-unstable":
        return importlib.import_module("idlc_acp.unstable")
    if package == "acp-v2":
        return importlib.import_module("idlc_acp.v2")
    if package == "acp-v2-unstable":
        return importlib.import_module("idlc_acp.v2.unstable")
    name = "py_" + package.replace("-", "_")
    compilation = compile_files(SOURCES[package])
    assert compilation.model is not None
    write_package(folder, generate(compilation.model, name))
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))


@pytest.fixture(scope="module")
def python_packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("python")
    return {package: python_package(package, folder) for package in SOURCES}


def cases(package: str) -> st.SearchStrategy[tuple[str, Any]]:
    """A type of `package` that both targets name alike, and JSON for it."""
    defs = ALL[package]
    skipped = case_records(defs)
    names = sorted(
        name
        for name, definition in defs.items()
        if isinstance(definition, (RecordPlan, VariantPlan, UnionPlan)) and name not in skipped
    )
    return st.sampled_from(names).flatmap(
        lambda name: st.tuples(st.just(name), defined(defs[name], 0, defs))
    )


@pytest.mark.parametrize("package", sorted(SOURCES))
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_both_targets_read_values_alike(
    node: Node, python_packages: dict[str, Any], package: str, data: st.DataObject
) -> None:
    from idlc_runtime.hooks import enc_hook

    name, value = data.draw(cases(package))
    python = python_packages[package]
    if not hasattr(python, name):
        return  # an inline type Python names otherwise
    text = json.dumps(value)
    answer = node.ask(name + "Codec", text, package)
    try:
        decoded = decoder_for(getattr(python, name)).decode(text)
    except msgspec.ValidationError as error:
        assert "path" in answer, (answer, str(error))
        return
    assert "ok" in answer, answer
    if json.loads(answer["ok"]) != json.loads(msgspec.json.encode(decoded, enc_hook=enc_hook)):
        # Python leaves out a field equal to its default only when msgspec sees it so (not a
        # decoded `bytes` or `uint64` default, say); the TypeScript runtime always does. The
        # JSON then differs, and must mean the same value.
        assert decoder_for(getattr(python, name)).decode(answer["ok"]) == decoded
