"""Questions about a model type that decide how its Python form decodes.

They look through typedefs (`resolve_alias`): what matters is the type a value has on the
wire, not the name an IDL file gave it.
"""

from __future__ import annotations

from typing import assert_never

from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.semantics.checks import default_problem
from idlc.semantics.shapes import resolve_alias


def is_none(model: m.Model, type_: m.Type) -> bool:
    """Whether the Python expression of `type_` is `None` itself (`unit`, or a union of
    nothing else, through aliases): `X | None` would then fail when the module loads."""
    resolved = resolve_alias(model, type_)
    match resolved:
        case m.Primitive():
            return resolved.kind is m.PrimitiveKind.UNIT
        case m.Optional():
            return is_none(model, resolved.inner)
        case m.Union_():
            return all(is_none(model, alternative) for alternative in resolved.alternatives)
        case (
            m.List()
            | m.Map()
            | m.AtomRef()
            | m.InterfaceRef()
            | m.TypeRef()
            | m.Record()
            | m.Enum()
            | m.Variant()
        ):
            return False
        case _:
            assert_never(resolved)


def without_optional(model: m.Model, type_: m.Type) -> m.Type:
    """`type_` through typedefs and `optional<…>` layers: what a present value is."""
    resolved = resolve_alias(model, type_)
    while isinstance(resolved, m.Optional):
        resolved = resolve_alias(model, resolved.inner)
    return resolved


def empty_container(model: m.Model, type_: m.Type) -> str:
    """What the default `[]` of a field of `type_` is built with: `dict` for a map (in a
    map, `[]` means empty: docs/language.md, "Records and field defaults"), else `list`.
    In a union, the first alternative that takes `[]` decides, as it does when decoding."""
    resolved = without_optional(model, type_)
    match resolved:
        case m.Map():
            return "dict"
        case m.Union_():
            for alternative in resolved.alternatives:
                if _takes_empty_list(without_optional(model, alternative)):
                    return empty_container(model, alternative)
            return "list"
        case (
            m.Primitive()
            | m.Optional()
            | m.List()
            | m.AtomRef()
            | m.InterfaceRef()
            | m.TypeRef()
            | m.Record()
            | m.Enum()
            | m.Variant()
        ):
            return "list"
        case _:
            assert_never(resolved)


def _takes_empty_list(type_: m.Type) -> bool:
    """Whether a value of `type_` (through typedefs and `optional<…>`) may be `[]`."""
    match type_:
        case m.List() | m.Map() | m.Union_():
            return True
        case m.Primitive():
            return type_.kind is m.PrimitiveKind.JSON
        case (
            m.Optional()
            | m.AtomRef()
            | m.InterfaceRef()
            | m.TypeRef()
            | m.Record()
            | m.Enum()
            | m.Variant()
        ):
            return False
        case _:
            assert_never(type_)


def empty_object_record(model: m.Model, type_: m.Type, literal: m.Literal) -> m.Type | None:
    """The record that the default `{}` of a field of `type_` builds — the typedef name of
    the record (its class), or the inline record — or None when `{}` is the empty map (a
    map or `json`: docs/language.md, "Records and field defaults"). In a union, the first
    alternative that takes `{}` decides, as it does when decoding."""
    present, name = queries.present_chain(type_, model.typedefs)
    if isinstance(present, m.Record):
        if name is not None and model.typedefs[name].type is present:
            return m.TypeRef(name, type_.span)  # the record's typedef: its class
        return present
    if isinstance(present, m.Union_):
        for alternative in present.alternatives:
            if default_problem(literal, alternative, model.typedefs) is None:
                return empty_object_record(model, alternative, literal)
    return None
