"""Questions about a model type that decide how its Python form decodes.

They look through typedefs (`resolve_alias`): what matters is the type a value has on the
wire, not the name an IDL file gave it.
"""

from __future__ import annotations

from idlc.semantics import model as m
from idlc.semantics.python_mapping import resolve_alias


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
