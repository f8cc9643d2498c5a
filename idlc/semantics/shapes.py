"""What shape a model type has, looking through typedef names: whether it is a unit, a
record, object-shaped; which JSON kinds its values take; what a variant case holds. Facts of
the IDL and its wire form, which every target asks (how Python decodes them is
`idlc.targets.python.decoding`). Questions of a model, answered by `queries` from the facts
its arena of typedefs worked out once (`idlc.semantics.facts`).
"""

from __future__ import annotations

from idlc.semantics import model as m
from idlc.semantics import queries

# -- looking through typedefs ---------------------------------------------------------------


def resolve_alias(model: m.Model, type_: m.Type) -> m.Type:
    """`type_` with typedef names followed until a type that is not a name (`type_` itself
    for a cycle of typedefs, reported elsewhere)."""
    resolved = queries.follow_typedefs(type_, model.typedefs)
    return type_ if resolved is None else resolved


def is_unit(model: m.Model, type_: m.Type) -> bool:
    resolved = resolve_alias(model, type_)
    return isinstance(resolved, m.Primitive) and resolved.kind is m.PrimitiveKind.UNIT


def is_record(model: m.Model, type_: m.Type) -> bool:
    return isinstance(resolve_alias(model, type_), m.Record)


def is_object_shaped(model: m.Model, type_: m.Type) -> bool:
    """A record or a variant: its JSON is always an object, so it can be `params` itself."""
    return isinstance(resolve_alias(model, type_), (m.Record, m.Variant))


def needs_params_wrapper(model: m.Model, type_: m.Type) -> bool:
    return not is_unit(model, type_) and not is_object_shaped(model, type_)


# -- JSON kinds, for deciding whether msgspec can tell union alternatives apart -------------


def json_kinds(model: m.Model, type_: m.Type) -> frozenset[str]:
    """The JSON kinds a value of `type_` may take (`"any"` for `json`, and for a name met
    again while looking through typedefs): `queries.json_kinds`, a typedef's worked out
    once (`idlc.semantics.facts`)."""
    return queries.json_kinds(type_, model.typedefs)


def union_case(model: m.Model, case: m.Case) -> m.Union_ | None:
    """The union of records a tagged case holds (through typedef names), or None."""
    if case.tag is None:
        return None
    union = resolve_alias(model, case.type)
    if isinstance(union, m.Union_) and union.alternatives:
        if all(is_record(model, alternative) for alternative in union.alternatives):
            return union
    return None


def shared_fields(variant: m.Variant) -> tuple[m.Field, ...]:
    return variant.shared.fields if variant.shared is not None else ()


def variant_case(model: m.Model, case: m.Case) -> m.Variant | None:
    """The variant a tagged case holds through typedef names (docs/language.md, "Variants":
    a case that is itself a variant on another tag field), or None."""
    if case.tag is None or not isinstance(case.type, m.TypeRef):
        return None
    inner = resolve_alias(model, case.type)
    return inner if isinstance(inner, m.Variant) else None


def list_union(model: m.Model, union: m.Union_) -> bool:
    """Whether every alternative of `union` is a list (through typedef names): decoded by
    trying them in order, into a list (docs/language.md, "Unions")."""
    return bool(union.alternatives) and all(
        isinstance(resolve_alias(model, alternative), m.List) for alternative in union.alternatives
    )


def catch_all_union(model: m.Model, union: m.Union_) -> bool:
    """Whether the last alternative of `union` is `json` (through typedef names): "any value
    no earlier alternative decodes", kept as it came (docs/language.md, "Unions")."""
    if len(union.alternatives) < 2:
        return False
    last = resolve_alias(model, union.alternatives[-1])
    return isinstance(last, m.Primitive) and last.kind is m.PrimitiveKind.JSON
