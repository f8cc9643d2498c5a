"""What shape a model type has, looking through typedef names: whether it is a unit, a
record, object-shaped; which JSON kinds its values take; whether msgspec decodes it natively
or through the runtime's hooks; what a variant case holds. Questions the Python mapping
(`idlc.semantics.python_mapping`) and code generation (`idlc.codegen`) both ask.
"""

from __future__ import annotations

from collections.abc import Iterator

from idlc import naming
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


def json_kinds(model: m.Model, type_: m.Type, seen: frozenset[str] = frozenset()) -> set[str]:
    if isinstance(type_, m.TypeRef):
        if type_.name in seen:
            return {"any"}
        return json_kinds(model, model.typedefs[type_.name].type, seen | {type_.name})
    if isinstance(type_, m.Primitive):
        kind = type_.kind
        if kind in (m.PrimitiveKind.STRING, m.PrimitiveKind.BYTES):
            return {"str"}
        if kind is m.PrimitiveKind.UNIT:
            return {"null"}
        if kind is m.PrimitiveKind.JSON:
            return {"any"}
        if kind is m.PrimitiveKind.BOOL:
            return {"bool"}
        if kind is m.PrimitiveKind.FLOAT64:
            return {"float"}
        return {"int"}
    if isinstance(type_, m.Optional):
        return json_kinds(model, type_.inner, seen) | {"null"}
    if isinstance(type_, m.List):
        return {"array"}
    if isinstance(type_, (m.AtomRef, m.InterfaceRef, m.Enum)):
        return {"str"}
    if isinstance(type_, m.Union_):
        kinds: set[str] = set()
        for alternative in type_.alternatives:
            kinds |= json_kinds(model, alternative, seen)
        return kinds
    return {"object"}


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


def nested_case_classes(case_name: str, inner: m.Variant) -> Iterator[tuple[str, str]]:
    """The classes of a case (named `case_name`) that is the variant `inner`: one per case of
    `inner`, `<Case><InnerTag>`, and its unknown-tag class when `inner` is open; with what
    each is, for diagnostics."""
    for case in inner.cases:
        shown = "the default case" if case.tag is None else f"case {case.tag!r}"
        yield naming.case_class_name(case_name, case.tag), f"the class of its {shown}"
    if inner.open:
        tags = [case.tag for case in inner.cases]
        yield naming.unknown_case_class_name(case_name, tags), "the class of its unknown tags"


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
    if isinstance(type_, m.Primitive):
        return type_.kind is m.PrimitiveKind.UINT64
    if isinstance(type_, m.Optional):
        return hooked(model, type_.inner, seen)
    if isinstance(type_, m.Variant):
        # msgspec's tagged unions need one class per tag: a union case has several.
        return type_.open or any(
            case.tag is None
            or union_case(model, case) is not None
            or variant_case(model, case) is not None
            for case in type_.cases
        )
    if isinstance(type_, m.Union_):
        return not native_union(model, type_, seen)
    return isinstance(type_, m.Record) and type_.open  # `hooks.OpenRecord`: no struct


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


def list_union(model: m.Model, union: m.Union_) -> bool:
    """Whether every alternative of `union` is a list (through typedef names): decoded by
    trying them in order, into a list (docs/language.md, "Unions")."""
    return bool(union.alternatives) and all(
        isinstance(resolve_alias(model, alternative), m.List) for alternative in union.alternatives
    )
