"""Questions about the resolved model's types, asked the same way everywhere.

Checks, `idlc breaking` and code generation all look through typedefs, past `optional`,
into a type's parts, and name types in messages; they ask here rather than keeping copies
of their own (copies that had drifted apart: two `_strip_optional`s meant different things).
What a typedef name stands for is worked out once, when the model's arena is made
(`idlc.semantics.facts`); this is the one module that reads those facts, so following a
name is a lookup here and nowhere a walk with a `seen` set of its own. So is asking what
a variant case's objects carry (`case_records`, `unknown_case_records`, …) and what a field
default stands for (`default_facts`): the arena stores them for every node of its model
(`idlc.semantics.cases`, `idlc.semantics.defaults`).

The questions that take every kind of type `match` over the model's type union and end in
`assert_never`: a new kind of type is a mypy error in each of them until it is handled.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import TYPE_CHECKING, assert_never

from idlc.semantics import model as m
from idlc.semantics.facts import JSON_ANY, Typedefs, shallow_kinds, spine

if TYPE_CHECKING:
    from idlc.semantics.cases import UnknownCase
    from idlc.semantics.defaults import DefaultFacts


def arena(typedefs: Mapping[str, m.Typedef]) -> Typedefs:
    """`typedefs` as the arena whose facts the questions below read: the model's own
    (`Model.typedefs`), or one made of a plain mapping (a test's)."""
    if isinstance(typedefs, Typedefs):
        return typedefs
    return Typedefs(dict(typedefs))


def typedef_chain(
    type_: m.Type, typedefs: Mapping[str, m.Typedef]
) -> tuple[m.Type | None, str | None]:
    """`type_` with typedef names followed to the type they stand for, and the name of the
    last typedef followed (None when `type_` is no name). The type is None for a cycle of
    typedefs or an unknown name (both reported by the checks)."""
    if not isinstance(type_, m.TypeRef):
        return type_, None
    facts = arena(typedefs).facts(type_.name)
    if facts is None:
        return None, type_.name
    return facts.target, facts.last


def follow_typedefs(type_: m.Type, typedefs: Mapping[str, m.Typedef]) -> m.Type | None:
    """`type_` with typedef names followed until a type that is not a name; None for a cycle
    of typedefs or an unknown name."""
    if not isinstance(type_, m.TypeRef):
        return type_
    known = typedefs if isinstance(typedefs, Typedefs) else arena(typedefs)
    facts = known.looked_into.get(type_.name)
    if facts is not None:
        return facts.target
    typedef = known.get(type_.name)  # (most names: a typedef that stands for its own type)
    return None if typedef is None else typedef.type


def named_target(name: str, typedefs: Mapping[str, m.Typedef]) -> m.Type | None:
    """The type typedef `name` stands for, names followed; None for a cycle of aliases or a
    name no typedef has."""
    facts = arena(typedefs).facts(name)
    return None if facts is None else facts.target


def present_chain(
    type_: m.Type, typedefs: Mapping[str, m.Typedef]
) -> tuple[m.Type | None, str | None]:
    """What a present value of `type_` is — `type_` through typedef names and
    `optional<…>`/`nullable<…>` layers — and the last typedef name followed (None when
    none was). The type is None for a cycle (`type A = optional<A>`) or an unknown name."""
    while isinstance(type_, m.Optional):
        type_ = type_.inner
    if not isinstance(type_, m.TypeRef):
        return type_, None
    facts = arena(typedefs).facts(type_.name)
    if facts is None:
        return None, type_.name
    return facts.present, facts.present_last


def json_kinds(type_: m.Type, typedefs: Mapping[str, m.Typedef]) -> frozenset[str]:
    """The JSON kinds a value of `type_` may take (`"any"` for `json`, and for a name met
    again while looking through typedefs, or one no typedef has)."""
    match type_:
        case m.TypeRef():
            facts = arena(typedefs).facts(type_.name)
            return _ANY if facts is None else facts.kinds
        case m.Optional():
            return json_kinds(type_.inner, typedefs) | shallow_kinds(type_)
        case m.Union_():
            kinds: frozenset[str] = frozenset()
            for alternative in type_.alternatives:
                kinds |= json_kinds(alternative, typedefs)
            return kinds
        case _:
            return shallow_kinds(type_)


_ANY = frozenset({JSON_ANY})


def looked_through(type_: m.Type, typedefs: Mapping[str, m.Typedef]) -> Iterator[m.Type]:
    """Every type a value of `type_` may be, looked through typedef names (followed),
    `optional<…>` (the optional and its inner type) and unions (the union and its
    alternatives): no name among them (`Facts.looked_through`)."""
    nodes, names = spine(type_)
    yield from nodes
    facts_of = arena(typedefs).facts
    for name in names:
        facts = facts_of(name)
        if facts is not None:
            yield from facts.looked_through


def strip_optional(type_: m.Type) -> m.Type:
    """`type_` without the `optional<…>` layers written around it (typedefs not followed)."""
    while isinstance(type_, m.Optional):
        type_ = type_.inner
    return type_


def optional_inner(type_: m.Type, typedefs: Mapping[str, m.Typedef]) -> tuple[m.Type, bool]:
    """`T` for `optional<T>`, also when a typedef stands for the optional, and whether it
    was one; otherwise `type_` itself and False. One layer only. A `nullable<T>` is not
    optional: a field of it must be present."""
    resolved = follow_typedefs(type_, typedefs)
    if isinstance(resolved, m.Optional) and not resolved.nullable:
        return resolved.inner, True
    return type_, False


def record_alternatives(
    type_: m.Type | None, typedefs: Mapping[str, m.Typedef]
) -> list[m.Record] | None:
    """The records of `type_` when it is a union (through typedef names) whose alternatives
    are all records (through typedef names); otherwise None."""
    if not isinstance(type_, m.Union_) or not type_.alternatives:
        return None
    records = [follow_typedefs(alternative, typedefs) for alternative in type_.alternatives]
    if all(isinstance(record, m.Record) for record in records):
        return records  # type: ignore[return-value]
    return None


def unknown_case_records(
    variant: m.Variant, typedefs: Mapping[str, m.Typedef]
) -> tuple[m.Record, ...] | None:
    """The records the object of an unknown tag must also be (`unknown: T;`, a record or a
    union of records: docs/language.md, "Variants"); None without `unknown:` or when T is
    neither (reported, E0119). Stored by the arena (`idlc.semantics.cases`)."""
    found = _unknown_case(variant, typedefs)
    return None if found is None else found.records


def unknown_case_fields(
    variant: m.Variant, typedefs: Mapping[str, m.Typedef]
) -> tuple[m.Field, ...]:
    """The fields of `unknown: T;` that the unknown case exposes as attributes: a record's
    fields, or those every alternative of a union has (same name, same type)."""
    found = _unknown_case(variant, typedefs)
    return () if found is None else found.fields


def _unknown_case(variant: m.Variant, typedefs: Mapping[str, m.Typedef]) -> UnknownCase | None:
    if variant.unknown is None:
        return None
    known = arena(typedefs)
    found = known.unknown_cases.get(variant)
    if found is None:  # a variant not of the arena's model (a test's): worked out now
        from idlc.semantics import cases

        found = cases.unknown_case(variant, known)
    return found


def case_records(case: m.Case, typedefs: Mapping[str, m.Typedef]) -> tuple[m.Record, ...]:
    """The records whose fields the objects of variant case `case` carry beside the
    variant's tag and shared fields (docs/language.md, "Variants"): the case's record; each
    record of a tagged case that is a union of records; for a tagged case naming a variant
    on another tag field, that variant's shared fields, its `unknown:` records and its
    cases' records. Empty for `unit` and for a case the checks report (`check_variant`).
    Stored by the arena for every case of the model (`idlc.semantics.cases`)."""
    known = arena(typedefs)
    found = known.case_records.get(case)
    if found is None:  # a case not of the arena's model (a test's): worked out now
        from idlc.semantics import cases

        found = cases.case_records(case, known)
    return found


def nested_variants(
    case: m.Case, typedefs: Mapping[str, m.Typedef], within: tuple[m.Variant, ...] = ()
) -> Iterator[tuple[m.Variant, tuple[m.Variant, ...]]]:
    """The variants on other tag fields a tagged case holds (docs/language.md, "Variants"):
    the variant it names, then, depth first, those its own tagged cases naming a variant
    hold, at any depth; each with the variants around it (`within` first). A variant met
    again inside itself is yielded, not looked into (reported, E0119)."""
    inner = follow_typedefs(case.type, typedefs)
    if case.tag is None or not isinstance(case.type, m.TypeRef):
        return
    if not isinstance(inner, m.Variant):
        return
    yield inner, within
    if any(met is inner for met in within):
        return
    for inner_case in inner.cases:
        yield from nested_variants(inner_case, typedefs, (*within, inner))


def default_facts(field: m.Field, typedefs: Mapping[str, m.Typedef]) -> DefaultFacts | None:
    """What the default of `field` stands for once names are followed, and why it does not
    fit the field's type if it does not (`idlc.semantics.defaults`); None without a
    default. Stored by the arena for every field of the model."""
    if field.default is None:
        return None
    known = arena(typedefs)
    found = known.defaults.get(field)
    if found is None:  # a field not of the arena's model (a test's): worked out now
        from idlc.semantics import defaults

        found = defaults.default_facts(field, known)
    return found


def type_key(type_: m.Type) -> Hashable:
    """What a type is, without where it was written: equal keys, equal types."""
    match type_:
        case m.Primitive():
            return type_.kind
        case m.TypeRef():
            return ("ref", type_.name)
        case m.Optional():
            return ("nullable" if type_.nullable else "optional", type_key(type_.inner))
        case m.List():
            return ("list", type_key(type_.inner))
        case m.Map():
            return ("map", type_key(type_.value))
        case m.AtomRef():
            return ("atom-ref", type_.atom)
        case m.InterfaceRef():
            return ("interface-ref", type_.interface)
        case m.Record():
            return ("record", tuple((f.name, type_key(f.type)) for f in type_.fields))
        case m.Enum():
            return ("enum", type_.open, tuple(value.value for value in type_.values))
        case m.Variant():
            shared = type_.shared.fields if type_.shared else ()
            return (
                "variant",
                type_.open,
                type_.tag_field,
                tuple((f.name, type_key(f.type)) for f in shared),
                tuple((case.tag, type_key(case.type)) for case in type_.cases),
                type_key(type_.unknown.type) if type_.unknown is not None else None,
            )
        case m.Union_():
            return ("union", tuple(type_key(alt) for alt in type_.alternatives))
        case _:
            assert_never(type_)


def is_tristate(type_: m.Type, typedefs: Mapping[str, m.Typedef]) -> bool:
    """Whether a field of `type_` tells absent, `null` and a value apart: `optional<T>`
    around a `nullable<T>` (through typedef names; docs/language.md, "Nullable and
    tri-state fields")."""
    resolved = follow_typedefs(type_, typedefs)
    if not isinstance(resolved, m.Optional) or resolved.nullable:
        return False
    inner = follow_typedefs(resolved.inner, typedefs)
    return isinstance(inner, m.Optional) and inner.nullable


def children(type_: m.Type) -> tuple[m.Type, ...]:
    """The types written directly inside `type_`: an optional's, list's or map's element,
    a record's fields', a variant's cases', a union's alternatives (names not followed)."""
    match type_:
        case m.Optional() | m.List():
            return (type_.inner,)
        case m.Map():
            return (type_.value,)
        case m.Record():
            return tuple([item.type for item in type_.fields])
        case m.Variant():
            shared = type_.shared.fields if type_.shared is not None else ()
            unknown = (type_.unknown.type,) if type_.unknown is not None else ()
            return (
                tuple(item.type for item in shared)
                + tuple(case.type for case in type_.cases)
                + unknown
            )
        case m.Union_():
            return type_.alternatives
        case m.Primitive() | m.AtomRef() | m.InterfaceRef() | m.TypeRef() | m.Enum():
            return ()
        case _:
            assert_never(type_)


def describe(type_: m.Type) -> str:
    """A type as the IDL writes it, short: typedefs by name, inline types abridged
    (`list<Item>`, `record { … }`)."""
    match type_:
        case m.Primitive():
            return type_.kind.value
        case m.TypeRef():
            return type_.name
        case m.Optional():
            return f"optional<{describe(type_.inner)}>"
        case m.List():
            return f"list<{describe(type_.inner)}>"
        case m.Map():
            return f"map<string, {describe(type_.value)}>"
        case m.AtomRef():
            return f"atom-ref<{type_.atom}>"
        case m.InterfaceRef():
            return f"interface-ref<{type_.interface}>"
        case m.Record():
            return f"{'open ' if type_.open else ''}record {{ … }}"
        case m.Enum():
            return f"{'open ' if type_.open else ''}enum {{ … }}"
        case m.Variant():
            return f'{"open " if type_.open else ""}variant tag "{type_.tag_field}" {{ … }}'
        case m.Union_():
            return "union { … }"
        case _:
            assert_never(type_)


def describe_kind(type_: m.Type) -> str:
    """What kind of type `type_` is, for a sentence: `` `string` ``, a record, a list …"""
    match type_:
        case m.Primitive():
            return f"`{type_.kind.value}`"
        case m.TypeRef():
            return f"`{type_.name}`"
        case m.Optional():
            return "`nullable<…>`" if type_.nullable else "`optional<…>`"
        case m.List():
            return "a list"
        case m.Map():
            return "a map"
        case m.AtomRef():
            return f"`atom-ref<{type_.atom}>`"
        case m.InterfaceRef():
            return f"`interface-ref<{type_.interface}>`"
        case m.Record():
            return "a record"
        case m.Enum():
            return "an enum"
        case m.Variant():
            return "a variant"
        case m.Union_():
            return "a union"
        case _:
            assert_never(type_)
