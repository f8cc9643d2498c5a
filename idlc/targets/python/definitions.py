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

from typing import TYPE_CHECKING, assert_never

from idlc.nodes import field, node
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


@node(frozen=False)
class Named:
    """An inline type the mapping named (or a typedef's own type), in the order naming met
    it, which is the order its definition is written in: each type before the types inside
    it, those in the order they are written."""

    type: InlineType
    name: str
    #: A union: its alternatives that are inline types (their insides follow the union in
    #: the list it is in).
    alternatives: list[Named] = field(default_factory=list)


def definitions(
    model: m.Model,
    plan: Plan,
    typedef_order: dict[str, list[Named]],
    interface_order: dict[str, list[Named]],
) -> tuple[dict[str, tuple[Definition, ...]], dict[str, tuple[Definition, ...]]]:
    """Each typedef's and each interface's definitions (`Plan.typedef_definitions`,
    `Plan.interface_definitions`), from the inline types naming met in each (`Named`) and
    `plan`'s facts about them."""
    definer = _Definer(plan)
    typedefs = {}
    for typedef in model.typedefs.values():
        type_ = typedef.type
        name = plan.typedefs[typedef.name]
        order = typedef_order[typedef.name]
        written: list[Definition] = []
        if isinstance(type_, NAMED_KINDS):
            own, *inside = order
            if not (isinstance(type_, m.Record) and name in plan.case_records):
                # (A record that is a variant's case class: its variant writes it.)
                written.append(definer.definition(own, typedef.doc))
        else:
            # An alias (list, map, optional): the inline types inside it are defined here.
            written.append(AliasDefinition(name, type_, typedef.doc))
            inside = order
        written += map(definer.definition, inside)
        typedefs[typedef.name] = tuple(written)
    interfaces = {
        name: tuple(map(definer.definition, order)) for name, order in interface_order.items()
    }
    return typedefs, interfaces


class _Definer:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def definition(self, named: Named, doc: str | None = None) -> Definition:
        """The definition of a named type."""
        plan = self.plan
        type_, name = named.type, named.name
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
                    tuple(map(self.definition, named.alternatives)),
                    doc,
                )
            case _:
                assert_never(type_)
