"""What a package of a view of some features defines itself, and what it borrows from the
stable package (the Python mapping's decision; code generation writes what it says).

`idlc generate --features … --stable-package P` (docs/python-mapping.md, "Packages of
unstable features") writes only what the view changes: a declaration the stable view does
not have, or has otherwise, or one whose code would name such a declaration (a record with
a field of a changed type), or one whose class derives from a changed one's: a record
alternative of a changed union the runtime's hooks decode (it derives from the union's
marker base, `Plan.union_bases`), or a record that is itself a case class of a changed
variant (`Plan.case_records`). Any other typedef a changed union or variant names keeps
its stable class: the variant's own case class derives from the borrowed one. Everything
else is imported from P, so `unstable.X is protocol.X` for every declaration the features
leave alone, and the two packages share one family of types for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import assert_never

from idlc.nodes import node
from idlc.semantics import model as m
from idlc.targets.python.mapping import Plan, all_interfaces


@node
class Overlay:
    """What the package of a view defines itself; the rest it imports from `package`, the
    package of the stable view of the same sources."""

    #: the stable package's import path
    package: str
    #: the typedefs and interfaces the package defines itself
    typedefs: frozenset[str]
    interfaces: frozenset[str]
    #: the atoms and interfaces (also imported ones) whose reference classes the stable
    #: package has, in its order
    stable_refs: tuple[str, ...]


def overlay(view: m.Model, stable: m.Model, plan: Plan, package: str) -> Overlay:
    """What the package of `view` (whose plan is `plan`) defines itself and what it imports
    from `package`, generated from `stable`."""
    typedefs, interfaces = changed(view, stable, plan)
    stable_refs = (*stable.atoms, *(name for name, _ in all_interfaces(stable)))
    return Overlay(package, typedefs, interfaces, stable_refs)


def changed(view: m.Model, stable: m.Model, plan: Plan) -> tuple[frozenset[str], frozenset[str]]:
    """The typedefs and interfaces of `view` whose code differs from the stable view's
    (`plan`: `view`'s, which says which classes derive from which)."""
    names = {name: set(_named(typedef.type)) for name, typedef in view.typedefs.items()}
    chosen = {name: set(_chosen(typedef.type, plan)) for name, typedef in view.typedefs.items()}
    typedefs = {
        name for name, typedef in view.typedefs.items() if stable.typedefs.get(name) != typedef
    }
    interfaces: set[str] = set()
    while True:
        before = (len(typedefs), len(interfaces))
        for name in view.typedefs:
            if name not in typedefs and names[name] & typedefs:
                typedefs.add(name)
        for name in list(typedefs):
            typedefs |= chosen[name] & view.typedefs.keys()
        for name, interface in view.interfaces.items():
            uses = {used for member in interface.members for used in _member_names(member)}
            if stable.interfaces.get(name) != interface or uses & typedefs:
                interfaces.add(name)
                for member in interface.members:
                    for type_ in _member_types(member):
                        typedefs |= set(_chosen(type_, plan)) & view.typedefs.keys()
        if (len(typedefs), len(interfaces)) == before:
            return frozenset(typedefs), frozenset(interfaces)


def _member_types(member: m.Member) -> tuple[m.Type, ...]:
    match member:
        case m.Value():
            return (member.type,)
        case m.Relation():
            return ()
        case m.Operation():
            return (member.input, member.output)
        case _:
            assert_never(member)


def _member_names(member: m.Member) -> Iterator[str]:
    for type_ in _member_types(member):
        yield from _named(type_)


def _named(type_: m.Type) -> Iterator[str]:
    """Every typedef `type_` names, at any depth."""
    match type_:
        case m.Primitive() | m.AtomRef() | m.InterfaceRef() | m.Enum():
            pass
        case m.TypeRef():
            yield type_.name
        case m.Optional() | m.List():
            yield from _named(type_.inner)
        case m.Map():
            yield from _named(type_.value)
        case m.Record():
            for field in type_.fields:
                yield from _named(field.type)
        case m.Variant():
            for case in type_.cases:
                yield from _named(case.type)
            if type_.unknown is not None:
                yield from _named(type_.unknown.type)
            if type_.shared is not None:
                yield from _named(type_.shared)
        case m.Union_():
            for alternative in type_.alternatives:
                yield from _named(alternative)
        case _:
            assert_never(type_)


def _chosen(type_: m.Type, plan: Plan) -> Iterator[str]:
    """Every typedef whose class derives from a class of a union or variant of `type_` (not
    through typedefs: those are definitions of their own), so that it changes with it."""
    match type_:
        case m.Primitive() | m.AtomRef() | m.InterfaceRef() | m.Enum() | m.TypeRef():
            pass
        case m.Optional() | m.List():
            yield from _chosen(type_.inner, plan)
        case m.Map():
            yield from _chosen(type_.value, plan)
        case m.Record():
            for field in type_.fields:
                yield from _chosen(field.type, plan)
        case m.Variant():
            classes = plan.variants[type_]
            for case, names in zip(type_.cases, classes.cases, strict=True):
                if names.variant is not None:
                    # A case of an inner variant: its classes derive from the inner
                    # variant's case records, so all it names changes with it.
                    yield from _named(case.type)
                else:
                    yield from (
                        name
                        for name in _named(case.type)
                        if plan.typedefs.get(name) in plan.case_records
                    )
                yield from _chosen(case.type, plan)
            if type_.unknown is not None:
                yield from _chosen(type_.unknown.type, plan)
        case m.Union_():
            marker = plan.union_markers.get(type_)
            for alternative in type_.alternatives:
                if marker is not None:
                    yield from (
                        name
                        for name in _named(alternative)
                        if marker in plan.union_bases.get(plan.typedefs.get(name, ""), ())
                    )
                yield from _chosen(alternative, plan)
        case _:
            assert_never(type_)
