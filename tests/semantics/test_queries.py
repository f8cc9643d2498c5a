"""The model queries (idlc/semantics/queries.py) that checks, `breaking` and codegen share."""

from __future__ import annotations

from pathlib import Path

from idlc.pipeline import compile_files
from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.source import SourceFile

_SPAN = SourceFile("q.idl", "x").span(0, 1)


def _ref(name: str) -> m.TypeRef:
    return m.TypeRef(name, _SPAN)


def _typedefs(**types: m.Type) -> dict[str, m.Typedef]:
    return {name: m.Typedef(name, type_, None, _SPAN) for name, type_ in types.items()}


STRING = m.Primitive(m.PrimitiveKind.STRING, _SPAN)


def test_typedefs_are_followed_to_what_they_stand_for() -> None:
    typedefs = _typedefs(A=_ref("B"), B=m.Optional(STRING, _SPAN))
    assert queries.typedef_chain(_ref("A"), typedefs) == (m.Optional(STRING, _SPAN), "B")
    assert queries.follow_typedefs(_ref("A"), typedefs) == m.Optional(STRING, _SPAN)
    assert queries.typedef_chain(STRING, typedefs) == (STRING, None)


def test_a_cycle_or_an_unknown_name_gives_none() -> None:
    typedefs = _typedefs(A=_ref("B"), B=_ref("A"))
    assert queries.follow_typedefs(_ref("A"), typedefs) is None
    assert queries.follow_typedefs(_ref("Missing"), typedefs) is None


def test_strip_optional_removes_written_layers_only() -> None:
    twice = m.Optional(m.Optional(STRING, _SPAN), _SPAN)
    assert queries.strip_optional(twice) == STRING
    assert queries.strip_optional(_ref("A")) == _ref("A")  # a name is not looked through


def test_optional_inner_looks_through_typedefs_one_layer() -> None:
    typedefs = _typedefs(A=m.Optional(m.Optional(STRING, _SPAN), _SPAN))
    assert queries.optional_inner(_ref("A"), typedefs) == (m.Optional(STRING, _SPAN), True)
    assert queries.optional_inner(STRING, typedefs) == (STRING, False)


def test_children_and_descriptions(tmp_path: Path) -> None:
    path = tmp_path / "q.idl"
    path.write_text(
        "type Item = record { a : string; b : list<Item>; };\n"
        'type Shape = variant tag "kind" { "dot" : unit; "tag" : Item; };\n'
        "type Either = union { Item; string; };\n",
        encoding="utf-8",
    )
    compilation = compile_files([path])
    assert compilation.model is not None, list(compilation.diagnostics)
    typedefs = compilation.model.typedefs
    item, shape, either = (typedefs[name].type for name in ("Item", "Shape", "Either"))
    assert [queries.describe(child) for child in queries.children(item)] == [
        "string",
        "list<Item>",
    ]
    assert [queries.describe(child) for child in queries.children(shape)] == [
        "unit",
        "Item",
    ]
    assert [queries.describe(child) for child in queries.children(either)] == ["Item", "string"]
    assert queries.children(STRING) == ()
    mapping = m.Map(_ref("Item"), _SPAN)
    assert queries.children(mapping) == (_ref("Item"),)
    assert queries.describe(mapping) == "map<string, Item>"
    mapping = m.Map(_ref("Item"), _SPAN)
    assert queries.children(mapping) == (_ref("Item"),)
    assert queries.describe(mapping) == "map<string, Item>"
    assert queries.describe(shape) == 'variant tag "kind" { … }'
    assert queries.describe_kind(item) == "a record"
    assert queries.describe_kind(STRING) == "`string`"
    assert queries.describe_kind(m.Optional(STRING, _SPAN)) == "`optional<…>`"
