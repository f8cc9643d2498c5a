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

from typing import TYPE_CHECKING

from idlc.nodes import field, node
from idlc.semantics import model as m

if TYPE_CHECKING:
    from idlc.targets.python.mapping import Plan, VariantNames

#: The types that get a class (or a named alias) of their own wherever they stand.
NAMED_KINDS = (m.Record, m.Enum, m.Variant, m.Union_)

InlineType = m.Record | m.Enum | m.Variant | m.Union_


@node(frozen=False)
class RecordDefinition:
    """A record's class."""

    name: str
    record: m.Record
    #: An open record: the private struct of its declared fields, which its class wraps;
    #: None for a closed record.
    fields_class: str | None = None
    doc: str | None = None


@node(frozen=False)
class EnumDefinition:
    """An enum's class."""

    name: str
    enum: m.Enum
    doc: str | None = None


@node(frozen=False)
class VariantDefinition:
    """A variant's classes (its cases', its marker's) and its alias."""

    name: str
    variant: m.Variant
    #: Its classes (None only while the mapping names it).
    classes: VariantNames | None = None
    doc: str | None = None


@node(frozen=False)
class UnionDefinition:
    """A union's alias, with its marker class when msgspec cannot decode it natively."""

    name: str
    union: m.Union_
    #: The marker base class of a union the runtime's hooks decode; None for a native one.
    marker: str | None
    #: With a marker: its alternatives are all lists, tried in order, into a list
    #: (docs/language.md, "Unions").
    of_lists: bool
    #: Its alternatives that are inline types, defined before it, in its order (their
    #: insides follow the union in the list it is in).
    alternatives: list[Definition] = field(default_factory=list)
    doc: str | None = None
    #: With a marker: its last alternative is `json`, any value no earlier one decodes,
    #: kept as it came (the marker accepts any value: `hooks.CatchAllUnionBase`).
    catch_all: bool = False


@node(frozen=False)
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
    model: m.Model,
    typedef_order: dict[str, list[Definition]],
    interface_order: dict[str, list[Definition]],
    plan: Plan,
) -> tuple[dict[str, tuple[Definition, ...]], dict[str, tuple[Definition, ...]]]:
    """Each typedef's and each interface's definitions (`Plan.typedef_definitions`,
    `Plan.interface_definitions`), from the definitions the mapping noted while naming each
    (`*_order`: every inline type, the typedef's own type first when it has a class)."""
    typedefs = {}
    for typedef in model.typedefs.values():
        type_ = typedef.type
        order = typedef_order[typedef.name]
        if isinstance(type_, NAMED_KINDS):
            order[0].doc = typedef.doc
            if isinstance(type_, m.Record) and plan.typedefs[typedef.name] in plan.case_records:
                # A record that is a variant's case class: its variant writes it.
                order = order[1:]
        else:
            # An alias (list, map, optional): the inline types inside it are defined here.
            alias = AliasDefinition(plan.typedefs[typedef.name], type_, typedef.doc)
            order = [alias, *order]
        typedefs[typedef.name] = tuple(order)
    interfaces = {name: tuple(order) for name, order in interface_order.items()}
    return typedefs, interfaces
