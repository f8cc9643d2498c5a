"""What each field default stands for, names followed, and whether it fits: worked out once.

`= []`, `= {}` and scalar literals mean something only once the field's type is followed
through typedef names, `optional<…>` and unions (docs/language.md, "Records and field
defaults"): `[]` is the empty list or, in a map, the empty map; `{}` the empty map or a
record with every field at its default (which record, in a union: the first alternative
`{}` fits, as decoding tries them); a scalar, a value of a primitive or an enum. The check
(`checks.check_defaults`, E0118) and the Python target (how the
default is written: `idlc.targets.python.hints`) both ask it, so it is worked out here for
every field of the model with a default when the model's arena is made
(`idlc.semantics.facts.Typedefs`), with its problem if any, and stored by field
(`queries.default_facts`).

Optional layers and names are followed by the arena's facts (`queries.present_chain`,
which knows a name that is only optional layers of itself); only unions, which may hold
themselves (`type U = union { int32; U; }`), are walked here, each once on a path. Nothing
raises on a model with errors: a name that does not resolve leaves the default unjudged
(reported elsewhere).
"""

from __future__ import annotations

import binascii
from collections.abc import Iterable
from typing import Literal, assert_never

from idlc.nodes import ByNode, node
from idlc.semantics import model, queries
from idlc.semantics.facts import Typedefs

__all__ = ["DefaultFacts", "Problem", "StandsFor", "default_facts", "work_out"]

#: Why a default does not fit its field's type: the message and a help, if any.
Problem = tuple[str, str | None]

#: What a default stands for: `empty-list` and `empty-map`, `[]` or `{}` made empty;
#: `empty-record`, `{}` as a record with every field at its default (`DefaultFacts.type`);
#: `value`, the literal as a value of the type a present value of the field is (a
#: primitive, an enum: `DefaultFacts.type`).
StandsFor = Literal["empty-list", "empty-map", "empty-record", "value"]


@node
class DefaultFacts:
    """What a field's default stands for, and why it does not fit, if it does not."""

    stands_for: StandsFor
    #: `empty-record`: the record `{}` builds, as the type whose class builds it — its
    #: typedef's name, or the inline record. `value`: what a present value of the field is
    #: (names and `optional<…>` followed); None for a name that does not resolve. None for
    #: the empty list and map.
    type: model.Type | None
    #: Why the default does not fit the field's type (E0118), or None.
    problem: Problem | None


def work_out(arena: Typedefs, records: Iterable[model.Record]) -> ByNode[model.Field, DefaultFacts]:
    """The facts of the default of every field of `records` that has one."""
    stored: ByNode[model.Field, DefaultFacts] = ByNode()
    for record in records:
        for field in record.fields:
            if field.default is not None:
                stored[field] = default_facts(field, arena)
    return stored


def default_facts(field: model.Field, arena: Typedefs) -> DefaultFacts:
    """What the default of `field` (which has one) stands for, and its problem."""
    literal = field.default
    assert literal is not None
    problem = _problem(literal, field.type, arena, frozenset())
    if queries.is_tristate(field.type, arena):
        problem = _TRISTATE
    value = literal.value
    if value == ():
        map_ = _empty_list_is_map(field.type, arena, frozenset())
        return DefaultFacts("empty-map" if map_ else "empty-list", None, problem)
    if value is model.EMPTY_OBJECT:
        record = _empty_object_record(literal, field.type, arena, frozenset())
        if record is None:
            return DefaultFacts("empty-map", None, problem)
        return DefaultFacts("empty-record", record, problem)
    return DefaultFacts("value", queries.present_chain(field.type, arena)[0], problem)


_TRISTATE: Problem = (
    "a field that tells absent from `null` cannot have a default: absent is a state of its " "own",
    "remove the default, or write `nullable<…>` with it",
)


# -- the problem -----------------------------------------------------------------------------


def _literal_kind(literal: model.Literal) -> str:
    value = literal.value
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if value is model.EMPTY_OBJECT:
        return "`{}`"
    return "`[]`"


def _problem(
    literal: model.Literal, type_: model.Type, arena: Typedefs, seen: frozenset[int]
) -> Problem | None:
    """Why `literal` cannot be the default of a field of `type_`, or None. `seen`: the
    unions whose alternatives are being tried, on the way here."""
    present, last = queries.present_chain(type_, arena)
    if present is None:
        # A name that does not resolve, or a cycle of aliases: reported elsewhere. A name
        # that is only `optional<…>` layers of itself (`type A = optional<A>`): no value
        # of its own to offer.
        if last is not None and queries.named_target(last, arena) is not None:
            return f"{_literal_kind(literal)} fits no value of this type", None
        return None
    value = literal.value
    # Exhaustive over the model's type union: a new kind of type is a mypy error here
    # until the defaults it takes are written down.
    match present:
        case model.Primitive():
            return _primitive_default_problem(literal, present.kind)
        case model.Enum():
            if not isinstance(value, str):
                return (
                    f"{_literal_kind(literal)} is not a value of the enum",
                    "write one of its values",
                )
            if present.open or any(item.value == value for item in present.values):
                return None
            listed = ", ".join(f'"{item.value}"' for item in present.values[:6])
            more = ", …" if len(present.values) > 6 else ""
            return f"{literal.raw} is not a value of the enum", f"its values are {listed}{more}"
        case model.List():
            if value == ():
                return None
            return f"{_literal_kind(literal)} is not a list", "the only list default is `[]`"
        case model.Map():
            if value == () or value is model.EMPTY_OBJECT:
                return None
            return f"{_literal_kind(literal)} is not a map", "the only map default is `{}`"
        case model.Record():
            if value is model.EMPTY_OBJECT:
                return _empty_record_problem(present, arena)
            return f"{_literal_kind(literal)} is not a record", "the only record default is `{}`"
        case model.Union_():
            if id(present) in seen:
                # A union holding itself (through names, maybe `optional<…>`): no value
                # of its own to offer there.
                return f"{_literal_kind(literal)} fits no value of this type", None
            inside = seen | {id(present)}
            for alternative in present.alternatives:
                if _problem(literal, alternative, arena, inside) is None:
                    return None
            return f"{_literal_kind(literal)} fits no alternative of the union", None
        case (
            model.AtomRef()
            | model.InterfaceRef()
            | model.Variant()
            | model.TypeRef()  # (never: what a present value is has its names followed,
            | model.Optional()  # and its `optional<…>` layers looked through)
        ):
            return (
                f"a field holding {queries.describe_kind(present)} cannot have a default",
                "defaults are for booleans, numbers, strings, enums, lists, maps and records; "
                "remove it",
            )
        case _:
            assert_never(present)


def _primitive_default_problem(literal: model.Literal, kind: model.PrimitiveKind) -> Problem | None:
    """Why `literal` cannot be the default of a field of primitive `kind`, or None."""
    value = literal.value
    bounds = kind.integer_range
    if kind is model.PrimitiveKind.JSON:
        return None
    if kind is model.PrimitiveKind.BOOL:
        if isinstance(value, bool):
            return None
        return f"{_literal_kind(literal)} is not a `bool`", "write `true` or `false`"
    if bounds is not None:
        if isinstance(value, float):
            if value.is_integer():
                return f"`{literal.raw}` is not an integer literal", f"write `{int(value)}`"
            return f"`{literal.raw}` is not an integer", "write an integer"
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{_literal_kind(literal)} is not a `{kind.value}`", "write an integer"
        low, high = bounds
        if not low <= value <= high:
            return (
                f"`{literal.raw}` is out of the range of `{kind.value}`",
                f"a `{kind.value}` is between {low} and {high}",
            )
        return None
    if kind is model.PrimitiveKind.FLOAT64:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return None
        return f"{_literal_kind(literal)} is not a `float64`", "write a number"
    if kind is model.PrimitiveKind.STRING:
        if isinstance(value, str):
            return None
        return f"{_literal_kind(literal)} is not a `string`", 'write a string: `"…"`'
    if kind is model.PrimitiveKind.BYTES:
        if isinstance(value, str):
            import base64  # only a `bytes` default needs it: `idlc check` starts without

            try:
                base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return "this string is not valid base64", "`bytes` defaults are base64"
            return None
        return f"{_literal_kind(literal)} is not `bytes`", "write a base64 string"
    return "a field of type `unit` cannot have a default", "remove the default"


def _empty_record_problem(record: model.Record, arena: Typedefs) -> Problem | None:
    """Why `{}` cannot stand for `record` with every field at its default, or None.

    Every field needs a default or `optional<…>`; and following `{}` defaults from record
    to record must not come back to `record`, or building the default would never end."""
    for field in record.fields:
        if field.default is None and not queries.optional_inner(field.type, arena)[1]:
            return (
                f"`{{}}` leaves the record's required field `{field.name}` without a value",
                f"give `{field.name}` a default, or make it `optional<…>`",
            )
    seen: set[int] = set()
    pending = [record]
    while pending:
        current = pending.pop()
        for field in current.fields:
            if field.default is None or field.default.value is not model.EMPTY_OBJECT:
                continue
            inner = queries.present_chain(field.type, arena)[0]
            if inner is record:
                return (
                    f"`{{}}` builds the record again inside itself (field `{field.name}`), "
                    "without end",
                    f"remove the default `{{}}` of `{field.name}`",
                )
            if isinstance(inner, model.Record) and id(inner) not in seen:
                seen.add(id(inner))
                pending.append(inner)
    return None


# -- what `[]` and `{}` build -----------------------------------------------------------------


def _empty_list_is_map(type_: model.Type, arena: Typedefs, seen: frozenset[int]) -> bool:
    """Whether the default `[]` of a field of `type_` is the empty map (in a map, `[]`
    means empty: docs/language.md, "Records and field defaults"), not the empty list. In a
    union, the first alternative that takes `[]` decides, as it does when decoding; a union
    met again on the way (one holding itself) decides nothing."""
    present = _present_or_written(type_, arena)
    match present:
        case model.Map():
            return True
        case model.Union_():
            if id(present) in seen:
                return False
            for alternative in present.alternatives:
                if _takes_empty_list(_present_or_written(alternative, arena)):
                    return _empty_list_is_map(alternative, arena, seen | {id(present)})
            return False
        case (
            model.Primitive()
            | model.Optional()
            | model.List()
            | model.AtomRef()
            | model.InterfaceRef()
            | model.TypeRef()
            | model.Record()
            | model.Enum()
            | model.Variant()
        ):
            return False
        case _:
            assert_never(present)


def _takes_empty_list(type_: model.Type) -> bool:
    """Whether a value of `type_` (a present value: names and `optional<…>` followed) may
    be `[]`."""
    match type_:
        case model.List() | model.Map() | model.Union_():
            return True
        case model.Primitive():
            return type_.kind is model.PrimitiveKind.JSON
        case (
            model.Optional()
            | model.AtomRef()
            | model.InterfaceRef()
            | model.TypeRef()
            | model.Record()
            | model.Enum()
            | model.Variant()
        ):
            return False
        case _:
            assert_never(type_)


def _present_or_written(type_: model.Type, arena: Typedefs) -> model.Type:
    """What a present value of `type_` is, or `type_` itself for a name that does not
    resolve (reported)."""
    present = queries.present_chain(type_, arena)[0]
    return type_ if present is None else present


def _empty_object_record(
    literal: model.Literal, type_: model.Type, arena: Typedefs, seen: frozenset[int]
) -> model.Type | None:
    """The record that the default `{}` of a field of `type_` builds — the typedef name of
    the record (its class), or the inline record — or None when `{}` is the empty map (a
    map or `json`: docs/language.md, "Records and field defaults"). In a union, the first
    alternative that `{}` fits decides, as it does when decoding; a union met again on the
    way (one holding itself) decides nothing."""
    present, name = queries.present_chain(type_, arena)
    if isinstance(present, model.Record):
        if name is not None and arena[name].type is present:
            return model.TypeRef(name, type_.span)  # the record's typedef: its class
        return present
    if isinstance(present, model.Union_) and id(present) not in seen:
        for alternative in present.alternatives:
            if _problem(literal, alternative, arena, frozenset()) is None:
                return _empty_object_record(literal, alternative, arena, seen | {id(present)})
    return None
