"""Questions about a model type that decide how its Python form decodes.

They look through typedefs (`resolve_alias`): what matters is the type a value has on the
wire, not the name an IDL file gave it.
"""

from __future__ import annotations

from idlc.semantics import model as m
from idlc.semantics.checks import default_problem
from idlc.semantics.shapes import resolve_alias


def is_none(model: m.Model, type_: m.Type) -> bool:
    """Whether the Python expression of `type_` is `None` itself (`unit`, or a union of
    nothing else, through aliases): `X | None` would then fail when the module loads."""
    resolved = resolve_alias(model, type_)
    if isinstance(resolved, m.Primitive):
        return resolved.kind is m.PrimitiveKind.UNIT
    if isinstance(resolved, m.Optional):
        return is_none(model, resolved.inner)
    if isinstance(resolved, m.Union_):
        return all(is_none(model, alternative) for alternative in resolved.alternatives)
    return False


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
    if isinstance(resolved, m.Map):
        return "dict"
    if isinstance(resolved, m.Union_):
        for alternative in resolved.alternatives:
            inner = without_optional(model, alternative)
            if isinstance(inner, (m.List, m.Map, m.Union_)) or (
                isinstance(inner, m.Primitive) and inner.kind is m.PrimitiveKind.JSON
            ):
                return empty_container(model, alternative)
    return "list"


def empty_object_record(model: m.Model, type_: m.Type, literal: m.Literal) -> m.Type | None:
    """The record that the default `{}` of a field of `type_` builds — the typedef name of
    the record (its class), or the inline record — or None when `{}` is the empty map (a
    map or `json`: docs/language.md, "Records and field defaults"). In a union, the first
    alternative that takes `{}` decides, as it does when decoding."""
    while True:
        if isinstance(type_, m.Optional):
            type_ = type_.inner
        elif isinstance(type_, m.TypeRef):
            target = model.typedefs[type_.name].type
            if isinstance(target, m.Record):
                return type_
            type_ = target
        else:
            break
    if isinstance(type_, m.Record):
        return type_
    if isinstance(type_, m.Union_):
        for alternative in type_.alternatives:
            if default_problem(literal, alternative, model.typedefs) is None:
                return empty_object_record(model, alternative, literal)
    return None
