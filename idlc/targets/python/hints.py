"""Questions about a model type that decide how its Python form is written: whether its
expression is `None` itself, how a field of it says absent, how its default is built.

They look through typedefs (the arena, `queries`): what matters is the type a value has on the
wire, not the name an IDL file gave it. The mapping stage asks them once and keeps the
answers in the plan (`FieldFacts`, `Plan.optional_of_none`), which code generation reads.
"""

from __future__ import annotations

from typing import Literal, assert_never

from idlc.nodes import node
from idlc.semantics import model as m
from idlc.semantics import queries

#: How a field's default is written in Python: `list` and `dict`, `[]` or `{}` made anew by
#: that factory; `record`, `{}` made by the class of `Default.type`; `member`, the enum
#: member of `Default.type`'s class; `value`, a value an open enum does not declare, passed
#: to that class; `float`, an integer written as a float; `bytes`, a base64 string decoded;
#: `plain`, the literal as it is (a bool, a number, a string).
DefaultForm = Literal["list", "dict", "record", "member", "value", "float", "bytes", "plain"]


@node
class Default:
    """How a field's default is written (docs/language.md, "Records and field defaults")."""

    form: DefaultForm
    #: `record`: the type whose class builds `{}` (the record's typedef name, or the inline
    #: record); `member` and `value`: the enum's type (as the field writes it, without
    #: `optional<…>`). None otherwise.
    type: m.Type | None = None


@node
class FieldFacts:
    """How a field is written in Python, beside its name and annotation."""

    #: Absent, `null` and a value apart (`optional<nullable<T>>`, docs/language.md,
    #: "Nullable and tri-state fields"): absent is `msgspec.UNSET`.
    tristate: bool = False
    #: How its default is written; None without one.
    default: Default | None = None


#: The facts of most fields: nothing beyond their name and type (the plan keeps no entry).
PLAIN = FieldFacts()
_TRISTATE = FieldFacts(tristate=True)

#: The types a field can be tri-state through (`queries.is_tristate`): asked first, as most
#: fields are of none of them.
_MAY_BE_TRISTATE = frozenset({m.Optional, m.TypeRef})


def field_facts(model: m.Model, field_: m.Field) -> FieldFacts:
    """How `field_` is written (`PLAIN` for most fields)."""
    type_ = field_.type
    kind = type(type_)
    if kind is m.TypeRef:
        typedef = model.typedefs.get(type_.name)  # type: ignore[union-attr]
        may_be_tristate = typedef is not None and type(typedef.type) in _MAY_BE_TRISTATE
    else:
        may_be_tristate = kind is m.Optional
    tristate = may_be_tristate and queries.is_tristate(type_, model.typedefs)
    if field_.default is None:
        return _TRISTATE if tristate else PLAIN
    return FieldFacts(tristate, default_of(model, field_))


def default_of(model: m.Model, field_: m.Field) -> Default:
    """How the default of `field_` (which has one) is written: from what the model's arena
    worked out it stands for (`queries.default_facts`), names followed there."""
    facts = queries.default_facts(field_, model.typedefs)
    literal = field_.default
    assert facts is not None and literal is not None
    match facts.stands_for:
        case "empty-list":
            return Default("list")
        case "empty-map":
            return Default("dict")
        case "empty-record":
            return Default("record", facts.type)
        case "value":
            pass
        case _:
            assert_never(facts.stands_for)
    value = literal.value
    type_ = field_.type
    # What a present value is (the field's type itself for a name that does not resolve).
    resolved = type_ if facts.type is None else facts.type
    if isinstance(resolved, m.Enum) and isinstance(value, str):
        declared = any(enum_value.value == value for enum_value in resolved.values)
        return Default("member" if declared else "value", queries.strip_optional(type_))
    if isinstance(value, bool):
        return Default("plain")
    if isinstance(value, int) and _is_primitive(resolved, m.PrimitiveKind.FLOAT64):
        return Default("float")
    if isinstance(value, str) and _is_primitive(resolved, m.PrimitiveKind.BYTES):
        return Default("bytes")
    return Default("plain")


def _is_primitive(type_: m.Type, kind: m.PrimitiveKind) -> bool:
    return isinstance(type_, m.Primitive) and type_.kind is kind


def is_none(model: m.Model, type_: m.Type) -> bool:
    """Whether the Python expression of `type_` is `None` itself (`unit`, or an optional or
    union of nothing else, through aliases): `X | None` would then fail when the module
    loads. That is: a value of it can be no JSON but `null` (the arena's kinds, which a cycle
    of names or an unknown one makes "any", so this always ends; a union of no alternatives,
    which the checks reject, has none)."""
    return queries.json_kinds(type_, model.typedefs) <= _ONLY_NULL


_ONLY_NULL = frozenset({"null"})
