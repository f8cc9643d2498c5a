"""How the Python target decodes a type: natively by msgspec, or through the runtime's
hooks (`idlc_runtime.hooks.dec_hook`). A union msgspec can tell apart by JSON kind is a
native union; anything of a hooked type is decoded by the hooks (docs/python-mapping.md).

A type is hooked when any type a value of it may be — looked through typedef names,
`optional<…>` and unions, which the model's arena lists once for every typedef
(`queries.looked_through`) — is hooked by itself. So no walk here follows a name, and a
cycle of names (`type B = optional<union { B; }>`, reported: its union cannot be decoded)
needs no `seen` set: looking through it found each type once.
"""

from __future__ import annotations

from typing import assert_never

from idlc.semantics import model as m
from idlc.semantics import queries
from idlc.semantics.facts import JSON_ANY
from idlc.semantics.shapes import union_case, variant_case


def hooked(model: m.Model, type_: m.Type) -> bool:
    """Whether values of `type_` are decoded through `hooks.dec_hook` (not a native union)."""
    return any(
        _hooked_itself(model, item) for item in queries.looked_through(type_, model.typedefs)
    )


def native_union(model: m.Model, union: m.Union_) -> bool:
    """Whether msgspec decodes `union` itself: no alternative is hooked, and each takes JSON
    kinds of its own (none `json`, nor one a name met again looking through)."""
    return not hooked(model, union)


def _hooked_itself(model: m.Model, type_: m.Type) -> bool:
    """Whether `type_` makes a value hooked by itself, apart from the types it is looked
    through to (an optional's inner type, a union's alternatives: `looked_through`)."""
    match type_:
        case m.Primitive():
            return type_.kind is m.PrimitiveKind.UINT64
        case m.Variant():
            # msgspec's tagged unions need one class per tag: a union case has several.
            return type_.open or any(
                case.tag is None
                or union_case(model, case) is not None
                or variant_case(model, case) is not None
                for case in type_.cases
            )
        case m.Union_():
            return _kinds_overlap(model, type_)
        case m.Record():
            return type_.open  # `hooks.OpenRecord`: no struct
        case m.Optional() | m.List() | m.Map() | m.AtomRef() | m.InterfaceRef() | m.Enum():
            return False  # (a list's or map's items are decoded on their own)
        case m.TypeRef():
            return False  # never met: names are followed by `looked_through`
        case _:
            assert_never(type_)


def _kinds_overlap(model: m.Model, union: m.Union_) -> bool:
    """Whether two alternatives of `union` may take one JSON kind, or one may take any."""
    kinds_seen: set[str] = set()
    for alternative in union.alternatives:
        kinds = queries.json_kinds(alternative, model.typedefs)
        if JSON_ANY in kinds or kinds & kinds_seen:
            return True
        kinds_seen |= kinds
    return False
