"""The definitions the package writes, in the order it writes them: for each typedef and each
interface, its own and those of the inline types it must define beside itself.

A definition is a module-level class (or type alias) under the name the plan gave it, with
the plan's facts about it (an open record's struct of its declared fields, a variant's
classes, a union's marker), so that code generation writes them without asking the model
which types are inline, where they stand or what they are (`Plan.typedef_definitions`,
`Plan.interface_definitions`). The names come from the plan (`idlc.targets.python.mapping`);
this module only finds the inline types, in the order they are written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, assert_never

from idlc.nodes import node
from idlc.semantics import model as m

if TYPE_CHECKING:
    from idlc.targets.python.mapping import Plan, VariantNames

#: The types that get a class (or a named alias) of their own wherever they stand.
NAMED_KINDS = (m.Record, m.Enum, m.Variant, m.Union_)

InlineType = m.Record | m.Enum | m.Variant | m.Union_


@node
class RecordDefinition:
    """A record's class."""

    name: str
    record: m.Record
    #: An open record: the private struct of its declared fields, which its class wraps;
    #: None for a closed record.
    fields_class: str | None = None
    doc: str | None = None


@node
class EnumDefinition:
    """An enum's class."""

    name: str
    enum: m.Enum
    doc: str | None = None


@node
class VariantDefinition:
    """A variant's classes (its cases', its marker's) and its alias."""

    name: str
    variant: m.Variant
    classes: VariantNames
    doc: str | None = None


@node
class UnionDefinition:
    """A union's alias, with its marker class when msgspec cannot decode it natively."""

    name: str
    union: m.Union_
    #: The marker base class of a union the runtime's hooks decode; None for a native one.
    marker: str | None
    #: With a marker: its alternatives are all lists, tried in order, into a list
    #: (docs/language.md, "Unions").
    of_lists: bool
    #: Its alternatives that are inline types, defined before it, in its order.
    alternatives: tuple[Definition, ...] = ()
    doc: str | None = None


@node
class AliasDefinition:
    """A type alias of a typedef that needs no class of its own (a list, a map, an
    optional, a primitive, another typedef's name)."""

    name: str
    type: m.Type
    doc: str | None = None


Definition = (
    RecordDefinition | EnumDefinition | VariantDefinition | UnionDefinition | AliasDefinition
)


def definitions(
    model: m.Model, plan: Plan
) -> tuple[dict[str, tuple[Definition, ...]], dict[str, tuple[Definition, ...]]]:
    """Each typedef's and each interface's definitions (`Plan.typedef_definitions`,
    `Plan.interface_definitions`), from `plan`'s names and facts."""
    definer = _Definer(plan)
    typedefs = {}
    for typedef in model.typedefs.values():
        type_ = typedef.type
        name = plan.typedefs[typedef.name]
        written: list[Definition] = []
        if not (isinstance(type_, m.Record) and name in plan.case_records):
            # (A record that is a variant's case class: its variant writes it.)
            written.append(definer.definition(type_, name, typedef.doc))
        if isinstance(type_, NAMED_KINDS):
            written += map(definer.inline, nested(type_))
        else:
            # An alias (list, map, optional): the inline types inside it are defined here.
            for inner in inline_types(type_):
                written += definer.tree(inner)
        typedefs[typedef.name] = tuple(written)
    interfaces = {}
    for interface in model.interfaces.values():
        written = []
        for member in interface.members:
            for type_ in member_types(member):
                for inner in inline_types(type_):
                    written += definer.tree(inner)
        interfaces[interface.name] = tuple(written)
    return typedefs, interfaces


class _Definer:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def definition(self, type_: m.Type, name: str, doc: str | None) -> Definition:
        """The definition of `type_`, named `name`."""
        plan = self.plan
        match type_:
            case m.Record():
                fields_class = plan.open_record_fields[type_] if type_.open else None
                return RecordDefinition(name, type_, fields_class, doc)
            case m.Enum():
                return EnumDefinition(name, type_, doc)
            case m.Variant():
                return VariantDefinition(name, type_, plan.variants[type_], doc)
            case m.Union_():
                return UnionDefinition(
                    name,
                    type_,
                    plan.union_markers.get(type_),
                    type_ in plan.list_unions,
                    tuple(
                        self.inline(alternative)
                        for alternative in type_.alternatives
                        if isinstance(alternative, NAMED_KINDS)
                    ),
                    doc,
                )
            case m.Primitive() | m.Optional() | m.List() | m.Map() | m.AtomRef():
                return AliasDefinition(name, type_, doc)
            case m.InterfaceRef() | m.TypeRef():
                return AliasDefinition(name, type_, doc)
            case _:
                assert_never(type_)

    def inline(self, type_: InlineType) -> Definition:
        """The definition of inline type `type_`, under the name the plan gave it."""
        return self.definition(type_, self.plan.inline[type_][0], None)

    def tree(self, type_: InlineType) -> Iterator[Definition]:
        """The inline type `type_`'s definition, and those of every inline type inside it."""
        yield self.inline(type_)
        yield from map(self.inline, nested(type_))


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


def member_types(member: m.Member) -> tuple[m.Type, ...]:
    """The types an interface member writes itself (a relation only names its target)."""
    if isinstance(member, m.Operation):
        return (member.input, member.output)
    if isinstance(member, m.Value):
        return (member.type,)
    return ()
