"""How the Python target decodes a type: natively by msgspec, or through the runtime's
hooks (`idlc_runtime.hooks.dec_hook`). A union msgspec can tell apart by JSON kind is a
native union; anything of a hooked type is decoded by the hooks (docs/python-mapping.md).
"""

from __future__ import annotations

from typing import assert_never

from idlc.semantics import model as m
from idlc.semantics.shapes import json_kinds, union_case, variant_case


def hooked(model: m.Model, type_: m.Type, seen: frozenset[str] = frozenset()) -> bool:
    """Whether values of `type_` are decoded through `hooks.dec_hook` (not a native union).

    `seen`: the typedefs being looked through, so that `type B = optional<union { B; }>`
    ends (it is reported: its union cannot be decoded).
    """
    while isinstance(type_, m.TypeRef):
        if type_.name in seen:
            return False
        seen |= {type_.name}
        type_ = model.typedefs[type_.name].type
    match type_:
        case m.Primitive():
            return type_.kind is m.PrimitiveKind.UINT64
        case m.Optional():
            return hooked(model, type_.inner, seen)
        case m.Variant():
            # msgspec's tagged unions need one class per tag: a union case has several.
            return type_.open or any(
                case.tag is None
                or union_case(model, case) is not None
                or variant_case(model, case) is not None
                for case in type_.cases
            )
        case m.Union_():
            return not native_union(model, type_, seen)
        case m.Record():
            return type_.open  # `hooks.OpenRecord`: no struct
        case m.List() | m.Map() | m.AtomRef() | m.InterfaceRef() | m.Enum():
            return False  # (a list's or map's items are decoded on their own)
        case _:
            assert_never(type_)


def native_union(model: m.Model, union: m.Union_, seen: frozenset[str] = frozenset()) -> bool:
    kinds_seen: set[str] = set()
    for alternative in union.alternatives:
        if hooked(model, alternative, seen):
            return False
        kinds = json_kinds(model, alternative, seen)
        if "any" in kinds or kinds & kinds_seen:
            return False
        kinds_seen |= kinds
    return True
