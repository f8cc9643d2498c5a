"""Where inline types stand: which of them a definition must define beside itself.

Their names come from the Python mapping's plan (`idlc.targets.python.mapping`, which uses
`idlc.targets.python.naming`); this module only finds them, in the order they are written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from idlc.semantics import model as m
from idlc.targets.python.mapping import NAMED_KINDS

InlineType = m.Record | m.Enum | m.Variant | m.Union_


def inline_types(type_: m.Type) -> Iterator[InlineType]:
    """The inline types directly inside `type_` that need their own definition."""
    match type_:  # (most types are names and primitives: they are asked first)
        case m.Primitive() | m.TypeRef() | m.AtomRef() | m.InterfaceRef():
            pass
        case m.Record() | m.Enum() | m.Variant() | m.Union_():
            yield type_
        case m.Optional() | m.List():
            yield from inline_types(type_.inner)
        case m.Map():
            yield from inline_types(type_.value)
        case _:
            assert_never(type_)


def _case_records(type_: m.Type) -> tuple[m.Record, ...]:
    """The inline records a variant case defines: itself, or its inline union's."""
    if isinstance(type_, m.Record):
        return (type_,)
    if isinstance(type_, m.Union_):
        return tuple(item for item in type_.alternatives if isinstance(item, m.Record))
    return ()


def nested(type_: m.Type) -> Iterator[InlineType]:
    """Every inline type inside a definition (its fields, cases), recursively."""
    if isinstance(type_, m.Record):
        fields = type_.fields
    elif isinstance(type_, m.Variant):
        fields = (type_.shared.fields if type_.shared is not None else ()) + tuple(
            field_
            for case in type_.cases
            for record in _case_records(case.type)
            for field_ in record.fields
        )
    elif isinstance(type_, m.Union_):
        fields = ()
        for alternative in type_.alternatives:
            if not isinstance(alternative, NAMED_KINDS):
                for inner in inline_types(alternative):
                    yield inner
                    yield from nested(inner)
            else:
                # Defined by the union's own definition; its own insides follow.
                yield from nested(alternative)
    else:
        fields = ()
    for field_ in fields:
        for inner in inline_types(field_.type):
            yield inner
            yield from nested(inner)
    if isinstance(type_, m.Variant) and type_.unknown is not None:  # `unknown: T;`
        for inner in inline_types(type_.unknown.type):
            yield inner
            yield from nested(inner)


def member_types(member: m.Member) -> list[m.Type]:
    """The types an interface member writes itself (a relation only names its target)."""
    if isinstance(member, m.Operation):
        return [member.input, member.output]
    if isinstance(member, m.Value):
        return [member.type]
    return []
